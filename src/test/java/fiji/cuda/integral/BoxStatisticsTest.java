package fiji.cuda.integral;

import static fiji.cuda.integral.IntegralImageTest.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics.Statistic;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;

import org.junit.jupiter.api.Test;

/** Box statistics against a direct double-precision loop over each clipped window. */
class BoxStatisticsTest {

	/** {mean, population variance} of the clipped window of (x, y), two-pass in double. */
	static double[] direct(Planes p, int z, int x, int y, Window win) {
		int x0 = Math.max(0, x - win.left()), x1 = Math.min(p.width() - 1, x + win.right());
		int y0 = Math.max(0, y - win.above()), y1 = Math.min(p.height() - 1, y + win.below());
		double s = 0;
		int n = 0;
		for (int j = y0; j <= y1; j++)
			for (int i = x0; i <= x1; i++, n++)
				s += TestImages.value(p.plane(z), p.type(), j * p.width() + i, 0);
		double m = s / n, v = 0;
		for (int j = y0; j <= y1; j++)
			for (int i = x0; i <= x1; i++) {
				double d = TestImages.value(p.plane(z), p.type(), j * p.width() + i, 0) - m;
				v += d * d;
			}
		return new double[] { m, v / n };
	}

	@Test
	void nanAndInfinityStayInTheirOwnWindows() {
		// a summed-area table carries a NaN into everything below and to the right of it: with
		// one NaN at (5, 5) a plain box query made 3600 of 4096 means NaN
		int w = 64, h = 64;
		float[] px = new float[w * h];
		java.util.Random r = new java.util.Random(3);
		for (int i = 0; i < px.length; i++)
			px[i] = 100 + 50 * r.nextFloat();
		px[5 * w + 5] = Float.NaN;
		px[50 * w + 40] = Float.POSITIVE_INFINITY;
		px[20 * w + 60] = Float.NEGATIVE_INFINITY;
		for (int y = 30; y < 36; y++)  // a NaN block wider than the window: windows with no finite pixel
			for (int x = 10; x < 16; x++)
				px[y * w + x] = Float.NaN;
		Planes img = Planes.wrap(w, h, new Object[] { px, px.clone() });
		Planes before = img.copy();
		Window win = Window.square(1);
		for (Statistic st : Statistic.values()) {
			Planes out = BoxStatistics.compute(img, st, win, CPU);
			for (int z = 0; z < 2; z++)
				for (int y = 0; y < h; y++)
					for (int x = 0; x < w; x++) {
						double s = 0, q = 0;
						int n = 0;
						for (int j = Math.max(0, y - 1); j <= Math.min(h - 1, y + 1); j++)
							for (int i = Math.max(0, x - 1); i <= Math.min(w - 1, x + 1); i++)
								if (Float.isFinite(px[j * w + i])) {
									s += px[j * w + i];
									n++;
								}
						float got = ((float[]) out.plane(z))[y * w + x];
						String at = st + " z" + z + " at " + x + "," + y;
						if (n == 0 || !Float.isFinite(px[y * w + x])) {
							assertTrue(Float.isNaN(got), at + ": " + got);
							continue;
						}
						double m = s / n;
						for (int j = Math.max(0, y - 1); j <= Math.min(h - 1, y + 1); j++)
							for (int i = Math.max(0, x - 1); i <= Math.min(w - 1, x + 1); i++)
								if (Float.isFinite(px[j * w + i])) q += (px[j * w + i] - m) * (px[j * w + i] - m);
						double e = st == Statistic.MEAN ? m : st == Statistic.VARIANCE ? q / n : Math.sqrt(q / n);
						assertEquals(e, got, Math.abs(e) * 1e-6 + 1e-4, at);
					}
		}
		assertTrue(TestImages.sameBits(before, img), "the input was modified");
	}

