package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import fiji.cuda.TestImages;
import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics;
import fiji.cuda.integral.IntegralImage;
import fiji.cuda.integral.LocalThreshold;
import fiji.cuda.integral.SatBuild;
import fiji.cuda.integral.SummedAreaTable;
import fiji.cuda.integral.Window;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;

/** Every operation takes null options as the defaults, as template matching always did (it was a NullPointerException). */
class NullOptionsTest {

	@Test
	void nullOptionsAreTheDefaults() {
		Planes img = TestImages.random(PixelType.UINT8, 23, 17, 2, 3);
		ExecutionOptions cpu = ExecutionOptions.defaults().withBackend(Backend.CPU);

		Planes a = img.copy(), b = img.copy();
		assertNotNull(GaussianBlur.blur2D(a, 1.5, 1.5, null, null));
		GaussianBlur.blur2D(b, 1.5, 1.5, null, cpu);
		assertTrue(TestImages.sameBits(b, a));
		a = img.copy();
		b = img.copy();
		GaussianBlur.blur3D(a, 1, 1, 1, null);
		GaussianBlur.blur3D(b, 1, 1, 1, cpu);
		assertTrue(TestImages.sameBits(b, a));

		assertTrue(TestImages.sameBits(BoxStatistics.compute(img, BoxStatistics.Statistic.VARIANCE, 2, cpu),
			BoxStatistics.compute(img, BoxStatistics.Statistic.VARIANCE, 2, null)));
		SummedAreaTable t = IntegralImage.build(img, 1, SatBuild.AUTO, null);
		assertEquals(IntegralImage.build(img, 1, SatBuild.AUTO, cpu).sumAt(22, 16), t.sumAt(22, 16));
		List<SummedAreaTable> all = IntegralImage.buildAll(img, SatBuild.AUTO, null);
		assertEquals(2, all.size());
		LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.NIBLACK, 3, 0, 0, true);
		assertTrue(TestImages.sameBits(LocalThreshold.threshold(img, st, cpu), LocalThreshold.threshold(img, st, null)));
		assertEquals(1, TemplateMatching.matchAll(img, 0, List.of(new Template(img.range(0, 1), null, 0, 0, false)), null).size());
	}

	@Test
	void theIntoVariantsTakeNullOptionsToo() {
		// BoxStatistics.computeInto, public like LocalThreshold.thresholdInto, threw a NullPointerException
		Planes img = TestImages.random(PixelType.UINT16, 23, 17, 2, 4);
		ExecutionOptions cpu = ExecutionOptions.defaults().withBackend(Backend.CPU);
		Planes a = Planes.wrap(23, 17, new Object[] { new float[23 * 17], new float[23 * 17] });
		Planes b = Planes.wrap(23, 17, new Object[] { new float[23 * 17], new float[23 * 17] });
		assertNotNull(BoxStatistics.computeInto(img, a, BoxStatistics.Statistic.MEAN, Window.square(2), null));
		BoxStatistics.computeInto(img, b, BoxStatistics.Statistic.MEAN, Window.square(2), cpu);
		assertTrue(TestImages.sameBits(b, a));
		LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.MEAN, 3, 0, 0, true);
		Planes c = Planes.wrap(23, 17, new Object[] { new byte[23 * 17], new byte[23 * 17] });
		assertNotNull(LocalThreshold.thresholdInto(img, c, st, null));
		assertTrue(TestImages.sameBits(LocalThreshold.threshold(img, st, cpu), c));
	}
}
