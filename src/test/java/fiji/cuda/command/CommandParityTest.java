package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.*;

import fiji.cuda.ij.AlignSlicesPlugin;
import fiji.cuda.ij.GaussianBlur3DPlugin;
import fiji.cuda.ij.GaussianBlurPlugin;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ncc.DriftingStack;
import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.measure.ResultsTable;
import ij.process.ImageProcessor;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandModule;

/**
 * The SciJava commands against the menu commands run as a macro runs them: the same refusals
 * with the same messages, and the same state of the image after a failure.
 */
class CommandParityTest extends HeadlessCommands {

	static String asMacro(ij.plugin.PlugIn plugin, ImagePlus imp, String options) {
		PrintStream out = System.out;
		ByteArrayOutputStream b = new ByteArrayOutputStream();
		System.setOut(new PrintStream(b, true, StandardCharsets.UTF_8));
		Thread t = new Thread(() -> plugin.run(""), "Run$_plugin test");
		ij.Macro.setOptions(t, options);
		ij.WindowManager.setTempCurrentImage(t, imp);
		try {
			t.start();
			t.join(60_000);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		} finally {
			ij.Macro.setOptions(t, null);
			ij.WindowManager.setTempCurrentImage(t, null);
			System.setOut(out);
		}
		return b.toString(StandardCharsets.UTF_8).trim();
	}

