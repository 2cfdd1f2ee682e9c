package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import fiji.cuda.TestImages;
import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics;
import fiji.cuda.integral.IntegralImage;
import fiji.cuda.integral.LocalThreshold;
import fiji.cuda.integral.SatBuild;
import fiji.cuda.integral.SummedAreaTable;
import fiji.cuda.ncc.AlignSlices;
import fiji.cuda.ncc.Detection;
import fiji.cuda.ncc.DriftingStack;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;
import fiji.cuda.image.Region;
import fiji.cuda.runtime.Gpu;

import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a headless batch does: one operation called many times in a row on small images, here
 * alternating between two images of different sizes and types, so that each call reuses the
 * device buffers, staging and streams that the call before left cached (holding its data).
 * Every call must give the first call's result bit for bit and give back all the device memory
 * it took. (How long the calls take is a benchmark's business, not a test's.)
 */
@Tag("gpu")
class RepeatedCallsGpuTest {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);
	static final int ROUNDS = 200;

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	@Test
	void gaussianBlur2D() {
		repeats("Gaussian Blur", TestImages.random(PixelType.UINT8, 256, 256, 1, 1),
			TestImages.random(PixelType.UINT16, 301, 167, 1, 2), 0.02, 0, (in, o) -> {
				GaussianBlur.blur2D(in, 2, 2, null, o);
				return in;
			});
	}

	@Test
	void gaussianBlur3D() {
		repeats("Gaussian Blur 3D", TestImages.random(PixelType.UINT8, 128, 128, 16, 3),
			TestImages.random(PixelType.FLOAT32, 97, 61, 9, 4), 1e-5 * TestImages.FLOAT_RANGE, 0, (in, o) -> {
				GaussianBlur.blur3D(in, 2, 2, 2, o);
				return in;
			});
	}

	@Test
	void boxStatistics() {
		repeats("Box Statistics", TestImages.random(PixelType.UINT8, 256, 256, 1, 5),
			TestImages.random(PixelType.UINT16, 301, 167, 1, 6), 1e-4, 1e-6, (in, o) -> BoxStatistics.compute(in, BoxStatistics.Statistic.VARIANCE, 7, o));
	}

	@Test
	void localThreshold() {
		LocalThreshold.Settings s = LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 15, 0, 0, true);
		repeats("Local Threshold", TestImages.random(PixelType.UINT8, 256, 256, 1, 7),
			TestImages.random(PixelType.FLOAT32, 301, 167, 1, 8), 0, 0,
			(in, o) -> LocalThreshold.threshold(in, s, o));
	}

	@Test
	void integralImage() {
		repeats("Integral Image", TestImages.random(PixelType.UINT8, 256, 256, 1, 9),
			TestImages.random(PixelType.UINT16, 301, 167, 1, 10), 0, 0, (in, o) -> {
				SummedAreaTable t = IntegralImage.build(in, 0, SatBuild.AUTO, o);
				double[] all = new double[2 * t.width() * t.height()];
				for (int y = 0, i = 0; y < t.height(); y++)
					for (int x = 0; x < t.width(); x++) {
						all[i++] = t.sumAt(x, y);
						all[i++] = t.sumSqAt(x, y);
					}
				return all;
			});
	}

	@Test
	void templateMatching() {
		Planes a = TestImages.random(PixelType.UINT8, 256, 256, 1, 11), b = TestImages.random(PixelType.UINT16, 301, 167, 1, 12);
		List<Template> bankA = Template.fromPlanes(TemplateMatching.crop(a, 0, new Region(40, 50, 24, 24, null)), null);
		List<Template> bankB = Template.fromPlanes(TemplateMatching.crop(b, 0, new Region(200, 100, 17, 13, null)), null);
		repeats("Template Matching", a, b, 1e-4, 0, (in, o) -> {
			List<Detection> found = TemplateMatching.detect(in, 0, in.width() == 256 ? bankA : bankB, 0.2, 20, 0.3,
				false, null, o);
			// positions exactly, scores as numbers (compared within 1e-4 with the CPU's)
			Object[] out = new Object[found.size()];
			for (int i = 0; i < out.length; i++) {
				Detection d = found.get(i);
				out[i] = new Object[] { d.x + "," + d.y + " template " + d.template, new double[] { d.score } };
			}
			return out;
		});
	}

	@Test
	void alignSlices() {
		double[] sx = { 0, 1.5, -2.25, 3, 0.5, -1 }, sy = { 0, -1, 2.5, 0.75, -3, 1.25 };
		Planes a = DriftingStack.make(PixelType.UINT8, 160, 120, sx, sy, 13);
		Planes b = DriftingStack.make(PixelType.UINT16, 131, 97, sx, sy, 14);
		repeats("Align Slices", a, b, 1e-3, 0, (in, o) -> {
			AlignSlices.Settings s = new AlignSlices.Settings().landmark(40, 30, 48, 40);
			s.margin = 8;
			List<AlignSlices.Shift> shifts = AlignSlices.align(in, s, o);
			double[] moves = new double[2 * shifts.size()];
			for (int i = 0; i < shifts.size(); i++) {
				moves[2 * i] = shifts.get(i).dx;
				moves[2 * i + 1] = shifts.get(i).dy;
			}
			return new Object[] { moves, in };
		});
	}

	/**
	 * Calls {@code op} {@link #ROUNDS} times on the GPU, on fresh copies of a and b in turn, after
	 * one call of each on the CPU path: the first GPU result of each image must agree with the
	 * CPU's (so that a result wrong from the first call on cannot pass), and every later one
	 * must equal it bit for bit.
	 *
	 * @param abs, rel how far the GPU's floating-point values may lie from the CPU's (both 0:
	 *            the same bits; integer pixels may always differ by 1 otherwise)
	 * @param op the call; returns what must not change from one call to the next (the input
	 *           it changed in place, a new image, a table, numbers)
	 */
	private static void repeats(String what, Planes a, Planes b, double abs, double rel,
		BiFunction<Planes, ExecutionOptions, Object> op)
	{
		boolean exact = abs == 0 && rel == 0;
		Object[] cpu = { fingerprint(op.apply(a.copy(), CPU)), fingerprint(op.apply(b.copy(), CPU)) };
		long before = Gpu.get().bytesInUse();
		Object[] first = new Object[2];
		for (int r = 0; r < ROUNDS; r++) {
			Planes in = (r % 2 == 0 ? a : b).copy();
			Object got = fingerprint(op.apply(in, GPU));
			if (r < 2) {
				String d = exact ? (Arrays.deepEquals(new Object[] { cpu[r] }, new Object[] { got }) ? null : "not the same bits")
					: difference(cpu[r], got, abs, rel);
				assertNull(d, what + ": the GPU's first call on image " + (r + 1) + " against the CPU path: " + d);
				first[r] = got;
			} else {
				assertTrue(Arrays.deepEquals(new Object[] { first[r % 2] }, new Object[] { got }),
					what + ": call " + (r + 1) + " differs from call " + (r % 2 + 1) + " on the same image");
			}
			assertEquals(before, Gpu.get().bytesInUse(), what + ": call " + (r + 1) + " left device memory in use");
		}
	}

	/**
	 * @return null when {@code want} (the CPU's) and {@code got} (the GPU's) agree:
	 *         integer pixels within 1 (float sums in another order may round a .5 the other way),
	 *         texts exactly, floating-point values within {@code abs + rel * |value|} and NaN where
	 *         the other is NaN; else where they first differ
	 */
	static String difference(Object want, Object got, double abs, double rel) {
		if (want instanceof Object[] && got instanceof Object[]) {
			Object[] w = (Object[]) want, g = (Object[]) got;
			if (w.length != g.length) return "lengths " + w.length + " and " + g.length;
			for (int i = 0; i < w.length; i++) {
				String d = difference(w[i], g[i], abs, rel);
				if (d != null) return "[" + i + "] " + d;
			}
			return null;
		}
		if (want instanceof byte[] || want instanceof short[]) {
			int n = java.lang.reflect.Array.getLength(want);
			if (n != java.lang.reflect.Array.getLength(got)) return "lengths differ";
			for (int i = 0; i < n; i++) {
				long x = integer(want, i), y = integer(got, i);
				if (Math.abs(x - y) > 1) return "at " + i + ": " + x + " and " + y;
			}
			return null;
		}
		if (want instanceof float[] || want instanceof double[]) {
			int n = java.lang.reflect.Array.getLength(want);
			if (n != java.lang.reflect.Array.getLength(got)) return "lengths differ";
			for (int i = 0; i < n; i++) {
				double x = ((Number) java.lang.reflect.Array.get(want, i)).doubleValue();
				double y = ((Number) java.lang.reflect.Array.get(got, i)).doubleValue();
				if (Double.isNaN(x) != Double.isNaN(y)) return "at " + i + ": " + x + " and " + y;
				if (!Double.isNaN(x) && !(Math.abs(x - y) <= abs + rel * Math.abs(x)))
					return "at " + i + ": " + x + " and " + y;
			}
			return null;
		}
		return java.util.Objects.equals(want, got) ? null : want + " and " + got;
	}

	private static long integer(Object array, int i) {
		return array instanceof byte[] ? ((byte[]) array)[i] & 0xff : ((short[]) array)[i] & 0xffff;
	}

	/** @return an object whose deep equality is equality of the result's pixels, text or numbers */
	private static Object fingerprint(Object o) {
		if (o instanceof Planes) {
			Planes p = ((Planes) o).copy();
			Object[] planes = new Object[p.depth()];
			for (int z = 0; z < planes.length; z++)
				planes[z] = p.plane(z);
			return planes;
		}
		if (o instanceof Object[]) {
			Object[] in = (Object[]) o, out = new Object[in.length];
			for (int i = 0; i < in.length; i++)
				out[i] = fingerprint(in[i]);
			return out;
		}
		return o;
	}
}
