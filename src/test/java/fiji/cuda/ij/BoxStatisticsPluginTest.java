package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import fiji.cuda.integral.BoxStatistics.Statistic;
import fiji.cuda.integral.Window;
import ij.IJ;
import ij.ImagePlus;

/** The dialog's window rule: the radius's square, or a w x h rectangle; nothing silently dropped. */
class BoxStatisticsPluginTest {

	@Test
	void theResultKeepsTheSourcesLut() {
		// as Image>Type>32-bit and Process>Filters>Mean... keep it: the result came out grey, and
		// the local mean of an image with an inverting LUT showed with the opposite contrast
		ImagePlus inverted = IJ.createImage("s", "8-bit ramp", 30, 20, 1);
		inverted.getProcessor().invertLut();
		ImagePlus mean = BoxStatisticsPlugin.compute(inverted, fiji.cuda.integral.BoxStatistics.Statistic.MEAN,
			fiji.cuda.integral.Window.square(2), false);
		assertTrue(mean.isInvertedLut(), "the inverting LUT was lost");
		ImagePlus fire = IJ.createImage("f", "16-bit ramp", 30, 20, 2);
		java.awt.image.IndexColorModel lut = ij.plugin.LutLoader.getLut("fire");
		fire.getProcessor().setColorModel(lut);
		ImagePlus sd = BoxStatisticsPlugin.compute(fire, fiji.cuda.integral.BoxStatistics.Statistic.STANDARD_DEVIATION,
			fiji.cuda.integral.Window.square(1), true);
		java.awt.image.IndexColorModel got = (java.awt.image.IndexColorModel) sd.getProcessor().getColorModel();
		for (int i = 0; i < 256; i += 50)
			assertEquals(lut.getRGB(i), got.getRGB(i), "entry " + i);
	}

