package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The shared parallel loop: every item once, in chunks that stay inside the range. */
class CpuParallelTest {

	/** Runs forRange and checks that the chunks tile [from, to) exactly. */
	private static void assertTiles(int from, int to, int threads) {
		ConcurrentLinkedQueue<long[]> ranges = new ConcurrentLinkedQueue<>();
		AtomicLong covered = new AtomicLong();
		CpuParallel.forRange(from, to, threads, 1_000_000, (s, e) -> {
			ranges.add(new long[] { s, e });
			covered.addAndGet((long) e - s);
		});
		for (long[] r : ranges)
			assertTrue(r[0] >= from && r[0] < r[1] && r[1] <= to, "chunk [" + r[0] + ", " + r[1] + ") of [" + from
				+ ", " + to + ")");
		assertEquals((long) to - from, covered.get(), "items covered");
		long[][] sorted = ranges.stream().sorted((a, b) -> Long.compare(a[0], b[0])).toArray(long[][]::new);
		for (int i = 1; i < sorted.length; i++)
			assertEquals(sorted[i - 1][1], sorted[i][0], "gap or overlap");
	}

	@Test
	void rangesNear2To31ItemsDoNotWrapAround() {
		// the shared start used to grow by a chunk per hand-out past `to` and wrap negative
		assertTiles(0, 2_000_000_000, 2);
		assertTiles(0, 1_800_000_000, 16);
		assertTiles(0, Integer.MAX_VALUE, 7);
		assertTiles(Integer.MAX_VALUE - 1000, Integer.MAX_VALUE, 16);
	}

	@Test
	void smallAndEmptyRanges() {
		assertTiles(0, 1, 16);
		assertTiles(5, 6, 1);
		assertTiles(3, 1000, 16);
		CpuParallel.forRange(10, 10, 4, 1, (s, e) -> {
			throw new AssertionError("ran an empty range");
		});
	}

	@Test
	void aFailureInAChunkIsRethrown() {
		IllegalStateException e = assertThrows(IllegalStateException.class, () -> CpuParallel.forRange(0, 1000, 4,
			1_000_000, (s, t) -> {
				if (s <= 500 && 500 < t) throw new IllegalStateException("chunk with 500");
			}));
		assertEquals("chunk with 500", e.getMessage());
	}

	/**
	 * A pool that runs its first task on a thread of its own and then, as a JVM out of native
	 * threads does, refuses.
	 */
	private static final class OneThreadThenRefuse extends AbstractExecutorService {
		final AtomicInteger accepted = new AtomicInteger();

		@Override
		public void execute(Runnable r) {
			if (accepted.getAndIncrement() > 0) throw new RejectedExecutionException("no more threads");
			new Thread(r, "test worker").start();
		}

		@Override
		public void shutdown() {}

		@Override
		public java.util.List<Runnable> shutdownNow() {
			return java.util.Collections.emptyList();
		}

		@Override
		public boolean isShutdown() {
			return false;
		}

		@Override
		public boolean isTerminated() {
			return false;
		}

		@Override
		public boolean awaitTermination(long timeout, TimeUnit unit) {
			return true;
		}
	}

	@Test
	void noThreadToBeHadStillDoesEveryItemBeforeReturning() {
		// it used to throw at once, with the thread already started still writing the caller's data
		ExecutorService saved = CpuParallel.pool;
		OneThreadThenRefuse refusing = new OneThreadThenRefuse();
		CpuParallel.pool = refusing;
		try {
			assertTiles(0, 10_000, 8);
			assertTrue(refusing.accepted.get() >= 2, "the pool was asked for a second thread");
		} finally {
			CpuParallel.pool = saved;
		}
	}
}
