package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.WindowManager;
import ij.macro.Interpreter;
import ij.measure.ResultsTable;
import ij.plugin.filter.Analyzer;
import ij.plugin.frame.RoiManager;
import ij.text.TextWindow;

import java.awt.Rectangle;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commands run at once, as Fiji users run them: a macro in the background while a script's
 * threads call {@code IJ.run(imp, ...)} on images of their own. Each test builds its
 * interleaving with latches, so that what it checks does not depend on timing. Public for
 * the macro's {@code call}.
 */
public class ConcurrentRunsTest {

	private static final String MATCHING = "GPU Template Matching...", ALIGN = "GPU Align Slices...",
		BOX = "GPU Box Statistics...";

	@BeforeAll
	static void registerCommands() {
		Display.registerCommands(Map.of(MATCHING, TemplateMatchingPlugin.class.getName(), ALIGN,
			AlignSlicesPlugin.class.getName(), BOX, BoxStatisticsPlugin.class.getName()));
	}

	@AfterEach
	void closeSharedWindows() {
		RoiManager rm = RoiManager.getInstance();
		if (rm != null) {
			rm.reset();
			rm.close();
		}
		java.awt.Window results = WindowManager.getWindow("Results");
		if (results instanceof TextWindow) ((TextWindow) results).close(false);
		Analyzer.setResultsTable(new ResultsTable());
	}

	/** Runs {@code IJ.run(imp, command, options)} as a script's thread of its own does. */
	private static Thread script(String name, ImagePlus imp, String command, String options) {
		Thread t = new Thread(() -> IJ.run(imp, command, options), name);
		t.start();
		return t;
	}

	private static void finish(Thread t) throws InterruptedException {
		t.join(60_000);
		assertFalse(t.isAlive(), t.getName() + " is still running");
	}

