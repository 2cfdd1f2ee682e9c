package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What a script and the status bar read of a run: its backend, time, cancel and fallback reason. */
class OpReportTest {

	@Test
	void theTextSaysTheBackendTheTimeACancelAndWhyTheCpuRan() {
		// the forms of OpReport.toString's Javadoc. A mutation test found that "(canceled)" written
		// for the runs that were not canceled, and left out for the one that was, passed every test
		assertEquals("ran on the GPU in 3.214 ms", new OpReport(Backend.GPU, null, false, 3_214_000L).toString());
		assertEquals("ran on the CPU in 80.123 ms (canceled): no CUDA driver found (x)",
			new OpReport(Backend.CPU, "no CUDA driver found (x)", true, 80_123_000L).toString());
		assertEquals("ran on the CPU in 0.500 ms (canceled)", new OpReport(Backend.CPU, null, true, 2, 500_000L).toString());
		assertEquals("ran on the CPU in 1.000 ms: the GPU ran out of memory",
			new OpReport(Backend.CPU, "the GPU ran out of memory", false, 3, 1_000_000L).toString());
	}

	@Test
	void theFieldsAreAsGivenAndPlanesDoneIsMinusOneWhenNotCounted() {
		OpReport counted = new OpReport(Backend.CPU, "why", true, 7, 2_500_000L);
		assertEquals(Backend.CPU, counted.ranOn());
		assertEquals("why", counted.fallbackReason());
		assertTrue(counted.canceled());
		assertEquals(7, counted.planesDone());
		assertEquals(2.5, counted.millis(), 0);
		OpReport uncounted = new OpReport(Backend.GPU, null, false, 1_000L);
		assertFalse(uncounted.canceled());
		assertEquals(-1, uncounted.planesDone());
		assertEquals(0.001, uncounted.millis(), 0);
	}
}
