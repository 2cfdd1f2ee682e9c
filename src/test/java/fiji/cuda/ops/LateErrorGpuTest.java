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
import fiji.cuda.integral.Window;
import fiji.cuda.ncc.AlignSlices;
import fiji.cuda.ncc.DriftingStack;
import fiji.cuda.runtime.FaultInjection;
import fiji.cuda.runtime.Gpu;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A CUDA error reported only at a session's last wait, after every result came back (a fault
 * of another thread's work on the device comes back so): the results stand, and nothing runs
 * again on the CPU. Gaussian Blur 3D blurred the volume a second time on the CPU, from its
 * blurred planes; the other operations said they had run on the CPU, where the GPU had done
 * all of it.
 */
@Tag("gpu")
class LateErrorGpuTest {

	/** @return the Log's lines while {@code run} ran with the next session's last wait failing */
	private static List<String> withALateError(Runnable run) {
		// a line said before in this JVM is not said again: each is forgotten, so that one would show
		for (String op : new String[] { GaussianBlur.NAME, GaussianBlur.NAME_3D, BoxStatistics.NAME, AlignSlices.NAME })
			fiji.cuda.TestFallbackLog.forget(op);
		List<String> lines = new CopyOnWriteArrayList<>();
		OpLog.setSink(lines::add);
		FaultInjection.failNextFinish();
		try {
			run.run();
		} finally {
			FaultInjection.clear();
			OpLog.setSink(null);
		}
		return lines;
	}

	/** Runs {@code op} on a copy of {@code input} as it is and with a late error; both must agree. */
	private static void sameResult(String what, Planes input, Function<Planes, OpReport> op) {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
		Planes clean = input.copy(), late = input.copy();
		assertEquals(Backend.GPU, op.apply(clean).ranOn(), what);
		OpReport[] r = new OpReport[1];
		List<String> lines = withALateError(() -> r[0] = op.apply(late));
		assertEquals(Backend.GPU, r[0].ranOn(), what + ": " + r[0]);
		assertNull(r[0].fallbackReason(), what);
		assertEquals(List.of(), lines, what);
		assertTrue(TestImages.sameBits(clean, late), what + ": the result differs from the run without the error");
	}

	@Test
	void aBlurredVolumeIsNotBlurredAgain() {
		sameResult("3D", TestImages.random(PixelType.FLOAT32, 64, 48, 8, 1),
			v -> GaussianBlur.blur3D(v, 2, 2, 2, ExecutionOptions.defaults()));
	}

	@Test
	void blurredPlanesStandAsTheGpusWork() {
		sameResult("2D", TestImages.random(PixelType.UINT8, 64, 48, 3, 2),
			p -> GaussianBlur.blur2D(p, 2, 2, null, ExecutionOptions.defaults()));
	}

	@Test
	void boxStatisticsStandAsTheGpusWork() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
		Planes image = TestImages.random(PixelType.UINT16, 64, 48, 3, 3);
		Planes clean = BoxStatistics.newResult(image, 1), late = BoxStatistics.newResult(image, 1);
		BoxStatistics.computeInto(image, clean, BoxStatistics.Statistic.VARIANCE, Window.square(2),
			ExecutionOptions.defaults());
		OpReport[] r = new OpReport[1];
		List<String> lines = withALateError(() -> r[0] = BoxStatistics.computeInto(image, late,
			BoxStatistics.Statistic.VARIANCE, Window.square(2), ExecutionOptions.defaults()));
		assertEquals(Backend.GPU, r[0].ranOn(), r[0]::toString);
		assertEquals(List.of(), lines);
		assertTrue(TestImages.sameBits(clean, late), "the statistics differ from the run without the error");
	}

	@Test
	void alignedSlicesStandAsTheGpusWork() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
		Planes stack = DriftingStack.make(PixelType.UINT8, 120, 100, new double[] { 0, 3, -5, 7 },
			new double[] { 0, -4, 2, 6 }, 3);
		AlignSlices.Settings s = new AlignSlices.Settings().landmark(40, 30, 40, 36);
		s.margin = 9;
		Planes clean = stack.copy(), late = stack.copy();
		List<AlignSlices.Shift> a = AlignSlices.align(clean, s, ExecutionOptions.defaults());
		List<List<AlignSlices.Shift>> b = new CopyOnWriteArrayList<>();
		List<String> lines = withALateError(() -> b.add(AlignSlices.align(late, s, ExecutionOptions.defaults())));
		assertEquals(List.of(), lines);
		assertTrue(TestImages.sameBits(clean, late), "the aligned stack differs from the run without the error");
		for (int z = 0; z < a.size(); z++)
			assertEquals(a.get(z).dx, b.get(0).get(z).dx, 0.0, "slice " + z);
	}
}
