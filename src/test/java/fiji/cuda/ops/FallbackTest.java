package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import fiji.cuda.runtime.GpuException;

/** What an operation says when its GPU path fails after part of the caller's image was written. */
class FallbackTest {

	@Test
	void aForcedGpuThatFailedPartWaySaysWhatIsDone() {
		GpuException cause = new GpuException("Op: CUDA_ERROR_UNKNOWN");
		ExecutionOptions gpu = ExecutionOptions.defaults().withBackend(Backend.GPU);
		GpuException e = assertThrows(GpuException.class,
			() -> Fallback.reasonAfterPart("Op", gpu, cause, Fallback.prefixDone(16, 40, "planes")));
		assertEquals("Op: the GPU failed part way (CUDA_ERROR_UNKNOWN); planes 1-16 of 40 hold the result and the"
			+ " later ones are unchanged.", e.getMessage());
		assertSame(cause, e.getCause());
		assertEquals("plane 1 of 3 holds the result and the later ones are unchanged", Fallback.prefixDone(1, 3, "planes"));
	}

	@Test
	void onAutoTheCpuFinishesAndOneLineSaysWhy() {
		List<String> lines = new ArrayList<>();
		OpLog.setSink(lines::add);
		try {
			String why = Fallback.reasonAfterPart("Op", ExecutionOptions.defaults(), new GpuException("Op: CUDA_ERROR_UNKNOWN"),
				Fallback.prefixDone(2, 5, "planes"));
			assertEquals("Op: CUDA_ERROR_UNKNOWN", why);
			// it said "Op ran on the CPU: Op: CUDA_ERROR_UNKNOWN"
			assertEquals(List.of("Op ran on the CPU: CUDA_ERROR_UNKNOWN"), lines);
		} finally {
			OpLog.setSink(null);
		}
	}
}
