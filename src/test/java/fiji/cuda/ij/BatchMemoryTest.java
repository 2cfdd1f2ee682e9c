package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.integral.LocalThreshold.Method;
import fiji.cuda.integral.LocalThreshold.Settings;
import fiji.cuda.ops.Progress;
import ij.IJ;
import ij.ImagePlus;
import ij.Menus;
import ij.WindowManager;
import ij.macro.Interpreter;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * What a long batch job leaves behind in the JVM: a macro in batch mode that opens an image,
 * runs the commands, and closes everything, many times over. Nothing of an earlier image may
 * stay reachable (a weak reference to it must be cleared by the garbage collector), no thread
 * may pile up, and the reason for the CPU path is logged once per operation. Public for the
 * macro's {@code call}.
 */
public class BatchMemoryTest {

	/** Images, results and templates of the macro below, as {@link #watch()} saw them. */
	private static final List<WeakReference<ImagePlus>> WATCHED = new ArrayList<>();

	/**
	 * Called by the macro with {@code call("fiji.cuda.ij.BatchMemoryTest.watch")}: remembers
	 * the current image weakly.
	 *
	 * @return "" for the macro
	 */
	public static String watch() {
		ImagePlus imp = WindowManager.getCurrentImage();
		if (imp != null) synchronized (WATCHED) {
			WATCHED.add(new WeakReference<>(imp));
		}
		return "";
	}

	/** @return true once the garbage collector has cleared {@code ref} (a few full collections at most) */
	private static boolean collected(WeakReference<?> ref) throws InterruptedException {
		for (int i = 0; i < 10 && ref.get() != null; i++) {
			System.gc();
			Thread.sleep(20);
		}
		return ref.get() == null;
	}

	@Test
	void aConvertedImageClosedInABatchIsNotKeptWhileTheNextIsThresholded() throws Exception {
		// Undo kept the 16 or 32-bit processor that a conversion replaced. ImageJ drops it when the
		// image's window closes, but closing a batch-mode image tells no one: a batch that
		// thresholded 1 GB images kept the last one in memory while it thresholded the next.
		Settings st = Settings.of(Method.SAUVOLA, 5, 0, 0, true);
		boolean batch = Interpreter.batchMode;
		Interpreter.batchMode = true;
		try {
			ImagePlus first = ImageJReference.noise("32-bit", 300, 200, 1, 1);
			first.show(); // a batch-mode image, as open() makes it
			WeakReference<Object> firstPixels = new WeakReference<>(first.getProcessor().getPixels());
			assertTrue(LocalThresholdPlugin.threshold(first, st, false));
			assertEquals(8, first.getBitDepth());
			first.close();
			first = null;

			ImagePlus second = ImageJReference.noise("32-bit", 300, 200, 1, 2);
			second.show();
			boolean[] kept = { false, false };
			LocalThresholdPlugin.threshold(second, st, false, new Progress() {
				@Override
				public void update(double fraction) {
					if (kept[1]) return; // once, during the run, before it sets up Undo for this image
					kept[1] = true;
					try {
						kept[0] = !collected(firstPixels);
					} catch (InterruptedException e) {
						Thread.currentThread().interrupt();
					}
				}

				@Override
				public boolean isCanceled() {
					return false;
				}
			});
			assertTrue(kept[1], "no progress was reported");
			assertTrue(!kept[0], "the first image's 32-bit pixels were still held (by Undo) while the next image was thresholded");
			// the image still open can be undone as before
			WindowManager.setTempCurrentImage(second);
			ij.Undo.undo();
			assertEquals(32, second.getBitDepth(), "Undo of the open image no longer restores it");
			second.close();
		} finally {
			Interpreter.batchMode = batch;
			WindowManager.setTempCurrentImage(null);
			ij.Undo.reset();
		}
	}

