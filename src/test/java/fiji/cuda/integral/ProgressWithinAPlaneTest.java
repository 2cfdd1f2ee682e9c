package fiji.cuda.integral;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.RecordedProgress;
import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics.Statistic;
import fiji.cuda.integral.LocalThreshold.Method;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;

import org.junit.jupiter.api.Test;

/**
 * The CPU path reports progress, and stops, between the bands of rows of one plane: on a large
 * single plane (a slide scan) the bar stood still for the whole run and Esc went unheard.
 */
class ProgressWithinAPlaneTest {

	private static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);
	/** Rows per band here: 200 rows make 13 bands, each heard (the last as the plane's end). */
	private static final int ROWS = 16;

	@Test
	void boxStatisticsReportsAndStopsWithinOnePlane() {
		Planes image = TestImages.random(PixelType.UINT16, 90, 200, 1, 5);
		RecordedProgress all = new RecordedProgress();
		OpReport r = Bands.of(ROWS, () -> BoxStatistics.computeInto(image, BoxStatistics.newResult(image, 2),
			Statistic.MEAN, Window.square(2), CPU.withProgress(all)));
		assertFalse(r.canceled());
		assertEquals(13, all.heard.size(), all.heard::toString);
		assertTrue(all.heard.get(0) > 0 && all.heard.get(0) < 0.1, all.heard::toString);
		RecordedProgress stop = new RecordedProgress(1);
		OpReport canceled = Bands.of(ROWS, () -> BoxStatistics.computeInto(image, BoxStatistics.newResult(image, 2),
			Statistic.MEAN, Window.square(2), CPU.withProgress(stop)));
		assertTrue(canceled.canceled());
		assertEquals(1, stop.heard.size(), "bands computed after the stop");
	}

	@Test
	void aThresholdInPlaceStoppedWithinAPlaneLeavesThatPlaneAsItWas() {
		LocalThreshold.Settings st = LocalThreshold.Settings.of(Method.MEAN, 2, 0, 0, true);
		Planes before = TestImages.random(PixelType.UINT8, 90, 200, 2, 6);
		Planes expected = before.copy();
		LocalThreshold.thresholdInto(expected, expected, st, CPU);
		// stopped within the first plane
		Planes first = before.copy();
		OpReport r = Bands.of(ROWS, () -> LocalThreshold.thresholdInto(first, first, st, CPU.withProgress(
			new RecordedProgress(1))));
		assertTrue(r.canceled());
		assertTrue(TestImages.sameBits(before, first), "the plane stopped in was left part thresholded");
		// stopped within the second: 12 bands and the plane's own report, then one band of the second
		Planes second = before.copy();
		r = Bands.of(ROWS, () -> LocalThreshold.thresholdInto(second, second, st, CPU.withProgress(new RecordedProgress(14))));
		assertTrue(r.canceled());
		assertArrayEquals((byte[]) expected.plane(0), (byte[]) second.plane(0), "plane 1 holds the result");
		assertArrayEquals((byte[]) before.plane(1), (byte[]) second.plane(1), "plane 2 is as it was");
	}

	@Test
	void aListenerFailingWithinAPlaneThresholdedInPlaceLeavesItAsItWas() {
		Planes before = TestImages.random(PixelType.UINT8, 90, 200, 1, 7);
		Planes image = before.copy();
		LocalThreshold.Settings st = LocalThreshold.Settings.of(Method.SAUVOLA, 3, 0, 0, false);
		IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
			() -> Bands.of(ROWS, () -> LocalThreshold.thresholdInto(image, image, st,
				CPU.withProgress(fiji.cuda.TestProgress.failingAtUpdate(3)))));
		assertEquals("listener broke", e.getMessage());
		assertTrue(TestImages.sameBits(before, image), "the plane was left part thresholded");
	}

	@Test
	void aVarianceInPlaceStoppedWithinAPlaneLeavesItAsItWas() {
		// the variance reads a centred copy of whole-numbered 32-bit data: the plane written, the
		// caller's own, was not the one read, got no backup, and kept the bands already written
		java.util.Random r = new java.util.Random(8);
		float[] px = new float[90 * 200];
		for (int i = 0; i < px.length; i++)
			px[i] = 1000 + r.nextInt(2000);
		Planes before = Planes.wrap(90, 200, px);
		for (Statistic statistic : Statistic.values()) {
			Planes image = before.copy();
			OpReport canceled = Bands.of(ROWS, () -> BoxStatistics.computeInto(image, image, statistic, Window.square(2),
				CPU.withProgress(new RecordedProgress(1))));
			assertTrue(canceled.canceled(), statistic.toString());
			assertTrue(TestImages.sameBits(before, image), statistic + ": the plane was left part written");
		}
	}
}
