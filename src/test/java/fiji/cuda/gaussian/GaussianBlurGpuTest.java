package fiji.cuda.gaussian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.runtime.FaultInjection;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuException;

/**
 * The GPU path against the CPU path (itself checked against ImageJ), on seeded random data
 * and awkward sizes. Integer types must agree within 1 (float sums in another order may
 * round a .5 the other way); floats within 1e-5 of the data range.
 */
@Tag("gpu")
class GaussianBlurGpuTest {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	static final int[][] SIZES = { { 1, 1 }, { 1, 29 }, { 29, 1 }, { 2, 3 }, { 37, 53 }, { 101, 7 }, { 7, 101 },
		{ 257, 131 }, { 1021, 769 } };
	static final double[] SIGMAS = { 0.3, 0.8, 1, 2, 3.7, 5, 8.5, 12, 30 };

	static List<Arguments> cases2D() {
		List<Arguments> a = new ArrayList<>();
		int seed = 1;
		for (PixelType t : PixelType.values())
			for (int[] s : SIZES)
				for (double sigma : SIGMAS) {
					// the largest image only at a few sigmas, to keep the run short
					if (s[0] > 500 && sigma != 2 && sigma != 12) continue;
					a.add(Arguments.of(t, s[0], s[1], sigma, sigma * 0.7 + 0.1, seed++));
				}
		return a;
	}

