package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.integral.LocalThreshold;
import fiji.cuda.ops.ExecutionOptions;
import ij.IJ;
import ij.ImagePlus;

import java.util.Random;

import net.imglib2.img.array.ArrayImg;
import net.imglib2.type.numeric.integer.LongType;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandModule;

/** The integral-image SciJava commands in a plain headless context. */
class IntegralCommandsTest extends HeadlessCommands {

	private static ImagePlus noise(int w, int h) {
		ImagePlus imp = IJ.createImage("n", "16-bit black", w, h, 1);
		Random rnd = new Random(1);
		for (int i = 0; i < w * h; i++)
			imp.getProcessor().setf(i, rnd.nextInt(65536));
		return imp;
	}

	@Test
	void everyBuildNameIsAcceptedInAnyCaseAndLocale() throws Exception {
		ImagePlus imp = noise(20, 10);
		java.util.Locale saved = java.util.Locale.getDefault();
		// in a Turkish locale "naive".toUpperCase() is "NAİVE", with a dotted capital I
		java.util.Locale.setDefault(new java.util.Locale("tr", "TR"));
		try {
			for (fiji.cuda.integral.SatBuild b : fiji.cuda.integral.SatBuild.values())
				for (String name : new String[] { b.name(), b.name().toLowerCase(java.util.Locale.ROOT), " " + b.name() + " " }) {
					CommandModule m = commands.run(IntegralImageCommand.class, true, "image", imp, "build", name).get();
					assertNull(m.getCancelReason(), "build '" + name + "'");
				}
		} finally {
			java.util.Locale.setDefault(saved);
		}
	}

	@Test
	void aNegativeSliceIsRefused() throws Exception {
		// slice=-1 silently gave the current slice's tables, as slice=0 does
		CommandModule m = commands.run(IntegralImageCommand.class, true, "image", noise(20, 10), "slice", -1).get();
		assertEquals("GPU Integral Image: Slice must be 0 (the current slice) or a slice of the image, 1 to 1, not slice=-1.",
			m.getCancelReason());
	}

	@Test
	void integralImageCommandGivesExact64BitTables() throws Exception {
		ImagePlus imp = IJ.createImage("white", "16-bit white", 300, 300, 1);
		imp.getProcessor().setColor(65535);
		imp.getProcessor().fill();
		CommandModule m = commands.run(IntegralImageCommand.class, true, "image", imp, "build", "FUSED").get();
		assertNull(m.getCancelReason());
		@SuppressWarnings("unchecked")
		ArrayImg<LongType, ?> sq = (ArrayImg<LongType, ?>) m.getOutput("sumOfSquares");
		assertEquals(65535L * 65535 * 90000, sq.getAt(299, 299).get());
		assertTrue(commands.getCommand(IntegralImageCommand.class).getMenuPath().isEmpty());
		m = commands.run(IntegralImageCommand.class, true, "image", imp, "build", "quantum").get();
		assertEquals("GPU Integral Image: Build must be AUTO, NAIVE, CUB, DLB, FUSED or RTS, not build=quantum.",
			m.getCancelReason());
	}

	@Test
	void theLocalThresholdCommandKeepsACompositesChannelColours() throws Exception {
		// the result came back grey, one channel shown at a time, where the menu command keeps
		// each channel's colour
		ImagePlus imp = IJ.createImage("c", "16-bit composite-mode ramp", 30, 20, 3, 2, 1);
		ij.CompositeImage ci = (ij.CompositeImage) imp;
		ci.setChannelLut(ij.process.LUT.createLutFromColor(java.awt.Color.magenta), 1);
		ci.setChannelLut(ij.process.LUT.createLutFromColor(java.awt.Color.yellow), 3);
		CommandModule m = commands.run(LocalThresholdCommand.class, true, "image", imp, "method", "Mean", "radius", 3)
			.get();
		assertNull(m.getCancelReason());
		ImagePlus out = (ImagePlus) m.getOutput("result");
		assertTrue(out.isComposite(), "not a composite");
		assertEquals(ci.getMode(), ((ij.CompositeImage) out).getMode());
		assertEquals(8, out.getBitDepth());
		for (int c = 1; c <= 3; c++) {
			ij.process.LUT lut = ((ij.CompositeImage) out).getChannelLut(c);
			assertEquals(ci.getChannelLut(c).getRGB(255) & 0xffffff, lut.getRGB(255) & 0xffffff, "channel " + c);
			assertEquals(0, lut.min);
			assertEquals(255, lut.max);
		}
		assertEquals(3, out.getNChannels());
		assertEquals(2, out.getNSlices());
	}

