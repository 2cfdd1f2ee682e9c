package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.PixelType;
import fiji.cuda.ncc.DriftingStack;
import ij.IJ;
import ij.ImagePlus;
import ij.WindowManager;
import ij.measure.ResultsTable;
import ij.plugin.filter.Analyzer;
import ij.plugin.frame.RoiManager;
import ij.text.TextWindow;

import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Template Matching and Align Slices list their results in the Results table afresh. Run from
 * a menu with measurements not yet saved, ImageJ's own commands that do so ask first whether to
 * save them; these two wiped the user's measurements without a word. They now ask, once their
 * work has succeeded (a failed run leaves the table as it was), and on Cancel keep the
 * measurements and show their results in a table of their own. ImageJ's question needs its main
 * window, so the tests put its answer in {@link IjBridge#resultsReset}.
 */
class ResultsTableTest {

	private static final String MATCHING = "GPU Template Matching...", ALIGN = "GPU Align Slices...";

	@BeforeAll
	static void registerCommands() {
		Display.registerCommands(Map.of(MATCHING, TemplateMatchingPlugin.class.getName(), ALIGN,
			AlignSlicesPlugin.class.getName()));
	}

	@AfterEach
	void restore() {
		IjBridge.resultsReset = Analyzer::resetCounter;
		RoiManager rm = RoiManager.getInstance();
		if (rm != null) {
			rm.reset();
			rm.close();
		}
		for (String title : new String[] { "Results", TemplateMatchingResults.RESULTS_TITLE,
			AlignSlicesPlugin.RESULTS_TITLE }) {
			java.awt.Window w = WindowManager.getWindow(title);
			if (w instanceof TextWindow) ((TextWindow) w).close(false);
		}
		Analyzer.setResultsTable(new ResultsTable());
	}

	/** Puts ImageJ's own question back, counting how often it is asked. */
	private static int[] countedQuestions() {
		int[] asked = new int[1];
		IjBridge.resultsReset = () -> {
			asked[0]++;
			return Analyzer.resetCounter();
		};
		return asked;
	}

	/** One measurement of the user's in the Results table, as Analyze>Measure leaves it. */
	private static ResultsTable measured() {
		ResultsTable rt = Analyzer.getResultsTable();
		rt.reset();
		rt.incrementCounter();
		rt.addValue("Area", 123);
		rt.show("Results");
		return rt;
	}

	private static void assertKept(ResultsTable rt) {
		assertEquals(1, rt.size());
		assertEquals(123, rt.getValue("Area", 0), 0.0);
	}

	private static ImagePlus drift() {
		return AlignSlicesPluginTest.image("drift", DriftingStack.make(PixelType.UINT8, 80, 70, new double[] { 0, 3 },
			new double[] { 0, -2 }, 4));
	}

	/** @return the rows of the table window of that title, which must be shown */
	private static ResultsTable shown(String title) {
		java.awt.Window w = WindowManager.getWindow(title);
		assertTrue(w instanceof TextWindow, "no window " + title);
		return ((TextWindow) w).getResultsTable();
	}

	@Test
	void onCancelTheMeasurementsStayAndTheResultsGetATableOfTheirOwn() {
		int[] asked = new int[1];
		IjBridge.resultsReset = () -> {
			asked[0]++;
			return false; // Cancel in ImageJ's "Save 1 measurements?"
		};
		ResultsTable rt = measured();
		ImagePlus image = TemplateMatchingPluginTest.noise("8-bit", 60, 40, 1, 5);
		ImagePlus tpl = TemplateMatchingPluginTest.noise("8-bit", 9, 7, 1, 6);
		TemplateMatchingPluginTest.plant(image, 1, tpl.getProcessor(), 10, 12);
		tpl.setTitle("tpl for results");
		tpl.show();
		try {
			IJ.run(image, MATCHING, "template=[tpl for results] score_threshold=0.9");
			assertNotNull(image.getOverlay(), "the matching itself was done");
			assertKept(rt);
			ResultsTable own = shown(TemplateMatchingResults.RESULTS_TITLE);
			assertEquals(1, own.size());
			assertEquals(10, own.getValue("X", 0), 0.0);
			ImagePlus stack = drift();
			IJ.run(stack, ALIGN, "x=20 y=20 width=30 height=30 margin=6");
			assertKept(rt);
			ResultsTable shifts = shown(AlignSlicesPlugin.RESULTS_TITLE);
			assertEquals(2, shifts.size());
			assertEquals(-3, shifts.getValue("dX", 1), 0.0);
			assertEquals(2, asked[0]);
			// with the table empty there is nothing to ask
			rt.reset();
			IJ.run(image, MATCHING, "template=[tpl for results] score_threshold=0.9");
			assertEquals(2, asked[0]);
			assertEquals(1, Analyzer.getResultsTable().size());
		} finally {
			tpl.changes = false;
			tpl.close();
		}
	}

	@Test
	void theTableIsEmptiedOnlyWithTheSharedWindowsHeld() {
		// ImageJ's question empties the Results table: asked before the lock, one run emptied it while
		// another, holding the lock, showed its rows, which failed with "Row out of range"
		boolean[] held = { true };
		int[] asked = new int[1];
		IjBridge.resultsReset = () -> {
			asked[0]++;
			held[0] &= IjBridge.SHARED_WINDOWS.isHeldByCurrentThread();
			return Analyzer.resetCounter();
		};
		measured();
		IJ.run(drift(), ALIGN, "x=20 y=20 width=30 height=30 margin=6");
		measured();
		ImagePlus image = TemplateMatchingPluginTest.noise("8-bit", 60, 40, 1, 9);
		ImagePlus tpl = TemplateMatchingPluginTest.noise("8-bit", 9, 7, 1, 10);
		tpl.setTitle("tpl held");
		tpl.show();
		try {
			IJ.run(image, MATCHING, "template=[tpl held] score_threshold=0.9");
		} finally {
			tpl.changes = false;
			tpl.close();
		}
		assertEquals(2, asked[0]);
		assertTrue(held[0], "the table was emptied without the shared windows");
	}

	@Test
	void aFailedRunLeavesTheMeasurementsWithoutAsking() {
		// the question was once asked, and the table emptied, before the work: a run that then
		// failed (a template larger than the image) left the user with no measurements at all
		int[] asked = countedQuestions();
		ResultsTable rt = measured();
		ImagePlus image = TemplateMatchingPluginTest.noise("8-bit", 20, 20, 1, 7);
		ImagePlus big = TemplateMatchingPluginTest.noise("8-bit", 30, 30, 1, 8);
		big.setTitle("big tpl");
		big.show();
		try {
			String log = LocalThresholdPluginTest.log(() -> IJ.run(image, MATCHING, "template=[big tpl]"));
			assertTrue(log.contains("GPU Template Matching:"), log);
			IJ.run(drift(), ALIGN, "x=20 y=20 width=30 height=30 margin=6 reference=9");
		} finally {
			big.changes = false;
			big.close();
		}
		assertEquals(0, asked[0]);
		assertKept(rt);
	}

	@Test
	void anAlignmentStoppedBeforeAnySliceWasAlignedLeavesTheMeasurementsWithoutAsking() throws Exception {
		// it changed nothing, yet the user's measurements were emptied, after ImageJ's question,
		// for one row: the reference's, unmoved
		int[] asked = countedQuestions();
		ResultsTable rt = measured();
		String log;
		// on the CPU, whose matching moves the bar within a slice: Esc comes inside slice 2's.
		// Two threads: with 16 the map's 13 rows were one band each, the bar moved only once the
		// slice was done, and the run went on to the end (the H200's host)
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		fiji.cuda.ncc.TemplateGroups.limitBandWork(1);
		int threads = ij.Prefs.getThreads();
		ij.Prefs.setThreads(2);
		try (RecordingBar bar = RecordingBar.escAfter(1)) {
			log = LocalThresholdPluginTest.asMacro(new AlignSlicesPlugin(), drift(), "x=20 y=20 width=30 height=30 margin=6");
		} finally {
			ij.Prefs.setThreads(threads);
			fiji.cuda.ncc.TemplateGroups.clear();
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
		assertTrue(log.contains("GPU Align Slices: canceled; no slice was aligned (slice 1 is the reference), so the image "
			+ "and the Results table are as they were (drift)."), log);
		assertEquals(0, asked[0]);
		assertKept(rt);
		assertNull(WindowManager.getWindow(AlignSlicesPlugin.RESULTS_TITLE));
	}

	@Test
	void withoutAQuestionTheTableStartsAfresh() {
		// in a macro, and wherever ImageJ has no window to ask from, it clears without asking
		int[] asked = countedQuestions();
		measured();
		IJ.run(drift(), ALIGN, "x=20 y=20 width=30 height=30 margin=6");
		assertEquals(1, asked[0]);
		ResultsTable rt = ResultsTable.getResultsTable();
		assertEquals(2, rt.size());
		assertEquals(-3, rt.getValue("dX", 1), 0.0);
		assertFalse(rt.columnExists("Area"), "the old column stayed");
		assertNull(WindowManager.getWindow(AlignSlicesPlugin.RESULTS_TITLE));
	}

	/**
	 * Align Slices showed its shifts to 4 decimals by setting the precision of ImageJ's Results
	 * table, which the table keeps when emptied: every table shown there afterwards, a macro's
	 * setResult or Template Matching's scores, had 4 decimals instead of the 3 of Analyze>Set
	 * Measurements.
	 */
	@Test
	void theShiftsDecimalsStayWithTheShifts() {
		ImagePlus imp = AlignSlicesPluginTest.image("drift", DriftingStack.make(PixelType.UINT8, 80, 70,
			new double[] { 0, 2.4 }, new double[] { 0, -1.3 }, 4));
		IJ.run(imp, ALIGN, "x=20 y=20 width=30 height=30 margin=6 subpixel");
		ResultsTable rt = ResultsTable.getResultsTable();
		for (String column : new String[] { "dX", "dY", "Score" })
			assertTrue(rt.getStringValue(column, 1).matches("-?\\d+\\.\\d{4}"), column + " " + rt.getStringValue(column, 1));
		rt.reset();
		rt.incrementCounter();
		rt.addValue("Mean", 1.23456789);
		assertEquals(IJ.d2s(1.23456789, Analyzer.getPrecision()), rt.getStringValue("Mean", 0));
	}
}