	private static void await(CountDownLatch latch) {
		try {
			assertTrue(latch.await(60, TimeUnit.SECONDS), "the other thread never got there");
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}

	/* the background macro's two steps: it waits in hold until let go, then says it went on */
	private static CountDownLatch held, letGo;
	private static volatile boolean wentOn;

	/** Called by the background macro: waits there until the test lets it go on. */
	public static String hold() {
		held.countDown();
		await(letGo);
		return "";
	}

	/** Called by the background macro after {@link #hold}, unless it was stopped. */
	public static String after() {
		wentOn = true;
		return "";
	}

	@Test
	void aScriptsFailureDoesNotStopAMacroRunningMeanwhile() throws Exception {
		// ImageJ's interpreter is one for all threads: the script's bad radius stopped the batch
		// macro running in the background, which never called anything of ours
		held = new CountDownLatch(1);
		letGo = new CountDownLatch(1);
		wentOn = false;
		String me = getClass().getName();
		Thread macro = new Thread(() -> new Interpreter().run("call('" + me + ".hold');\ncall('" + me + ".after');\n"),
			"background Macro$");
		boolean[] waited = new boolean[1];
		String log = LocalThresholdPluginTest.log(() -> {
			try {
				macro.start();
				waited[0] = held.await(60, TimeUnit.SECONDS);
				if (waited[0])
					finish(script("script", IJ.createImage("script's", "8-bit ramp", 20, 10, 1), BOX, "radius=0"));
				letGo.countDown();
				finish(macro);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
			}
		});
		assertTrue(waited[0], () -> "the macro never called hold: " + log);
		assertTrue(log.contains("GPU Box Statistics: Radius must be"), log);
		assertTrue(wentOn, "the background macro was stopped by the script's failure");
	}

	@Test
	void templateMatchingMatchesTheImageItWasGivenNotAnotherOfTheSameTitle(@TempDir Path dir) throws Exception {
		// threads of a batch each hold an image of the same title (a file of the same name in each
		// folder): the image of that title found first, another thread's, was matched and marked
		ImagePlus given = cellsWithATemplateIn(dir, 301);
		given.setTitle("cells.tif");
		ImagePlus other = TemplateMatchingPluginTest.noise("8-bit", 60, 50, 1, 303);
		other.setTitle("cells.tif");
		other.show();
		try {
			// the image left out (the script's own, not shown), and named by its title
			for (String image : new String[] { "", "image=cells.tif " }) {
				given.setOverlay(null);
				finish(script("script", given, MATCHING, image + "template_folder=[" + dir + "] score_threshold=0.9 "
					+ "max_objects=1"));
				assertNotNull(given.getOverlay(), image + ": the image given has no matches");
				assertEquals(1, given.getOverlay().size(), image);
				assertEquals(new Rectangle(30, 20, 12, 10), given.getOverlay().get(0).getBounds(), image);
				assertNull(other.getOverlay(), image + ": the other image of the same title was matched");
				assertEquals(1, ResultsTable.getResultsTable().size(), image);
			}
		} finally {
			other.changes = false;
			other.close();
		}
	}

	/**
	 * @return a 60x50 noise image with a 12x10 template planted at (30, 20), the template saved
	 *         as the only file of {@code dir}, for template_folder=
	 */
	private static ImagePlus cellsWithATemplateIn(Path dir, int seed) {
		ImagePlus tpl = TemplateMatchingPluginTest.noise("8-bit", 12, 10, 1, seed);
		assertTrue(IJ.saveAsTiff(tpl, dir.resolve("cell.tif").toString()));
		ImagePlus cells = TemplateMatchingPluginTest.noise("8-bit", 60, 50, 1, seed + 1);
		TemplateMatchingPluginTest.plant(cells, 1, tpl.getProcessor(), 30, 20);
		return cells;
	}

	/** The Results table, holding one thread in its first row until the test lets it go on. */
	private static final class PausedTable extends ResultsTable {
		final CountDownLatch reached = new CountDownLatch(1), letGo = new CountDownLatch(1);
		volatile Thread paused;

		// not synchronized, as ImageJ's is: the other run must not wait for the table's monitor
		@Override
		public void incrementCounter() {
			if (Thread.currentThread() == paused && reached.getCount() > 0) {
				reached.countDown();
				ConcurrentRunsTest.await(letGo);
			}
			super.incrementCounter();
		}
	}

	@Test
	void twoRunsAtOnceDoNotMixTheirRowsInTheResultsTable(@TempDir Path dir) throws Exception {
		// both empty the Results table and write their rows: Align Slices' rows went in while
		// Template Matching was writing its own, which followed them
		ImagePlus cells = cellsWithATemplateIn(dir, 311);
		fiji.cuda.image.Planes p = fiji.cuda.ncc.DriftingStack.make(fiji.cuda.image.PixelType.UINT8, 40, 30,
			new double[] { 0, 1, -2 }, new double[] { 0, 2, 1 }, 7);
		ImageStack st = new ImageStack(40, 30);
		for (int z = 0; z < 3; z++)
			st.addSlice(null, p.plane(z));
		ImagePlus stack = new ImagePlus("drift", st);
		cells.show();
		try {
			matchAndAlignAtOnce(cells, stack, dir);
		} finally {
			cells.changes = false;
			cells.close();
		}
	}

	private static void matchAndAlignAtOnce(ImagePlus cells, ImagePlus stack, Path dir) throws InterruptedException {
		PausedTable table = new PausedTable();
		Analyzer.setResultsTable(table);
		Thread matching = new Thread(() -> IJ.run(cells, MATCHING, "template_folder=[" + dir + "] score_threshold=0.9"),
			"matching");
		table.paused = matching;
		matching.start();
		await(table.reached);
		Thread aligning = script("aligning", stack, ALIGN, "reference=1 x=5 y=5 width=20 height=15 margin=3");
		// Align Slices waits until Template Matching's table is written (or, unserialized, writes
		// its own meanwhile and ends)
		for (long end = System.currentTimeMillis() + 60_000; System.currentTimeMillis() < end
			&& aligning.isAlive() && !IjBridge.SHARED_WINDOWS.hasQueuedThread(aligning); Thread.sleep(5)) {
			// waiting
		}
		table.letGo.countDown();
		finish(matching);
		finish(aligning);

		// the run that came last, whole, and nothing of the other
		ResultsTable rt = ResultsTable.getResultsTable();
		assertEquals(3, rt.size(), rt::getColumnHeadings);
		assertFalse(rt.columnExists("Template"), rt::getColumnHeadings);
		for (int i = 0; i < 3; i++)
			assertEquals(i + 1, rt.getValue("Slice", i));
		assertEquals(1, cells.getOverlay().size(), "Template Matching's match on its image");
	}

	@Test
	void theEventThreadNeverWaitsForTheSharedWindows() throws Exception {
		// a plug-in called from a button's action fills its tables on the event thread, which the
		// ROI Manager of a run holding the lock may be waiting for: it must go on unguarded
		IjBridge.SHARED_WINDOWS.lock();
		try {
			boolean[] took = { true };
			org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20),
				() -> java.awt.EventQueue.invokeAndWait(() -> {
					took[0] = IjBridge.holdSharedWindows();
					IjBridge.releaseSharedWindows(took[0]);
				}));
			assertFalse(took[0], "the event thread took the lock");
		} finally {
			IjBridge.SHARED_WINDOWS.unlock();
		}
		// and any other thread takes it
		assertTrue(IjBridge.holdSharedWindows());
		IjBridge.releaseSharedWindows(true);
		assertFalse(IjBridge.SHARED_WINDOWS.isLocked());
	}

	@Test
	void twoScoreMapsOfOneImageShownAtOnceGetTitlesOfTheirOwn() throws Exception {
		// two matchings of one image (reads share it) looked for a free title each before either map
		// was shown, and both showed "Score map of cells": a macro selecting "Score map of cells-1", as
		// after two runs one after the other, found none
		ImagePlus cells = IJ.createImage("cells", "8-bit ramp", 20, 10, 1);
		java.util.concurrent.CyclicBarrier bothShowing = new java.util.concurrent.CyclicBarrier(2);
		TemplateMatchingPlugin.Outcome[] outs = new TemplateMatchingPlugin.Outcome[2];
		for (int k = 0; k < 2; k++) {
			outs[k] = new TemplateMatchingPlugin.Outcome();
			outs[k].scoreMap = new ImagePlus(TemplateMatchingPlugin.SCORE_MAP_TITLE + "cells",
				new ij.process.FloatProcessor(4, 4)) {
				@Override
				public void show() {
					try {
						bothShowing.await(20, TimeUnit.SECONDS);
					} catch (Exception e) {
						// the other never got here: shown alone
					}
					super.show();
				}
			};
		}
		boolean batch = Interpreter.batchMode;
		Interpreter.batchMode = true; // as in a batch macro: the maps are shown without windows
		try {
			Thread a = new Thread(() -> TemplateMatchingResults.show(cells, outs[0]), "match 1");
			Thread b = new Thread(() -> TemplateMatchingResults.show(cells, outs[1]), "match 2");
			a.start();
			b.start();
			finish(a);
			finish(b);
			assertFalse(bothShowing.isBroken(), "the two maps were not shown at once");
			java.util.Set<String> titles = new java.util.TreeSet<>(java.util.List.of(outs[0].scoreMap.getTitle(),
				outs[1].scoreMap.getTitle()));
			assertEquals("[Score map of cells, Score map of cells-1]", titles.toString());
		} finally {
			for (TemplateMatchingPlugin.Outcome o : outs)
				Interpreter.removeBatchModeImage(o.scoreMap);
			Interpreter.batchMode = batch;
		}
	}
}
