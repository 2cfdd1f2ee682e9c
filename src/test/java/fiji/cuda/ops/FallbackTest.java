package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import fiji.cuda.runtime.GpuException;
import fiji.cuda.runtime.GpuUnavailableException;

/** What an operation says when its GPU path fails, after part of the caller's image was written or before. */
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
	void aForcedGpuRefusalNamesTheOperation() {
		// "images taller than 4194240 rows are blurred on the CPU" reached a script that forced the
		// GPU: nothing was blurred, and no command was named
		ExecutionOptions gpu = ExecutionOptions.defaults().withBackend(Backend.GPU);
		GpuUnavailableException refusal = new GpuUnavailableException("images taller than 9 rows are past the GPU kernels' grids");
		GpuUnavailableException e = assertThrows(GpuUnavailableException.class, () -> Fallback.reason("Op", gpu, refusal));
		assertEquals("Op: images taller than 9 rows are past the GPU kernels' grids", e.getMessage());
		assertEquals(refusal.kind(), e.kind());
		assertSame(refusal, e.getCause());
		// one that names it already goes on as it is
		GpuException named = new GpuException("Op: CUDA_ERROR_UNKNOWN");
		assertSame(named, assertThrows(GpuException.class, () -> Fallback.reason("Op", gpu, named)));
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

	@Test
	void runningOutOfGpuMemoryIsLoggedOncePerOperationWhateverTheAmounts() {
		// the line was said once per reason, and the reason names the amount: a batch of images of
		// mixed sizes logged one line per size class
		List<String> lines = new ArrayList<>();
		OpLog.setSink(lines::add);
		ExecutionOptions auto = ExecutionOptions.defaults();
		try {
			for (int mb : new int[] { 537, 2148, 537, 9000 }) {
				String why = "Memory Op: a block of " + mb + " MB of GPU memory did not fit in the 300 MB free";
				// the operation's report still gets the numbers of its own call
				assertEquals(why, Fallback.reason("Memory Op", auto, GpuUnavailableException.outOfMemory(why, null)));
			}
			Fallback.reason("Memory Op", auto, GpuUnavailableException.outOfMemory("Memory Op: the GPU ran out of memory", null));
			// another kind of reason is news, and so is the same shortage in another operation
			Fallback.reason("Memory Op", auto, new GpuUnavailableException("no CUDA device found"));
			Fallback.reason("Other Memory Op", auto, GpuUnavailableException.outOfMemory("Other Memory Op: a block of 9000 MB"
				+ " of GPU memory did not fit in the 300 MB free", null));
		} finally {
			OpLog.setSink(null);
		}
		assertEquals(List.of("Memory Op ran on the CPU: a block of 537 MB of GPU memory did not fit in the 300 MB free",
			"Memory Op ran on the CPU: no CUDA device found",
			"Other Memory Op ran on the CPU: a block of 9000 MB of GPU memory did not fit in the 300 MB free"), lines);
	}
}