	@Test
	void everyStatisticMatchesTheDirectLoopForSquareAndRectangularWindows() {
		Window[] windows = { Window.square(1), Window.square(3), Window.square(40), Window.rectangle(1, 1),
			Window.rectangle(4, 3), Window.rectangle(2, 7), Window.rectangle(60, 1) };
		long seed = 20;
		for (PixelType t : IntegralImageTest.TYPES)
			for (int[] size : new int[][] { { 1, 1 }, { 1, 13 }, { 17, 1 }, { 23, 19 } }) {
				Planes img = TestImages.random(t, size[0], size[1], 2, seed++);
				Planes before = img.copy();
				for (Window win : windows)
					for (Statistic st : Statistic.values()) {
						Planes out = BoxStatistics.compute(img, st, win, CPU);
						assertEquals(PixelType.FLOAT32, out.type());
						assertEquals(2, out.depth());
						for (int z = 0; z < 2; z++)
							for (int y = 0; y < size[1]; y++)
								for (int x = 0; x < size[0]; x++) {
									double[] d = direct(img, z, x, y, win);
									double e = st == Statistic.MEAN ? d[0] : st == Statistic.VARIANCE ? d[1] : Math.sqrt(d[1]);
									float got = ((float[]) out.plane(z))[y * size[0] + x];
									// float output: an ulp of float; for 32-bit input also the error of the
									// double tables' four-corner differences (near 0, a variance of 1e-7 is a sd of 3e-4)
									double tol = Math.abs(e) * 1.2e-7;
									if (t == PixelType.FLOAT32) tol += st == Statistic.MEAN ? 1e-9 : st == Statistic.VARIANCE ? 1e-6 : 1e-3;
									if (Math.abs(e - got) > tol)
										fail(t + " " + size[0] + "x" + size[1] + " " + win + " " + st + " z" + z + " at " + x + ","
											+ y + ": expected " + e + ", got " + got);
								}
					}
				assertTrue(TestImages.sameBits(before, img), "the input was modified");
			}
	}

	@Test
	void aLargeOffsetDoesNotDrownASmallSpreadIn32BitImages() {
		// values near 10^6 varying by about 1: the variance came from plane-wide double sums of
		// squares near 2.6e17, whose rounding left standard deviations wrong by up to 7 times
		int w = 512, h = 512;
		float[] px = new float[w * h];
		java.util.Random r = new java.util.Random(1);
		for (int i = 0; i < px.length; i++)
			px[i] = 1e6f + (float) r.nextGaussian();
		px[7] = Float.NaN; // a plane with a NaN takes the other CPU route, which must be right too
		Planes img = Planes.wrap(w, h, new Object[] { px.clone(), px });
		((float[]) img.plane(0))[7] = 1e6f;
		Planes before = img.copy();
		Window win = Window.square(1);
		for (Statistic st : new Statistic[] { Statistic.VARIANCE, Statistic.STANDARD_DEVIATION }) {
			Planes out = BoxStatistics.compute(img, st, win, CPU);
			for (int z = 0; z < 2; z++)
				for (int y = 0; y < h; y += 3)
					for (int x = 0; x < w; x++) {
						int i = y * w + x;
						float got = ((float[]) out.plane(z))[i];
						if (z == 1 && Math.abs(x - 7) <= 1 && y <= 1) continue; // checked by nanAndInfinity...
						double v = direct(img, z, x, y, win)[1], e = st == Statistic.VARIANCE ? v : Math.sqrt(v);
						if (Math.abs(e - got) > 1e-4 * e + 1e-6)
							fail(st + " z" + z + " at " + x + "," + y + ": expected " + e + ", got " + got);
					}
		}
		assertTrue(TestImages.sameBits(before, img), "the input was modified");
	}

