package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import ij.IJ;
import ij.ImagePlus;
import ij.measure.ResultsTable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandModule;

/**
 * Commands that only read an image share it: ImageJ's lock is exclusive, and a parallel script
 * matching one template against many images, or taking several statistics of one stack, had all
 * runs but one refused as "in use by another command".
 */
class SharedReadsTest extends HeadlessCommands {

	private static ImagePlus noise(String type, int w, int h, int slices, long seed) {
		ImagePlus imp = IJ.createImage("n" + seed, type + " black", w, h, slices);
		java.util.Random r = new java.util.Random(seed);
		for (int z = 1; z <= slices; z++) {
			ij.process.ImageProcessor ip = imp.getStack().getProcessor(z);
			for (int i = 0; i < w * h; i++)
				ip.setf(i, r.nextInt(200));
		}
		return imp;
	}

	/** Runs each call on a thread of its own, all let go at once, and gives their modules. */
	private static List<CommandModule> atOnce(List<java.util.concurrent.Callable<CommandModule>> calls) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(calls.size());
		CountDownLatch go = new CountDownLatch(1);
		try {
			List<Future<CommandModule>> futures = new ArrayList<>();
			for (java.util.concurrent.Callable<CommandModule> c : calls)
				futures.add(pool.submit(() -> {
					go.await();
					return c.call();
				}));
			go.countDown();
			List<CommandModule> modules = new ArrayList<>();
			for (Future<CommandModule> f : futures)
				modules.add(f.get());
			return modules;
		} finally {
			pool.shutdown();
		}
	}

	@Test
	void oneTemplateMatchedAgainstSixImagesAtOnce() throws Exception {
		ImagePlus tpl = noise("8-bit", 12, 10, 1, 99);
		List<ImagePlus> images = new ArrayList<>();
		List<java.util.concurrent.Callable<CommandModule>> calls = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			ImagePlus image = noise("8-bit", 300, 200, 1, 10 + i);
			image.getProcessor().insert(tpl.getProcessor(), 20 * i, 15 * i);
			images.add(image);
			calls.add(() -> commands.run(TemplateMatchingCommand.class, true, "image", image, "template", tpl,
				"scoreThreshold", 0.9).get());
		}
		List<CommandModule> modules = atOnce(calls);
		for (int i = 0; i < 6; i++) {
			CommandModule m = modules.get(i);
			assertEquals(null, m.getCancelReason(), "image " + i);
			ResultsTable rt = (ResultsTable) m.getOutput("results");
			assertEquals(1, rt.size(), "image " + i);
			assertEquals(20 * i, rt.getValue("X", 0), 0.0, "image " + i);
			assertFalse(images.get(i).isLocked(), "image " + i + " was left locked");
		}
		assertFalse(tpl.isLocked(), "the template was left locked");
	}

	@Test
	void threeStatisticsOfOneStackAtOnce() throws Exception {
		ImagePlus image = noise("16-bit", 200, 150, 4, 2);
		List<java.util.concurrent.Callable<CommandModule>> calls = new ArrayList<>();
		for (String statistic : new String[] { "Mean", "Variance", "Standard deviation" })
			calls.add(() -> commands.run(BoxStatisticsCommand.class, true, "image", image, "radius", 3, "statistic",
				statistic).get());
		for (CommandModule m : atOnce(calls))
			assertEquals(null, m.getCancelReason());
		assertFalse(image.isLocked(), "the image was left locked");
	}
}
