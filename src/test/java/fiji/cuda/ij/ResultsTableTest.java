package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Template Matching and Align Slices start the Results table afresh. Run from a menu with
 * measurements not yet saved, ImageJ's own commands that do so ask first whether to save them,
 * and a Cancel there stops the command; these two wiped the user's measurements without a word.
 * ImageJ's question needs its main window, so the tests put its answer in
 * {@link IjBridge#resultsReset}.
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
		java.awt.Window results = WindowManager.getWindow("Results");
		if (results instanceof TextWindow) ((TextWindow) results).close(false);
		Analyzer.setResultsTable(new ResultsTable());
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

	@Test
	void aCancelToSavingMeasurementsStopsTheCommandsBeforeTheyChangeAnything() {
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
			assertNull(image.getOverlay(), "matched although canceled");
			ImagePlus stack = AlignSlicesPluginTest.image("drift", DriftingStack.make(PixelType.UINT8, 80, 70,
				new double[] { 0, 3 }, new double[] { 0, -2 }, 4));
			Object before = ((byte[]) stack.getStack().getPixels(2)).clone();
			IJ.run(stack, ALIGN, "x=20 y=20 width=30 height=30 margin=6");
			assertArrayEquals((byte[]) before, (byte[]) stack.getStack().getPixels(2), "aligned although canceled");
			assertEquals(2, asked[0]);
			assertEquals(1, rt.size());
			assertEquals(123, rt.getValue("Area", 0), 0.0);
			// with the table empty there is nothing to ask
			rt.reset();
			IJ.run(image, MATCHING, "template=[tpl for results] score_threshold=0.9");
			assertEquals(2, asked[0]);
			assertNotNull(image.getOverlay());
			assertEquals(1, Analyzer.getResultsTable().size());
		} finally {
			tpl.changes = false;
			tpl.close();
		}
	}

	@Test
	void withoutAQuestionTheTableStartsAfresh() {
		// in a macro, and wherever ImageJ has no window to ask from, it clears without asking
		measured();
		ImagePlus stack = AlignSlicesPluginTest.image("drift", DriftingStack.make(PixelType.UINT8, 80, 70,
			new double[] { 0, 3 }, new double[] { 0, -2 }, 4));
		IJ.run(stack, ALIGN, "x=20 y=20 width=30 height=30 margin=6");
		ResultsTable rt = ResultsTable.getResultsTable();
		assertEquals(2, rt.size());
		assertTrue(rt.columnExists("dX"));
		assertEquals(-3, rt.getValue("dX", 1), 0.0);
		assertTrue(!rt.columnExists("Area"), "the old column stayed");
	}
}
