package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;
import ij.Prefs;
import ij.WindowManager;
import ij.process.ImageProcessor;

import java.awt.event.KeyEvent;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** "GPU Gaussian Blur..." with "stack" stopped part way: by Esc, which ImageJ's runner heeds, or by a failure. */
class GaussianBlurStackStopTest {

	private static final String ESC = "GPU Gaussian Blur (Esc after slice 2)...";

	/** The menu command, with the user pressing Esc once slice 2 is blurred. */
	public static class EscapeAfterSlice2 extends GaussianBlurPlugin {
		@Override
		public void run(ImageProcessor ip) {
			super.run(ip);
			if (ip.getSliceNumber() == 2) IJ.setKeyDown(KeyEvent.VK_ESCAPE);
		}
	}

	@BeforeAll
	static void registerCommands() {
		Display.registerCommands(Map.of(ESC, EscapeAfterSlice2.class.getName()));
	}

	@Test
	void escPartWayLeavesWholeSlicesAndNothingForUndoToPutBack() {
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 6, 4);
		imp.setSlice(1);
		int threads = Prefs.getThreads();
		// one thread, so that slices 1 and 2 are the ones done when Esc comes
		Prefs.setThreads(1);
		WindowManager.setTempCurrentImage(imp);
		try {
			// leaves slice 1's earlier pixels in the current processor's snapshot
			IJ.run(imp, "Add...", "value=7 slice");
			ImagePlus before = imp.duplicate(), expected = imp.duplicate();
			for (int s = 1; s <= 2; s++)
				ImageJReference.blur2D(expected.getStack().getProcessor(s), 2, 2);
			IJ.run(imp, ESC, "sigma=2 stack");
			ImageJReference.assertClose(expected, imp, "after Esc");
			assertFalse(ImageJReference.samePixels(before, imp), "nothing was blurred");
			byte[] result = ((byte[]) imp.getStack().getPixels(1)).clone();
			IJ.resetEscape();
			// with the runner's final call skipped on Esc, Undo swapped the blurred slice 1 with
			// its pixels before "Add...": a stack change claimed undoable in part
			ij.Undo.undo();
			assertArrayEquals(result, (byte[]) imp.getStack().getPixels(1), "slice 1 after Edit>Undo");
		} finally {
			IJ.resetEscape();
			Prefs.setThreads(threads);
			WindowManager.setTempCurrentImage(null);
		}
	}

	@Test
	void aSingleImageShowsTheBlursProgressAndAStackTheRunnersOnly() {
		// a single image's blur heard no progress: seconds on the CPU at a large sigma with the
		// bar standing still, where ImageJ's Gaussian Blur shows its progress
		GaussianBlurPlugin.SliceBlur saved = GaussianBlurPlugin.sliceBlur;
		java.util.List<fiji.cuda.ops.Progress> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
		GaussianBlurPlugin.sliceBlur = (p, x, y, r, o) -> {
			seen.add(o.progress());
			return fiji.cuda.gaussian.GaussianBlur.blur2D(p, x, y, r, o);
		};
		try {
			for (int slices : new int[] { 1, 3 }) {
				seen.clear();
				LocalThresholdPluginTest.asMacro(
					arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), "GPU Gaussian Blur...", arg),
					ImageJReference.noise("16-bit", 30, 20, slices, 6), slices == 1 ? "sigma=2" : "sigma=2 stack");
				assertEquals(slices, seen.size());
				for (fiji.cuda.ops.Progress p : seen)
					if (slices == 1) org.junit.jupiter.api.Assertions.assertSame(IjProgress.BAR_ONLY, p);
					else org.junit.jupiter.api.Assertions.assertNotSame(IjProgress.BAR_ONLY, p);
			}
		} finally {
			GaussianBlurPlugin.sliceBlur = saved;
		}
	}

	@Test
	void aFailureOnALaterSliceSaysWhichSlicesAreBlurred() {
		// the message was "out of memory: ..." alone, with slices 1-2 blurred and nothing saying so
		ImagePlus imp = ImageJReference.noise("16-bit", 30, 20, 6, 5);
		ImagePlus expected = imp.duplicate(), before = imp.duplicate();
		for (int s = 1; s <= 2; s++)
			ImageJReference.blur2D(expected.getStack().getProcessor(s), 2, 2);
		int threads = Prefs.getThreads();
		Prefs.setThreads(1);
		GaussianBlurPlugin.SliceBlur saved = GaussianBlurPlugin.sliceBlur;
		int[] calls = { 0 };
		GaussianBlurPlugin.sliceBlur = (p, x, y, r, o) -> {
			if (++calls[0] == 3) throw new OutOfMemoryError("Java heap space");
			return fiji.cuda.gaussian.GaussianBlur.blur2D(p, x, y, r, o);
		};
		String log;
		try {
			log = LocalThresholdPluginTest.asMacro(
				arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), "GPU Gaussian Blur...", arg), imp,
				"sigma=2 stack").trim();
		} finally {
			GaussianBlurPlugin.sliceBlur = saved;
			Prefs.setThreads(threads);
		}
		String line = java.util.Arrays.stream(log.split("\n")).filter(l -> l.startsWith("GPU Gaussian Blur: ")).findFirst()
			.orElse(log);
		assertEquals("GPU Gaussian Blur: stopped part way (Java ran out of memory); slices 1-2 of 6 hold the result, and the "
			+ "others are unchanged.", line.substring(0, line.indexOf('.') + 1), log);
		ImageJReference.assertClose(expected, imp, "after the failure");
		for (int s = 3; s <= 6; s++)
			assertArrayEquals((short[]) before.getStack().getPixels(s), (short[]) imp.getStack().getPixels(s), "slice " + s);
	}

	@Test
	void aGpuFailureOnALaterSliceSaysWhichSlicesAreBlurred() {
		// with the GPU chosen in GPU Info, its failure on slice 3 said "(slice 3)" alone: slices 1-2
		// (and, on more threads, slices past 3) were blurred and the others not, with no word of it
		int threads = Prefs.getThreads();
		GaussianBlurPlugin.SliceBlur saved = GaussianBlurPlugin.sliceBlur;
		try {
			for (int t : new int[] { 1, 3 }) {
				ImagePlus imp = ImageJReference.noise("16-bit", 30, 20, 6, 5), before = imp.duplicate();
				Object third = imp.getStack().getPixels(3);
				Prefs.setThreads(t);
				GaussianBlurPlugin.sliceBlur = (p, x, y, r, o) -> {
					if (p.plane(0) == third)
						throw new fiji.cuda.runtime.GpuException("Gaussian Blur: CUDA_ERROR_OUT_OF_MEMORY");
					return fiji.cuda.gaussian.GaussianBlur.blur2D(p, x, y, r, o);
				};
				String log = LocalThresholdPluginTest.asMacro(
					arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), "GPU Gaussian Blur...", arg), imp,
					"sigma=2 stack").trim();
				java.util.List<Integer> blurred = new java.util.ArrayList<>(), unchanged = new java.util.ArrayList<>();
				for (int s = 1; s <= 6; s++)
					if (s != 3) (java.util.Arrays.equals((short[]) before.getStack().getPixels(s),
						(short[]) imp.getStack().getPixels(s)) ? unchanged : blurred).add(s);
				assertArrayEquals((short[]) before.getStack().getPixels(3), (short[]) third, "slice 3");
				// one thread goes in order; more take a range of slices each
				if (t == 1) assertEquals(java.util.List.of(1, 2), blurred);
				String expected = "GPU Gaussian Blur: CUDA_ERROR_OUT_OF_MEMORY (slice 3 of 6; slice" + (blurred.size() > 1 ? "s " : " ")
					+ fiji.cuda.ops.Texts.runs(blurred) + (blurred.size() > 1 ? " are" : " is") + " blurred"
					+ (unchanged.isEmpty() ? ""
						: " and slice" + (unchanged.size() > 1 ? "s " : " ") + fiji.cuda.ops.Texts.runs(unchanged)
							+ (unchanged.size() > 1 ? " are" : " is") + " unchanged")
					+ ")";
				assertTrue(log.contains(expected), t + " threads: " + log + "\nexpected: " + expected);
			}
		} finally {
			GaussianBlurPlugin.sliceBlur = saved;
			Prefs.setThreads(threads);
		}
	}

	@Test
	void aStackRunThatChangesNothingLeavesUndoToTheOneSliceFilterBefore() {
		// the first slice's call dropped the snapshot of "Add..." before anything was blurred: at
		// sigma 0, or with every slice failing, Edit>Undo no longer took that filter back, as it does
		// after ImageJ's own Gaussian Blur
		GaussianBlurPlugin.SliceBlur saved = GaussianBlurPlugin.sliceBlur;
		try {
			for (String how : new String[] { "sigma 0", "failing" }) {
				ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 3, 4);
				imp.setSlice(2);
				byte[] original = ((byte[]) imp.getStack().getPixels(2)).clone();
				WindowManager.setTempCurrentImage(imp);
				try {
					IJ.run(imp, "Add...", "value=7 slice");
					ImagePlus added = imp.duplicate();
					GaussianBlurPlugin.sliceBlur = how.equals("sigma 0") ? saved : (p, x, y, r, o) -> {
						throw new OutOfMemoryError("Java heap space");
					};
					LocalThresholdPluginTest.asMacro(
						arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), "GPU Gaussian Blur...", arg),
						imp, how.equals("sigma 0") ? "sigma=0 stack" : "sigma=2 stack");
					assertTrue(ImageJReference.samePixels(added, imp), "changed (" + how + ")");
					WindowManager.setTempCurrentImage(imp);
					ij.Undo.undo();
					assertArrayEquals(original, (byte[]) imp.getStack().getPixels(2),
						"Undo did not take back the filter before (" + how + ")");
				} finally {
					WindowManager.setTempCurrentImage(null);
				}
			}
		} finally {
			GaussianBlurPlugin.sliceBlur = saved;
		}
	}
}