	@Test
	void aConstantWindowOfA32BitImageHasNoVarianceBelow0AndAFiniteDeviation() {
		// windows of one value to the right of and below noise: the four-corner differences of the
		// double tables round, and Q - S·m can come out a hair below 0, a negative variance and a
		// standard deviation of NaN, which the tolerances of the other tests let through (mutant:
		// SummedAreaTable.variance without its floor at 0)
		int w = 120, h = 120;
		float[] px = new float[w * h];
		java.util.Random r = new java.util.Random(9);
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
				px[y * w + x] = x < 60 && y < 60 ? (r.nextFloat() - 0.5f) * 2000 : 0.1f * (1 + (x / 20 + y / 20) % 3);
		Planes img = Planes.wrap(w, h, px);
		Window win = Window.square(1);
		int constant = 0;
		for (Statistic st : new Statistic[] { Statistic.VARIANCE, Statistic.STANDARD_DEVIATION }) {
			float[] out = (float[]) BoxStatistics.compute(img, st, win, CPU).plane(0);
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					double v = direct(img, 0, x, y, win)[1], e = st == Statistic.VARIANCE ? v : Math.sqrt(v);
					float got = out[y * w + x];
					String at = st + " at " + x + "," + y + ": expected " + e + ", got " + got;
					if (v == 0 && st == Statistic.VARIANCE) constant++;
					assertTrue(got >= 0, at);
					assertTrue(Math.abs(e - got) <= Math.abs(e) * 1.2e-7 + (st == Statistic.VARIANCE ? 1e-6 : 1e-3), at);
				}
		}
		assertTrue(constant > 3000, constant + " constant windows");
	}

	@Test
	void evenWindowsHangRightAndBelowAndBordersUseOnlyPixelsInside() {
		// 1, 2, 3, 4 in a row
		Planes row = Planes.wrap(4, 1, new byte[] { 1, 2, 3, 4 });
		// width 2: pixel x averages x and x+1; the last pixel has only itself
		assertArrayEquals(new float[] { 1.5f, 2.5f, 3.5f, 4f },
			(float[]) BoxStatistics.compute(row, Statistic.MEAN, Window.rectangle(2, 1), CPU).plane(0));
		// width 4: one column left, two right: {1,2,3}, {1..4}, {2,3,4}, {3,4}
		assertArrayEquals(new float[] { 2f, 2.5f, 3f, 3.5f },
			(float[]) BoxStatistics.compute(row, Statistic.MEAN, Window.rectangle(4, 1), CPU).plane(0));
		// radius 1: {1,2}, {1,2,3}, {2,3,4}, {3,4}; variances 0.25, 2/3, 2/3, 0.25
		assertArrayEquals(new float[] { 0.25f, (float) (2 / 3.0), (float) (2 / 3.0), 0.25f },
			(float[]) BoxStatistics.compute(row, Statistic.VARIANCE, 1, CPU).plane(0));
		// a column: the extra row is below
		Planes col = Planes.wrap(1, 3, new short[] { 10, 20, 60 });
		assertArrayEquals(new float[] { 15f, 40f, 60f },
			(float[]) BoxStatistics.compute(col, Statistic.MEAN, Window.rectangle(1, 2), CPU).plane(0));
		// a window larger than the image covers all of it everywhere: sd of {10, 20, 60} is sqrt(1400/3)
		float sd = (float) Math.sqrt(1400 / 3.0);
		assertArrayEquals(new float[] { sd, sd, sd },
			(float[]) BoxStatistics.compute(col, Statistic.STANDARD_DEVIATION, 1000, CPU).plane(0));
	}

	@Test
	void badInputIsRejectedWithAClearMessageAndTheImageIsUnchanged() {
		Planes img = TestImages.random(PixelType.UINT8, 8, 8, 1, 3);
		Planes before = img.copy();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> BoxStatistics.compute(img, Statistic.MEAN, 0, CPU));
		assertEquals("Box Statistics: The radius must be at least 1, not 0.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> BoxStatistics.compute(img, Statistic.MEAN, -3, CPU));
		assertEquals("Box Statistics: The radius must be at least 1, not -3.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> Window.rectangle(0, 5));
		assertEquals("The window must be at least 1x1 pixels, not 0x5.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class,
			() -> BoxStatistics.compute(TestImages.random(PixelType.RGB, 3, 3, 1, 1), Statistic.MEAN, 1, CPU));
		assertTrue(e.getMessage().startsWith("Box Statistics: RGB images are not supported."), e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> BoxStatistics.compute(null, Statistic.MEAN, 1, CPU));
		assertEquals("Box Statistics: there is no image.", e.getMessage());
		// a range of no planes: "The image has no slices." named no operation
		Planes none = TestImages.random(PixelType.UINT8, 5, 4, 2, 1).range(1, 1);
		e = assertThrows(IllegalArgumentException.class, () -> BoxStatistics.compute(none, Statistic.MEAN, 1, CPU));
		assertEquals("Box Statistics: the image has no slices.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> LocalThreshold.threshold(none,
			LocalThreshold.Method.MEAN, 1, 0, 0, true, CPU));
		assertEquals("Local Threshold: the image has no slices.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> Planes.wrap(0, 5, new byte[0]));
		assertTrue(e.getMessage().startsWith("The image is empty"), e.getMessage());
		e = assertThrows(IllegalArgumentException.class,
			() -> BoxStatistics.computeInto(img, img, Statistic.MEAN, Window.square(1), CPU));
		assertTrue(e.getMessage().startsWith("Box Statistics: the output must be a 32-bit image of 8x8x1 pixels"), e.getMessage());
		assertEquals("Box Statistics: unknown statistic 'median'; choose Mean, Variance or Standard deviation.",
			assertThrows(IllegalArgumentException.class, () -> Statistic.fromLabel("median")).getMessage());
		assertEquals(Statistic.STANDARD_DEVIATION, Statistic.fromLabel("standard Deviation"));
		assertTrue(TestImages.sameBits(before, img));
	}

	@Test
	void autoGivesTheCpuResultOnWhicheverBackendRuns() {
		Planes img = TestImages.random(PixelType.UINT16, 40, 30, 3, 9);
		Planes out = BoxStatistics.compute(img, Statistic.STANDARD_DEVIATION, 2, CPU);
		Planes auto = BoxStatistics.compute(img, Statistic.STANDARD_DEVIATION, 2, ExecutionOptions.defaults());
		assertTrue(TestImages.sameBits(out, auto));
		Planes into = Planes.wrap(40, 30, new float[1200], new float[1200], new float[1200]);
		OpReport r = BoxStatistics.computeInto(img, into, Statistic.STANDARD_DEVIATION, Window.square(2),
			ExecutionOptions.defaults());
		// AUTO: the GPU where there is one, else the CPU with the reason why
		boolean gpu = fiji.cuda.runtime.Gpu.isAvailable();
		assertEquals(gpu ? fiji.cuda.ops.Backend.GPU : fiji.cuda.ops.Backend.CPU, r.ranOn());
		assertTrue(gpu == (r.fallbackReason() == null) && !r.canceled(), r::toString);
		assertTrue(TestImages.sameBits(out, into));
	}
	@Test
	void aValueFarOutsideTheSpreadIsNamedInTheLog() {
		// one pixel of 1e9 among 100 +- 10: the windows below and right of it lost up to a third of
		// their variance without a word; the cause cannot be seen in the result, so it is said
		java.util.Random r = new java.util.Random(5);
		float[] px = new float[64 * 64];
		for (int i = 0; i < px.length; i++)
			px[i] = (float) (100 + 10 * r.nextGaussian());
		java.util.List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
		fiji.cuda.ops.OpLog.setSink(lines::add);
		try {
			BoxStatistics.compute(Planes.wrap(64, 64, px.clone()), Statistic.VARIANCE, Window.square(2), CPU);
			BoxStatistics.compute(Planes.wrap(64, 64, px.clone()), Statistic.MEAN, Window.square(2), CPU);
			assertEquals(java.util.List.of(), lines, "ordinary noise, or a mean");
			float[] spiked = px.clone();
			spiked[0] = 1e9f;
			BoxStatistics.compute(Planes.wrap(64, 64, spiked), Statistic.STANDARD_DEVIATION, Window.square(2), CPU);
			assertEquals(1, lines.size(), lines::toString);
			assertTrue(lines.get(0).startsWith("Box Statistics: The image holds values about 10^8 times the spread of its "
				+ "other pixels (up to 1.00e+09): the statistics of the windows below and to the right of them lose "
				+ "precision."), lines.get(0));
			lines.clear();
			float[] mild = px.clone();
			mild[0] = 1e5f; // 10^4 times the spread: the variances keep their digits
			LocalThreshold.threshold(Planes.wrap(64, 64, mild), LocalThreshold.Method.NIBLACK, 2, 0, 0, true, CPU);
			assertEquals(java.util.List.of(), lines);
			LocalThreshold.threshold(Planes.wrap(64, 64, new Object[] { px.clone(), spiked.clone() }),
				LocalThreshold.Method.NIBLACK, 2, 0, 0, true, CPU);
			assertEquals(1, lines.size(), lines::toString);
			assertTrue(lines.get(0).startsWith("Local Threshold: Slice 2 holds values about 10^8 times"), lines.get(0));
		} finally {
			fiji.cuda.ops.OpLog.setSink(null);
		}
	}

	@Test
	void aValueFarOutsideAZeroBackgroundIsNamedInTheLogAndAMeansToo() {
		// most pixels 0 (a background subtracted, a mask applied): the sampled deviation was 0, so
		// nothing was said while one pixel of 1e12 made the distant windows' deviations 0; and the
		// means, never checked, were 0 where a pixel of 1e20 was
		java.util.Random r = new java.util.Random(1);
		int w = 200, h = 200;
		float[] px = new float[w * h];
		for (int i = 0; i < px.length; i++)
			if (r.nextDouble() < 0.3) px[i] = 100 + r.nextInt(50);
		java.util.List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
		fiji.cuda.ops.OpLog.setSink(lines::add);
		try {
			BoxStatistics.compute(Planes.wrap(w, h, px.clone()), Statistic.STANDARD_DEVIATION, Window.square(2), CPU);
			BoxStatistics.compute(Planes.wrap(w, h, px.clone()), Statistic.MEAN, Window.square(2), CPU);
			assertEquals(java.util.List.of(), lines, "sparse objects on zero");
			float[] spiked = px.clone();
			spiked[10 * w + 10] = 1e12f;
			BoxStatistics.compute(Planes.wrap(w, h, spiked), Statistic.STANDARD_DEVIATION, Window.square(2), CPU);
			takeOneLine(lines, "Box Statistics: The image holds values about 10^9 times the spread of its other pixels "
				+ "(up to 1.00e+12)");
			// the means keep their digits there, and say nothing
			float[] mean = (float[]) BoxStatistics.compute(Planes.wrap(w, h, spiked), Statistic.MEAN, Window.square(2), CPU)
				.plane(0);
			assertEquals(java.util.List.of(), lines);
			double exact = 0;
			for (int y = 148; y <= 152; y++)
				for (int x = 148; x <= 152; x++)
					exact += px[y * w + x];
			assertEquals(exact / 25, mean[150 * w + 150], 1e-5 * 150);
			spiked[10 * w + 10] = 1e20f;
			BoxStatistics.compute(Planes.wrap(w, h, spiked), Statistic.MEAN, Window.square(2), CPU);
			takeOneLine(lines, "Box Statistics: The image holds values about 10^17 times the size of its other pixels "
				+ "(up to 1.00e+20)");
			LocalThreshold.threshold(Planes.wrap(w, h, spiked), LocalThreshold.Method.MEAN, 2, 0, 0, true, CPU);
			takeOneLine(lines, "Local Threshold: The image holds values about 10^17 times the size");
			// an offset is no outlier: values near 10^6 that vary by 1 keep the means' digits
			float[] offset = new float[w * h];
			for (int i = 0; i < offset.length; i++)
				offset[i] = (float) (1e6 + r.nextGaussian());
			offset[0] = 3e6f;
			BoxStatistics.compute(Planes.wrap(w, h, offset), Statistic.MEAN, Window.square(2), CPU);
			assertEquals(java.util.List.of(), lines);
		} finally {
			fiji.cuda.ops.OpLog.setSink(null);
		}
	}

	/** Asserts that the Log got one line, starting so, and empties it for the next check. */
	private static void takeOneLine(java.util.List<String> lines, String start) {
		assertEquals(1, lines.size(), lines::toString);
		assertTrue(lines.get(0).startsWith(start), lines.get(0));
		lines.clear();
	}

	@Test
	void theCpuPathInBandsOfRowsGivesTheWholeTablesResultsBitForBit() {
		// the whole plane's tables took 16 bytes a pixel: an 8192x8192 8-bit plane needed 1 GB
		// more than ImageJ's filters; the bands hold only the rows their windows read
		for (PixelType type : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 })
			for (Window window : new Window[] { Window.square(1), Window.square(4), Window.rectangle(3, 8),
				Window.rectangle(6, 1), Window.square(40) }) {
				Planes image = TestImages.random(type, 23, 97, 2, 17);
				spread(image); // 32-bit: sums that round, so that the tables' values must be the whole tables'
				Planes whole = Bands.of(Bands.WHOLE,
					() -> BoxStatistics.compute(image, Statistic.STANDARD_DEVIATION, window, CPU));
				Planes wholeMean = Bands.of(Bands.WHOLE, () -> BoxStatistics.compute(image, Statistic.MEAN, window, CPU));
				for (int rows : new int[] { 1, 5, 13 }) {
					String what = type + " " + window.width() + "x" + window.height() + ", bands of " + rows;
					Planes banded = Bands.of(rows,
						() -> BoxStatistics.compute(image, Statistic.STANDARD_DEVIATION, window, CPU));
					Planes bandedMean = Bands.of(rows, () -> BoxStatistics.compute(image, Statistic.MEAN, window, CPU));
					for (int z = 0; z < 2; z++) {
						assertArrayEquals((float[]) whole.plane(z), (float[]) banded.plane(z), what);
						assertArrayEquals((float[]) wholeMean.plane(z), (float[]) bandedMean.plane(z), what);
					}
				}
			}
	}

	@Test
	void aThirtyTwoBitImageGivenAsItsOwnOutputInBandsGivesTheNewImagesResult() {
		Planes image = TestImages.random(PixelType.FLOAT32, 11, 50, 1, 31);
		Planes expected = Bands.of(3, () -> BoxStatistics.compute(image, Statistic.MEAN, Window.square(2), CPU));
		Bands.of(3, () -> BoxStatistics.computeInto(image, image, Statistic.MEAN, Window.square(2), CPU));
		assertArrayEquals((float[]) expected.plane(0), (float[]) image.plane(0));
	}

	/** Scales a 32-bit image's pixels by powers of ten from 1e-8 to 1e8, so that their sums round in double. */
	static void spread(Planes image) {
		if (image.type() != PixelType.FLOAT32) return;
		java.util.Random r = new java.util.Random(3);
		for (int z = 0; z < image.depth(); z++) {
			float[] p = (float[]) image.plane(z);
			for (int i = 0; i < p.length; i++)
				p[i] *= (float) Math.pow(10, r.nextInt(17) - 8);
		}
	}

	@Test
	void anOutputWhosePlanesAreTheInputsAtOtherIndicesIsRefusedWithTheInputUnchanged() {
		// each slice's mean written into the next slice of the same stack: the second result was
		// made from the first, already written over its input, and nothing was said
		Planes stack = TestImages.random(PixelType.FLOAT32, 32, 32, 3, 5);
		Planes before = stack.copy();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BoxStatistics.computeInto(
			stack.range(0, 2), stack.range(1, 3), Statistic.MEAN, Window.square(2), CPU));
		assertEquals("Box Statistics: output plane 1 is input plane 2; the output must be planes of its own, or the "
			+ "input's planes in their own order (in place).", e.getMessage());
		assertTrue(TestImages.sameBits(before, stack));
		// some planes in place and others not
		Planes mixed = Planes.wrap(32, 32, stack.plane(0), new float[32 * 32]);
		e = assertThrows(IllegalArgumentException.class, () -> BoxStatistics.computeInto(stack.range(0, 2), mixed,
			Statistic.MEAN, Window.square(2), CPU));
		assertTrue(e.getMessage().startsWith("Box Statistics: 1 of the output's 2 planes are the input's"), e.getMessage());
		assertTrue(TestImages.sameBits(before, stack));
		// wholly in place still works, and gives the result of a separate output
		Planes apart = BoxStatistics.compute(stack, Statistic.MEAN, 2, CPU);
		BoxStatistics.computeInto(stack, stack, Statistic.MEAN, Window.square(2), CPU);
		assertTrue(TestImages.sameBits(apart, stack));
	}

	@Test
	void anOutputThatHoldsOneArrayAtTwoPlanesIsRefusedWithNothingWritten() {
		// slice 3's mean was written over slice 1's, and nothing was said
		Planes stack = TestImages.random(PixelType.UINT16, 32, 32, 3, 6);
		Planes before = stack.copy();
		float[] shared = new float[32 * 32], own = new float[32 * 32];
		java.util.Arrays.fill(shared, 7);
		java.util.Arrays.fill(own, 7);
		Planes out = Planes.wrap(32, 32, shared, own, shared);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> BoxStatistics.computeInto(stack, out, Statistic.MEAN, Window.square(2), CPU));
		assertEquals("Box Statistics: output planes 1 and 3 are one array (the same pixels twice), which cannot hold the "
			+ "results of both; each must have pixels of its own.", e.getMessage());
		assertTrue(TestImages.sameBits(before, stack));
		for (int i = 0; i < shared.length; i++)
			assertTrue(shared[i] == 7 && own[i] == 7, "written at " + i);
		// in place, a 32-bit stack that holds one array at two slices: the second was made from the first's result
		Planes floats = TestImages.random(PixelType.FLOAT32, 32, 32, 2, 7);
		Planes twice = Planes.wrap(32, 32, floats.plane(0), floats.plane(1), floats.plane(0));
		Planes original = twice.copy();
		e = assertThrows(IllegalArgumentException.class,
			() -> BoxStatistics.computeInto(twice, twice, Statistic.VARIANCE, Window.square(2), CPU));
		assertEquals("Box Statistics: output planes 1 and 3 are one array (the same pixels twice), which cannot hold the "
			+ "results of both; each must have pixels of its own.", e.getMessage());
		assertTrue(TestImages.sameBits(original, twice));
		// only read, such a stack is fine: each slice's statistic is that of its own pixels
		Planes means = BoxStatistics.compute(twice, Statistic.MEAN, 2, CPU);
		assertTrue(TestImages.sameBits(means.range(0, 1), means.range(2, 3)));
	}
}
