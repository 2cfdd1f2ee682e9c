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
	@Test
	void threadsBelowOneMeanOneAndNoProgressMeansNowhere() {
		// as the Javadoc says: a thread count below 1 is 1 (0 or a negative count from a caller's
		// arithmetic must still run), and null progress is Progress.NONE, never canceled. A mutation
		// test found that keeping 0 or -3 threads, or a null progress, passed every test
		ExecutionOptions o = ExecutionOptions.defaults();
		assertEquals(1, o.withThreads(0).threads());
		assertEquals(1, o.withThreads(-3).threads());
		assertEquals(1, o.withThreads(Integer.MIN_VALUE).threads());
		assertEquals(4, o.withThreads(4).threads());
		ExecutionOptions none = o.withProgress(TestProgressHolder.ANY).withProgress(null);
		assertSame(Progress.NONE, none.progress());
		assertEquals(false, none.progress().isCanceled());
		assertSame(TestProgressHolder.ANY, o.withProgress(TestProgressHolder.ANY).progress());
		assertSame(o.backend(), o.withThreads(0).withProgress(null).backend());
	}

	private static final class TestProgressHolder {
		static final Progress ANY = new Progress() {
			@Override
			public void update(double fraction) {}

			@Override
			public boolean isCanceled() {
				return true;
			}
		};
	}
}
