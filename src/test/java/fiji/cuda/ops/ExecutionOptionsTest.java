package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The options refuse what no operation can run with, instead of reading it as something else. */
class ExecutionOptionsTest {

	@Test
	void noBackendIsRefusedWithTheOptionsUnchanged() {
		// null ran as AUTO without a word, where a caller meant to force GPU or CPU
		ExecutionOptions cpu = ExecutionOptions.defaults().withBackend(Backend.CPU).withThreads(3);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cpu.withBackend(null));
		assertEquals("No backend was given; choose AUTO (the GPU when one is usable, else the CPU), GPU or CPU.",
			e.getMessage());
		assertSame(Backend.CPU, cpu.backend());
		assertEquals(3, cpu.threads());
		for (Backend b : Backend.values())
			assertSame(b, cpu.withBackend(b).backend());
	}
}
