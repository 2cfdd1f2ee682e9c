package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import ij.IJ;
import ij.ImagePlus;

/** The menu command's table image: values, and the source's hyperstack layout. */
class IntegralImagePluginTest {

	@Test
	void aTableOneAbove2To24IsWarnedAbout() {
		// 2^24 + 1 = 65793 pixels of 255 and one of 2: as a float the total rounds to 2^24,
		// which had passed the check
		ImagePlus imp = IJ.createImage("w", "8-bit black", 257, 257, 1);
		byte[] p = (byte[]) imp.getProcessor().getPixels();
		java.util.Arrays.fill(p, 0, 65793, (byte) 255);
		p[65793] = 2;
		IntegralImagePlugin.floatWarned = false;
		String log = LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], false));
		// printed exactly: as "1.67772e+07" (printf's %g) it read as 2^24 itself, not above it
		assertTrue(log.contains("GPU Integral Image: values reach 16777217 in \"w\", above 2^24 = 16777216"), log);
	}

	@Test
	void aFloatTablePast2To24IsWarnedAboutToo() {
		// 250x250 pixels of 301 (a 16-bit image made 32-bit, say): 91 entries past 2^24 were
		// rounded in the 32-bit result, and only the same data as 16-bit was warned about
		ImagePlus imp = IJ.createImage("f", "32-bit black", 250, 250, 1);
		imp.getProcessor().set(301);
		IntegralImagePlugin.floatWarned = false;
		String log = LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], false));
		assertTrue(log.contains("GPU Integral Image: values reach 18812500 in \"f\", above 2^24 = 16777216"), log);
		assertTrue(log.contains("give 64-bit (double) tables."), log);
		// a plane whose sums stay below 2^24 in magnitude, though they go negative, is not
		imp.getProcessor().set(-4);
		IntegralImagePlugin.floatWarned = false;
		log = LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], false));
		assertFalse(log.contains("values reach"), log);
	}

	@Test
	void aTableReachingExactly2To24IsNotWarnedAbout() {
		// every integer up to 2^24 is exact in a float: a table that reaches 2^24 itself is exact,
		// and a warning about it (said once a session) would be used up on a table that needs none.
		// A mutation test found that warning at 2^24 passed every test
		ImagePlus imp = IJ.createImage("exact", "8-bit black", 257, 257, 1);
		byte[] p = (byte[]) imp.getProcessor().getPixels();
		java.util.Arrays.fill(p, 0, 65793, (byte) 255);
		p[65793] = 1; // 255 x 65793 + 1 = 16777216
		IntegralImagePlugin.floatWarned = false;
		String log = LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], false));
		assertFalse(log.contains("GPU Integral Image: values reach"), log);
		assertFalse(IntegralImagePlugin.floatWarned, "the once-a-session warning was used up");
	}

	@Test
	void everyEntryIsTheDirectSumRoundedOnceToFloat() {
		// a known answer for each entry of both tables, at sizes down to one pixel, on a stack
		for (int[] wh : new int[][] { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 37, 23 } }) {
			int w = wh[0], h = wh[1];
			ImagePlus imp = ImageJReference.noise("16-bit", w, h, 2, 31);
			ImagePlus both = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[2], true);
			assertEquals(4, both.getStackSize());
			ImagePlus sum = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], true);
			ImagePlus sq = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[1], true);
			for (int z = 1; z <= 2; z++) {
				assertArrayEquals((float[]) both.getStack().getPixels(2 * z - 1), (float[]) sum.getStack().getPixels(z));
				assertArrayEquals((float[]) both.getStack().getPixels(2 * z), (float[]) sq.getStack().getPixels(z));
			}
			// the range shown is the first slice's, as ImageJ sets it for a new 32-bit stack
			ij.process.ImageProcessor first = new ij.process.FloatProcessor(w, h, (float[]) sq.getStack().getPixels(1));
			assertEquals(first.getMin(), sq.getDisplayRangeMin());
			assertEquals(first.getMax(), sq.getDisplayRangeMax());
			for (int z = 0; z < 2; z++) {
				short[] p = (short[]) imp.getStack().getPixels(z + 1);
				float[] sums = (float[]) both.getStack().getPixels(2 * z + 1), squares = (float[]) both.getStack().getPixels(2 * z + 2);
				for (int y = 0; y < h; y++)
					for (int x = 0; x < w; x++) {
						long s = 0, q = 0;
						for (int v = 0; v <= y; v++)
							for (int u = 0; u <= x; u++) {
								long a = p[v * w + u] & 0xffff;
								s += a;
								q += a * a;
							}
						assertEquals((float) s, sums[y * w + x], w + "x" + h + " sum at " + x + "," + y);
						assertEquals((float) q, squares[y * w + x], w + "x" + h + " square at " + x + "," + y);
					}
			}
		}
	}

	@Test
	void aSumOfSquaresPast2To53IsRoundedOnceNotThroughADouble() {
		// 2^53 + 2^29 + 1 went through a double first, where it is a tie that rounds down to
		// 2^53 + 2^29, itself a tie in float that rounds down to 2^53; the nearest float is
		// 2^53 + 2^30. A bright 16-bit image of 2 million pixels gets there.
		ImagePlus imp = IJ.createImage("bright", "16-bit black", 2048, 1025, 1);
		short[] p = (short[]) imp.getProcessor().getPixels();
		int i = 0;
		for (; i < 2097216; i++)
			p[i] = (short) 65535;
		for (int v : new int[] { 23305, 198, 8, 3, 1, 1, 1 })
			p[i++] = (short) v;
		long exact = (1L << 53) + (1L << 29) + 1, q = 0;
		for (short v : p)
			q += (long) (v & 0xffff) * (v & 0xffff);
		assertEquals(exact, q, "the test image");
		IntegralImagePlugin.floatWarned = true; // the warning is not what this test is about
		ImagePlus sq = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[1], false);
		float last = ((float[]) sq.getProcessor().getPixels())[p.length - 1];
		assertEquals((1L << 53) + (1L << 30), (long) last);
	}

	@Test
	void nanOrInfiniteTablesAreSaidNotLeftSilent() {
		// a NaN pixel, common in ratio images, made most of the table NaN without a word
		ImagePlus ratio = IJ.createImage("ratio", "32-bit ramp", 20, 10, 3);
		ratio.getStack().getProcessor(2).setf(5, 5, Float.NaN);
		String log = LocalThresholdPluginTest.log(() -> {
			ImagePlus sum = IntegralImagePlugin.compute(ratio, IntegralImagePlugin.TABLES[0], true);
			assertTrue(Float.isNaN(sum.getStack().getProcessor(2).getf(19, 9)));
		});
		assertTrue(log.contains("GPU Integral Image: the result for \"ratio\" (1 of its 3 slices, the first slice 2) holds NaN "
			+ "or infinite values: a NaN or infinite pixel makes every entry below and to the right of it so"), log);
		// a sum of squares past the largest float is infinite in the 32-bit table, not in the double one
		ImagePlus large = IJ.createImage("large", "32-bit black", 4, 3, 1);
		large.getProcessor().setf(1, 1, 2e19f);
		log = LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(large, IntegralImagePlugin.TABLES[2], false));
		assertTrue(log.contains("GPU Integral Image: the result for \"large\" holds NaN or infinite values"), log);
		// the sum alone fits: nothing to say
		log = LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(large, IntegralImagePlugin.TABLES[0], false));
		assertEquals("", log);
		log = LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(ratio, IntegralImagePlugin.TABLES[2], false));
		assertEquals("", log, "slice 1, the current one, is all finite");
	}

	@Test
	void squaresBelowTheSmallestFloatAreSaidNotLeftSilent() {
		// 1e-30 everywhere gave a sum-of-squares table of 0 without a word (the exact entries are
		// 1e-60 and more), where a sum beyond the largest float was said
		ImagePlus tiny = IJ.createImage("tiny", "32-bit black", 20, 10, 1);
		tiny.getProcessor().set(1e-30);
		String log = LocalThresholdPluginTest.log(() -> {
			ImagePlus sq = IntegralImagePlugin.compute(tiny, IntegralImagePlugin.TABLES[1], false);
			assertEquals(0f, sq.getProcessor().getf(19, 9));
		});
		assertTrue(log.contains("GPU Integral Image: \"tiny\" holds values below 1.1e-19 in magnitude, whose squares are below "
			+ "the smallest normal 32-bit value (1.2e-38)"), log);
		// the sum alone keeps its digits, and values whose squares are normal floats say nothing
		assertEquals("", LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(tiny, IntegralImagePlugin.TABLES[0],
			false)));
		tiny.getProcessor().set(1e-10);
		assertEquals("", LocalThresholdPluginTest.log(() -> IntegralImagePlugin.compute(tiny, IntegralImagePlugin.TABLES[2],
			false)));
	}

	@Test
	void sliceLabelsKeepTheirFirstLineSoThatBothTablesOfASliceReadApart() {
		// a DICOM slice's label holds its header after the first line, which ImageJ does not
		// show: "IM-0001" was all that showed of both "... sum" and "... sum of squares"
		ImagePlus imp = IJ.createImage("dicom", "16-bit ramp", 6, 4, 3);
		imp.getStack().setSliceLabel("IM-0001\n0008,0005  Specific Character Set: ISO_IR 100", 1);
		imp.getStack().setSliceLabel("\nheader only", 2);
		imp.getStack().setSliceLabel("cell 3", 3);
		ImagePlus both = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[2], true);
		String[] want = { "IM-0001 sum", "IM-0001 sum of squares", "sum", "sum of squares", "cell 3 sum",
			"cell 3 sum of squares" };
		for (int i = 0; i < want.length; i++)
			assertEquals(want[i], both.getStack().getSliceLabel(i + 1), "slice " + (i + 1));
	}

	@Test
	void aChoiceWithSpacesWithoutItsBracketsIsRefusedNotReadAsItsFirstWord() {
		Display.required();
		// "table=Sum of squares" made the Sum table without a word, GenericDialog reading "Sum"
		ImagePlus imp = ImageJReference.noise("8-bit", 8, 6, 1, 3);
		int before = ij.WindowManager.getImageCount();
		String log = LocalThresholdPluginTest.asMacro(new IntegralImagePlugin(), imp, "table=Sum of squares");
		assertEquals("GPU Integral Image: Table must be in brackets when it has spaces: table=[Sum of squares], not "
			+ "table=Sum of squares (only \"Sum\" would be read).", log.trim());
		assertEquals(before, ij.WindowManager.getImageCount(), "a table was made");
		log = LocalThresholdPluginTest.asMacro(new BoxStatisticsPlugin(), imp, "radius=2 statistic=standard Deviation");
		assertEquals("GPU Box Statistics: Statistic must be in brackets when it has spaces: statistic=[Standard deviation], "
			+ "not statistic=Standard deviation (only \"Standard\" would be read).", log.trim());
		// in brackets, or a bracketed title that holds the words, is no mistake
		Field table = IntegralImagePlugin.TABLE;
		assertEquals(null, table.unbracketedChoice("table=[Sum of squares]", IntegralImagePlugin.TABLES));
		assertEquals(null, table.unbracketedChoice("title=[x table=Sum of squares] table=Sum", IntegralImagePlugin.TABLES));
		assertEquals(null, table.unbracketedChoice("table=Sum of_squares=2", IntegralImagePlugin.TABLES));
		assertEquals(null, table.unbracketedChoice(null, IntegralImagePlugin.TABLES));
	}

	@Test
	void anRgbImageIsRefusedBeforeTheDialog() throws Exception {
		Display.required();
		// the dialog asked for the tables first, and only then said that RGB is not taken
		ImagePlus rgb = ImageJReference.noise("RGB", 8, 6, 1, 3);
		String log = UnusualImagesTest.fromTheMenu("GPU Integral Image...", new IntegralImagePlugin(), rgb);
		assertEquals("GPU Integral Image: " + fiji.cuda.ops.Texts.RGB, log.trim());
	}

	@Test
	void theTablesAreOfTheWholeImageWithASelectionAndKeepTheSpatialCalibration() {
		// as the dialog and the README say: entry (x, y) counts from the image's corner
		ImagePlus imp = ImageJReference.noise("8-bit", 20, 12, 1, 8);
		imp.getCalibration().pixelWidth = 0.5;
		imp.getCalibration().setUnit("um");
		imp.getCalibration().setSigned16BitCalibration(); // a density calibration, which sums do not keep
		assertTrue(imp.getCalibration().calibrated(), "the test image");
		ImagePlus whole = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], false);
		imp.setRoi(new ij.gui.OvalRoi(3, 2, 9, 7));
		ImagePlus selected = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], false);
		assertTrue(ImageJReference.samePixels(whole, selected), "the selection changed the tables");
		assertEquals(20, selected.getWidth());
		assertEquals(0.5, selected.getCalibration().pixelWidth);
		assertEquals(imp.getCalibration().getUnit(), selected.getCalibration().getUnit());
		assertTrue(!selected.getCalibration().calibrated(), "the density calibration was kept");
	}

	@Test
	void theWarningIsSaidOncePerSessionNotForEveryImageOfABatch() {
		// a batch of 1000 images of 256x256 pixels and more wrote it 1000 times
		ImagePlus imp = IJ.createImage("big", "8-bit white", 300, 300, 1);
		IntegralImagePlugin.floatWarned = false;
		String log = LocalThresholdPluginTest.log(() -> {
			for (int i = 0; i < 3; i++)
				IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[2], false);
		});
		assertEquals(1, log.split("above 2\\^24", -1).length - 1, log);
	}

	@Test
	void aHyperstacksTablesKeepItsLayoutEachChannelTwiceForBoth() {
		// with "stack" a 2-channel, 3-slice image came back as a plain stack
		ImagePlus imp = IJ.createHyperStack("h", 6, 4, 2, 3, 1, 8);
		for (int i = 1; i <= imp.getStackSize(); i++) {
			ij.process.ImageProcessor p = imp.getStack().getProcessor(i);
			p.setValue(i);
			p.fill();
		}
		ImagePlus sum = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], true);
		assertTrue(sum.isHyperStack());
		assertEquals(2, sum.getNChannels());
		assertEquals(3, sum.getNSlices());
		ImagePlus both = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[2], true);
		assertEquals(4, both.getNChannels());
		assertEquals(3, both.getNSlices());
		// channel 2k+1 of a position is plane k's sum, 2k+2 its sum of squares: plane 4 (c 2, z 2) is all 4
		int i = both.getStackIndex(3, 2, 1), j = both.getStackIndex(4, 2, 1);
		assertEquals(4f * 24, both.getStack().getProcessor(i).getf(5, 3));
		assertEquals(16f * 24, both.getStack().getProcessor(j).getf(5, 3));
	}

	@Test
	void aTimeSeriesAndAnImageOfChannelsAloneKeepTheirFramesAndChannels() {
		// neither is an ImageJ "hyperstack" (three dimensions only), and their frames or
		// channels came back as slices
		ImagePlus series = IJ.createHyperStack("t", 6, 4, 1, 1, 5, 16);
		assertEquals(5, series.getNFrames());
		ImagePlus mean = BoxStatisticsPlugin.compute(series, fiji.cuda.integral.BoxStatistics.Statistic.MEAN,
			fiji.cuda.integral.Window.square(1), true);
		assertEquals(1, mean.getNSlices());
		assertEquals(5, mean.getNFrames());
		ImagePlus sums = IntegralImagePlugin.compute(series, IntegralImagePlugin.TABLES[0], true);
		assertEquals(5, sums.getNFrames());
		ImagePlus channels = IJ.createImage("c", "8-bit composite-mode", 6, 4, 3, 1, 1);
		assertEquals(3, channels.getNChannels());
		ImagePlus both = IntegralImagePlugin.compute(channels, IntegralImagePlugin.TABLES[2], true);
		assertEquals(6, both.getNChannels());
		assertEquals(1, both.getNSlices());
		ImagePlus like = ImagePlusPlanes.likeSource(IntegralImagePlugin.compute(channels, IntegralImagePlugin.TABLES[0],
			true), channels);
		assertEquals(3, like.getNChannels());
		// a plain z-stack stays one
		ImagePlus z = IJ.createImage("z", "8-bit black", 6, 4, 4);
		ImagePlus zMean = BoxStatisticsPlugin.compute(z, fiji.cuda.integral.BoxStatistics.Statistic.MEAN,
			fiji.cuda.integral.Window.square(1), true);
		assertEquals(4, zMean.getNSlices());
		assertEquals(1, zMean.getNFrames());
	}

	@Test
	void aCompositesStatisticsAndTablesAreCompositesWithItsChannelColours() {
		// they came back as a grey hyperstack, one display range for all channels, showing
		// one channel at a time where the source showed them all in colour
		ImagePlus imp = IJ.createImage("c", "16-bit composite-mode ramp", 20, 10, 3, 2, 1);
		ij.CompositeImage src = (ij.CompositeImage) imp;
		src.setChannelLut(ij.process.LUT.createLutFromColor(java.awt.Color.green), 1);
		src.setChannelLut(ij.process.LUT.createLutFromColor(java.awt.Color.magenta), 3);
		for (int c = 1; c <= 3; c++) {
			ij.process.ImageProcessor p = imp.getStack().getProcessor(imp.getStackIndex(c, 1, 1));
			p.multiply(c / 4.0); // a range of its own for each channel
		}
		ImagePlus mean = BoxStatisticsPlugin.compute(imp, fiji.cuda.integral.BoxStatistics.Statistic.MEAN,
			fiji.cuda.integral.Window.square(1), true);
		ImagePlus both = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[2], true);
		for (ImagePlus out : new ImagePlus[] { mean, both }) {
			assertTrue(out.isComposite(), out.getTitle());
			ij.CompositeImage ci = (ij.CompositeImage) out;
			assertEquals(src.getMode(), ci.getMode());
			int per = out.getNChannels() / 3;
			double previous = 0;
			for (int c = 1; c <= out.getNChannels(); c++) {
				ij.process.LUT lut = ci.getChannelLut(c);
				int want = src.getChannelLut((c - 1) / per + 1).getRGB(255);
				assertEquals(want & 0xffffff, lut.getRGB(255) & 0xffffff, out.getTitle() + " channel " + c);
				ij.process.ImageProcessor p = out.getStack().getProcessor(out.getStackIndex(c, 1, 1));
				p.resetMinAndMax();
				assertEquals(p.getMax(), lut.max, 1e-3 * p.getMax(), out.getTitle() + " channel " + c + " range");
				if (per == 1) assertTrue(lut.max > previous, "each channel its own range");
				previous = lut.max;
			}
		}
	}

	@Test
	void bothTablesOfAZStackOrATimeSeriesAreTwoChannelsEachWithItsOwnRange() {
		// a z-stack's tables came out as twice the slices at the same spacing, sums and squares
		// interleaved; a time series' as two channels sharing one range, the squares shown white
		for (int[] zt : new int[][] { { 4, 1 }, { 1, 3 } }) {
			ImagePlus imp = IJ.createImage("s", "8-bit ramp", 30, 20, 1, zt[0], zt[1]);
			imp.getCalibration().pixelDepth = 2;
			ImagePlus both = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[2], true);
			String what = zt[0] + " slices, " + zt[1] + " frames";
			assertEquals(java.util.List.of(2, zt[0], zt[1]),
				java.util.List.of(both.getNChannels(), both.getNSlices(), both.getNFrames()), what);
			assertEquals(2, both.getCalibration().pixelDepth, what);
			assertTrue(both.isComposite(), what);
			ij.CompositeImage ci = (ij.CompositeImage) both;
			assertEquals(IJ.GRAYSCALE, ci.getMode(), what);
			for (int c = 1; c <= 2; c++) {
				ij.process.ImageProcessor ip = both.getStack().getProcessor(both.getStackIndex(c, 1, 1)).duplicate();
				ip.resetMinAndMax();
				assertEquals(ip.getMax(), ci.getChannelLut(c).max, what + ", channel " + c);
				assertTrue(both.getStack().getSliceLabel(both.getStackIndex(c, 1, 1)).endsWith(c == 1 ? "sum" : "squares"),
					what);
			}
		}
	}

	@Test
	void bothTablesOfOnePlaneAreTwoChannelsEachWithItsOwnRange() {
		// a single image, or one slice of a stack, gave a stack of two slices with the sum's range,
		// and the sum of squares showed almost white
		ImagePlus stack = IJ.createImage("st", "8-bit ramp", 64, 48, 3);
		IJ.run(stack, "Add Specified Noise...", "stack standard=40");
		stack.setSlice(2);
		for (ImagePlus imp : new ImagePlus[] { IJ.createImage("o", "8-bit ramp", 64, 48, 1), stack }) {
			ImagePlus both = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[2], imp == stack ? false : true);
			String what = imp.getTitle();
			assertEquals(java.util.List.of(2, 1, 1), java.util.List.of(both.getNChannels(), both.getNSlices(),
				both.getNFrames()), what);
			assertTrue(both.isComposite(), what);
			for (int c = 1; c <= 2; c++) {
				float[] p = (float[]) both.getStack().getPixels(c);
				float max = Float.NEGATIVE_INFINITY;
				for (float v : p)
					max = Math.max(max, v);
				assertEquals(max, ((ij.CompositeImage) both).getChannelLut(c).max, 1e-6 * max, what + ", channel " + c);
			}
		}
	}

	@Test
	void theTablesKeepTheSourcesInfoAndTheSlicesLabel() {
		// the acquisition's metadata (Image>Show Info) was dropped, and a single slice's label
		ImagePlus imp = IJ.createImage("meta", "16-bit ramp", 40, 30, 3);
		imp.setProperty("Info", "acquisition metadata");
		imp.setProp("objective", "63x");
		imp.getStack().setSliceLabel("DAPI z2", 2);
		imp.setSlice(2);
		for (String table : IntegralImagePlugin.TABLES)
			for (boolean stack : new boolean[] { false, true }) {
				ImagePlus out = IntegralImagePlugin.compute(imp, table, stack);
				String what = table + (stack ? ", stack" : ", one slice");
				assertEquals("acquisition metadata", out.getInfoProperty(), what);
				assertEquals("63x", out.getProp("objective"), what);
				int index = stack ? (table.equals(IntegralImagePlugin.TABLES[2]) ? 3 : 2) : 1;
				assertTrue(out.getStack().getSliceLabel(index).startsWith("DAPI z2 "), what + ": "
					+ out.getStack().getSliceLabel(index));
			}
	}

	@Test
	void theTableOfASingleImageKeepsItsOwnLabelNotTheSourcesWhichImageJShowsAndSaves() {
		// a single image's label is its Slice_Label property, which the window's subtitle and a
		// saved TIFF take before the stack's: the source's went over the result's, and the sum
		// table of "DAPI" showed and saved "DAPI", not "DAPI sum"
		ImagePlus imp = IJ.createImage("one", "8-bit ramp", 20, 10, 1);
		imp.setProp("Slice_Label", "DAPI");
		imp.setProp("objective", "63x");
		ImagePlus sum = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], false);
		assertEquals("DAPI sum", sum.getStack().getSliceLabel(1));
		assertEquals("DAPI sum", sum.getProp("Slice_Label"));
		assertEquals("63x", sum.getProp("objective"), "the other properties");
		ImagePlus squares = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[1], false);
		assertEquals("DAPI sum of squares", squares.getProp("Slice_Label"));
		// one slice of a stack: its label, as Image>Duplicate of one slice sets it
		ImagePlus stack = IJ.createImage("z", "8-bit ramp", 20, 10, 3);
		stack.getStack().setSliceLabel("z2", 2);
		stack.setSlice(2);
		assertEquals("z2 sum", IntegralImagePlugin.compute(stack, IntegralImagePlugin.TABLES[0], false)
			.getProp("Slice_Label"));
	}

	@Test
	void oneTableKeepsTheSourcesLutAsBothTablesAndBoxStatisticsDo() {
		// the sum of an inverting-LUT image showed in a normal grey LUT, with the opposite
		// contrast to both tables of it and to its box mean, where Image>Type>32-bit keeps the LUT
		ImagePlus inverted = IJ.createImage("inv", "8-bit ramp", 20, 10, 3);
		inverted.getProcessor().invertLut();
		assertTrue(inverted.isInvertedLut(), "the test image");
		for (boolean stack : new boolean[] { false, true })
			for (String table : new String[] { IntegralImagePlugin.TABLES[0], IntegralImagePlugin.TABLES[1] })
				assertTrue(IntegralImagePlugin.compute(inverted, table, stack).isInvertedLut(), table + ", stack " + stack);
		ImagePlus both = IntegralImagePlugin.compute(inverted, IntegralImagePlugin.TABLES[2], false);
		ij.process.LUT bothLut = ((ij.CompositeImage) both).getChannelLut(1);
		assertTrue(bothLut.getRed(0) > bothLut.getRed(255), "both tables");
		// one slice of a composite: its channel's colour, as its box mean and both tables have it
		ImagePlus composite = IJ.createImage("c", "16-bit composite-mode ramp", 20, 10, 3, 1, 1);
		composite.setC(2);
		java.awt.Color expected = ((ij.CompositeImage) composite).getChannelColor();
		ImagePlus sum = IntegralImagePlugin.compute(composite, IntegralImagePlugin.TABLES[0], false);
		ij.process.LUT lut = sum.getProcessor().getLut();
		assertEquals(expected, new java.awt.Color(lut.getRed(255), lut.getGreen(255), lut.getBlue(255)), "channel 2's colour");
	}

	@Test
	void aResultOpensWhereTheSourceIsShown() {
		// as Image>Duplicate leaves its copy: a user looking at slice 5 got a result showing slice 1
		ImagePlus h = IJ.createImage("h", "16-bit ramp", 20, 10, 2, 4, 3);
		h.setPosition(2, 3, 2);
		ImagePlus both = IntegralImagePlugin.compute(h, IntegralImagePlugin.TABLES[2], true);
		assertEquals("3,3,2", both.getC() + "," + both.getZ() + "," + both.getT(), "both tables: channel 2's sum");
		ImagePlus mean = BoxStatisticsPlugin.compute(h, fiji.cuda.integral.BoxStatistics.Statistic.MEAN,
			fiji.cuda.integral.Window.square(1), true);
		assertEquals("2,3,2", mean.getC() + "," + mean.getZ() + "," + mean.getT());
		ImagePlus plain = IJ.createImage("p", "8-bit ramp", 20, 10, 7);
		plain.setSlice(5);
		assertEquals(5, BoxStatisticsPlugin.compute(plain, fiji.cuda.integral.BoxStatistics.Statistic.MEAN,
			fiji.cuda.integral.Window.square(1), true).getCurrentSlice());
		ImagePlus tables = IntegralImagePlugin.compute(plain, IntegralImagePlugin.TABLES[2], true);
		assertEquals("1,5,1", tables.getC() + "," + tables.getZ() + "," + tables.getT());
		assertEquals(1, IntegralImagePlugin.compute(plain, IntegralImagePlugin.TABLES[0], false).getCurrentSlice(),
			"one slice's table");
	}
}