	@Test
	@SuppressWarnings("unchecked") // ImageJ's command table is a raw Hashtable
	void aBatchMacroRunningEveryCommandManyTimesKeepsNoImageNorThread() throws Exception {
		Display.required(); // the commands' dialogs are made (not shown) in AWT
		// any command makes ImageJ read its command table, to which the plug-ins are added as
		// plugins.config would add them
		IJ.run(IJ.createImage("init", "8-bit black", 1, 1, 1), "Select None", "");
		Map<String, String> commands = Menus.getCommands();
		commands.put("GPU Gaussian Blur...", GaussianBlurPlugin.class.getName());
		commands.put("GPU Gaussian Blur 3D...", GaussianBlur3DPlugin.class.getName());
		commands.put("GPU Integral Image...", IntegralImagePlugin.class.getName());
		commands.put("GPU Box Statistics...", BoxStatisticsPlugin.class.getName());
		commands.put("GPU Local Threshold...", LocalThresholdPlugin.class.getName());
		commands.put("GPU Template Matching...", TemplateMatchingPlugin.class.getName());
		commands.put("GPU Align Slices...", AlignSlicesPlugin.class.getName());
		String watch = "call('" + BatchMemoryTest.class.getName() + ".watch');\n";
		String once = "newImage('a', '16-bit random', 200, 150, 6); " + watch
			+ "run('GPU Gaussian Blur...', 'sigma=2 stack');\n"
			+ "run('GPU Gaussian Blur 3D...', 'x=1 y=1 z=1');\n"
			+ "run('GPU Integral Image...', 'table=Both stack'); " + watch + "close();\n"
			+ "selectImage('a'); run('GPU Box Statistics...', 'radius=2 statistic=Variance stack'); " + watch + "close();\n"
			+ "selectImage('a'); makeRectangle(60, 50, 16, 16); run('Duplicate...', 'title=t'); " + watch
			+ "selectImage('a'); run('Select None');\n"
			+ "run('GPU Template Matching...', 'image=a template=t score_threshold=0.2 max_objects=5 nms=0.3 stack score_map'); "
			+ watch + "close(); close('t');\n"
			+ "selectImage('a'); run('GPU Align Slices...', 'reference=1 x=80 y=60 width=24 height=24 margin=6');\n"
			+ "run('GPU Local Threshold...', 'method=Sauvola radius=7 stack');\n"
			+ "newImage('b', '32-bit random', 120, 90, 1); " + watch + "run('GPU Local Threshold...', 'method=Mean radius=3');\n"
			+ "close('*');\n"
			+ "if (nImages != 0) exit('left open: ' + nImages);\n";
		PrintStream out = System.out;
		ByteArrayOutputStream log = new ByteArrayOutputStream();
		System.setOut(new PrintStream(log, true, StandardCharsets.UTF_8)); // IJ.log without a Log window
		int warm, after, pool;
		java.util.Set<String> warmNames;
		List<String> afterNames;
		try {
			// a first round starts what stays for the session: AWT's threads, the CPU path's pool
			run("setBatchMode(true);\n" + once + "print('warm');\n");
			warmNames = new java.util.HashSet<>(threadNames());
			warm = (int) warmNames.stream().filter(n -> !n.startsWith(POOL)).count();
			run("setBatchMode(true);\nfor (i = 0; i < 15; i++) {\n" + once + "}\nprint('done');\n");
			afterNames = threadNames();
			after = (int) afterNames.stream().filter(n -> !n.startsWith(POOL)).count();
			pool = (int) afterNames.stream().filter(n -> n.startsWith(POOL)).count();
		} finally {
			System.setOut(out);
		}
		String text = log.toString(StandardCharsets.UTF_8);
		assertTrue(text.contains("done") && !text.contains("Call error"), text);
		// 16 rounds of 7 commands: a pool made per call and never shut down would add a thread at
		// least per call. The CPU path's shared pool keeps idle threads a minute, at most two per
		// core, and is counted apart: it grew by a thread whenever a call came before the last
		// call's threads were back (25 threads against 21 allowed, on 2 busy cores)
		int cores = Runtime.getRuntime().availableProcessors();
		java.util.List<String> added = new java.util.ArrayList<>(afterNames);
		added.removeAll(warmNames);
		assertTrue(after <= warm + 1, "threads piled up: " + warm + " after the first round, " + after + " after 16, "
			+ "new: " + added);
		assertTrue(pool <= 2 * cores, pool + " threads in the CPU path's pool after 16 rounds: " + afterNames);
		// once per operation and kind of reason in a session: none, if an earlier test said it
		for (String op : new String[] { "Gaussian Blur", "Gaussian Blur 3D", "Integral Image", "Box Statistics",
			"Local Threshold", "Template Matching", "Align Slices" }) {
			long lines = text.lines().filter(l -> l.startsWith(op + " ran on the CPU")).count();
			assertTrue(lines <= 1, () -> lines + " lines '" + op + " ran on the CPU' in:\n" + text);
		}
		long alive = 0;
		List<WeakReference<ImagePlus>> refs;
		synchronized (WATCHED) {
			refs = new ArrayList<>(WATCHED);
			WATCHED.clear();
		}
		assertEquals(16 * 6, refs.size(), "the macro did not watch every image");
		for (WeakReference<ImagePlus> r : refs)
			if (!collected(r)) alive++;
		assertEquals(0, alive, "images of earlier rounds, closed by the macro, are still reachable");
	}

	/** Runs a macro on this thread as ImageJ's -batch does, failing the test on a macro error. */
	private static void run(String macro) {
		boolean batch = Interpreter.batchMode;
		String r;
		try {
			r = IJ.runMacro(macro);
		} finally {
			// a macro run on this thread that set batch mode leaves it set for the whole JVM: the
			// tests after this one that answer dialogs then found no dialog, "nobody to ask"
			Interpreter.batchMode = batch;
		}
		assertTrue(r == null || !r.equals("[aborted]"), "the macro was aborted: " + r);
	}

	private static final String POOL = "Fiji CUDA CPU";

	private static List<String> threadNames() {
		List<String> names = new java.util.ArrayList<>();
		for (Thread t : Thread.getAllStackTraces().keySet())
			names.add(t.getName());
		return names;
	}
}
