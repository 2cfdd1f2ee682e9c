package fiji.cuda.gaussian;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.PixelType;
import ij.plugin.filter.GaussianBlur;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.junit.jupiter.api.Test;

class GaussianKernelTest {

	private static final double[] SIGMAS = { 1e-3, 0.1, 0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 3.7, 5, 7.1, 8.5, 10, 12.3,
		20, 30, 33.3, 50, 100, 400 };
	private static final double[] ACCURACIES = { 0.002, 0.0002, 0.01, 0.02, 1e-5 };
	/** Short lines (below 50, below the kernel radius) make ImageJ clamp the kernel. */
	private static final int[] LENGTHS = { 1, 2, 3, 7, 30, 49, 50, 51, 64, 100, 257, 1000, 4096 };

	/**
	 * Every radius class the host launches lives in the module it loads for it: its entry in that
	 * module's source, whose fatbin is shipped, and in no other wide module.
	 */
	@Test
	void everyWideClassIsInTheModuleTheHostLoads() throws IOException {
		for (int rc : GaussianBlurKernels.FIX_RC_LIST) {
			String entry = "GAUSS_FIX_ENTRIES(" + rc + ")";
			for (String m : GaussianBlurKernels.WIDE_MODULES) {
				String src = new String(Files.readAllBytes(Paths.get("kernels", m + ".cu")), StandardCharsets.UTF_8);
				assertEquals(m.equals(GaussianBlurKernels.wideModule(rc)), src.contains(entry), "class " + rc + " in " + m);
			}
		}
		for (String m : GaussianBlurKernels.WIDE_MODULES) {
			Path fatbin = Paths.get("src/main/resources/fiji/cuda/kernels", m + ".fatbin");
			assertTrue(Files.size(fatbin) > 0, fatbin.toString());
		}
		// a radius just past each module's first class still maps to that module
		assertEquals("gaussian_blur_wide_26", GaussianBlurKernels.wideModule(GaussianBlurKernels.fixedClass(25)));
		assertEquals("gaussian_blur_wide_36", GaussianBlurKernels.wideModule(GaussianBlurKernels.fixedClass(35)));
		assertEquals("gaussian_blur_wide_56", GaussianBlurKernels.wideModule(GaussianBlurKernels.fixedClass(64)));
	}

	@Test
	void bitIdenticalToImageJ() {
		GaussianBlur ij = new GaussianBlur();
		int cases = 0, clamped = 0;
		for (double sigma : SIGMAS) {
			for (double acc : ACCURACIES) {
				for (int len : LENGTHS) {
					float[][] expected = ij.makeGaussianKernel(sigma, acc, len);
					GaussianKernel k = GaussianKernel.imagej(sigma, acc, len);
					String what = "sigma " + sigma + ", accuracy " + acc + ", length " + len;
					assertEquals(expected[0].length - 1, k.radius(), what);
					assertArrayEquals(bits(expected[0]), bits(k.oneSided()), "kernel, " + what);
					assertArrayEquals(bits(expected[1]), bits(k.runningSums()), "running sums, " + what);
					cases++;
					if (expected[0].length == Math.max(len, 50)) clamped++;
				}
			}
		}
		// make sure the grid really covers both of ImageJ's normalizations
		assertTrue(clamped > 50 && cases - clamped > 50, clamped + " clamped of " + cases);
	}

	@Test
	void radiusFollowsImageJsFormula() {
		// 8-bit accuracy: kRadius = ceil(sigma*sqrt(-2 ln 0.002)) + 1 = ceil(3.526*sigma) + 1
		assertEquals(4, GaussianKernel.imagej(1, 0.002, 100).radius());
		assertEquals(8, GaussianKernel.imagej(2, 0.002, 100).radius());
		// 16-bit/float accuracy: ceil(4.127*sigma)
		assertEquals(5, GaussianKernel.imagej(1, 0.0002, 100).radius());
		// clamped to the line length, and never below 50 weights
		assertEquals(99, GaussianKernel.imagej(30, 0.0002, 100).radius());
		assertEquals(49, GaussianKernel.imagej(30, 0.0002, 10).radius());
	}

