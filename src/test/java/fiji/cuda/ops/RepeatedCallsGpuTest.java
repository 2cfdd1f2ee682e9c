package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import fiji.cuda.ncc.DriftingStack;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;
import fiji.cuda.image.Region;
import fiji.cuda.runtime.Gpu;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

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
	static final int ROUNDS = 200;

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	@Test
	void gaussianBlur2D() {
		repeats("Gaussian Blur", TestImages.random(PixelType.UINT8, 256, 256, 1, 1),
			TestImages.random(PixelType.UINT16, 301, 167, 1, 2), in -> {
				GaussianBlur.blur2D(in, 2, 2, null, GPU);
				return in;
			});
	}

	@Test
	void gaussianBlur3D() {
		repeats("Gaussian Blur 3D", TestImages.random(PixelType.UINT8, 128, 128, 16, 3),
			TestImages.random(PixelType.FLOAT32, 97, 61, 9, 4), in -> {
				GaussianBlur.blur3D(in, 2, 2, 2, GPU);
				return in;
			});
	}

	@Test
	void boxStatistics() {
		repeats("Box Statistics", TestImages.random(PixelType.UINT8, 256, 256, 1, 5),
			TestImages.random(PixelType.UINT16, 301, 167, 1, 6),
			in -> BoxStatistics.compute(in, BoxStatistics.Statistic.VARIANCE, 7, GPU));
	}

	@Test
	void localThreshold() {
		LocalThreshold.Settings s = LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 15, 0, 0, true);
		repeats("Local Threshold", TestImages.random(PixelType.UINT8, 256, 256, 1, 7),
			TestImages.random(PixelType.FLOAT32, 301, 167, 1, 8), in -> LocalThreshold.threshold(in, s, GPU));
	}

	@Test
	void integralImage() {
		repeats("Integral Image", TestImages.random(PixelType.UINT8, 256, 256, 1, 9),
			TestImages.random(PixelType.UINT16, 301, 167, 1, 10), in -> {
				SummedAreaTable t = IntegralImage.build(in, 0, SatBuild.AUTO, GPU);
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
		repeats("Template Matching", a, b, in -> TemplateMatching.detect(in, 0, in.width() == 256 ? bankA : bankB, 0.2, 20,
			0.3, false, null, GPU).toString());
	}

	@Test
	void alignSlices() {
		double[] sx = { 0, 1.5, -2.25, 3, 0.5, -1 }, sy = { 0, -1, 2.5, 0.75, -3, 1.25 };
		Planes a = DriftingStack.make(PixelType.UINT8, 160, 120, sx, sy, 13);
		Planes b = DriftingStack.make(PixelType.UINT16, 131, 97, sx, sy, 14);
		repeats("Align Slices", a, b, in -> {
			AlignSlices.Settings s = new AlignSlices.Settings().landmark(40, 30, 48, 40);
			s.margin = 8;
			List<AlignSlices.Shift> shifts = AlignSlices.align(in, s, GPU);
			return new Object[] { shifts.toString(), in };
		});
	}

	/**
	 * Calls {@code op} {@link #ROUNDS} times on fresh copies of a and b in turn.
	 *
	 * @param op the call; returns what must not change from one call to the next (the input
	 *           it changed in place, a new image, a table, a text)
	 */
	private static void repeats(String what, Planes a, Planes b, Function<Planes, Object> op) {
		long before = Gpu.get().bytesInUse();
		Object[] first = new Object[2];
		for (int r = 0; r < ROUNDS; r++) {
			Planes in = (r % 2 == 0 ? a : b).copy();
			Object got = op.apply(in);
			if (r < 2) first[r] = fingerprint(got);
			else assertTrue(Arrays.deepEquals(new Object[] { first[r % 2] }, new Object[] { fingerprint(got) }),
				what + ": call " + (r + 1) + " differs from call " + (r % 2 + 1) + " on the same image");
			assertEquals(before, Gpu.get().bytesInUse(), what + ": call " + (r + 1) + " left device memory in use");
		}
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