	@Test
	void aNegativeWidthOrHeightIsAnErrorNotTheRadiusSquare() {
		// width=-5 height=0 used to give the radius-2 square without a word
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> BoxStatisticsPlugin.window(2, -5, 0, 100));
		assertTrue(e.getMessage().contains("not width=-5 height=0."), e.getMessage());
		assertThrows(IllegalArgumentException.class, () -> BoxStatisticsPlugin.window(2, 3, -1, 100));
		Window square = BoxStatisticsPlugin.window(2, 0, 0, 100);
		assertEquals(Window.square(2).toString(), square.toString());
		assertEquals(Window.rectangle(4, 3).toString(), BoxStatisticsPlugin.window(2, 4, 3, 100).toString());
	}

	/** A virtual stack whose slices come from memory, each read as a new array as from disk. */
	static ImagePlus virtualCopy(ImagePlus source) {
		ij.ImageStack src = source.getStack();
		ij.VirtualStack vs = new ij.VirtualStack(source.getWidth(), source.getHeight(), null,
			System.getProperty("java.io.tmpdir"))
		{
			@Override
			public ij.process.ImageProcessor getProcessor(int n) {
				return src.getProcessor(n).duplicate();
			}

			@Override
			public int getSize() {
				return src.getSize();
			}
		};
		ImagePlus imp = new ImagePlus("virtual", vs);
		assertTrue(imp.getStack().isVirtual());
		return imp;
	}

	@Test
	void aVirtualStackIsReadNotRefusedAsIfItWereChanged() {
		// the new image was refused with "This is a virtual stack, whose changes would be lost",
		// though the command only reads the slices
		ImagePlus mem = ImageJReference.noise("16-bit", 21, 17, 3, 40);
		ImagePlus virt = virtualCopy(mem);
		ImagePlus expected = BoxStatisticsPlugin.compute(mem, Statistic.VARIANCE, Window.square(2), true);
		ImagePlus got = BoxStatisticsPlugin.compute(virt, Statistic.VARIANCE, Window.square(2), true);
		assertEquals(3, got.getStackSize());
		assertTrue(ImageJReference.samePixels(expected, got));
		ImagePlus sums = IntegralImagePlugin.compute(virt, IntegralImagePlugin.TABLES[2], true);
		assertTrue(ImageJReference.samePixels(IntegralImagePlugin.compute(mem, IntegralImagePlugin.TABLES[2], true), sums));
	}

	@Test
	void aRadiusFarLargerThanTheImageClipsLikeAnyRadiusLargerThanIt() {
		Display.required();
		// radius=3000000000 was refused as not "a whole number of at least 1"
		ImagePlus imp = ImageJReference.noise("16-bit", 30, 20, 1, 62);
		ij.ImagePlus[] shown = new ij.ImagePlus[1];
		String log = LocalThresholdPluginTest.asMacro(new BoxStatisticsPlugin() {
			@Override
			public void run(String arg) {
				super.run(arg);
				shown[0] = ij.WindowManager.getCurrentImage();
			}
		}, imp, "radius=3000000000 statistic=Mean width=0 height=0");
		assertTrue(!log.contains("GPU Box Statistics:"), log);
		assertTrue(shown[0] != null && shown[0] != imp, "no result image");
		ImagePlus expected = BoxStatisticsPlugin.compute(imp, Statistic.MEAN, Window.square(40), false);
		assertTrue(ImageJReference.samePixels(expected, shown[0]));
		shown[0].close();
	}

	@Test
	void aMacrosWidthAndHeightGiveThatRectangleNotItsTranspose() {
		Display.required();
		// width= is the window's extent along x and height= along y, as the dialog and the README
		// (w x h) say. A mutation test found that the menu command taking them the other way round passed
		// every test
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 1, 79);
		ImagePlus expected = BoxStatisticsPlugin.compute(imp, Statistic.MEAN, Window.rectangle(7, 3), false);
		ImagePlus[] shown = new ImagePlus[1];
		String log = LocalThresholdPluginTest.asMacro(arg -> {
			new BoxStatisticsPlugin().run(arg);
			shown[0] = ij.WindowManager.getCurrentImage();
		}, imp, "statistic=Mean width=7 height=3");
		assertTrue(shown[0] != null && shown[0] != imp, "no result image: " + log);
		try {
			assertEquals(imp.getTitle() + " mean 7x3", shown[0].getTitle());
			assertTrue(ImageJReference.samePixels(expected, shown[0]), "not the 7x3 window's means");
		} finally {
			shown[0].changes = false;
			shown[0].close();
		}
	}

	@Test
	void aDensityCalibrationGivesTheStatisticsOfTheCalibratedValues() {
		// the statistics were those of the raw values, and the result has no calibration: a signed
		// 16-bit image's means came out 32768 too high, and a calibration's slope was ignored
		ImagePlus signed = ImageJReference.noise("16-bit", 30, 20, 2, 70);
		signed.getCalibration().setSigned16BitCalibration();
		ImagePlus scaled = ImageJReference.noise("8-bit", 30, 20, 1, 71);
		scaled.getCalibration().setFunction(ij.measure.Calibration.STRAIGHT_LINE, new double[] { -10, 2.5 }, "OD");
		for (ImagePlus imp : new ImagePlus[] { signed, scaled }) {
			ImagePlus asFloat = imp.duplicate(); // Image>Type>32-bit: the calibrated values
			if (imp.getStackSize() > 1) new ij.process.StackConverter(asFloat).convertToGray32();
			else new ij.process.ImageConverter(asFloat).convertToGray32();
			for (Statistic st : Statistic.values()) {
				ImagePlus got = BoxStatisticsPlugin.compute(imp, st, Window.square(2), true);
				ImagePlus expected = BoxStatisticsPlugin.compute(asFloat, st, Window.square(2), true);
				assertTrue(ImageJReference.samePixels(expected, got), imp.getBitDepth() + "-bit " + st);
				assertTrue(!got.getCalibration().calibrated());
			}
		}
	}

	@Test
	void oneChannelOfACompositeGivesAResultInThatChannelsColour() {
		// in batch mode the composite's processor carries its first channel's LUT: channel 2's
		// result came out magenta, where Image>Duplicate... gives it channel 2's cyan
		ImagePlus imp = IJ.createImage("c", "16-bit composite-mode ramp", 30, 20, 2, 2, 1);
		ij.CompositeImage ci = (ij.CompositeImage) imp;
		ci.setChannelLut(ij.process.LUT.createLutFromColor(java.awt.Color.magenta), 1);
		ci.setChannelLut(ij.process.LUT.createLutFromColor(java.awt.Color.cyan), 2);
		imp.setPosition(2, 2, 1);
		ImagePlus mean = BoxStatisticsPlugin.compute(imp, fiji.cuda.integral.BoxStatistics.Statistic.MEAN,
			fiji.cuda.integral.Window.square(2), false);
		assertEquals(java.awt.Color.cyan.getRGB(), mean.getProcessor().getColorModel().getRGB(255));
		ImagePlus binary = LocalThresholdPlugin.result(imp, fiji.cuda.integral.LocalThreshold.threshold(
			ImagePlusPlanes.wrap(new ImagePlus("p", imp.getProcessor())), fiji.cuda.integral.LocalThreshold.Method.MEAN, 2, 0,
			0, true, fiji.cuda.ops.ExecutionOptions.defaults()), fiji.cuda.integral.LocalThreshold.Method.MEAN);
		assertEquals(java.awt.Color.cyan.getRGB(), binary.getProcessor().getColorModel().getRGB(255));
	}

	@Test
	void theResultKeepsTheSourcesInfoAndTheSlicesLabel() {
		// the acquisition's metadata (Image>Show Info) was dropped, and a single slice's label
		ImagePlus imp = IJ.createImage("meta", "16-bit ramp", 40, 30, 3);
		imp.setProperty("Info", "acquisition metadata");
		imp.setProp("objective", "63x");
		imp.getStack().setSliceLabel("DAPI z2", 2);
		imp.setSlice(2);
		ImagePlus one = BoxStatisticsPlugin.compute(imp, Statistic.MEAN, Window.square(2), false);
		ImagePlus all = BoxStatisticsPlugin.compute(imp, Statistic.MEAN, Window.square(2), true);
		assertEquals("DAPI z2", one.getStack().getSliceLabel(1));
		assertEquals("DAPI z2", all.getStack().getSliceLabel(2));
		for (ImagePlus out : new ImagePlus[] { one, all }) {
			assertEquals("acquisition metadata", out.getInfoProperty(), out.getTitle());
			assertEquals("63x", out.getProp("objective"), out.getTitle());
		}
	}

	@Test
	void aRadiusTheRectangleLeftUnusedIsNotRememberedWhenItWouldBeRefused() throws Exception {
		// 2.5 with a 4x4 rectangle ran, was remembered, showed as a whole number in the next
		// dialog, and was refused as radius=2.5 once width and height went back to 0
		Display.required();
		int[] before = ij.WindowManager.getIDList();
		Runnable menu = () -> new BoxStatisticsPlugin().run("");
		String command = "GPU Box Statistics...";
		Interactive.run(command, ImageJReference.noise("8-bit", 30, 20, 1, 1), menu, "#0=2.5", "#1=4", "#2=4", "OK");
		String log = LocalThresholdPluginTest.log(() -> {
			try {
				Interactive.run(command, ImageJReference.noise("8-bit", 30, 20, 1, 2), menu, "#1=0", "#2=0", "OK");
			} catch (Exception e) {
				throw new IllegalStateException(e);
			}
		});
		assertFalse(log.contains("GPU Box Statistics:"), log);
		java.util.Set<Integer> old = new java.util.HashSet<>();
		if (before != null)
			for (int id : before)
				old.add(id);
		int[] after = ij.WindowManager.getIDList();
		if (after != null)
			for (int id : after)
				if (!old.contains(id)) ij.WindowManager.getImage(id).close();
	}

	@Test
	void resultsAreTitledAfterTheWholeTitleAndTheWindowAsGiven() {
		// ImageJ's short title made "experiment.lif - Series 1" and "- Series 2" both "experiment",
		// and radius 30, 100 and 1000 all "61x61" windows of a 30x20 image
		ImagePlus series = IJ.createImage("experiment.lif - Series 2", "8-bit ramp", 30, 20, 1);
		ImagePlus tif = IJ.createImage("cell 1.tif", "8-bit ramp", 30, 20, 1);
		Window clipped = BoxStatisticsPlugin.window(100, 0, 0, 30);
		assertEquals("experiment.lif - Series 2 mean 201x201", BoxStatisticsPlugin.compute(series, Statistic.MEAN, clipped,
			false, BoxStatisticsPlugin.windowLabel(100, 0, 0)).getTitle());
		assertEquals("cell 1 mean 4x6", BoxStatisticsPlugin.compute(tif, Statistic.MEAN, Window.rectangle(4, 6), false,
			BoxStatisticsPlugin.windowLabel(3, 4, 6)).getTitle());
		assertEquals("cell 1 sum table", IntegralImagePlugin.compute(tif, IntegralImagePlugin.TABLES[0], false).getTitle());
	}
}