	@Test
	void tapsAreSymmetricWithTailFolded() {
		for (double sigma : SIGMAS) {
			for (int len : LENGTHS) {
				GaussianKernel k = GaussianKernel.imagej(sigma, 0.0002, len);
				float[] one = k.oneSided(), sums = k.runningSums(), taps = k.taps();
				int r = k.radius();
				String what = "sigma " + sigma + ", length " + len;
				assertEquals(2 * r + 1, taps.length, what);
				assertEquals(one[0], taps[r], what);
				for (int i = 1; i < r; i++) {
					assertEquals(one[i], taps[r + i], what);
					assertEquals(one[i], taps[r - i], what);
				}
				assertEquals(one[r] + sums[r], taps[0], what);
				assertEquals(one[r] + sums[r], taps[2 * r], what);
				double sum = 0;
				for (float t : taps)
					sum += t;
				assertEquals(1, sum, 2e-6, "taps sum to 1, " + what);
			}
		}
	}

	@Test
	void clampedKernelHasARealTail() {
		// a kernel clamped to a short line misses much of the Gaussian; the tail carries it
		GaussianKernel k = GaussianKernel.imagej(60, 0.0002, 20);
		assertTrue(k.runningSums()[k.radius()] > 0.1, "tail " + k.runningSums()[k.radius()]);
		// an unclamped kernel's tail is only rounding
		GaussianKernel n = GaussianKernel.imagej(3, 0.0002, 200);
		assertTrue(Math.abs(n.runningSums()[n.radius()]) < 1e-6f, "tail " + n.runningSums()[n.radius()]);
	}

	@Test
	void copiesAreDefensive() {
		GaussianKernel k = GaussianKernel.imagej(2, 0.002, 64);
		float centre = k.taps()[k.radius()];
		k.taps()[k.radius()] = 99;
		k.oneSided()[0] = 99;
		k.runningSums()[0] = 99;
		assertEquals(centre, k.taps()[k.radius()]);
		assertEquals(centre, k.oneSided()[0]);
		assertTrue(k.runningSums()[0] < 1);
	}

	@Test
	void defaultAccuracyIsImageJs() {
		assertEquals(0.002, GaussianKernel.defaultAccuracy(PixelType.UINT8));
		assertEquals(0.002, GaussianKernel.defaultAccuracy(PixelType.RGB));
		assertEquals(0.0002, GaussianKernel.defaultAccuracy(PixelType.UINT16));
		assertEquals(0.0002, GaussianKernel.defaultAccuracy(PixelType.FLOAT32));
	}

	@Test
	void rejectsBadArguments() {
		assertThrows(IllegalArgumentException.class, () -> GaussianKernel.imagej(0, 0.002, 10));
		assertThrows(IllegalArgumentException.class, () -> GaussianKernel.imagej(-1, 0.002, 10));
		assertThrows(IllegalArgumentException.class, () -> GaussianKernel.imagej(Double.NaN, 0.002, 10));
		assertThrows(IllegalArgumentException.class, () -> GaussianKernel.imagej(Double.POSITIVE_INFINITY, 0.002, 10));
		assertThrows(IllegalArgumentException.class, () -> GaussianKernel.imagej(1, 0, 10));
		assertThrows(IllegalArgumentException.class, () -> GaussianKernel.imagej(1, 1, 10));
		assertThrows(IllegalArgumentException.class, () -> GaussianKernel.imagej(1, 0.002, 0));
		// huge but finite sigmas are clamped to the line, not overflowed
		assertEquals(99, GaussianKernel.imagej(1e300, 0.002, 100).radius());
	}

	private static int[] bits(float[] a) {
		int[] b = new int[a.length];
		for (int i = 0; i < a.length; i++)
			b[i] = Float.floatToRawIntBits(a[i]);
		return b;
	}
}