	static final ij.plugin.PlugIn GB = arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(),
		"GPU Gaussian Blur...", "");

	static ImagePlus noise(String type, int w, int h, int slices, long seed) {
		ImagePlus imp = IJ.createImage("n", type + " black", w, h, slices);
		Random rnd = new Random(seed);
		for (int s = 1; s <= slices; s++)
			for (int i = 0; i < w * h; i++)
				imp.getStack().getProcessor(s).setf(i, (float) (100 + 40 * rnd.nextGaussian()));
		return imp;
	}

	static ImagePlus drifting() {
		Planes p = DriftingStack.make(PixelType.FLOAT32, 80, 70, new double[] { 0, 1.3, -2.4, 0.6 },
			new double[] { 0, -0.7, 1.8, 2.2 }, 5);
		ImageStack s = new ImageStack(80, 70);
		for (int z = 0; z < p.depth(); z++)
			s.addSlice("d" + z, new ij.process.FloatProcessor(80, 70, (float[]) p.plane(z)));
		return new ImagePlus("drift", s);
	}

	static boolean samePixels(ImagePlus a, ImagePlus b) {
		for (int s = 1; s <= a.getStackSize(); s++) {
			ImageProcessor x = a.getStack().getProcessor(s), y = b.getStack().getProcessor(s);
			for (int i = 0; i < x.getPixelCount(); i++)
				if (Float.floatToIntBits(x.getf(i)) != Float.floatToIntBits(y.getf(i))) return false;
		}
		return true;
	}

	/** 1: width and height without x and y: the macro refuses, the command aligns on (0, 0) ignoring the selection. */
	@Test
	void alignWithWidthAndHeightButNoXYIsRefusedAsByTheMacro() throws Exception {
		ImagePlus a = drifting(), b = drifting();
		a.setRoi(20, 15, 40, 40);
		b.setRoi(20, 15, 40, 40);
		ImagePlus before = a.duplicate();
		String log = asMacro(new AlignSlicesPlugin(), b, "width=40 height=40");
		assertEquals("GPU Align Slices: The landmark needs x=, y=, width= and height= together (or none of them, to take "
			+ "the selection's bounds); missing: x=, y=.", log);
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", a, "width", 40, "height", 40).get();
		assertTrue(samePixels(before, a), "the command moved the slices (landmark at 0,0, not the selection at 20,15)");
		assertTrue(m.isCanceled(), "the command aligned on the landmark (0, 0, 40, 40) without a word");
	}

	/** 2: the command asks for a landmark where no landmark could help (the plug-in checks the image first). */
	@Test
	void alignRefusesAnImageItCannotAlignForTheRealReason() throws Exception {
		java.io.File dir = java.nio.file.Files.createTempDirectory("j9v").toFile();
		IJ.saveAsTiff(noise("16-bit", 30, 30, 3, 1), new java.io.File(dir, "v.tif").getPath());
		ImagePlus hyper = noise("8-bit", 30, 30, 4, 2);
		hyper.setDimensions(2, 2, 1);
		hyper.setOpenAsHyperStack(true);
		ImagePlus[] images = { noise("8-bit", 40, 40, 1, 1), IJ.createImage("rgb", "RGB black", 30, 30, 3), hyper,
			IJ.openVirtual(new java.io.File(dir, "v.tif").getPath()) };
		StringBuilder diffs = new StringBuilder();
		for (ImagePlus imp : images) {
			String macro = asMacro(new AlignSlicesPlugin(), imp, "");
			String cmd = commands.run(AlignSlicesCommand.class, true, "image", imp).get().getCancelReason();
			if (!macro.equals(cmd)) diffs.append("\n macro: ").append(macro).append("\n cmd:   ").append(cmd);
		}
		assertEquals("", diffs.toString());
	}

	/** 3 (known, extended): only some of the landmark's keys. */
	@Test
	void alignPartialLandmarkGetsTheMacrosMessage() throws Exception {
		String macro = asMacro(new AlignSlicesPlugin(), drifting(), "width=64 height=0");
		String cmd = commands.run(AlignSlicesCommand.class, true, "image", drifting(), "width", 64, "height", 0).get()
			.getCancelReason();
		String macro2 = asMacro(new AlignSlicesPlugin(), drifting(), "x=5 y=5 width=20");
		String cmd2 = commands.run(AlignSlicesCommand.class, true, "image", drifting(), "x", 5, "y", 5, "width", 20).get()
			.getCancelReason();
		assertEquals(macro + "\n" + macro2, cmd + "\n" + cmd2);
	}

	/** A body that may throw, for {@link #withVolumeBlur}. */
	interface Body {
		void run() throws Exception;
	}

	/**
	 * Runs {@code body} with {@code blur} in place of both commands' blur of one volume. The menu
	 * command's hook and its interface are package-private to fiji.cuda.ij: set through a proxy.
	 */
	static void withVolumeBlur(java.util.function.Consumer<Planes> blur, Body body) throws Exception {
		GaussianBlur3DCommand.VolumeBlur saved = GaussianBlur3DCommand.volumeBlur;
		java.lang.reflect.Field f = GaussianBlur3DPlugin.class.getDeclaredField("volumeBlur");
		f.setAccessible(true);
		Object savedPlugin = f.get(null);
		Class<?> vb = Class.forName("fiji.cuda.ij.GaussianBlur3DPlugin$VolumeBlur");
		try {
			GaussianBlur3DCommand.volumeBlur = (vol, x, y, z) -> blur.accept(vol);
			f.set(null, java.lang.reflect.Proxy.newProxyInstance(vb.getClassLoader(), new Class<?>[] { vb }, (p, m, args) -> {
				blur.accept((Planes) args[0]);
				return new fiji.cuda.ops.OpReport(fiji.cuda.ops.Backend.CPU, null, false, 0);
			}));
			body.run();
		} finally {
			GaussianBlur3DCommand.volumeBlur = saved;
			f.set(null, savedPlugin);
		}
	}

	/** 4: a GPU failure after planes were written: the menu command marks the image changed; the command does not. */
	@Test
	void blur3DGpuFailureAfterWritingMarksTheImageChangedAsTheMenuCommand() throws Exception {
		String msg = "Gaussian Blur 3D: the GPU failed after writing planes 1-1 of 3";
		withVolumeBlur(vol -> {
			((float[]) vol.plane(0))[0] = -1; // a plane written, as the GPU path does before such a failure
			throw new fiji.cuda.runtime.GpuException(msg);
		}, () -> {
			ImagePlus a = noise("32-bit", 20, 20, 3, 1), b = noise("32-bit", 20, 20, 3, 1);
			asMacro(new GaussianBlur3DPlugin(), b, "x=2 y=2 z=2");
			CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", a).get();
			assertTrue(m.isCanceled());
			assertEquals(-1f, a.getStack().getProcessor(1).getf(0)); // the pixels did change
			assertTrue(b.changes, "menu command");
			assertTrue(a.changes, "SciJava command: changed pixels, changes=false (closing does not ask to save)");
		});
	}

	/**
	 * 4b: a failure in the second volume of a hyperstack. Out of memory there was an Error the
	 * command did not handle (volume 1 blurred, the image not marked changed), and a second volume
	 * left part blurred was said to be unchanged. Both now say what the menu command says.
	 */
	@Test
	void blur3DFailureInALaterVolumeSaysWhatTheMenuCommandSays() throws Exception {
		for (boolean partly : new boolean[] { false, true }) {
			int[] calls = { 0 };
			// each command's second volume fails: before writing (out of memory), or after writing a plane
			withVolumeBlur(vol -> {
				if (calls[0]++ % 2 == 0) {
					((float[]) vol.plane(0))[0] = -1;
					return;
				}
				if (!partly) throw new OutOfMemoryError("Java heap space");
				((float[]) vol.plane(0))[0] = -2;
				throw new fiji.cuda.ops.PartlyDoneException(fiji.cuda.gaussian.GaussianBlur.NAME_3D,
					new IllegalStateException("test"), "slice 1 of 3 holds the result");
			}, () -> {
				ImagePlus a = noise("32-bit", 20, 20, 6, 1), b = noise("32-bit", 20, 20, 6, 1);
				a.setDimensions(2, 3, 1); // two channels: two volumes
				b.setDimensions(2, 3, 1);
				a.changes = false;
				String macro = asMacro(new GaussianBlur3DPlugin(), b, "x=2 y=2 z=2");
				CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", a).get();
				assertTrue(m.isCanceled());
				assertEquals(macro, m.getCancelReason(), partly ? "part blurred" : "out of memory");
				assertTrue(m.getCancelReason().contains(partly ? "volume 1 holds the result; in volume 2 of 2, slice 1 of 3"
					: "volume 1 of 2 holds the result"), m.getCancelReason());
				assertTrue(a.changes, "volume 1 is blurred, yet the image is not marked changed");
				assertTrue(b.changes, "menu command");
			});
		}
	}

	/**
	 * 4c: a selection with no area inside the image gets the menu command's words (the command
	 * said "The selection lies outside the image." or "has zero area (0x18)."), and the image
	 * stays as it was.
	 */
	@Test
	void blurOfASelectionWithNoAreaInsideTheImageGetsTheMenusMessage() throws Exception {
		ij.gui.Roi[] rois = { new ij.gui.Roi(40, 5, 6, 6),
			new ij.gui.PolygonRoi(new int[] { 5, 5, 5 }, new int[] { 1, 9, 18 }, 3, ij.gui.Roi.POLYGON) };
		for (ij.gui.Roi roi : rois) {
			ImagePlus a = noise("8-bit", 30, 20, 1, 5), b = noise("8-bit", 30, 20, 1, 5), before = a.duplicate();
			a.setRoi((ij.gui.Roi) roi.clone());
			b.setRoi((ij.gui.Roi) roi.clone());
			String macro = asMacro(GB, b, "sigma=2");
			CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", a, "sigma", 2.0).get();
			assertTrue(macro.contains("has no area inside the image"), macro);
			assertEquals(macro, m.getCancelReason(), roi.toString());
			assertTrue(samePixels(before, a), "the image changed");
		}
	}

	/** 4d: a virtual stack of one slice is blurred, as by the menu command; it loses no change. */
	@Test
	void blurOfAOneSliceVirtualStackIsDoneAsByTheMenu() throws Exception {
		java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("fiji-cuda-virtual");
		String path = dir.resolve("one.tif").toString();
		try {
			IJ.saveAsTiff(noise("16-bit", 30, 20, 1, 6), path);
			ImagePlus a = IJ.openVirtual(path), b = IJ.openVirtual(path);
			assertTrue(a.getStack().isVirtual());
			asMacro(GB, b, "sigma=2 stack");
			CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", a, "sigma", 2.0).get();
			assertFalse(m.isCanceled(), m.getCancelReason());
			// the shown plane: a virtual stack's processor for slice 1 reads the file again
			short[] got = (short[]) a.getProcessor().getPixels();
			assertArrayEquals((short[]) b.getProcessor().getPixels(), got, "not blurred as by the menu command");
			assertTrue(a.changes);
			assertFalse(java.util.Arrays.equals((short[]) IJ.openImage(path).getProcessor().getPixels(), got), "not blurred");
		} finally {
			java.nio.file.Files.deleteIfExists(java.nio.file.Paths.get(path));
			java.nio.file.Files.deleteIfExists(dir);
		}
	}

	/** 4e: an unexpected failure is reported as the menu command reports it, not left to SciJava as a stack trace. */
	@Test
	void anUnexpectedFailureCancelsWithTheMenusWords() throws Exception {
		withVolumeBlur(vol -> {
			throw new IllegalStateException("boom");
		}, () -> {
			ImagePlus a = noise("32-bit", 20, 20, 3, 1), b = noise("32-bit", 20, 20, 3, 1);
			String macro = asMacro(new GaussianBlur3DPlugin(), b, "x=2 y=2 z=2");
			CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", a).get();
			assertTrue(m.isCanceled());
			assertTrue(m.getCancelReason().startsWith("GPU Gaussian Blur 3D: an unexpected error stopped the command "
				+ "(IllegalStateException: boom)"), m.getCancelReason());
			assertEquals(macro, m.getCancelReason());
		});
	}

	/** 5: the documented differences: stack=false is the current plane of a composite too, and sigma 0 is refused. */
	@Test
	void blurDifferencesFromTheMenuCommandAreAsDocumented() throws Exception {
		ImagePlus a = noise("16-bit", 30, 20, 3, 4), before = noise("16-bit", 30, 20, 3, 4);
		a.setDimensions(3, 1, 1);
		a = new ij.CompositeImage(a, IJ.COMPOSITE);
		a.setC(2);
		CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", a, "sigma", 2.0, "stack", false).get();
		assertFalse(m.isCanceled());
		for (int c = 1; c <= 3; c++) {
			ImageProcessor x = a.getStack().getProcessor(c), y = before.getStack().getProcessor(c);
			boolean same = true;
			for (int i = 0; i < x.getPixelCount(); i++)
				same &= x.getf(i) == y.getf(i);
			assertEquals(c != 2, same, "channel " + c);
		}
		ImagePlus z = noise("32-bit", 30, 30, 1, 2);
		m = commands.run(GaussianBlurCommand.class, true, "image", z, "sigma", 0.0).get();
		assertEquals("GPU Gaussian Blur: Sigma (Radius) must be a finite number greater than 0, not sigma=0.",
			m.getCancelReason());
	}
}
