package fiji.cuda.integral;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpLog;
import fiji.cuda.runtime.GpuException;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import net.imglib2.Cursor;
import net.imglib2.img.array.ArrayImg;
import net.imglib2.img.array.ArrayImgs;
import net.imglib2.type.numeric.integer.LongType;
import net.imglib2.type.numeric.real.DoubleType;
import net.imglib2.type.numeric.real.FloatType;
import net.imglib2.view.Views;

import org.junit.jupiter.api.Test;

/** The CPU tables and the box query against direct loops. */
class IntegralImageTest {

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);
	static final int[][] SIZES = { { 1, 1 }, { 1, 23 }, { 23, 1 }, { 13, 7 }, { 31, 29 }, { 97, 61 } };
	static final PixelType[] TYPES = { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 };

	static double px(Planes p, int z, int x, int y) {
		return TestImages.value(p.plane(z), p.type(), y * p.width() + x, 0);
	}

	/** Σ over [0, x] x [0, y] by a plain loop, in long for integer planes. */
	static long directLong(Planes p, int z, int x, int y, boolean squares) {
		long s = 0;
		for (int j = 0; j <= y; j++)
			for (int i = 0; i <= x; i++) {
				long v = (long) px(p, z, i, j);
				s += squares ? v * v : v;
			}
		return s;
	}

	static double directDouble(Planes p, int z, int x0, int y0, int x1, int y1, boolean squares) {
		double s = 0;
		for (int j = Math.max(0, y0); j <= Math.min(p.height() - 1, y1); j++)
			for (int i = Math.max(0, x0); i <= Math.min(p.width() - 1, x1); i++) {
				double v = px(p, z, i, j);
				s += squares ? v * v : v;
			}
		return s;
	}

	@Test
	void buildEachHandsEveryPlaneOverBeforeTheNextIsBuiltAndStopsWhenCanceled() {
		// a caller converting the tables of a stack must not need all of them at once
		Planes img = TestImages.random(PixelType.UINT16, 9, 7, 5, 42);
		int[] updates = { 0 };
		fiji.cuda.ops.Progress p = new fiji.cuda.ops.Progress() {
			@Override
			public void update(double fraction) {
				updates[0]++;
			}

			@Override
			public boolean isCanceled() {
				return updates[0] >= 3;
			}
		};
		List<Integer> seen = new java.util.ArrayList<>();
		int built = IntegralImage.buildEach(img, SatBuild.AUTO, CPU.withProgress(p), (t, z) -> {
			assertEquals(z, updates[0], "plane " + z + " handed over after a later plane was built");
			assertEquals(IntegralImageCpu.build(img, z, 1).sumLong()[62], t.sumLong()[62]);
			seen.add(z);
		});
		assertEquals(3, built);
		assertEquals(List.of(0, 1, 2), seen);
	}

	@Test
	void toFloatsRoundsEachStoredEntryOnceOnAnyNumberOfThreads() {
		long past53 = (1L << 53) + (1L << 29) + 1; // a tie once in double, whose float is then 2^53, not 2^53 + 2^30
		long[] s = { 1, past53, 16777217, 3 }, q = { 5, 6, Long.MAX_VALUE, 8 };
		SummedAreaTable exact = SummedAreaTable.ofLong(2, 2, s, q);
		double[] d = { 0.1, 1e39, -2.5, Double.NaN };
		SummedAreaTable doubles = SummedAreaTable.ofDouble(2, 2, d, d.clone());
		for (int threads : new int[] { 1, 4 }) {
			float[] f = new float[4];
			exact.toFloats(false, f, threads);
			assertArrayEquals(new float[] { 1, (float) past53, 16777216f, 3 }, f);
			assertEquals((1L << 53) + (1L << 30), (long) f[1]);
			exact.toFloats(true, f, threads);
			assertArrayEquals(new float[] { 5, 6, (float) Long.MAX_VALUE, 8 }, f);
			doubles.toFloats(true, f, threads);
			assertArrayEquals(new float[] { 0.1f, Float.POSITIVE_INFINITY, -2.5f, Float.NaN }, f);
		}
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> exact.toFloats(false, new float[3], 1));
		assertEquals("A float table of 2x2 needs 4 floats, not 3.", e.getMessage());
	}

	@Test
	void tablesEqualDirectSumsBitForBitForIntegerTypesAndCloselyForFloat() {
		long seed = 1;
		for (PixelType t : TYPES)
			for (int[] size : SIZES) {
				Planes img = TestImages.random(t, size[0], size[1], 2, seed++);
				List<SummedAreaTable> all = IntegralImage.buildAll(img, SatBuild.AUTO, CPU);
				assertEquals(2, all.size());
				for (int z = 0; z < 2; z++) {
					SummedAreaTable sat = all.get(z);
					assertEquals(size[0], sat.width());
					assertEquals(size[1], sat.height());
					assertEquals(t != PixelType.FLOAT32, sat.isExact());
					for (int y = 0; y < size[1]; y++)
						for (int x = 0; x < size[0]; x++) {
							String where = t + " " + size[0] + "x" + size[1] + " z" + z + " at " + x + "," + y;
							if (sat.isExact()) {
								assertEquals(directLong(img, z, x, y, false), sat.sumLong()[y * size[0] + x], where);
								assertEquals(directLong(img, z, x, y, true), sat.sumSqLong()[y * size[0] + x], where);
							} else {
								double s = directDouble(img, z, 0, 0, x, y, false), q = directDouble(img, z, 0, 0, x, y, true);
								double mag = (x + 1) * (y + 1) * TestImages.FLOAT_RANGE;
								assertEquals(s, sat.sumAt(x, y), 1e-12 * mag, where);
								assertEquals(q, sat.sumSqAt(x, y), 1e-12 * mag * TestImages.FLOAT_RANGE, where);
							}
						}
				}
			}
	}

	@Test
	void parallelBuildEqualsSingleThreadBuildBitForBit() {
		for (PixelType t : TYPES) {
			Planes img = TestImages.random(t, 331, 257, 1, 40); // above the size where threads are used
			SummedAreaTable one = IntegralImage.build(img, 0, SatBuild.AUTO, CPU.withThreads(1));
			SummedAreaTable many = IntegralImage.build(img, 0, SatBuild.FUSED, CPU.withThreads(4));
			if (one.isExact()) {
				assertArrayEquals(one.sumLong(), many.sumLong(), t.toString());
				assertArrayEquals(one.sumSqLong(), many.sumSqLong(), t.toString());
			} else {
				assertArrayEquals(one.sumDouble(), many.sumDouble(), t.toString());
				assertArrayEquals(one.sumSqDouble(), many.sumSqDouble(), t.toString());
			}
			// spot checks of the far corner against the direct loop
			int x = 330, y = 256;
			if (one.isExact()) assertEquals(directLong(img, 0, x, y, true), many.sumSqLong()[y * 331 + x]);
			else assertEquals(directDouble(img, 0, 0, 0, x, y, false), many.sumAt(x, y), 1e-9 * 331 * 257 * 1000);
		}
	}

	@Test
	void maximumValueImagesPassTwoToThe32Exactly() {
		int w = 301, h = 299; // 90,000 pixels: 65535·N and 255²·N are both above 2^32
		long n = (long) w * h;
		byte[] b = new byte[w * h];
		Arrays.fill(b, (byte) 255);
		short[] s = new short[w * h];
		Arrays.fill(s, (short) 65535);
		SummedAreaTable t8 = IntegralImage.build(Planes.wrap(w, h, b), 0, SatBuild.AUTO, CPU);
		SummedAreaTable t16 = IntegralImage.build(Planes.wrap(w, h, s), 0, SatBuild.AUTO, CPU);
		assertTrue(65025 * n > (1L << 32) && 65535 * n > (1L << 32));
		assertEquals(255 * n, t8.boxSumExact(0, 0, w - 1, h - 1));
		assertEquals(65025 * n, t8.boxSumSqExact(0, 0, w - 1, h - 1));
		assertEquals(65535 * n, t16.boxSumExact(0, 0, w - 1, h - 1));
		assertEquals(65535L * 65535 * n, t16.boxSumSqExact(0, 0, w - 1, h - 1));
		for (int y = 0; y < h; y += 37)
			for (int x = 0; x < w; x += 41) {
				long k = (long) (x + 1) * (y + 1);
				assertEquals(65535 * k, t16.sumLong()[y * w + x]);
				assertEquals(65535L * 65535 * k, t16.sumSqLong()[y * w + x]);
				assertEquals(65025 * k, t8.sumSqLong()[y * w + x]);
			}
		assertEquals(0, t16.boxVariance(-3, -3, w + 3, h + 3));
		assertEquals(65535, t16.boxMean(5, 6, 200, 100));
	}

	@Test
	void wrap32ExactAdmitsThe8BitWindowsWhoseSumsStayBelow2To32AndNoOthers() {
		// The GPU's 32-bit wrap-around tables hold each entry modulo 2^32, and a box sum taken from
		// them in unsigned 32-bit arithmetic is exact while the true sums stay below 2^32. A row of
		// 255s, whose exact tables reduced modulo 2^32 are what WRAP32 holds, shows where that ends;
		// only GPU tests, which do not run without a GPU, asked wrap32Exact before (mutants: the
		// limit one pixel higher, or exclusive, and 16-bit planes admitted)
		int w = IntegralImage.WRAP32_MAX_PIXELS + 8;
		byte[] px = new byte[w];
		Arrays.fill(px, (byte) 255);
		SummedAreaTable t = IntegralImage.build(Planes.wrap(w, 1, px), 0, SatBuild.AUTO, CPU);
		long[] q = t.sumSqLong();
		int exactUpTo = 0;
		int near = IntegralImage.WRAP32_MAX_PIXELS - 100; // every n from here, and below 100; in steps between
		for (int n = 1; n <= w - 3; n = n < 100 || n >= near ? n + 1 : Math.min(n + 997, near)) {
			// the box [3, 3 + n) of the sum-of-squares table as WRAP32 holds it, in unsigned 32 bits
			long wrapped = Integer.toUnsignedLong((int) q[2 + n] - (int) q[2]);
			boolean exact = wrapped == t.boxSumSqExact(3, 0, 2 + n, 0);
			assertEquals(exact, IntegralImage.wrap32Exact(PixelType.UINT8, n), n + " pixels of 255");
			if (exact) exactUpTo = n;
		}
		assertEquals(IntegralImage.WRAP32_MAX_PIXELS, exactUpTo);
		// two 16-bit pixels of 65535 already pass 2^32, and 32-bit tables are doubles
		assertTrue(2 * 65535L * 65535 > 1L << 32);
		assertFalse(IntegralImage.wrap32Exact(PixelType.UINT16, 2));
		assertFalse(IntegralImage.wrap32Exact(PixelType.FLOAT32, 2));
	}

	@Test
	void boxQueriesEqualDirectSumsAtRandomRectanglesIncludingEdgesAndOutside() {
		Random rnd = new Random(7);
		long seed = 100;
		for (PixelType t : TYPES)
			for (int[] size : SIZES) {
				int w = size[0], h = size[1];
				Planes img = TestImages.random(t, w, h, 1, seed++);
				SummedAreaTable sat = IntegralImage.build(img, 0, SatBuild.NAIVE, CPU);
				for (int k = 0; k < 200; k++) {
					int x0 = rnd.nextInt(w + 6) - 3, x1 = x0 + rnd.nextInt(w + 3);
					int y0 = rnd.nextInt(h + 6) - 3, y1 = y0 + rnd.nextInt(h + 3);
					if (k < 4) { // the four edges exactly
						x0 = k == 0 ? 0 : x0; y0 = k == 1 ? 0 : y0; x1 = k == 2 ? w - 1 : x1; y1 = k == 3 ? h - 1 : y1;
					}
					String where = t + " " + w + "x" + h + " [" + x0 + "," + y0 + "]-[" + x1 + "," + y1 + "]";
					long n = (long) Math.max(0, Math.min(w - 1, x1) - Math.max(0, x0) + 1)
						* Math.max(0, Math.min(h - 1, y1) - Math.max(0, y0) + 1);
					assertEquals(n, sat.boxCount(x0, y0, x1, y1), where);
					double s = directDouble(img, 0, x0, y0, x1, y1, false), q = directDouble(img, 0, x0, y0, x1, y1, true);
					if (sat.isExact()) {
						assertEquals((long) s, sat.boxSumExact(x0, y0, x1, y1), where);
						assertEquals((long) q, sat.boxSumSqExact(x0, y0, x1, y1), where);
					} else {
						assertEquals(s, sat.boxSum(x0, y0, x1, y1), 1e-11 * w * h * TestImages.FLOAT_RANGE, where);
						assertEquals(q, sat.boxSumSq(x0, y0, x1, y1), 1e-11 * w * h * 1e6, where);
					}
					if (n == 0) {
						int a = x0, b = y0, c = x1, d = y1;
						assertEquals(0, sat.boxSum(a, b, c, d), where);
						assertThrows(IllegalArgumentException.class, () -> sat.boxMean(a, b, c, d), where);
						continue;
					}
					double mean = s / n, var = 0;
					for (int j = Math.max(0, y0); j <= Math.min(h - 1, y1); j++)
						for (int i = Math.max(0, x0); i <= Math.min(w - 1, x1); i++)
							var += (px(img, 0, i, j) - mean) * (px(img, 0, i, j) - mean);
					var /= n;
					assertEquals(mean, sat.boxMean(x0, y0, x1, y1), 1e-12 * Math.max(1, Math.abs(mean)), where);
					double tol = sat.isExact() ? 1e-12 * Math.max(1, var) : 1e-9 * TestImages.FLOAT_RANGE * TestImages.FLOAT_RANGE;
					assertEquals(var, sat.boxVariance(x0, y0, x1, y1), tol, where);
				}
			}
	}

	@Test
	void exactVarianceAvoidsTheCancellationOfThePlainFormula() {
		// 65534 and 65535 alternating along 3,000,001 pixels: variance n0·n1/n² on a mean near 2^16
		int w = 3_000_001;
		short[] p = new short[w];
		for (int i = 0; i < w; i++)
			p[i] = (short) (65534 + (i & 1));
		SummedAreaTable sat = IntegralImage.build(Planes.wrap(w, 1, p), 0, SatBuild.AUTO, CPU);
		double exact = 1_500_001.0 * 1_500_000.0 / ((double) w * w);
		assertEquals(exact, sat.boxVariance(0, 0, w - 1, 0), 1e-15);
		// the same sums through the plain double formula are off in the 8th digit
		double s = sat.boxSum(0, 0, w - 1, 0), q = sat.boxSumSq(0, 0, w - 1, 0), m = s / w;
		assertTrue(Math.abs((q - s * m) / w - exact) > 1e-9, "the test no longer shows cancellation");
	}

	@Test
	void unsigned128ToDoubleIsCorrectlyRounded() {
		Random rnd = new Random(3);
		for (int k = 0; k < 20000; k++) {
			long hi = rnd.nextLong() >>> (1 + rnd.nextInt(63)), lo = rnd.nextLong();
			if (k % 3 == 0) lo &= ~0L << rnd.nextInt(64); // trailing zeros make ties likely
			BigInteger v = BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
			assertEquals(v.doubleValue(), SummedAreaTable.unsigned128ToDouble(hi, lo), 0, v.toString());
		}
	}

	@Test
	void imgLib2ImagesAndViewsBuildTheSameTablesAsPlanes() {
		// 8 and 16-bit: exact LongType tables; 32-bit: DoubleType; a view's minimum is the origin
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 }) {
			Planes img = TestImages.random(t, 37, 23, 1, 5);
			SummedAreaTable want = IntegralImage.build(img, 0, SatBuild.AUTO, CPU);
			net.imglib2.img.Img<?> wrapped = t == PixelType.UINT8 ? ArrayImgs.unsignedBytes((byte[]) img.plane(0), 37, 23)
				: t == PixelType.UINT16 ? ArrayImgs.unsignedShorts((short[]) img.plane(0), 37, 23)
				: ArrayImgs.floats((float[]) img.plane(0), 37, 23);
			SummedAreaTable got = buildRaw(wrapped);
			assertTablesEqual(want, got, t + " ArrayImg");
			// a cell image, and a crop of a larger image through a view
			Planes big = TestImages.random(t, 50, 40, 1, 6);
			net.imglib2.img.Img<?> bigImg = t == PixelType.UINT8 ? ArrayImgs.unsignedBytes((byte[]) big.plane(0), 50, 40)
				: t == PixelType.UINT16 ? ArrayImgs.unsignedShorts((short[]) big.plane(0), 50, 40)
				: ArrayImgs.floats((float[]) big.plane(0), 50, 40);
			SummedAreaTable crop = buildRaw(Views.interval(bigImg, new long[] { 5, 7 }, new long[] { 41, 29 }));
			Planes cut = Planes.wrap(37, 23, t.newPlane(37 * 23));
			for (int y = 0; y < 23; y++)
				System.arraycopy(big.plane(0), (y + 7) * 50 + 5, cut.plane(0), y * 37, 37);
			assertTablesEqual(IntegralImage.build(cut, 0, null, CPU), crop, t + " view");
			assertEquals(crop.boxSum(3, 4, 10, 12), IntegralImage.build(cut, 0, null, CPU).boxSum(3, 4, 10, 12), 0);
		}
		net.imglib2.img.Img<net.imglib2.type.numeric.integer.UnsignedByteType> cells =
			new net.imglib2.img.cell.CellImgFactory<>(new net.imglib2.type.numeric.integer.UnsignedByteType(), 8)
				.create(20, 19);
		int k = 0;
		for (net.imglib2.type.numeric.integer.UnsignedByteType v : cells)
			v.set(k++ * 7 % 256);
		SummedAreaTable fromCells = IntegralImageImgLib2.build(cells, SatBuild.AUTO, CPU);
		byte[] flat = new byte[20 * 19];
		net.imglib2.RandomAccess<net.imglib2.type.numeric.integer.UnsignedByteType> ra = cells.randomAccess();
		for (int y = 0; y < 19; y++)
			for (int x = 0; x < 20; x++)
				flat[y * 20 + x] = (byte) ra.setPositionAndGet(x, y).get();
		assertTablesEqual(IntegralImage.build(Planes.wrap(20, 19, flat), 0, null, CPU), fromCells, "CellImg");

		assertThrows(IllegalArgumentException.class, () -> IntegralImageImgLib2.build(ArrayImgs.ints(4, 4), null, CPU));
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> IntegralImageImgLib2.build(ArrayImgs.unsignedBytes(4, 4, 2), null, CPU));
		assertTrue(e.getMessage().contains("hyperSlice"), e.getMessage());
		assertThrows(IllegalArgumentException.class, () -> IntegralImageImgLib2.build(
			(net.imglib2.RandomAccessibleInterval<FloatType>) null, null, CPU));
	}

	@Test
	void anEmptyImgLib2ViewIsRefusedNamingTheOperation() {
		// it said only "The image is empty (0x4 pixels).", unlike every other refusal of the build
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IntegralImageImgLib2.build(
			Views.interval(ArrayImgs.unsignedBytes(10, 8), new long[] { 2, 3 }, new long[] { 1, 6 }), null, CPU));
		assertEquals("Integral Image: the image is empty (0x4 pixels).", e.getMessage());
	}

	@Test
	void anImgLib2ViewOfAnotherTypeOrTooLargeGetsTheBuildsOwnMessage() {
		// ARGB gave a ClassCastException; sides whose product overflowed gave "empty (0x0 pixels)"
		// or a NegativeArraySizeException; 2^31 - 4 pixels was refused as more than 2^31
		IllegalArgumentException argb = assertThrows(IllegalArgumentException.class,
			() -> buildRaw(ArrayImgs.argbs(5, 4)));
		assertEquals("Integral Image: ARGBType pixels are not supported; use UnsignedByteType, UnsignedShortType or "
			+ "FloatType.", argb.getMessage());
		net.imglib2.RandomAccessible<net.imglib2.type.numeric.integer.UnsignedByteType> everywhere =
			Views.extendZero(ArrayImgs.unsignedBytes(2, 2));
		for (long[] size : new long[][] { { 1L << 32, 1L << 32 }, { (1L << 32) + 1, (1L << 32) - 1 }, { 1L << 31, 1 } }) {
			IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IntegralImageImgLib2.build(
				Views.interval(everywhere, new long[] { 0, 0 }, new long[] { size[0] - 1, size[1] - 1 }), null, CPU));
			assertEquals("Integral Image: a plane of " + size[0] + "x" + size[1] + " pixels is too large (at most "
				+ (Integer.MAX_VALUE - 8) + " pixels).", e.getMessage());
		}
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static SummedAreaTable buildRaw(net.imglib2.RandomAccessibleInterval img) {
		return IntegralImageImgLib2.build(img, SatBuild.AUTO, CPU);
	}

	private static void assertTablesEqual(SummedAreaTable want, SummedAreaTable got, String what) {
		assertEquals(want.width(), got.width(), what);
		assertEquals(want.height(), got.height(), what);
		assertEquals(want.isExact(), got.isExact(), what);
		if (want.isExact()) {
			assertArrayEquals(want.sumLong(), got.sumLong(), what);
			assertArrayEquals(want.sumSqLong(), got.sumSqLong(), what);
		} else {
			assertArrayEquals(want.sumDouble(), got.sumDouble(), what);
			assertArrayEquals(want.sumSqDouble(), got.sumSqDouble(), what);
		}
	}

	@Test
	void imgLib2ViewsShareTheTables() {
		Planes img = TestImages.random(PixelType.UINT16, 9, 5, 1, 11);
		SummedAreaTable sat = IntegralImage.build(img, 0, SatBuild.AUTO, CPU);
		ArrayImg<LongType, ?> sum = sat.sumLongImg();
		assertEquals(9, sum.dimension(0));
		assertEquals(5, sum.dimension(1));
		assertSame(sat.sumLong(), ((net.imglib2.img.basictypeaccess.array.LongArray) sum.update(null)).getCurrentStorageArray());
		assertSame(sat.sumSqLong(), sat.sumSqLongImg().update(null).getCurrentStorageArray());
		Cursor<LongType> c = sum.localizingCursor();
		while (c.hasNext()) {
			long v = c.next().get();
			assertEquals(sat.sumAt(c.getIntPosition(0), c.getIntPosition(1)), v, 0);
		}
		assertTrue(sat.sumImg().firstElement() instanceof LongType);
		assertThrows(IllegalStateException.class, sat::sumDoubleImg);

		SummedAreaTable f = IntegralImage.build(TestImages.random(PixelType.FLOAT32, 4, 3, 1, 12), 0, null, CPU);
		ArrayImg<DoubleType, ?> d = f.sumDoubleImg();
		assertSame(f.sumDouble(), f.sumDoubleImg().update(null).getCurrentStorageArray());
		assertSame(f.sumSqDouble(), f.sumSqDoubleImg().update(null).getCurrentStorageArray());
		assertEquals(f.sumAt(3, 2), d.getAt(3, 2).get(), 0);
		assertTrue(f.sumSqImg().firstElement() instanceof DoubleType);
		assertThrows(IllegalStateException.class, () -> f.boxSumExact(0, 0, 1, 1));
	}

	@Test
	void rgbNullAndBadPlanesAreRejectedWithClearMessages() {
		Planes rgb = TestImages.random(PixelType.RGB, 4, 4, 1, 1);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> IntegralImage.build(rgb, 0, SatBuild.AUTO, CPU));
		assertTrue(e.getMessage().startsWith("Integral Image: RGB images are not supported."), e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> IntegralImage.build(null, 0, SatBuild.AUTO, CPU));
		assertEquals("Integral Image: there is no image.", e.getMessage());
		Planes g = TestImages.random(PixelType.UINT8, 4, 4, 2, 1);
		e = assertThrows(IllegalArgumentException.class, () -> IntegralImage.build(g, 2, SatBuild.AUTO, CPU));
		assertEquals("Integral Image: there is no plane 2 (the image has 2 planes).", e.getMessage());
	}

	@Test
	void noReceiverOrNoImageForANewResultIsRefusedByName() {
		// each was a NullPointerException, buildEach's once the first plane's tables were built
		Planes g = TestImages.random(PixelType.UINT8, 4, 4, 2, 1);
		assertEquals("Integral Image: there is nothing to receive the tables.", assertThrows(
			IllegalArgumentException.class, () -> IntegralImage.buildEach(g, SatBuild.AUTO, CPU, null)).getMessage());
		assertEquals("Box Statistics: there is no image.", assertThrows(IllegalArgumentException.class,
			() -> BoxStatistics.newResult(null, 1)).getMessage());
		assertEquals("Local Threshold: there is no image.", assertThrows(IllegalArgumentException.class,
			() -> LocalThreshold.newResult(null, 1)).getMessage());
	}

	@Test
	void autoFallsBackToTheCpuWithOneLogLineAndForcedGpuFails() {
		org.junit.jupiter.api.Assumptions.assumeFalse(fiji.cuda.runtime.Gpu.isAvailable(), "a GPU is there to use");
		fiji.cuda.TestFallbackLog.forget(IntegralImage.NAME);
		List<String> lines = new ArrayList<>();
		OpLog.setSink(lines::add);
		try {
			Planes img = TestImages.random(PixelType.UINT8, 20, 10, 2, 5);
			SummedAreaTable auto = IntegralImage.build(img, 1, SatBuild.AUTO, ExecutionOptions.defaults());
			SummedAreaTable cpu = IntegralImage.build(img, 1, SatBuild.AUTO, CPU);
			assertArrayEquals(cpu.sumSqLong(), auto.sumSqLong());
			IntegralImage.buildAll(img, SatBuild.DLB, ExecutionOptions.defaults());
			// two calls that fell back, one line: the same reason is logged once per session
			assertEquals(1, lines.size(), lines::toString);
			assertTrue(lines.get(0).startsWith("Integral Image ran on the CPU: "), lines::toString);
			assertThrows(GpuException.class,
				() -> IntegralImage.build(img, 0, SatBuild.FUSED, ExecutionOptions.defaults().withBackend(Backend.GPU)));
			assertFalse(lines.stream().anyMatch(l -> l.contains("Exception")), lines::toString);
		} finally {
			OpLog.setSink(null);
		}
	}
}
