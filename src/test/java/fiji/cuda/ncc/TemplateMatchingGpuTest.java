package fiji.cuda.ncc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import fiji.cuda.HangGuard;
import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.Gpu;

/**
 * The GPU path of template matching against the double-precision reference and the CPU path:
 * every kernel (direct, streamed, chunked, bank, masked), every pair of pixel types, awkward
 * sizes, flat and non-finite cases, many callers at once, and device memory afterwards.
 */
@Tag("gpu")
class TemplateMatchingGpuTest {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);
	static final double TOLERANCE = 1e-4;
	static final PixelType[] TYPES = TemplateMatchingCpuTest.TYPES;
	/** Template sizes of the issue; {0, 0} means the image's own size. */
	static final int[][] SIZES = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 3, 3 }, { 16, 16 }, { 31, 17 }, { 64, 64 },
		{ 128, 128 }, { 0, 0 } };

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	/** The largest difference from the double-precision reference seen in this class, for its report. */
	private static double worstSeen;
	private static String worstWhere = "none";

	@org.junit.jupiter.api.AfterAll
	static void reportTheWorst() {
		// the bound is 1e-4; how close the maps really come shows whether a regression
		// that stays under it would go unnoticed
		System.out.println("TemplateMatchingGpuTest: largest difference from the double-precision reference "
			+ worstSeen + " (" + worstWhere + ")");
	}

	static void assertClose(double[] ref, float[] got, String what) {
		assertEquals(ref.length, got.length, what + ": map size");
		double worst = 0;
		int at = -1;
		for (int i = 0; i < ref.length; i++) {
			double d = Math.abs(ref[i] - got[i]);
			if (!(d <= worst)) {
				worst = d;
				at = i;
			}
		}
		synchronized (TemplateMatchingGpuTest.class) {
			if (worst > worstSeen) {
				worstSeen = worst;
				worstWhere = what;
			}
		}
		final double w = worst;
		final int a = at;
		assertTrue(worst <= TOLERANCE, () -> what + ": worst difference " + w + " at " + a + " (ref " + ref[a] + ", gpu "
			+ got[a] + ")");
	}

	/** Same size, NaN exactly where the CPU has NaN, else within the tolerance. */
	static void assertLikeCpu(float[] cpu, float[] gpu, String what) {
		assertEquals(cpu.length, gpu.length, what + ": map size");
		for (int i = 0; i < cpu.length; i++) {
			if (Float.isNaN(cpu[i]) || Float.isNaN(gpu[i])) {
				final int k = i;
				assertTrue(Float.isNaN(cpu[i]) && Float.isNaN(gpu[i]), () -> what + ": NaN mismatch at " + k + " cpu "
					+ cpu[k] + " gpu " + gpu[k]);
			} else if (Math.abs(cpu[i] - gpu[i]) > TOLERANCE) {
				assertEquals(cpu[i], gpu[i], TOLERANCE, what + " at " + i);
			}
		}
	}

	static List<Arguments> pairs() {
		List<Arguments> a = new ArrayList<>();
		for (PixelType it : TYPES)
			for (PixelType tt : TYPES)
				a.add(Arguments.of(it, tt));
		return a;
	}

	/** A random image of 211x173 (primes) with a planted copy of the template and a flat block. */
	static Planes imageFor(PixelType it, Planes tpl, long seed) {
		Planes image = TestImages.random(it, 211, 173, 1, seed);
		int tw = tpl.width(), th = tpl.height();
		if (tw < 211 && th < 173) {
			Planes cut = NccReference.cut(tpl, 0, 0, tw, th, it);
			for (int v = 0; v < th; v++)
				for (int u = 0; u < tw; u++)
					NccReference.set(image.plane(0), it, (40 % (173 - th + 1) + v) * 211 + 7 + u,
						TestImages.value(cut.plane(0), it, v * tw + u, 0));
		}
		for (int y = 150; y < 173; y++)
			for (int x = 0; x < 60; x++)
				NccReference.set(image.plane(0), it, y * 211 + x, 100);
		return image;
	}

	/** Templates hold 8-bit values, so a planted copy has the same values in every image type. */
	static Planes template(PixelType tt, int w, int h, long seed) {
		return NccReference.cut(TestImages.random(PixelType.UINT8, w, h, 1, seed), 0, 0, w, h, tt);
	}

	@ParameterizedTest(name = "image {0}, template {1}")
	@MethodSource("pairs")
	void everySizeOnEveryPathMatchesTheReference(PixelType it, PixelType tt) {
		long seed = 100 * it.ordinal() + 10 * tt.ordinal();
		for (int[] s : SIZES) {
			int w = s[0] == 0 ? 211 : s[0], h = s[1] == 0 ? 173 : s[1];
			Planes tpl = template(tt, w, h, seed + w);
			Planes image = imageFor(it, tpl, seed + h);
			double[] ref = NccReference.valid(image, 0, tpl, 0, null);
			for (TemplateMatchingGpu.Path p : TemplateMatchingGpu.Path.values()) {
				try {
					TemplateMatchingGpu.pathForTest = p;
					float[] got = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
					assertClose(ref, got, it + "/" + tt + " " + w + "x" + h + " " + p);
				} finally {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
				}
			}
		}
	}

	/** The maps of {@code run} with int64 tables instead of the wrap-around tables of 8-bit images. */
	static List<float[]> withWideTables(java.util.function.Supplier<List<float[]>> run) {
		try {
			TemplateMatchingGpu.wideTablesForTest = true;
			return run.get();
		} finally {
			TemplateMatchingGpu.wideTablesForTest = false;
		}
	}

	static void assertBitIdentical(List<float[]> want, List<float[]> got, String what) {
		assertEquals(want.size(), got.size(), what);
		for (int i = 0; i < want.size(); i++) {
			float[] a = want.get(i), b = got.get(i);
			assertEquals(a.length, b.length, what + " map " + i);
			for (int k = 0; k < a.length; k++)
				if (Float.floatToRawIntBits(a[k]) != Float.floatToRawIntBits(b[k]))
					fail(what + " map " + i + " at " + k + ": int64 tables " + a[k] + ", 32-bit tables " + b[k]);
		}
	}

	/**
	 * 8-bit images take 32-bit wrap-around tables for templates of up to 66051 pixels. Every
	 * kernel that reads them (direct, streamed, split with its finish pass, bank, the tensor-core
	 * sums' finish pass, for 8, 16 and 32-bit templates) must give the scores of the int64 tables
	 * bit for bit, on an image large enough that the table entries wrap (Σ I² passes 2^32 after
	 * some 66000 pixels), with bright and flat regions far from the origin.
	 */
	@Test
	void wrapAroundTablesGiveTheScoresOfInt64Tables() {
		Planes image = TestImages.random(PixelType.UINT8, 1031, 1009, 1, 41);
		byte[] px = (byte[]) image.plane(0);
		for (int y = 700; y < 900; y++)
			for (int x = 600; x < 1000; x++)
				px[y * 1031 + x] = (byte) (y < 800 ? 255 : 254 + (x & 1)); // saturated, then nearly flat
		int[][] sizes = { { 31, 17 }, { 128, 128 }, { 257, 257 } };
		TemplateMatchingGpu.Path[] paths = { TemplateMatchingGpu.Path.AUTO, TemplateMatchingGpu.Path.DIRECT,
			TemplateMatchingGpu.Path.STREAM };
		try {
			for (PixelType tt : TYPES)
				for (int[] sz : sizes)
					for (TemplateMatchingGpu.Path p : paths)
						for (boolean unfused : new boolean[] { false, true }) {
							if (unfused && p != TemplateMatchingGpu.Path.AUTO) continue;
							if (sz[0] == 257 && p == TemplateMatchingGpu.Path.DIRECT) continue; // above the constant bank
							Planes tpl = NccReference.cut(image, 640, 720, sz[0], sz[1], tt);
							String what = "u8/" + tt + " " + sz[0] + "x" + sz[1] + " " + p + (unfused ? " unfused" : "");
							TemplateMatchingGpu.pathForTest = p;
							TemplateMatchingGpu.immaUnfusedForTest = unfused;
							int before = TemplateMatchingGpu.wrap32Tables.get();
							List<float[]> narrow = List.of(TemplateMatching.match(image, 0, tpl, 0, null, false, GPU));
							assertTrue(TemplateMatchingGpu.wrap32Tables.get() > before, what + ": 32-bit tables were not used");
							List<float[]> wide = withWideTables(() -> List.of(TemplateMatching.match(image, 0, tpl, 0, null,
								false, GPU)));
							assertBitIdentical(wide, narrow, what);
							if (sz[0] == 31) assertClose(NccReference.valid(image, 0, tpl, 0, null), narrow.get(0), what);
						}
		} finally {
			TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
			TemplateMatchingGpu.immaUnfusedForTest = false;
		}
		// banks: the tensor-core bank reads no tables; with it off, ncc_bank_u8w_* does
		for (PixelType tt : TYPES) {
			List<Template> bank = new ArrayList<>();
			for (int i = 0; i < 3; i++)
				bank.add(new Template(NccReference.cut(image, 600 + 30 * i, 690 + 40 * i, 24, 24, tt), null, i, 0, false));
			try {
				TemplateMatchingGpu.immaOffForTest = true;
				List<float[]> narrow = TemplateMatching.matchAll(image, 0, bank, GPU);
				assertBitIdentical(withWideTables(() -> TemplateMatching.matchAll(image, 0, bank, GPU)), narrow, "bank u8/" + tt);
			} finally {
				TemplateMatchingGpu.immaOffForTest = false;
			}
		}
	}

	/**
	 * An 8-bit template wider than 65533 pixels: its rows hold more quads than one dp4a chunk may
	 * (NCC_T8_MAX_CHUNK_QUADS), and the plan once gave chunks of 0 rows, on which the streamed
	 * kernel looped for ever (a hang, not an error, on a GPU without a display watchdog).
	 */
	@Test
	void aTemplateWiderThanOneDp4aChunkIsMatchedInChunksOfQuads() {
		Planes image = TestImages.random(PixelType.UINT8, 65560, 4, 1, 91);
		for (int th : new int[] { 1, 2 }) {
			Planes tpl = NccReference.cut(image, 9, 1, 65540, th, PixelType.UINT8);
			double[] ref = NccReference.valid(image, 0, tpl, 0, null);
			float[] got = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(HangGuard.seconds(60),
				() -> TemplateMatching.match(image, 0, tpl, 0, null, false, GPU));
			assertClose(ref, got, "65540x" + th + " template");
		}
	}

	/** A template above 66051 pixels keeps the int64 tables: its 8-bit window sums of squares pass 2^32. */
	@Test
	void templatesAboveTheWrapAroundLimitKeepInt64Tables() {
		Planes image = TestImages.random(PixelType.UINT8, 300, 290, 1, 43);
		Arrays.fill((byte[]) image.plane(0), 0, 300 * 270, (byte) 255);
		for (int i = 300 * 270; i < 300 * 290; i += 7)
			((byte[]) image.plane(0))[i] = 3;
		Planes tpl = TestImages.random(PixelType.UINT8, 258, 258, 1, 44); // 66564 pixels
		int before = TemplateMatchingGpu.wrap32Tables.get();
		float[] got = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
		assertEquals(before, TemplateMatchingGpu.wrap32Tables.get(), "32-bit tables for a template of 66564 pixels");
		assertClose(NccReference.valid(image, 0, tpl, 0, null), got, "258x258 on a mostly saturated image");
	}

	@ParameterizedTest(name = "image {0}, template {1}")
	@MethodSource("pairs")
	void smallChunksGiveTheSameScores(PixelType it, PixelType tt) {
		Planes tpl = template(tt, 31, 17, 7);
		Planes image = imageFor(it, tpl, 8);
		double[] ref = NccReference.valid(image, 0, tpl, 0, null);
		int[][] chunks = { { 1, 1 }, { 3, 2 }, { 5, 100 }, { 17, 1 } };
		for (TemplateMatchingGpu.Path p : new TemplateMatchingGpu.Path[] { TemplateMatchingGpu.Path.DIRECT,
			TemplateMatchingGpu.Path.STREAM })
			for (int[] c : chunks) {
				try {
					TemplateMatchingGpu.pathForTest = p;
					TemplateMatchingGpu.chunkRowsForTest = c[0];
					TemplateMatchingGpu.chunkQuadsForTest = c[1];
					assertClose(ref, TemplateMatching.match(image, 0, tpl, 0, null, false, GPU), it + "/" + tt + " " + p
						+ " chunks " + Arrays.toString(c));
				} finally {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
					TemplateMatchingGpu.chunkRowsForTest = 0;
					TemplateMatchingGpu.chunkQuadsForTest = 0;
				}
			}
	}

	@ParameterizedTest(name = "image {0}, template {1}")
	@MethodSource("pairs")
	void templateRowsSplitOverBlocksGiveTheSameScores(PixelType it, PixelType tt) {
		// a 41x41 map of a 128x128 template: two tiles, so the rule splits the rows by itself
		Planes big = template(tt, 128, 128, 71);
		Planes small = NccReference.cut(TestImages.random(PixelType.UINT8, 168, 168, 1, 72), 0, 0, 168, 168, it);
		assertClose(NccReference.valid(small, 0, big, 0, null), TemplateMatching.match(small, 0, big, 0, null, false, GPU),
			it + "/" + tt + " split by the rule");
		Planes tpl = template(tt, 31, 17, 73);
		Planes image = imageFor(it, tpl, 74);
		double[] ref = NccReference.valid(image, 0, tpl, 0, null);
		for (TemplateMatchingGpu.Path p : new TemplateMatchingGpu.Path[] { TemplateMatchingGpu.Path.DIRECT,
			TemplateMatchingGpu.Path.STREAM })
			for (int splits : new int[] { 2, 5, 17 })
				assertClose(ref, matchPlanned(image, tpl, p, splits, splits == 5 ? 2 : 0, splits == 5 ? 3 : 0), it + "/" + tt
					+ " " + p + " in " + splits + " splits");
	}

	/**
	 * @return the map of {@code tpl} over {@code image} on path {@code p}, its rows in
	 *         {@code splits} splits staged {@code chunkRows} rows and {@code chunkQuads} quads at a
	 *         time (0: as the plan has it); the hooks go back to the plan's own choice
	 */
	private static float[] matchPlanned(Planes image, Planes tpl, TemplateMatchingGpu.Path p, int splits, int chunkRows,
		int chunkQuads) {
		try {
			TemplateMatchingGpu.pathForTest = p;
			TemplateMatchingGpu.splitsForTest = splits;
			TemplateMatchingGpu.chunkRowsForTest = chunkRows;
			TemplateMatchingGpu.chunkQuadsForTest = chunkQuads;
			return TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
		} finally {
			TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
			TemplateMatchingGpu.splitsForTest = 0;
			TemplateMatchingGpu.chunkRowsForTest = 0;
			TemplateMatchingGpu.chunkQuadsForTest = 0;
		}
	}

	@Test
	void splitsStagedInChunksThatDoNotDivideThemGiveTheSameScores() {
		// a split of template rows taken in several chunks whose height does not divide it: the
		// 31x17 template in 2 splits of 9 and 8 rows, 2 or 4 rows a chunk, so the last chunk of
		// the first split holds 1 row and must stop at the split's end, not run on into rows the
		// second split adds too. The hooks force it: the plan stages a whole split at once, and
		// on a device of many multiprocessors the rule splits these maps into 1-row parts
		for (PixelType it : TYPES)
			for (PixelType tt : TYPES) {
				Planes tpl = template(tt, 31, 17, 75 + tt.ordinal());
				Planes image = imageFor(it, tpl, 76 + it.ordinal());
				double[] ref = NccReference.valid(image, 0, tpl, 0, null);
				for (TemplateMatchingGpu.Path p : new TemplateMatchingGpu.Path[] { TemplateMatchingGpu.Path.DIRECT,
					TemplateMatchingGpu.Path.STREAM })
					for (int rows : new int[] { 2, 4 }) // 100 quads: every quad of a row
						assertClose(ref, matchPlanned(image, tpl, p, 2, rows, 100), it + "/" + tt + " " + p
							+ " in 2 splits, chunks of " + rows + " rows");
			}
	}

	@ParameterizedTest(name = "image {0}, template {1}")
	@MethodSource("pairs")
	void masksCountOnlyTheirPixels(PixelType it, PixelType tt) {
		for (int[] s : new int[][] { { 1, 1 }, { 17, 13 }, { 40, 3 } }) {
			Planes tpl = template(tt, s[0], s[1], 21);
			byte[] mask = s[0] == 1 ? new byte[] { 1 } : NccReference.randomMask(s[0] * s[1], 0.5, 22);
			Planes image = imageFor(it, tpl, 23);
			assertClose(NccReference.valid(image, 0, tpl, 0, mask), TemplateMatching.match(image, 0, tpl, 0, mask, false,
				GPU), it + "/" + tt + " masked " + s[0] + "x" + s[1]);
		}
	}

	@ParameterizedTest(name = "image {0}, template {1}")
	@MethodSource("pairs")
	void banksShareOneLaunchAndMatchOneByOne(PixelType it, PixelType tt) {
		Planes image = TestImages.random(it, 300, 199, 1, 31);
		List<Template> bank = new ArrayList<>();
		for (int i = 0; i < 16; i++)
			bank.add(new Template(template(tt, 16, 16, 40 + i), null, i, 0, false));
		// a flat template in the bank scores 0 everywhere
		bank.add(new Template(NccReference.cut(Planes.wrap(16, 16, new byte[256]), 0, 0, 16, 16, tt), null, 16, 0, false));
		List<float[]> maps = TemplateMatching.matchAll(image, 0, bank, GPU);
		for (int i = 0; i < bank.size(); i++)
			assertClose(NccReference.valid(image, 0, bank.get(i).pixels, 0, null), maps.get(i), it + "/" + tt + " bank "
				+ i);
		// mixed sizes and masks in one call
		List<Template> mixed = new ArrayList<>(bank.subList(0, 3));
		mixed.add(new Template(template(tt, 9, 21, 60), NccReference.randomMask(9 * 21, 0.6, 61), 3, 0, false));
		mixed.add(new Template(template(tt, 33, 5, 62), null, 4, 0, false));
		List<float[]> mm = TemplateMatching.matchAll(image, 0, mixed, GPU);
		for (int i = 0; i < mixed.size(); i++)
			assertClose(NccReference.valid(image, 0, mixed.get(i).pixels, 0, mixed.get(i).mask), mm.get(i), it + "/" + tt
				+ " mixed " + i);
	}

	@Test
	void templatesOfOneWidthButNotOneHeightEachGetTheirOwnMap() {
		// unmasked templates of one width and type but of several heights are no bank: its
		// launch lays every template out and sizes every map by the first one's height
		int[] heights = { 16, 24, 9 };
		for (PixelType it : TYPES)
			for (PixelType tt : TYPES) {
				Planes image = TestImages.random(it, 150, 97, 1, 41 + it.ordinal());
				List<Template> list = new ArrayList<>();
				for (int i = 0; i < heights.length; i++)
					list.add(new Template(template(tt, 16, heights[i], 70 + 10 * tt.ordinal() + i), null, i, 0, false));
				List<float[]> maps = TemplateMatching.matchAll(image, 0, list, GPU);
				for (int i = 0; i < list.size(); i++)
					assertClose(NccReference.valid(image, 0, list.get(i).pixels, 0, null), maps.get(i), it + "/" + tt + " 16x"
						+ heights[i]);
			}
	}

	@Test
	void aBankAgainstNonFiniteFloatPixelsGivesNaNOnlyWhereTheyAre() {
		// a bank of one size against a 32-bit image holding NaN and infinity: the bank kernel
		// reads the image's tables, which those values spoil for every window below and right
		// of them, so such an image takes the direct sums template by template, as one template does
		Planes image = nonFiniteImage(39);
		for (PixelType tt : TYPES) {
			List<Template> bank = new ArrayList<>();
			for (int k = 0; k < 3; k++)
				bank.add(new Template(template(tt, 10, 6, 90 + 10 * tt.ordinal() + k), null, k, 0, false));
			List<float[]> cpu = TemplateMatching.matchAll(image, 0, bank, CPU), gpu = TemplateMatching.matchAll(image, 0,
				bank, GPU);
			for (int k = 0; k < bank.size(); k++)
				assertLikeCpu(cpu.get(k), gpu.get(k), "non-finite image, bank of " + tt + ", template " + k);
		}
	}

	/**
	 * A bank of bright 8-bit templates above 66051 pixels: their sums of products pass 2^32, so
	 * the dp4a bank kernel (ncc_bank_u8_t8: too big for the tensor cores, small enough to stage
	 * whole) must not sum the whole template in one 32-bit chunk, as a single template's plan
	 * already does not.
	 */
	@Test
	void brightEightBitBanksAboveTheDp4aChunkLimitMatchTheCpuPath() {
		java.util.Random r = new java.util.Random(77);
		byte[] px = new byte[340 * 330];
		for (int i = 0; i < px.length; i++)
			px[i] = (byte) (200 + r.nextInt(56));
		Planes image = Planes.wrap(340, 330, px);
		List<Template> bank = new ArrayList<>();
		for (int k = 0; k < 2; k++) {
			byte[] t = new byte[300 * 300]; // 90000 pixels: sum of I*T near 4.7e9
			for (int i = 0; i < t.length; i++)
				t[i] = (byte) (200 + r.nextInt(56));
			bank.add(new Template(Planes.wrap(300, 300, t), null, k, 0, false));
		}
		List<float[]> gpu = TemplateMatching.matchAll(image, 0, bank, GPU);
		List<float[]> cpu = TemplateMatching.matchAll(image, 0, bank, CPU);
		for (int k = 0; k < bank.size(); k++) {
			assertLikeCpu(cpu.get(k), gpu.get(k), "300x300 bank template " + k);
			assertClose(NccReference.valid(image, 0, bank.get(k).pixels, 0, null), gpu.get(k), "bank template " + k);
		}
	}

	@Test
	void sameSizeMapsEqualTheCpuPath() {
		Planes image = TestImages.random(PixelType.UINT16, 129, 67, 1, 3);
		Planes tpl = template(PixelType.UINT16, 12, 7, 4);
		float[] cpu = TemplateMatching.match(image, 0, tpl, 0, null, true, CPU);
		float[] gpu = TemplateMatching.match(image, 0, tpl, 0, null, true, GPU);
		assertLikeCpu(cpu, gpu, "same size");
	}

	@Test
	void flatWindowsAndTemplatesScoreExactlyZero() {
		for (PixelType it : TYPES) {
			Planes tpl = template(PixelType.UINT8, 8, 8, 5);
			Planes image = imageFor(it, tpl, 6);
			float[] map = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
			int ow = 211 - 8 + 1;
			for (int y = 150; y <= 173 - 8; y++)
				for (int x = 0; x <= 60 - 8; x++)
					assertEquals(0f, map[y * ow + x], it + " flat window at " + x + "," + y);
			Planes flat = NccReference.cut(Planes.wrap(8, 8, new byte[64]), 0, 0, 8, 8, it);
			for (float v : TemplateMatching.match(image, 0, flat, 0, null, false, GPU))
				assertEquals(0f, v, it + " flat template");
		}
	}

	/** @return a random 150x90 32-bit image holding one NaN and one infinity, away from its edges */
	private static Planes nonFiniteImage(long seed) {
		Planes image = TestImages.random(PixelType.FLOAT32, 150, 90, 1, seed);
		float[] p = (float[]) image.plane(0);
		p[20 * 150 + 30] = Float.NaN;
		p[70 * 150 + 100] = Float.POSITIVE_INFINITY;
		return image;
	}

	@Test
	void nonFiniteFloatPixelsGiveNaNOnlyWhereTheyAre() {
		Planes image = nonFiniteImage(11);
		for (PixelType tt : TYPES) {
			Planes tpl = template(tt, 10, 6, 12);
			assertLikeCpu(TemplateMatching.match(image, 0, tpl, 0, null, false, CPU),
				TemplateMatching.match(image, 0, tpl, 0, null, false, GPU), "non-finite image, template " + tt);
		}
		// a flat template scores 0 everywhere, over the non-finite windows too (README)
		for (PixelType tt : TYPES) {
			byte[] sevens = new byte[60];
			java.util.Arrays.fill(sevens, (byte) 7);
			Planes flat = NccReference.cut(Planes.wrap(10, 6, sevens), 0, 0, 10, 6, tt);
			for (ExecutionOptions opts : new ExecutionOptions[] { CPU, GPU }) {
				float[] map = TemplateMatching.match(image, 0, flat, 0, null, false, opts);
				for (int i = 0; i < map.length; i++)
					assertEquals(0f, map[i], "flat " + tt + " template on " + opts.backend() + " at " + i);
			}
		}
	}

	@Test
	void largeEightBitMapsAreExactAgainstTheCpuPath() {
		Planes image = TestImages.random(PixelType.UINT8, 2053, 1031, 1, 13);
		for (int t : new int[] { 8, 16, 33 }) {
			Planes tpl = template(PixelType.UINT8, t, t, 14 + t);
			assertLikeCpu(TemplateMatching.match(image, 0, tpl, 0, null, false, CPU),
				TemplateMatching.match(image, 0, tpl, 0, null, false, GPU), "2053x1031 T" + t);
		}
	}

	@Test
	void tensorCoreMapsAreExactAgainstTheCpuPath() {
		// Path.IMMA: many 64x64 blocks, edges that cut blocks, templates narrower, as wide as and
		// wider than one 24-column K step; the fused kernel, and the sums through ncc_finish_u8_t8
		Planes image = TestImages.random(PixelType.UINT8, 2053, 1031, 1, 23);
		for (int[] t : new int[][] { { 1, 1 }, { 8, 8 }, { 16, 16 }, { 24, 7 }, { 25, 33 }, { 64, 64 }, { 128, 96 } }) {
			Planes tpl = template(PixelType.UINT8, t[0], t[1], 30 + t[0] + t[1]);
			float[] cpu = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU);
			for (boolean unfused : new boolean[] { false, true }) {
				float[] gpu;
				int before = TemplateMatchingGpu.immaLaunches.get();
				try {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.IMMA;
					TemplateMatchingGpu.immaUnfusedForTest = unfused;
					gpu = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
					assertEquals(before + 1, TemplateMatchingGpu.immaLaunches.get(), "the tensor-core path was not taken");
				} finally {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
					TemplateMatchingGpu.immaUnfusedForTest = false;
				}
				assertLikeCpu(cpu, gpu, "2053x1031 IMMA " + t[0] + "x" + t[1] + (unfused ? " unfused" : " fused"));
			}
		}
	}

	@Test
	void eightAndSixteenSquareTemplatesMatchTheGeneralFusedKernelBitForBit() {
		// ncc_immaf8_u8_t8 and ncc_immaf16_u8_t8 against ncc_immaf_u8_t8 and the CPU path: a
		// one-score map, maps cut by the 64x64 blocks and by the 32-row halves, widths that are
		// not multiples of 16 (the byte-wise staging), a flat template, and an image with flat windows
		for (int t : new int[] { 8, 16 })
		for (int[] size : new int[][] { { t, t }, { t + 1, t }, { t, 47 }, { 79, 80 }, { 131, 67 }, { 144, 144 },
			{ 2053, 1031 } }) {
			Planes image = TestImages.random(PixelType.UINT8, size[0], size[1], 1, 40 + size[0]);
			if (size[0] == 144) Arrays.fill((byte[]) image.plane(0), 0, 144 * 60, (byte) 200);
			for (int flat = 0; flat < 2; flat++) {
				Planes tpl = flat == 0 ? template(PixelType.UINT8, t, t, 41 + size[1])
					: Planes.wrap(t, t, filled(t * t, (byte) 9));
				String what = t + "x" + t + " in " + size[0] + "x" + size[1] + (flat == 0 ? "" : ", flat template");
				float[] fixed, general;
				int before = TemplateMatchingGpu.immafSmallLaunches.get();
				try {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.IMMA;
					fixed = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
					assertEquals(before + 1, TemplateMatchingGpu.immafSmallLaunches.get(), "ncc_immaf" + t + "_u8_t8 did not run");
					TemplateMatchingGpu.immafSmallOffForTest = true;
					general = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
					assertEquals(before + 1, TemplateMatchingGpu.immafSmallLaunches.get(), "ncc_immaf" + t + "_u8_t8 ran when off");
				} finally {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
					TemplateMatchingGpu.immafSmallOffForTest = false;
				}
				for (int i = 0; i < fixed.length; i++)
					if (Float.floatToRawIntBits(fixed[i]) != Float.floatToRawIntBits(general[i]))
						fail(what + ": score " + i + " is " + fixed[i] + ", the general kernel's " + general[i]);
				assertLikeCpu(TemplateMatching.match(image, 0, tpl, 0, null, false, CPU), fixed, what);
			}
		}
	}

	private static byte[] filled(int n, byte v) {
		byte[] b = new byte[n];
		Arrays.fill(b, v);
		return b;
	}

	@Test
	void smallSquareBanksMatchTheGeneralBankKernelBitForBit() {
		// ncc_immaf8_bank_u8_t8 and ncc_immaf16_bank_u8_t8 against ncc_immaf_bank_u8_t8: a flat
		// template among them, a small image (templates spread over blockIdx.z) and a large one
		for (int[] size : new int[][] { { 300, 199 }, { 1031, 777 } }) {
			Planes image = TestImages.random(PixelType.UINT8, size[0], size[1], 1, 34);
			for (int t : new int[] { 8, 16 }) {
				List<Template> bank = new ArrayList<>();
				for (int i = 0; i < 5; i++)
					bank.add(new Template(template(PixelType.UINT8, t, t, 80 + i), null, i, 0, false));
				bank.add(new Template(Planes.wrap(t, t, new byte[t * t]), null, 5, 0, false));
				List<float[]> small, general;
				int before = TemplateMatchingGpu.immafSmallLaunches.get();
				try {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.IMMA;
					small = TemplateMatching.matchAll(image, 0, bank, GPU);
					assertEquals(before + 1, TemplateMatchingGpu.immafSmallLaunches.get(), "not one small-bank launch");
					TemplateMatchingGpu.immafSmallOffForTest = true;
					general = TemplateMatching.matchAll(image, 0, bank, GPU);
				} finally {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
					TemplateMatchingGpu.immafSmallOffForTest = false;
				}
				for (int i = 0; i < bank.size(); i++)
					for (int j = 0; j < small.get(i).length; j++)
						if (Float.floatToRawIntBits(small.get(i)[j]) != Float.floatToRawIntBits(general.get(i)[j]))
							fail(size[0] + "x" + size[1] + " bank of " + t + "x" + t + ", template " + i + ", score " + j + ": "
								+ small.get(i)[j] + ", the general bank kernel's " + general.get(i)[j]);
			}
		}
	}

	@Test
	void tensorCoreBanksMatchOneByOne() {
		// shared tile, one map per template, a flat one among them; a small image (templates
		// spread over blockIdx.z) and a large one; 8x8 and 16x16 through their own bank kernels
		for (int[] size : new int[][] { { 300, 199 }, { 1031, 777 } }) {
			Planes image = TestImages.random(PixelType.UINT8, size[0], size[1], 1, 33);
			for (int[] t : new int[][] { { 8, 8 }, { 16, 16 }, { 31, 17 } }) {
				List<Template> bank = new ArrayList<>();
				for (int i = 0; i < 6; i++)
					bank.add(new Template(template(PixelType.UINT8, t[0], t[1], 70 + i), null, i, 0, false));
				bank.add(new Template(Planes.wrap(t[0], t[1], new byte[t[0] * t[1]]), null, 6, 0, false));
				List<float[]> maps;
				int before = TemplateMatchingGpu.immaLaunches.get();
				try {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.IMMA;
					maps = TemplateMatching.matchAll(image, 0, bank, GPU);
					assertEquals(before + 1, TemplateMatchingGpu.immaLaunches.get(), "not one tensor-core bank launch");
				} finally {
					TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
				}
				for (int i = 0; i < bank.size(); i++)
					assertLikeCpu(TemplateMatching.match(image, 0, bank.get(i).pixels, 0, null, false, CPU), maps.get(i),
						size[0] + "x" + size[1] + " IMMA bank " + t[0] + "x" + t[1] + " template " + i);
			}
		}
	}

	@Test
	void plantedCopiesAreFoundOnTheGpu() {
		int[][] spots = DetectionTest.SPOTS;
		for (PixelType it : TYPES) {
			Planes image = TestImages.random(it, 200, 150, 1, 3);
			Planes tpl = template(it, 12, 9, 4);
			for (int[] s : spots)
				DetectionTest.plant(image, tpl, null, s[0], s[1]);
			List<Detection> found = TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), 0.5, 20, 0.3, false,
				null, GPU);
			DetectionTest.assertFoundAt(found, spots);
		}
	}

	@Test
	void aScoreExactlyAtTheThresholdIsKeptOnTheGpu() {
		// ncc_peaks compared the float score with the double threshold, as the CPU path did
		for (Object[] c : DetectionTest.EXACT_SCORES) {
			List<Detection> found = DetectionTest.atExactScore(c, GPU);
			assertEquals(1, found.size(), "threshold " + c[2]);
			assertEquals((Double) c[2], found.get(0).score, 1e-6);
		}
	}

	@Test
	void peaksFoundOnTheGpuAreThoseOfItsMaps() {
		// detect() without a map sink keeps the maps on the GPU and brings back only the peaks and
		// the scores around them: the candidates must be those Peaks.localMaxima finds in the
		// same maps brought back whole, also when the peaks overflow the list (the last case).
		// Compared before suppression, which is quadratic in the candidates kept.
		Object[][] cases = { { PixelType.UINT8, 300, 200, 9, 0.3 }, { PixelType.UINT16, 257, 131, 16, -0.2 },
			{ PixelType.FLOAT32, 211, 173, 5, 0.0 }, { PixelType.UINT8, 300, 200, 9, 0.0, "flat left half" },
			{ PixelType.UINT8, 1100, 1000, 3, -1.0 } };
		for (Object[] c : cases) {
			PixelType t = (PixelType) c[0];
			int w = (Integer) c[1], h = (Integer) c[2], ts = (Integer) c[3];
			double threshold = (Double) c[4];
			Planes image = TestImages.random(t, w, h, 1, w);
			if (c.length > 5) // windows there score 0: plateaus, each a single peak
				for (int y = 0; y < h; y++)
					java.util.Arrays.fill((byte[]) image.plane(0), y * w, y * w + w / 2, (byte) 7);
			List<Planes> bank = new ArrayList<>();
			for (int i = 0; i < 3; i++)
				bank.add(template(t, ts, ts, i + h));
			List<byte[]> masks = java.util.Collections.nCopies(3, null);
			TemplateMatchingGpu.PeakList[] found = TemplateMatchingGpu.peaksBank(Gpu.get(), image, 0, bank, masks, threshold);
			float[][] maps = TemplateMatchingGpu.matchBank(Gpu.get(), image, 0, bank, masks);
			int mw = w - ts + 1, mh = h - ts + 1;
			Detection box = new Detection(0, 0, ts, ts, 0, 0, 0, false, 0, 0, 0);
			for (int i = 0; i < 3; i++)
				for (boolean refine : new boolean[] { false, true }) {
					String what = t + " " + w + "x" + h + " T" + ts + " threshold " + threshold + " map " + i + " refine "
						+ refine;
					List<Detection> expected = Peaks.localMaxima(maps[i], mw, mh, box, threshold, refine);
					TemplateMatchingGpu.PeakList p = found[i];
					List<Detection> got = p.map != null ? Peaks.localMaxima(p.map, mw, mh, box, threshold, refine)
						: Peaks.fromPeaks(p.index, p.patches, mw, mh, box, refine);
					assertTrue(expected.size() > 0, what + ": nothing found");
					assertEquals(expected.size(), got.size(), what + ": candidates");
					for (int k = 0; k < got.size(); k++) {
						Detection a = expected.get(k), b = got.get(k);
						assertTrue(a.x == b.x && a.y == b.y && a.score == b.score && a.refinedX == b.refinedX
							&& a.refinedY == b.refinedY, what + ": " + a + " vs " + b);
					}
					assertEquals(ts == 3, p.map != null, what + ": the list should overflow exactly in the last case");
				}
		}
	}

	@Test
	void peaksOfMapsHoldingNaNAreNeverNaNAndDetectionsAreThoseOfTheCpuPath() {
		// windows over a NaN or an infinity of a 32-bit image score NaN, and a NaN is never a
		// peak (Peaks.localMaxima): ncc_peaks must reject it at the threshold, since no neighbour
		// compares above or equal to NaN. The peaks listed on the GPU are those of its maps, none
		// at a NaN, and detect() finds the planted copies as the CPU path does
		int[][] spots = { { 5, 40 }, { 110, 5 }, { 50, 70 }, { 120, 60 } };
		for (PixelType tt : TYPES) {
			Planes image = nonFiniteImage(53);
			Planes tpl = template(tt, 16, 12, 54 + tt.ordinal());
			for (int[] s : spots)
				DetectionTest.plant(image, tpl, null, s[0], s[1]);
			List<Planes> bank = List.of(tpl, template(tt, 16, 12, 57 + tt.ordinal()));
			List<byte[]> masks = java.util.Collections.nCopies(2, null);
			int mw = 150 - 16 + 1, mh = 90 - 12 + 1;
			Detection box = new Detection(0, 0, 16, 12, 0, 0, 0, false, 0, 0, 0);
			for (double threshold : new double[] { 0.0, 0.5 }) {
				TemplateMatchingGpu.PeakList[] found = TemplateMatchingGpu.peaksBank(Gpu.get(), image, 0, bank, masks,
					threshold);
				float[][] maps = TemplateMatchingGpu.matchBank(Gpu.get(), image, 0, bank, masks);
				for (int i = 0; i < 2; i++) {
					String what = tt + " template " + i + " threshold " + threshold;
					float[] cpu = TemplateMatching.match(image, 0, bank.get(i), 0, null, false, CPU);
					assertLikeCpu(cpu, maps[i], what);
					int nan = 0;
					for (float v : maps[i])
						if (Float.isNaN(v)) nan++;
					assertEquals(2 * 16 * 12, nan, what + ": NaN scores in the map");
					TemplateMatchingGpu.PeakList p = found[i];
					assertTrue(p.map == null, what + ": the peaks overflowed the list");
					for (int k : p.index)
						assertTrue(!Float.isNaN(maps[i][k]), what + ": NaN score listed as a peak at " + k % mw + "," + k / mw);
					for (boolean refine : new boolean[] { false, true }) {
						List<Detection> expected = Peaks.localMaxima(maps[i], mw, mh, box, threshold, refine);
						List<Detection> got = Peaks.fromPeaks(p.index, p.patches, mw, mh, box, refine);
						if (threshold == 0 || i == 0) assertTrue(expected.size() > 0, what + ": nothing found");
						assertEquals(expected.size(), got.size(), what + " refine " + refine + ": candidates");
						for (int k = 0; k < got.size(); k++) {
							Detection a = expected.get(k), b = got.get(k);
							assertTrue(a.x == b.x && a.y == b.y && a.score == b.score && a.refinedX == b.refinedX
								&& a.refinedY == b.refinedY, what + " refine " + refine + ": " + a + " vs " + b);
						}
					}
				}
			}
			List<Detection> onGpu = TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), 0.5, 20, 0.3, false,
				null, GPU);
			List<Detection> onCpu = TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), 0.5, 20, 0.3, false,
				null, CPU);
			DetectionTest.assertFoundAt(onGpu, spots);
			// the copies score 1 to within rounding, so the two paths may rank them differently
			assertEquals(onCpu.size(), onGpu.size(), tt + ": detections " + onCpu + " vs " + onGpu);
			for (Detection a : onCpu)
				assertTrue(onGpu.stream().anyMatch(b -> a.x == b.x && a.y == b.y && Math.abs(a.score - b.score) <= TOLERANCE),
					tt + ": " + a + " not among " + onGpu);
		}
	}

	@Test
	void inputIsNotModified() {
		Planes image = TestImages.random(PixelType.FLOAT32, 90, 70, 1, 31);
		Planes tpl = template(PixelType.UINT16, 12, 10, 32);
		Planes ic = image.copy(), tc = tpl.copy();
		TemplateMatching.match(image, 0, tpl, 0, null, true, GPU);
		assertTrue(TestImages.sameBits(image, ic) && TestImages.sameBits(tpl, tc), "input modified");
		TemplateMatching.crop(image, 0, new Region(5, 5, 30, 20, null));
		assertTrue(TestImages.sameBits(image, ic), "input modified by crop");
	}

	@Test
	void sixteenCallersAtOnceGetTheirOwnMaps() throws Exception {
		ExecutorService ex = Executors.newFixedThreadPool(16);
		try {
			List<Future<String>> fs = new ArrayList<>();
			for (int k = 0; k < 16; k++) {
				final int seed = k;
				fs.add(ex.submit(() -> {
					for (int rep = 0; rep < 4; rep++) {
						PixelType it = TYPES[(seed + rep) % 3], tt = TYPES[seed % 3];
						Planes image = TestImages.random(it, 150 + seed, 120 + rep, 1, seed * 10 + rep);
						// different template sizes, so a direct launch reading another caller's
						// template from constant memory would score wrongly
						Planes tpl = template(tt, 5 + seed, 4 + rep, seed + 1000);
						float[] cpu = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU);
						float[] gpu = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
						for (int i = 0; i < cpu.length; i++)
							if (Math.abs(cpu[i] - gpu[i]) > TOLERANCE && !(Float.isNaN(cpu[i]) && Float.isNaN(gpu[i])))
								return "caller " + seed + " rep " + rep + " differs at " + i + ": " + cpu[i] + " vs " + gpu[i];
					}
					return null;
				}));
			}
			for (Future<String> f : fs)
				assertEquals(null, f.get(HangGuard.inSeconds(300), TimeUnit.SECONDS));
		} finally {
			ex.shutdownNow();
		}
	}

	@Test
	void aSecondCallerWaitsUntilTheFirstDirectKernelHasReadItsTemplateFromConstantMemory() throws Exception {
		// The first caller's stream is held for 300 ms right after its template went into
		// constant memory; the second caller, on a stream of its own, must not write its own
		// template there before the first kernel has run, or that kernel scores the wrong one.
		Planes imageA = TestImages.random(PixelType.UINT8, 90, 70, 1, 4242);
		Planes imageB = TestImages.random(PixelType.UINT8, 80, 60, 1, 4343);
		Planes tplA = template(PixelType.UINT8, 9, 7, 4444), tplB = template(PixelType.UINT8, 13, 11, 4545);
		float[] cpuA = TemplateMatching.match(imageA, 0, tplA, 0, null, false, CPU);
		float[] cpuB = TemplateMatching.match(imageB, 0, tplB, 0, null, false, CPU);
		java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
		ExecutorService ex = Executors.newSingleThreadExecutor();
		TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.DIRECT;
		try {
			// once each first, so that the race below finds its modules loaded and its buffers in
			// the pool: a fresh cuMemAlloc can wait for the held stream and hide the race
			assertLikeCpu(cpuA, TemplateMatching.match(imageA, 0, tplA, 0, null, false, GPU), "first caller alone");
			assertLikeCpu(cpuB, TemplateMatching.match(imageB, 0, tplB, 0, null, false, GPU), "second caller alone");
			Future<float[]> first = ex.submit(() -> {
				Thread a = Thread.currentThread();
				TemplateMatchingGpu.afterConstantCopyForTest = s -> {
					if (Thread.currentThread() != a || held.getCount() == 0)
						return;
					s.launch(s.function("runtime", "runtime_hold"), new int[] { 1 }, new int[] { 1 }, 0, 300_000_000L);
					held.countDown();
				};
				return TemplateMatching.match(imageA, 0, tplA, 0, null, false, GPU);
			});
			assertTrue(held.await(HangGuard.inSeconds(60), TimeUnit.SECONDS),
				"the first caller never reached its direct launch");
			float[] gpuB = TemplateMatching.match(imageB, 0, tplB, 0, null, false, GPU);
			assertLikeCpu(cpuA, first.get(HangGuard.inSeconds(60), TimeUnit.SECONDS), "first caller, 9x7 template");
			assertLikeCpu(cpuB, gpuB, "second caller, 13x11 template");
		} finally {
			TemplateMatchingGpu.afterConstantCopyForTest = null;
			TemplateMatchingGpu.pathForTest = TemplateMatchingGpu.Path.AUTO;
			ex.shutdownNow();
		}
	}

	@Test
	void aWaitThatFailsWhileBuffersGoBackLosesNoneOfThem() {
		// a 40x40 16-bit template takes the streamed kernel, which never waits for the stream
		// itself: the first wait is the launch's close, the second the tables' close
		Gpu g = Gpu.get();
		Planes image = TestImages.random(PixelType.UINT16, 200, 100, 1, 37);
		Planes tpl = template(PixelType.UINT16, 40, 40, 38);
		TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
		assertEquals(0, g.bytesInUse(), "pooled buffers handed out before");
		for (int syncs = 0; syncs < 2; syncs++) {
			fiji.cuda.runtime.FaultInjection.failSyncAfter(syncs);
			try {
				TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
				fail("the injected failure of wait " + (syncs + 1) + " was not reported");
			} catch (fiji.cuda.runtime.GpuException e) {
				assertTrue(e.getMessage().contains("injected"), e.getMessage());
			} finally {
				fiji.cuda.runtime.FaultInjection.clear();
			}
			assertEquals(0, g.bytesInUse(), "pooled buffers lost when wait " + (syncs + 1) + " failed");
		}
		// the failures were not faults: the GPU still matches
		float[] cpu = TemplateMatching.match(image, 0, tpl, 0, null, false, ExecutionOptions.defaults()
			.withBackend(Backend.CPU)), gpu = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
		for (int i = 0; i < cpu.length; i++)
			assertEquals(cpu[i], gpu[i], TOLERANCE, "score " + i);
	}

	@Test
	void thousandMatchesLeaveDeviceMemoryWhereItWas() {
		Gpu g = Gpu.get();
		Planes tpl = template(PixelType.UINT8, 9, 9, 4);
		byte[] mask = NccReference.randomMask(81, 0.5, 5);
		TemplateMatching.match(TestImages.random(PixelType.UINT8, 200, 100, 1, 3), 0, tpl, 0, null, false, GPU);
		g.trimPool();
		long before = g.memoryInfo()[0], pinnedBefore = g.pinnedBytes();
		for (int i = 0; i < 1000; i++) {
			// every type and both map sizes, on images of changing sizes, so that buffers of many
			// size classes come and go
			Planes image = TestImages.random(PixelType.values()[i % 3], 40 + i % 61, 30 + i % 29, 1, i);
			TemplateMatching.match(image, 0, tpl, 0, i % 3 == 0 ? mask : null, i % 2 == 0, GPU);
		}
		assertEquals(0, g.bytesInUse(), "pooled buffers still handed out");
		g.trimPool();
		long after = g.memoryInfo()[0];
		// below one 2 MiB page of the driver's: one small buffer leaked per call would take at least two
		assertTrue(Math.abs(before - after) < (1L << 20), "free memory before " + before + ", after " + after
				+ " (other processes on the device move this number too: run this test alone there)");
		assertEquals(pinnedBefore, g.pinnedBytes(), "pinned host bytes before and after");
	}


	@Test
	void thirtyTwoBitDataBeyondTheFloatProductsRangeScoresAsInDouble() {
		// products of pixels near 1e20 overflowed float (scores of 1, -1 or NaN), those of pixels
		// near 1e-25 sank into its subnormals (scores of 0); the CPU path scored 1 at the match
		Planes base = TestImages.random(PixelType.FLOAT32, 97, 83, 1, 61);
		for (double scale : new double[] { 1e25, 1e20, 1e-25, 1e-40 }) {
			float[] px = ((float[]) base.plane(0)).clone();
			for (int k = 0; k < px.length; k++)
				px[k] = (float) (px[k] * scale);
			Planes image = Planes.wrap(97, 83, px);
			for (int[] sz : new int[][] { { 16, 16 }, { 31, 17 } }) {
				Planes tpl = NccReference.cut(image, 20, 30, sz[0], sz[1], PixelType.FLOAT32);
				String what = "scale " + scale + ", " + sz[0] + "x" + sz[1];
				float[] got = TemplateMatching.match(image, 0, tpl, 0, null, false, GPU);
				assertClose(NccReference.valid(image, 0, tpl, 0, null), got, what);
				assertEquals(1.0, got[30 * (97 - sz[0] + 1) + 20], 1e-4, what + ": at the match");
				// and an ordinary template against such an image, and such a template against an ordinary image
				Planes plain = NccReference.cut(base, 20, 30, sz[0], sz[1], PixelType.FLOAT32);
				assertClose(NccReference.valid(image, 0, plain, 0, null), TemplateMatching.match(image, 0, plain, 0, null, false,
					GPU), what + ", ordinary template");
				assertClose(NccReference.valid(base, 0, tpl, 0, null), TemplateMatching.match(base, 0, tpl, 0, null, false, GPU),
					what + ", ordinary image");
			}
			// a bank of such templates
			List<Template> bank = new ArrayList<>();
			for (int k = 0; k < 3; k++)
				bank.add(new Template(NccReference.cut(image, 10 + 7 * k, 5 + 3 * k, 16, 16, PixelType.FLOAT32), null, k, 0, false));
			List<float[]> maps = TemplateMatching.matchAll(image, 0, bank, GPU);
			for (int k = 0; k < 3; k++)
				assertClose(NccReference.valid(image, 0, bank.get(k).pixels, 0, null), maps.get(k), "scale " + scale + ", bank " + k);
		}
	}
}