	@Test
	void localThresholdAndBoxStatisticsCommandsEqualTheFacadeAndCancelOnBadInput() throws Exception {
		ImagePlus imp = noise(37, 29);
		CommandModule m = commands.run(LocalThresholdCommand.class, true, "image", imp, "method", "phansalkar", "radius", 5,
			"parameter1", 0.0, "parameter2", 0.0, "white", true).get();
		assertNull(m.getCancelReason());
		ImagePlus out = (ImagePlus) m.getOutput("result");
		assertEquals(imp.getTitle() + " Phansalkar", out.getTitle(), "the method as the menu spells it");
		byte[] expected = (byte[]) LocalThreshold.threshold(ImagePlusPlanes.wrap(imp), LocalThreshold.Method.PHANSALKAR, 5,
			0, 0, true, ExecutionOptions.defaults()).plane(0);
		assertArrayEquals(expected, (byte[]) out.getProcessor().getPixels());
		m = commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 0, "statistic", "Mean", "width", 0,
			"height", 0).get();
		assertEquals("GPU Box Statistics: Radius must be a whole number of at least 1, not radius=0.", m.getCancelReason());
		m = commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 3, "statistic", "Variance", "width", 0,
			"height", 0).get();
		assertEquals(32, ((ImagePlus) m.getOutput("result")).getBitDepth());
		assertTrue(commands.getCommand(LocalThresholdCommand.class).getMenuPath().isEmpty());
	}

	@Test
	void resultsKeepTheHyperstacksDimensionsAndCalibration() throws Exception {
		// a 2-channel, 3-slice calibrated image came back as 6 plain slices in pixels
		ImagePlus imp = IJ.createHyperStack("h", 30, 20, 2, 3, 1, 8);
		imp.getCalibration().pixelWidth = 0.25;
		imp.getCalibration().setUnit("um");
		for (Object[] cmd : new Object[][] {
			{ BoxStatisticsCommand.class, "image", imp, "radius", 2, "statistic", "Mean", "width", 0, "height", 0 },
			{ LocalThresholdCommand.class, "image", imp, "radius", 2, "method", "Mean" } }) {
			@SuppressWarnings("unchecked")
			Class<? extends org.scijava.command.Command> c = (Class<? extends org.scijava.command.Command>) cmd[0];
			CommandModule m = commands.run(c, true, java.util.Arrays.copyOfRange(cmd, 1, cmd.length)).get();
			assertNull(m.getCancelReason());
			ImagePlus r = (ImagePlus) m.getOutput("result");
			String what = c.getSimpleName();
			assertEquals(2, r.getNChannels(), what);
			assertEquals(3, r.getNSlices(), what);
			assertEquals(0.25, r.getCalibration().pixelWidth, 0.0, what);
			assertEquals(imp.getCalibration().getUnit(), r.getCalibration().getUnit(), what);
		}
		CommandModule bad = commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 2, "statistic", "Mean",
			"width", -5, "height", 0).get();
		org.junit.jupiter.api.Assertions.assertNotNull(bad.getCancelReason(), "a negative width was taken");
		// the refused width is not remembered: the next run without one takes the square
		assertNull(commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 2, "statistic", "Mean").get()
			.getCancelReason());
	}

	@Test
	void boxStatisticsResultIsTitledAndLabelledAsByTheMenuCommand() throws Exception {
		// it was "cells variance": no window, and the slices lost their labels
		ImagePlus imp = IJ.createImage("cells.tif", "8-bit black", 20, 10, 2);
		imp.getStack().setSliceLabel("first", 1);
		imp.getStack().setSliceLabel("second", 2);
		CommandModule m = commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 2, "statistic",
			"variance").get();
		assertNull(m.getCancelReason());
		ImagePlus r = (ImagePlus) m.getOutput("result");
		assertEquals("cells variance 5x5", r.getTitle());
		assertEquals("first", r.getStack().getSliceLabel(1));
		assertEquals("second", r.getStack().getSliceLabel(2));
	}

	@Test
	void boxStatisticsOfASingleImageCarriesNoLabelMadeOfItsTitleAndInfo() throws Exception {
		// ImageJ labels a single image's slice with its title and Info: the command's result
		// carried them as a label of its own, the menu command's none
		ImagePlus imp = IJ.createImage("cells.tif", "8-bit ramp", 20, 10, 1);
		imp.setProperty("Info", "Objective: 40x");
		CommandModule m = commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 2).get();
		assertNull(m.getCancelReason());
		assertNull(((ImagePlus) m.getOutput("result")).getStack().getSliceLabel(1));
	}

	@Test
	void localThresholdResultIsThresholdedAndKeepsTheLutAsTheMenuCommandsImage() throws Exception {
		// the menu command leaves the threshold 255-255 (Analyze Particles then takes the
		// foreground whatever "Black background" says) and the image's inverting LUT; the
		// command's result had neither, so the particles analysed were the background
		for (int slices : new int[] { 1, 2 }) {
			ImagePlus imp = IJ.createImage("cells", "16-bit ramp", 30, 20, slices);
			imp.getProcessor().invertLut();
			CommandModule m = commands.run(LocalThresholdCommand.class, true, "image", imp, "method", "Mean", "radius", 3)
				.get();
			assertNull(m.getCancelReason());
			ImagePlus r = (ImagePlus) m.getOutput("result");
			assertEquals(255, r.getProcessor().getMinThreshold(), 0.0, slices + " slices");
			assertEquals(255, r.getProcessor().getMaxThreshold(), 0.0, slices + " slices");
			assertTrue(r.isInvertedLut(), slices + " slices: the inverting LUT is lost");
			r.setSlice(slices);
			assertTrue(r.isInvertedLut(), slices + " slices: the inverting LUT is lost on the last slice");
		}
	}

	@Test
	void localThresholdRefusesAParameterInTheMenuCommandsWords() throws Exception {
		CommandModule m = commands.run(LocalThresholdCommand.class, true, "image", noise(20, 10), "parameter2",
			Double.NaN).get();
		assertEquals("GPU Local Threshold: Parameter 2 must be a finite number, not parameter_2=NaN.", m.getCancelReason());
	}

	@Test
	void localThresholdResultKeepsTheSliceLabels() throws Exception {
		// the menu command thresholds in place and keeps them; the command's new image lost them
		ImagePlus imp = IJ.createImage("cells", "16-bit black", 20, 10, 2);
		imp.getStack().setSliceLabel("first", 1);
		imp.getStack().setSliceLabel("second", 2);
		CommandModule m = commands.run(LocalThresholdCommand.class, true, "image", imp, "method", "Mean", "radius", 2)
			.get();
		assertNull(m.getCancelReason());
		ImagePlus r = (ImagePlus) m.getOutput("result");
		assertEquals("first", r.getStack().getSliceLabel(1));
		assertEquals("second", r.getStack().getSliceLabel(2));
	}

	@Test
	void boxStatisticsDoesNotRememberTheWindowOfAnEarlierRun() throws Exception {
		// SciJava persisted width and height: a run with a 7x7 window made every later run that
		// gave only a radius use 7x7 too, in this and in later sessions
		ImagePlus imp = noise(37, 29);
		assertNull(commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 1, "statistic", "Mean", "width",
			7, "height", 7).get().getCancelReason());
		CommandModule m = commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 1, "statistic", "Mean")
			.get();
		assertNull(m.getCancelReason());
		float[] expected = (float[]) fiji.cuda.integral.BoxStatistics.compute(ImagePlusPlanes.wrap(imp),
			fiji.cuda.integral.BoxStatistics.Statistic.MEAN, fiji.cuda.integral.Window.square(1), ExecutionOptions.defaults())
			.plane(0);
		assertArrayEquals(expected, (float[]) ((ImagePlus) m.getOutput("result")).getProcessor().getPixels());
	}

	@Test
	void aRadiusFarPastTheImageClipsToItAsInTheMenuCommands() throws Exception {
		// the menu commands clip any radius past the image; the commands refused one past 2^30 as "too large"
		ImagePlus imp = noise(37, 29);
		CommandModule m = commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 2000000000, "statistic",
			"Variance").get();
		assertNull(m.getCancelReason());
		float[] expected = (float[]) fiji.cuda.integral.BoxStatistics.compute(ImagePlusPlanes.wrap(imp),
			fiji.cuda.integral.BoxStatistics.Statistic.VARIANCE, fiji.cuda.integral.Window.square(37),
			ExecutionOptions.defaults()).plane(0);
		assertArrayEquals(expected, (float[]) ((ImagePlus) m.getOutput("result")).getProcessor().getPixels());
		m = commands.run(BoxStatisticsCommand.class, true, "image", imp, "statistic", "Variance", "width",
			Integer.MAX_VALUE, "height", Integer.MAX_VALUE).get();
		assertNull(m.getCancelReason());
		assertArrayEquals(expected, (float[]) ((ImagePlus) m.getOutput("result")).getProcessor().getPixels());
		m = commands.run(LocalThresholdCommand.class, true, "image", imp, "method", "Niblack", "radius", Integer.MAX_VALUE)
			.get();
		assertNull(m.getCancelReason());
		byte[] binary = (byte[]) LocalThreshold.threshold(ImagePlusPlanes.wrap(imp), LocalThreshold.Method.NIBLACK, 37, 0,
			0, true, ExecutionOptions.defaults()).plane(0);
		assertArrayEquals(binary, (byte[]) ((ImagePlus) m.getOutput("result")).getProcessor().getPixels());
	}

	@Test
	void aSliceOf32BitStackGivesItsDoubleTablesAndAn8BitOneLongTables() throws Exception {
		// known answers: quarters of small whole numbers, whose sums are exact in double
		ImagePlus imp = IJ.createImage("f", "32-bit black", 7, 5, 3);
		Random rnd = new Random(4);
		for (int z = 1; z <= 3; z++)
			for (int i = 0; i < 35; i++)
				imp.getStack().getProcessor(z).setf(i, rnd.nextInt(400) / 4f - 50);
		CommandModule m = commands.run(IntegralImageCommand.class, true, "image", imp, "slice", 2).get();
		assertNull(m.getCancelReason());
		@SuppressWarnings("unchecked")
		ArrayImg<net.imglib2.type.numeric.real.DoubleType, ?> sum = (ArrayImg<net.imglib2.type.numeric.real.DoubleType, ?>) m
			.getOutput("sum"), sq = (ArrayImg<net.imglib2.type.numeric.real.DoubleType, ?>) m.getOutput("sumOfSquares");
		float[] p = (float[]) imp.getStack().getPixels(2);
		for (int y = 0; y < 5; y++)
			for (int x = 0; x < 7; x++) {
				double s = 0, q = 0;
				for (int v = 0; v <= y; v++)
					for (int u = 0; u <= x; u++) {
						s += p[v * 7 + u];
						q += (double) p[v * 7 + u] * p[v * 7 + u];
					}
				assertEquals(s, sum.getAt(x, y).get(), "sum at " + x + "," + y);
				assertEquals(q, sq.getAt(x, y).get(), "square at " + x + "," + y);
			}
		ImagePlus bytes = IJ.createImage("b", "8-bit white", 3, 2, 1);
		m = commands.run(IntegralImageCommand.class, true, "image", bytes).get();
		@SuppressWarnings("unchecked")
		ArrayImg<LongType, ?> bsq = (ArrayImg<LongType, ?>) m.getOutput("sumOfSquares");
		assertEquals(6L * 255 * 255, bsq.getAt(2, 1).get());
		m = commands.run(IntegralImageCommand.class, true, "image", bytes, "slice", 2).get();
		assertEquals("GPU Integral Image: Slice must be 0 (the current slice) or a slice of the image, 1 to 1, not slice=2.",
			m.getCancelReason());
		m = commands.run(IntegralImageCommand.class, true, "image", IJ.createImage("c", "RGB white", 3, 2, 1)).get();
		assertEquals("GPU Integral Image: " + fiji.cuda.ops.Texts.RGB, m.getCancelReason());
	}

	@Test
	void noBuildNameTakesTheFastest() throws Exception {
		// a script passing None / null for the optional build got "Module threw exception" (a NullPointerException)
		ImagePlus imp = noise(20, 10);
		CommandModule m = commands.run(IntegralImageCommand.class, true, "image", imp, "build", null).get();
		assertNull(m.getCancelReason());
		@SuppressWarnings("unchecked")
		ArrayImg<LongType, ?> sum = (ArrayImg<LongType, ?>) m.getOutput("sum");
		long total = 0;
		for (int i = 0; i < 200; i++)
			total += (int) imp.getProcessor().getf(i);
		assertEquals(total, sum.getAt(19, 9).get());
	}

	@Test
	void boxStatisticsGivenOnlyTheImageIsTheMeanOverA5x5Window() throws Exception {
		// the documented defaults, radius 2 and Mean, as the menu command's; a mutation test found
		// that a default radius of 3, or Variance, passed every test
		ImagePlus imp = noise(37, 29);
		Object expected = fiji.cuda.integral.BoxStatistics.compute(ImagePlusPlanes.wrap(imp),
			fiji.cuda.integral.BoxStatistics.Statistic.MEAN, fiji.cuda.integral.Window.square(2), ExecutionOptions.defaults())
			.plane(0);
		assertDefaultsGive(BoxStatisticsCommand.class, imp, " mean 5x5", expected);
	}

	@Test
	void localThresholdGivenOnlyTheImageIsSauvolaOfRadius15WithWhiteObjects() throws Exception {
		// the documented defaults, as the menu command's; a mutation test found that a default of
		// Niblack, or of radius 10, passed every test
		ImagePlus imp = noise(37, 29);
		Object expected = LocalThreshold.threshold(ImagePlusPlanes.wrap(imp), LocalThreshold.Method.SAUVOLA, 15, 0, 0, true,
			ExecutionOptions.defaults()).plane(0);
		assertDefaultsGive(LocalThresholdCommand.class, imp, " Sauvola", expected);
	}

	/** The command given only the image makes a result titled after it with {@code suffix}, holding {@code pixels}. */
	private void assertDefaultsGive(Class<? extends org.scijava.command.Command> command, ImagePlus imp, String suffix,
		Object pixels) throws Exception {
		CommandModule m = commands.run(command, true, "image", imp).get();
		assertNull(m.getCancelReason());
		ImagePlus r = (ImagePlus) m.getOutput("result");
		assertEquals(imp.getTitle() + suffix, r.getTitle());
		Object got = r.getProcessor().getPixels();
		if (pixels instanceof float[]) assertArrayEquals((float[]) pixels, (float[]) got, "the result's pixels");
		else assertArrayEquals((byte[]) pixels, (byte[]) got, "the result's pixels");
	}

	@Test
	void theIntegralImageOfNoSliceIsTheCurrentOneAndTheLastSliceCanBeAskedFor() throws Exception {
		// a mutation test found that slice 1 taken for "the current slice", and the last slice
		// refused as past the stack, each passed every test
		ImagePlus imp = IJ.createImage("b", "8-bit black", 6, 4, 3);
		for (int z = 1; z <= 3; z++) {
			ij.process.ImageProcessor ip = imp.getStack().getProcessor(z);
			ip.setValue(10 * z);
			ip.fill();
		}
		imp.setSlice(2);
		for (Object[] run : new Object[][] { { "image", imp }, { "image", imp, "slice", 3 } }) {
			CommandModule m = commands.run(IntegralImageCommand.class, true, run).get();
			assertNull(m.getCancelReason(), java.util.Arrays.toString(run));
			@SuppressWarnings("unchecked")
			ArrayImg<LongType, ?> sum = (ArrayImg<LongType, ?>) m.getOutput("sum");
			int slice = run.length == 2 ? 2 : 3;
			assertEquals(24L * 10 * slice, sum.getAt(5, 3).get(), "the sum of slice " + slice);
		}
	}
}
