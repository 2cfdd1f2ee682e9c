package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
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

	@Test
	void callsOneAfterAnotherDoNotPileThreadsUp() {
		// each call waits for its pool threads' work, not for them to be back in the pool: the
		// next call found none idle and started another, and the pool grew by a thread at each
		// such miss (13 after a short batch on 2 cores, each idle for a minute)
		int cores = Runtime.getRuntime().availableProcessors();
		long[] sum = new long[1 << 12];
		for (int k = 0; k < 3000; k++)
			CpuParallel.forRange(0, sum.length, Math.max(2, cores), 100, (a, b) -> {
				for (int i = a; i < b; i++)
					sum[i] += i;
			});
		long pool = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("Fiji CUDA CPU"))
			.count();
		assertTrue(pool <= 2 * Math.max(2, cores), pool + " pool threads on " + cores + " cores");
		for (int i = 0; i < sum.length; i++)
			assertEquals(3000L * i, sum[i]);
	}


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

	@Test
	void noChunkStartsAfterAFailure() {
		// out of memory, each further chunk ran a full collection before failing in its turn
		AtomicInteger after = new AtomicInteger();
		java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
		assertThrows(OutOfMemoryError.class, () -> CpuParallel.forRange(0, 400, 4, 1_000_000, (s, t) -> {
			if (failed.get()) after.incrementAndGet();
			if (s == 0) {
				failed.set(true);
				throw new OutOfMemoryError("Java heap space (test)");
			}
			// chunks that take time, as real ones do: empty ones, on 16 cores, ran by the dozen
			// in the microseconds between this flag and the throw reaching forRange
			sleep(20);
		}));
		// chunks already running when the first failed may finish; of 16 chunks on 4 threads,
		// at most the 3 other threads' current ones
		assertTrue(after.get() <= 3, "chunks started after the failure: " + after.get());
	}

	@Test
	void aTaskThePoolAcceptsButNeverRunsIsNotWaitedFor() {
		// out of memory, a pool thread can die in the pool's own bookkeeping with a task handed to
		// it: the task never runs, and a batch macro waited for it for good (16 cores, -Xmx100m)
		ExecutorService saved = CpuParallel.pool;
		java.util.List<Runnable> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		CpuParallel.pool = new IdlePool() {
			@Override
			public void execute(Runnable r) {
				lost.add(r);
			}
		};
		try {
			int[] out = new int[1000];
			assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> CpuParallel.forRange(0, out.length, 4,
				1_000_000, (a, b) -> {
					for (int i = a; i < b; i++)
						out[i] = i + 1;
				}));
			for (int i = 0; i < out.length; i++)
				assertEquals(i + 1, out[i], "item " + i);
			assertEquals(3, lost.size(), "the other three threads' tasks went to the pool");
			// run late, a lost task does nothing: the caller has done its work
			java.util.Arrays.fill(out, 0);
			for (Runnable r : lost)
				r.run();
			assertEquals(0, java.util.Arrays.stream(out).sum());
		} finally {
			CpuParallel.pool = saved;
		}
	}

	/** A pool that never shuts down, for pools whose {@code execute} a test gives. */
	private abstract static class IdlePool extends AbstractExecutorService {
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

	/**
	 * A pool that runs its first task on a thread of its own and then, as a JVM out of native
	 * threads does, refuses.
	 */
	private static final class OneThreadThenRefuse extends IdlePool {
		final AtomicInteger accepted = new AtomicInteger();

		@Override
		public void execute(Runnable r) {
			if (accepted.getAndIncrement() > 0) throw new RejectedExecutionException("no more threads");
			new Thread(r, "test worker").start();
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

	@Test
	void aPoolThreadsFailureReachesTheCallerWithoutPassingThroughItsFuture() {
		// out of memory, a FutureTask could not record the error it caught: the error went to the
		// pool thread's uncaught-exception handler, a stack trace on the console of every batch run
		java.util.List<Throwable> handedOver = new java.util.concurrent.CopyOnWriteArrayList<>();
		ExecutorService saved = CpuParallel.pool;
		CpuParallel.pool = new java.util.concurrent.ThreadPoolExecutor(0, 8, 1, TimeUnit.SECONDS,
			new java.util.concurrent.SynchronousQueue<>()) {
			@Override
			protected <T> java.util.concurrent.RunnableFuture<T> newTaskFor(Runnable r, T value) {
				return new java.util.concurrent.FutureTask<T>(r, value) {
					@Override
					protected void setException(Throwable t) {
						handedOver.add(t);
						super.setException(t);
					}
				};
			}
		};
		try {
			String caller = Thread.currentThread().getName();
			OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> CpuParallel.forRange(0, 64, 4, 1_000_000,
				(s, t) -> {
					if (!Thread.currentThread().getName().equals(caller)) throw new OutOfMemoryError("in a pool thread");
					try {
						Thread.sleep(20); // the pool threads take chunks too
					} catch (InterruptedException x) {
						Thread.currentThread().interrupt();
					}
				}));
			assertEquals("in a pool thread", e.getMessage());
			assertEquals(java.util.List.of(), handedOver);
		} finally {
			CpuParallel.pool.shutdown();
			CpuParallel.pool = saved;
		}
	}

	@Test
	void newArraysMakesEachArrayOnceInOrderOnSeveralThreads() {
		java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
		AtomicInteger calls = new AtomicInteger();
		Object[] a = CpuParallel.newArrays(64, 4, 4 << 20, i -> {
			calls.incrementAndGet();
			threads.add(Thread.currentThread().getName());
			try {
				Thread.sleep(1); // long enough for the calling thread to take chunks of its own
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
			}
			return new int[] { i };
		});
		assertEquals(64, calls.get());
		for (int i = 0; i < a.length; i++)
			assertEquals(i, ((int[]) a[i])[0], "array " + i);
		assertTrue(threads.size() > 1, "large arrays are made on more than one thread: " + threads);
		Object[] small = CpuParallel.newArrays(64, 4, 16, i -> Thread.currentThread().getName());
		for (Object o : small)
			assertEquals(Thread.currentThread().getName(), o, "small arrays stay on the calling thread");
		assertEquals(0, CpuParallel.newArrays(0, 4, 1 << 20, i -> new byte[1]).length);
	}

	@Test
	void newArraysPassesOnAnOutOfMemoryError() {
		assertThrows(OutOfMemoryError.class, () -> CpuParallel.newArrays(8, 4, 1 << 20, i -> {
			if (i == 5) throw new OutOfMemoryError("Java heap space (test)");
			return new byte[1];
		}));
	}

	private static void sleep(long ms) {
		try {
			Thread.sleep(ms);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}
}