	@ParameterizedTest(name = "{0} {1}x{2} sx={3} sy={4}")
	@MethodSource("cases2D")
	void blur2DMatchesCpu(PixelType t, int w, int h, double sx, double sy, int seed) {
		Planes gpu = TestImages.random(t, w, h, 2, seed);
		Planes cpu = gpu.copy();
		OpReport r = GaussianBlur.blur2D(gpu, sx, sy, null, GPU);
		assertEquals(Backend.GPU, r.ranOn());
		GaussianBlur.blur2D(cpu, sx, sy, null, CPU);
		assertClose(cpu, gpu, t + " " + w + "x" + h + " sx=" + sx + " sy=" + sy);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("types")
	void roiAndMaskMatchCpu(PixelType t) {
		int w = 211, h = 97;
		byte[] mask = new byte[50 * 40];
		for (int y = 0; y < 40; y++)
			for (int x = 0; x < 50; x++)
				mask[y * 50 + x] = (byte) ((x - 25) * (x - 25) + (y - 20) * (y - 20) < 400 ? 255 : 0);
		for (Region roi : new Region[] { new Region(13, 17, 50, 40, null), new Region(13, 17, 50, 40, mask),
			new Region(0, 60, 211, 37, null), new Region(190, 0, 21, 97, null) })
		{
			for (double sigma : new double[] { 1.5, 20 }) {
				Planes gpu = TestImages.random(t, w, h, 1, 7);
				Planes orig = gpu.copy();
				Planes cpu = gpu.copy();
				GaussianBlur.blur2D(gpu, sigma, sigma, roi, GPU);
				GaussianBlur.blur2D(cpu, sigma, sigma, roi, CPU);
				assertClose(cpu, gpu, t + " roi " + roi + " sigma " + sigma);
				assertOutsideUnchanged(orig, gpu, roi);
			}
		}
	}

	static PixelType[] types() {
		return PixelType.values();
	}

	static List<Arguments> cases3D() {
		List<Arguments> a = new ArrayList<>();
		int seed = 100;
		int[][] sizes = { { 1, 1, 1 }, { 1, 1, 17 }, { 5, 3, 2 }, { 37, 23, 19 }, { 64, 64, 64 }, { 129, 65, 7 } };
		double[][] sig = { { 2, 2, 2 }, { 0.5, 1, 3 }, { 0, 0, 2 }, { 3, 3, 0 }, { 1, 1, 30 } };
		for (PixelType t : PixelType.values())
			for (int[] s : sizes)
				for (double[] g : sig)
					a.add(Arguments.of(t, s[0], s[1], s[2], g[0], g[1], g[2], seed++));
		return a;
	}

	@ParameterizedTest(name = "{0} {1}x{2}x{3} sigma {4},{5},{6}")
	@MethodSource("cases3D")
	void blur3DMatchesCpu(PixelType t, int w, int h, int d, double sx, double sy, double sz, int seed) {
		Planes gpu = TestImages.random(t, w, h, d, seed);
		Planes cpu = gpu.copy();
		OpReport r = GaussianBlur.blur3D(gpu, sx, sy, sz, GPU);
		assertEquals(Backend.GPU, r.ranOn());
		GaussianBlur.blur3D(cpu, sx, sy, sz, CPU);
		assertClose(cpu, gpu, t + " " + w + "x" + h + "x" + d);
	}

	@Test
	void anInfinityAtTheFarEndOfAShortLineIsTheSameOnBothPaths() {
		// lines shorter than two kernel radii, the last column (or row) infinite: the CPU path
		// gave NaN one radius from it, where ImageJ and the GPU give the infinity. One axis only:
		// blurred along the other too, the infinite pixels of the first pass reach the second
		// pass's near end, where ImageJ's edge weight makes NaN and the GPU's infinity (README)
		double[][] cases = { { 6, 3, 0.4888991, 0 }, { 22, 5, 3.2994, 0 }, { 5, 22, 0, 3.2994 }, { 4, 29, 0.66, 0 } };
		for (double[] c : cases) {
			int w = (int) c[0], h = (int) c[1];
			Planes gpu = TestImages.random(PixelType.FLOAT32, w, h, 1, 77);
			float[] p = (float[]) gpu.plane(0);
			for (int i = 0; i < p.length; i++)
				if (c[2] > 0 ? i % w == w - 1 : i / w == h - 1) p[i] = Float.POSITIVE_INFINITY;
			Planes cpu = gpu.copy();
			assertEquals(Backend.GPU, GaussianBlur.blur2D(gpu, c[2], c[3], null, GPU).ranOn());
			GaussianBlur.blur2D(cpu, c[2], c[3], null, CPU);
			float[] a = (float[]) cpu.plane(0), b = (float[]) gpu.plane(0);
			for (int i = 0; i < a.length; i++) {
				String at = w + "x" + h + " pixel " + i % w + "," + i / w + ": GPU " + b[i] + ", CPU " + a[i];
				assertEquals(Float.isNaN(a[i]), Float.isNaN(b[i]), at);
				if (Float.isInfinite(a[i]) || Float.isInfinite(b[i])) assertEquals(a[i], b[i], at);
				else if (!Float.isNaN(a[i])) assertTrue(Math.abs(a[i] - b[i]) <= 1e-5 * TestImages.FLOAT_RANGE, at);
			}
		}
	}

	@Test
	void nanAndInfinitySpreadExactlyAsOnTheCpu() {
		// NaN backgrounds are common in ImageJ float images; the padded taps of the fused
		// kernel must not carry them further than the kernel radius
		double[][] sigmas = { { 2, 2 }, { 2.6, 2.6 }, { 5, 1 }, { 3, 0 }, { 0, 4 }, { 12, 12 }, { 20, 3 } };
		for (double[] sg : sigmas) {
			Planes gpu = TestImages.random(PixelType.FLOAT32, 181, 127, 1, 5);
			float[] p = (float[]) gpu.plane(0);
			for (int i = 0; i < p.length; i += 997)
				p[i] = Float.NaN;
			// infinities only inside: where the edge pixel itself is infinite, ImageJ multiplies
			// it by a zero tail weight (NaN) where a plain convolution gives the infinity
			p[60 * 181 + 90] = Float.POSITIVE_INFINITY;
			p[30 * 181 + 40] = Float.NEGATIVE_INFINITY;
			Planes cpu = gpu.copy();
			GaussianBlur.blur2D(gpu, sg[0], sg[1], null, GPU);
			GaussianBlur.blur2D(cpu, sg[0], sg[1], null, CPU);
			float[] a = (float[]) cpu.plane(0), b = (float[]) gpu.plane(0);
			for (int i = 0; i < a.length; i++) {
				String at = "sigma " + sg[0] + "," + sg[1] + " pixel " + i + ": GPU " + b[i] + ", CPU " + a[i];
				assertEquals(Float.isNaN(a[i]), Float.isNaN(b[i]), at);
				if (Float.isInfinite(a[i]) || Float.isInfinite(b[i])) assertEquals(a[i], b[i], at);
				else if (!Float.isNaN(a[i])) assertTrue(Math.abs(a[i] - b[i]) <= 1e-5 * TestImages.FLOAT_RANGE, at);
			}
		}
	}

	@Test
	void floatPlanesOnTheVectorLoadPathMatchCpu() {
		// gauss_xy_f32_r<R> loads its X windows in 16-byte vectors only where the width and the
		// tile's first column are multiples of 4 and the window stays inside the row; the sizes
		// above mostly miss that, so here widths and ROI origins are multiples of 4, wide enough
		// for interior tiles, with NaN pixels and every radius class of the float kernel
		// (700 rows: one 256-row band, then bands of 64; the others bands of 64 only)
		int[][] sizes = { { 256, 300 }, { 1024, 257 }, { 4096, 40 }, { 1024, 700 } };
		double[] sigmas = { 0.3, 1, 2, 3.7, 5, 5.5 };
		int seed = 300;
		for (int[] s : sizes)
			for (double sigma : sigmas)
				for (Region roi : new Region[] { null, new Region(4, 8, s[0] - 12, s[1] - 9, null) }) {
					Planes gpu = TestImages.random(PixelType.FLOAT32, s[0], s[1], 1, seed++);
					float[] p = (float[]) gpu.plane(0);
					for (int i = 17; i < p.length; i += 1511)
						p[i] = Float.NaN;
					Planes orig = gpu.copy(), cpu = gpu.copy();
					OpReport r = GaussianBlur.blur2D(gpu, sigma, sigma, roi, GPU);
					assertEquals(Backend.GPU, r.ranOn());
					GaussianBlur.blur2D(cpu, sigma, sigma, roi, CPU);
					String what = s[0] + "x" + s[1] + " sigma " + sigma + " roi " + roi;
					float[] a = (float[]) cpu.plane(0), b = (float[]) gpu.plane(0);
					for (int i = 0; i < a.length; i++) {
						String at = what + " pixel " + i + ": GPU " + b[i] + ", CPU " + a[i];
						assertEquals(Float.isNaN(a[i]), Float.isNaN(b[i]), at);
						if (!Float.isNaN(a[i])) assertTrue(Math.abs(a[i] - b[i]) <= 1e-5 * TestImages.FLOAT_RANGE, at);
					}
					if (roi != null) assertOutsideUnchanged(orig, gpu, roi);
				}
	}

	@Test
	void aNanExactlyOneRadiusOutsideASelectionReachesItsEdgeOnTheRadiusClasses() {
		// The selection's last row and column need the input exactly R beyond them: the last
		// halo row staged by the column pass, the last row the X pass blurs, and the selection's
		// offset into the plane, none of which the scattered NaN of floatRadiusClassesMatchCpu hit.
		// A NaN placed there must reach the selection's edge, as on the CPU.
		// x a multiple of 4: the column pass stages rows in 16-byte pieces; one radius per module
		Region roi = new Region(132, 70, 128, 128, null);
		for (int r : new int[] { 30, 40, 50, 64 }) {
			double sigma = floatSigmaOfRadius(r, 600);
			assertTrue(GaussianBlurKernels.fixedClass(r) > 0, "radius " + r + " is not on a class kernel");
			Planes gpu = TestImages.random(PixelType.FLOAT32, 600, 500, 1, 900 + r);
			float[] p = (float[]) gpu.plane(0);
			int last = roi.y + roi.height - 1, right = roi.x + roi.width - 1;
			p[(last + r) * 600 + 150] = Float.NaN; // below the last row
			p[(roi.y - r) * 600 + 200] = Float.NaN; // above the first row
			p[100 * 600 + right + r] = Float.NaN; // right of the last column
			p[150 * 600 + roi.x - r] = Float.NaN; // left of the first column
			Planes orig = gpu.copy(), cpu = gpu.copy();
			assertEquals(Backend.GPU, GaussianBlur.blur2D(gpu, sigma, sigma, roi, GPU).ranOn());
			GaussianBlur.blur2D(cpu, sigma, sigma, roi, CPU);
			float[] c = (float[]) cpu.plane(0);
			for (int at : new int[] { last * 600 + 150, roi.y * 600 + 200, 100 * 600 + right, 150 * 600 + roi.x })
				assertTrue(Float.isNaN(c[at]), "the CPU path does not carry the NaN to pixel " + at + " at radius " + r);
			assertFloatLikeCpu(cpu, gpu, "radius " + r + ", roi " + roi);
			assertOutsideUnchanged(orig, gpu, roi);
		}
	}

	@Test
	void floatRadiusClassesMatchCpu() {
		// radii 25..64 of float planes run gauss_row_f32_r<RC> / gauss_col_f32_r<RC>, whose zero
		// taps past the radius must neither change a finite sum nor carry a NaN or an infinity
		// further than the radius (the kernel then redoes the thread's outputs with exact taps):
		// every class, with an odd radius below it (one zero tap each side), 64 and 65 (generic),
		// one axis on a class kernel and the other on the generic kernel, rois with and without
		// 16-byte staging, NaN and infinities scattered
		java.util.Set<Integer> classes = new java.util.TreeSet<>();
		int seed = 400;
		for (int target = 25; target <= 65; target += target < 63 ? 2 : 1) {
			double sigma = floatSigmaOfRadius(target, 1021);
			classes.add(GaussianBlurKernels.fixedClass(target));
			for (int[] s : new int[][] { { 1024, 333 }, { 1021, 307 } })
				for (Region roi : new Region[] { null, new Region(4, 9, s[0] - 12, s[1] - 20, null) }) {
					Planes gpu = TestImages.random(PixelType.FLOAT32, s[0], s[1], 1, seed++);
					float[] p = (float[]) gpu.plane(0);
					for (int i = 23; i < p.length; i += 2999) {
						// no infinity on the border: there ImageJ's edge sums differ (see the README)
						int x = i % s[0], y = i / s[0];
						boolean border = x == 0 || y == 0 || x == s[0] - 1 || y == s[1] - 1;
						p[i] = i % 3 == 0 || border ? Float.NaN : i % 3 == 1 ? Float.POSITIVE_INFINITY : Float.NEGATIVE_INFINITY;
					}
					Planes orig = gpu.copy(), cpu = gpu.copy();
					double other = (seed & 2) == 0 ? sigma : 2;
					double sx = (seed & 1) == 0 ? sigma : other, sy = (seed & 1) == 0 ? other : sigma;
					assertEquals(Backend.GPU, GaussianBlur.blur2D(gpu, sx, sy, roi, GPU).ranOn());
					GaussianBlur.blur2D(cpu, sx, sy, roi, CPU);
					assertFloatLikeCpu(cpu, gpu, s[0] + "x" + s[1] + " sigma " + sx + "," + sy + " roi " + roi);
					if (roi != null) assertOutsideUnchanged(orig, gpu, roi);
				}
		}
		// every class was used, and the widest radius fell back to the generic kernels
		for (int c : GaussianBlurKernels.FIX_RC_LIST)
			assertTrue(classes.contains(c), "class " + c + " not exercised: " + classes);
		assertTrue(classes.contains(0), "no radius beyond the classes: " + classes);
	}

	@Test
	void stacksMoveInBatchesAndCancelBetweenThem() {
		// 250 planes of 600 KB: several batches, the last one partial, chunks spanning planes
		Planes gpu = TestImages.random(PixelType.UINT16, 640, 480, 250, 21);
		Planes orig = gpu.copy();
		Planes cpu = gpu.copy();
		GaussianBlur.blur2D(gpu, 1.5, 1.5, null, GPU);
		GaussianBlur.blur2D(cpu, 1.5, 1.5, null, CPU);
		assertClose(cpu, gpu, "250-plane stack");

		Planes canceled = orig.copy();
		boolean[] stop = { false };
		fiji.cuda.ops.Progress p = new fiji.cuda.ops.Progress() {
			@Override
			public void update(double fraction) {
				stop[0] = true; // cancel once the first batch is in
			}

			@Override
			public boolean isCanceled() {
				return stop[0];
			}
		};
		OpReport r = GaussianBlur.blur2D(canceled, 1.5, 1.5, null, GPU.withProgress(p));
		assertTrue(r.canceled());
		int blurred = 0;
		for (int z = 0; z < 250; z++) {
			boolean same = java.util.Arrays.equals((short[]) orig.plane(z), (short[]) canceled.plane(z));
			boolean done = java.util.Arrays.equals((short[]) gpu.plane(z), (short[]) canceled.plane(z));
			assertTrue(same || done, "plane " + z + " is neither original nor blurred");
			if (!same) {
				assertEquals(z, blurred, "blurred planes must come first");
				blurred++;
			}
		}
		assertTrue(blurred > 0 && blurred < 250, blurred + " planes blurred");
	}

	@Test
	void largePlaneSpansSeveralStagingChunks() {
		// 3000x4000 floats = 48 MB: two 32 MiB staging chunks each way, the second one partial
		Planes gpu = TestImages.random(PixelType.FLOAT32, 3000, 4000, 1, 3);
		Planes cpu = gpu.copy();
		GaussianBlur.blur2D(gpu, 2, 2, null, GPU);
		GaussianBlur.blur2D(cpu, 2, 2, null, CPU);
		assertClose(cpu, gpu, "3000x4000 float");
	}

	@Test
	void aWriteBackFailingBetweenPlanesIsFinishedOnTheCpuWithoutBlurringTwice() {
		// 1000x999 16-bit planes: a 32 MiB chunk holds 16.8 of them, so it is cut after 16
		Planes gpu = TestImages.random(PixelType.UINT16, 1000, 999, 40, 31);
		Planes cpu = gpu.copy();
		GaussianBlur.blur2D(cpu, 2, 2, null, CPU);
		FaultInjection.failNextDownloadAtChunk(1);
		try {
			OpReport r = GaussianBlur.blur2D(gpu, 2, 2, null, ExecutionOptions.defaults());
			assertTrue(String.valueOf(r.fallbackReason()).contains("injected"), String.valueOf(r.fallbackReason()));
		} finally {
			FaultInjection.clear();
		}
		assertClose(cpu, gpu, "16 planes from the GPU, 24 from the CPU");
	}

	@Test
	void aForcedGpuFailingBetweenPlanesSaysWhichPlanesAreBlurred() {
		// as above, but with the GPU forced: no CPU finishes the stack, so the error must say that
		// planes 1-16 are blurred and the other 24 are not
		Planes gpu = TestImages.random(PixelType.UINT16, 1000, 999, 40, 34);
		Planes orig = gpu.copy(), cpu = gpu.copy();
		GaussianBlur.blur2D(cpu, 2, 2, null, CPU);
		FaultInjection.failNextDownloadAtChunk(1);
		GpuException e;
		try {
			e = assertThrows(GpuException.class, () -> GaussianBlur.blur2D(gpu, 2, 2, null, GPU));
		} finally {
			FaultInjection.clear();
		}
		assertTrue(e.getMessage().contains("injected"), e.getMessage());
		assertTrue(e.getMessage().contains("planes 1-16 of 40 hold the result"), e.getMessage());
		for (int z = 0; z < 40; z++) {
			short[] got = (short[]) gpu.plane(z), want = (short[]) (z < 16 ? cpu : orig).plane(z);
			for (int i = 0; i < got.length; i++)
				assertTrue(Math.abs((got[i] & 0xffff) - (want[i] & 0xffff)) <= (z < 16 ? 1 : 0),
					"plane " + z + " pixel " + i + (z < 16 ? " (blurred)" : " (untouched)"));
		}
	}

	@Test
	void aWriteBackFailingInsideAPlaneSaysWhatIsDone() {
		// 4096x2500 floats = 41 MB: the plane comes back in two chunks, and the second fails
		Planes gpu = TestImages.random(PixelType.FLOAT32, 4096, 2500, 1, 32);
		Planes orig = gpu.copy(), cpu = gpu.copy();
		GaussianBlur.blur2D(cpu, 2, 2, null, CPU);
		FaultInjection.failNextDownloadAtChunk(1);
		GpuException e;
		try {
			e = assertThrows(GpuException.class, () -> GaussianBlur.blur2D(gpu, 2, 2, null, ExecutionOptions.defaults()));
		} finally {
			FaultInjection.clear();
		}
		assertTrue(e.getMessage().startsWith("Gaussian Blur: the GPU failed while writing the result back"), e.getMessage());
		assertTrue(e.getMessage().endsWith("; the plane is left part blurred."), e.getMessage());
		int written = (int) (FaultInjection.stagingChunkBytes() / 4);
		float[] got = (float[]) gpu.plane(0), want = (float[]) cpu.plane(0), was = (float[]) orig.plane(0);
		for (int i = 0; i < got.length; i++) {
			float expect = i < written ? want[i] : was[i];
			assertTrue(Math.abs(got[i] - expect) <= 1e-5 * TestImages.FLOAT_RANGE, "pixel " + i + ": " + got[i]
				+ ", expected " + expect + (i < written ? " (written)" : " (untouched)"));
		}
		// the failure was not a fault: the GPU is still used
		assertEquals(Backend.GPU, GaussianBlur.blur2D(orig, 2, 2, null, GPU).ranOn());
	}

	@Test
	void aVolumeWrittenBackInPartIsNotBlurredAgain() {
		// 400x400x300 bytes = 48 MB: 209 planes fit a 32 MiB chunk, and the second chunk fails
		Planes gpu = TestImages.random(PixelType.UINT8, 400, 400, 300, 33);
		Planes orig = gpu.copy(), cpu = gpu.copy();
		GaussianBlur.blur3D(cpu, 1.5, 1.5, 1.5, CPU);
		FaultInjection.failNextDownloadAtChunk(1);
		GpuException e;
		try {
			e = assertThrows(GpuException.class, () -> GaussianBlur.blur3D(gpu, 1.5, 1.5, 1.5, ExecutionOptions.defaults()));
		} finally {
			FaultInjection.clear();
		}
		int perChunk = (int) (FaultInjection.stagingChunkBytes() / (400 * 400));
		assertTrue(e.getMessage().contains("of the 300 planes given, planes 1-" + perChunk + " may hold the result"),
			e.getMessage());
		for (int z = 0; z < 300; z++) {
			Planes want = z < perChunk ? cpu : orig;
			byte[] a = (byte[]) want.plane(z), b = (byte[]) gpu.plane(z);
			for (int i = 0; i < a.length; i++)
				assertTrue(Math.abs((a[i] & 0xff) - (b[i] & 0xff)) <= (z < perChunk ? 1 : 0),
					"plane " + z + " pixel " + i + (z < perChunk ? " (written)" : " (untouched)"));
		}
	}

	/** Integer types within 1 (and most pixels equal); floats within 1e-5 of the data range. */
	static void assertClose(Planes want, Planes got, String what) {
		PixelType t = want.type();
		double tol = t == PixelType.FLOAT32 ? 1e-5 * TestImages.FLOAT_RANGE : 1;
		long off = 0, n = 0;
		double worst = 0;
		for (int z = 0; z < want.depth(); z++)
			for (int i = 0; i < want.planeSize(); i++)
				for (int v = 0; v < TestImages.values(t); v++) {
					double a = TestImages.value(want.plane(z), t, i, v), b = TestImages.value(got.plane(z), t, i, v);
					double d = Math.abs(a - b);
					assertTrue(d <= tol && !Double.isNaN(b), what + ": plane " + z + " pixel " + i + " value " + v
						+ " is " + b + ", CPU gives " + a);
					worst = Math.max(worst, d);
					if (d > 0) off++;
					n++;
				}
		if (t.isInteger()) // off-by-one must stay rare: a systematic bias would show here
			assertTrue(off <= Math.max(2, n / 100), what + ": " + off + " of " + n + " values differ by 1");
	}

	/** @return the least sigma, in steps of 0.01 from 5, whose float kernel on a plane {@code width} wide has radius {@code r} */
	static double floatSigmaOfRadius(int r, int width) {
		double acc = GaussianKernel.defaultAccuracy(PixelType.FLOAT32), sigma = 5;
		while (GaussianKernel.imagej(sigma, acc, width).radius() < r)
			sigma += 0.01;
		assertEquals(r, GaussianKernel.imagej(sigma, acc, width).radius(), "sigma " + sigma);
		return sigma;
	}

	/** NaN and infinities exactly where the CPU path has them, finite values within 1e-5 of the data range. */
	static void assertFloatLikeCpu(Planes cpu, Planes gpu, String what) {
		float[] a = (float[]) cpu.plane(0), b = (float[]) gpu.plane(0);
		for (int i = 0; i < a.length; i++) {
			String at = what + " pixel " + i + ": GPU " + b[i] + ", CPU " + a[i];
			assertEquals(Float.isNaN(a[i]), Float.isNaN(b[i]), at);
			if (Float.isInfinite(a[i]) || Float.isInfinite(b[i])) assertEquals(a[i], b[i], at);
			else if (!Float.isNaN(a[i])) assertTrue(Math.abs(a[i] - b[i]) <= 1e-5 * TestImages.FLOAT_RANGE, at);
		}
	}

	static void assertOutsideUnchanged(Planes orig, Planes got, Region r) {
		int w = orig.width();
		for (int i = 0; i < orig.planeSize(); i++) {
			int x = i % w, y = i / w;
			boolean inRect = x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;
			boolean inside = inRect && (r.mask == null || r.mask[(y - r.y) * r.width + (x - r.x)] != 0);
			if (inside) continue;
			for (int v = 0; v < TestImages.values(orig.type()); v++)
				assertEquals(TestImages.value(orig.plane(0), orig.type(), i, v),
					TestImages.value(got.plane(0), got.type(), i, v), "pixel " + x + "," + y + " outside " + r);
		}
	}

	@Test
	void aFailureOfTheProgressAfterAPlaneWasWrittenSaysWhichPlanesHoldTheResult() {
		// anything but a GPU error thrown inside the GPU path (here the progress listener, after
		// the first plane came back) escaped as it was: plane 1 blurred, the stack said unchanged
		Planes input = TestImages.random(PixelType.UINT16, 97, 61, 4, 81), ours = input.copy(), cpu = input.copy();
		Region rect = new Region(5, 7, 60, 40, null); // a selection goes plane by plane
		fiji.cuda.ops.Progress failing = fiji.cuda.TestProgress.failingAtUpdate(1);
		fiji.cuda.ops.PartlyDoneException e = assertThrows(fiji.cuda.ops.PartlyDoneException.class,
			() -> GaussianBlur.blur2D(ours, 2, 2, rect, GPU.withProgress(failing)));
		assertEquals("Gaussian Blur: stopped part way (an unexpected error: IllegalStateException: listener broke)"
			+ "; plane 1 of 4 holds the result and the later ones are unchanged.", e.getMessage());
		GaussianBlur.blur2D(cpu, 2, 2, rect, CPU);
		assertTrue(TestImages.diff(ours.range(0, 1), cpu.range(0, 1)).maxAbs <= 1, "plane 1 is not blurred");
		assertTrue(TestImages.sameBits(ours.range(1, 4), input.range(1, 4)), "planes 2-4 changed");
	}
}
