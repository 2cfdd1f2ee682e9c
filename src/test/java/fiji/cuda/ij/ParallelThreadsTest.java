package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import fiji.cuda.runtime.GpuSettings;
import ij.IJ;
import ij.ImagePlus;
import ij.Prefs;
import ij.macro.Interpreter;

/**
 * Edit > Options > Memory &amp; Threads ("Parallel threads") bounds the threads of the CPU path,
 * as it bounds ImageJ's own filters: with 1 set, every command ran on all cores all the same.
 * What the CPU path's pool threads ran is read from their CPU time.
 */
class ParallelThreadsTest {

	private static final String BLUR = "GPU Gaussian Blur...", BLUR3D = "GPU Gaussian Blur 3D...",
		BOX = "GPU Box Statistics...", INTEGRAL = "GPU Integral Image...", THRESHOLD = "GPU Local Threshold...",
		MATCHING = "GPU Template Matching...", ALIGN = "GPU Align Slices...";

	private static String device;
	private static int threads;

	@BeforeAll
	static void cpuOnly() {
		Display.registerCommands(Map.of(BLUR, GaussianBlurPlugin.class.getName(), BLUR3D,
			GaussianBlur3DPlugin.class.getName(), BOX, BoxStatisticsPlugin.class.getName(), INTEGRAL,
			IntegralImagePlugin.class.getName(), THRESHOLD, LocalThresholdPlugin.class.getName(), MATCHING,
			TemplateMatchingPlugin.class.getName(), ALIGN, AlignSlicesPlugin.class.getName()));
		// the CPU path is what the setting is about; the GPU machine would otherwise take the GPU
		device = System.getProperty(GpuSettings.PROPERTY);
		System.setProperty(GpuSettings.PROPERTY, "cpu");
		threads = Prefs.getThreads();
	}

	@AfterAll
	static void restore() {
		if (device == null) System.clearProperty(GpuSettings.PROPERTY);
		else System.setProperty(GpuSettings.PROPERTY, device);
		Prefs.setThreads(threads);
	}

	/** @return CPU nanoseconds of each live thread of the CPU path's pool */
	private static Map<Long, Long> poolTimes() {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		Map<Long, Long> t = new HashMap<>();
		for (Thread th : Thread.getAllStackTraces().keySet())
			if (th.getName().startsWith("Fiji CUDA CPU")) t.put(th.getId(), Math.max(0, mx.getThreadCpuTime(th.getId())));
		return t;
	}

	/** @return the CPU milliseconds the pool's threads spent while {@code run} ran */
	private static double poolMillis(Runnable run) {
		Map<Long, Long> before = poolTimes();
		run.run();
		long spent = 0;
		for (Map.Entry<Long, Long> e : poolTimes().entrySet())
			spent += Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0L));
		return spent / 1e6;
	}

	private static ImagePlus noise(String type, int w, int h, int slices) {
		ImagePlus imp = IJ.createImage("img", type + " ramp", w, h, slices);
		IJ.run(imp, "Add Specified Noise...", (slices > 1 ? "stack " : "") + "standard=" + (type.equals("8-bit") ? 30 : 300));
		return imp;
	}

	/**
	 * Each command, in batch mode as a macro runs them, on an image large enough that the CPU
	 * path splits it.
	 *
	 * @return how many did their work: changed their image, made one, or listed a match
	 */
	private static int runEach() {
		boolean batch = Interpreter.batchMode;
		Interpreter.batchMode = true;
		int images = ij.WindowManager.getImageCount(), done = 0;
		// Template Matching opens these when they are not there; later tests expect them closed
		boolean hadRoiManager = ij.plugin.frame.RoiManager.getInstance() != null;
		boolean hadResults = ij.WindowManager.getWindow("Results") != null;
		try {
			ImagePlus[] inPlace = { noise("32-bit", 1200, 1000, 1), noise("16-bit", 500, 400, 6),
				noise("16-bit", 300, 300, 24), noise("8-bit", 1200, 1000, 1), noise("8-bit", 300, 300, 12) };
			IJ.run(inPlace[0], BLUR, "sigma=4");
			IJ.run(inPlace[1], BLUR, "sigma=3 stack");
			IJ.run(inPlace[2], BLUR3D, "x=2 y=2 z=2");
			IJ.run(inPlace[3], THRESHOLD, "method=Sauvola radius=15 parameter_1=0 parameter_2=0 white");
			IJ.run(inPlace[4], ALIGN, "x=100 y=100 width=64 height=64 margin=8");
			for (ImagePlus imp : inPlace)
				if (imp.changes) done++;
			IJ.run(noise("32-bit", 1200, 1000, 1), BOX, "radius=5 statistic=Variance");
			IJ.run(noise("32-bit", 1200, 1000, 1), INTEGRAL, "table=Both");
			done += ij.WindowManager.getImageCount() - images;
			// Template Matching finds its images by title
			ImagePlus image = noise("8-bit", 800, 700, 1);
			image.setTitle("tm image");
			ij.process.ImageProcessor ip = image.getProcessor();
			ip.setRoi(100, 100, 64, 64);
			ImagePlus template = new ImagePlus("tpl", ip.crop());
			ip.resetRoi();
			Interpreter.addBatchModeImage(image);
			Interpreter.addBatchModeImage(template);
			IJ.run(image, MATCHING, "image=[tm image] template=tpl score_threshold=0.9 max_objects=5");
			ij.measure.ResultsTable rt = ij.measure.ResultsTable.getResultsTable();
			if (rt != null && rt.size() > 0) done++;
		} finally {
			for (int id : ij.WindowManager.getIDList() == null ? new int[0] : ij.WindowManager.getIDList()) {
				ImagePlus imp = ij.WindowManager.getImage(id);
				if (imp != null) Interpreter.removeBatchModeImage(imp);
			}
			Interpreter.batchMode = batch;
			if (!hadRoiManager && ij.plugin.frame.RoiManager.getInstance() != null)
				ij.plugin.frame.RoiManager.getInstance().close();
			java.awt.Window results = ij.WindowManager.getWindow("Results");
			if (!hadResults && results instanceof ij.text.TextWindow) ((ij.text.TextWindow) results).close(false);
		}
		return done;
	}

	@Test
	void oneParallelThreadKeepsEveryCommandOnTheCallingThread() {
		Prefs.setThreads(1);
		int[] done = { 0 };
		double ms = poolMillis(() -> done[0] = runEach());
		assertEquals(8, done[0], "not every command did its work (see the Log)");
		assertTrue(ms < 5, "with 1 parallel thread the pool's threads still ran for " + ms + " ms");
	}

	@Test
	void moreParallelThreadsAreUsed() {
		// the measure can fail: the same runs with 2 threads allowed keep the pool busy
		assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "one core");
		Prefs.setThreads(2);
		int[] done = { 0 };
		double ms = poolMillis(() -> done[0] = runEach());
		assertEquals(8, done[0], "not every command did its work (see the Log)");
		assertFalse(ms < 20, "with 2 parallel threads the pool's threads ran for only " + ms + " ms");
	}
}
