package fiji.cuda.ops;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one parallel loop of the CPU paths: splits a range of lines (rows, columns, planes) among
 * the calling thread and pooled daemon threads.
 */
public final class CpuParallel {

	/** A task over items {@code from} (inclusive) to {@code to} (exclusive). */
	public interface Range {
		/**
		 * @param from first item
		 * @param to   one past the last item
		 */
		void run(int from, int to);
	}

	/** Below about this much work (multiply-adds, or pixels touched) another thread costs more than it saves. */
	private static final long MIN_WORK_PER_THREAD = 32_000;

	private static final AtomicInteger COUNT = new AtomicInteger();

	/**
	 * The most pool threads there may be. A call waits for its pool threads' work, not for the
	 * threads to be back in the pool: the next call, at once, found none idle and started another,
	 * and an unbounded pool grew by a thread at each such miss, each idle for a minute (13 after a
	 * short batch on 2 cores). Past the bound the pool refuses the task, and the caller, which
	 * works through every chunk not taken, does that part itself.
	 */
	private static final int MAX_POOL_THREADS = 2 * Runtime.getRuntime().availableProcessors();

	// daemon threads that end when idle, so the pool neither keeps the JVM alive nor grows unbounded;
	// not final only so that tests can give one that refuses work
	static ExecutorService pool = new ThreadPoolExecutor(0, MAX_POOL_THREADS, 60, TimeUnit.SECONDS,
		new SynchronousQueue<>(), r -> {
			Thread t = new Thread(r, "Fiji CUDA CPU " + COUNT.incrementAndGet());
			t.setDaemon(true);
			t.setUncaughtExceptionHandler(CpuParallel::uncaught);
			return t;
		});

	static {
		// The pool's idle threads wait in nodes of a class that Java initializes at the first wait.
		// Out of memory then, its initialization fails for good, and every later pool thread died
		// at its first wait, a stack trace each, for the rest of the session: initialized here.
		try {
			Class.forName("java.util.concurrent.SynchronousQueue$TransferStack$SNode", true,
				ExecutorService.class.getClassLoader());
		} catch (ClassNotFoundException | LinkageError e) {
			// another Java's pool: its own classes initialize as they will
		}
	}

	/**
	 * A pool thread's work hands its failures to the caller (see forRange), so what reaches a
	 * pool thread's own handler comes from the pool's bookkeeping. Out of memory, that is a
	 * thread that could not queue itself for more work after its task: no failure of the
	 * caller's, who reports the memory it ran out of itself, only a stack trace on the console
	 * of every batch run that ran out of memory.
	 */
	private static void uncaught(Thread t, Throwable e) {
		// also a class whose initialization ran out of memory (a NoClassDefFoundError caused by it)
		for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause())
			if (c instanceof OutOfMemoryError || c instanceof ExceptionInInitializerError
				&& String.valueOf(c.getMessage()).contains("OutOfMemoryError")) return;
		Thread.UncaughtExceptionHandler d = Thread.getDefaultUncaughtExceptionHandler();
		if (d != null) d.uncaughtException(t, e);
		else t.getThreadGroup().uncaughtException(t, e);
	}

	private CpuParallel() {}

	/**
	 * Runs {@code task} over items [from, to) in contiguous chunks, a few per thread so uneven
	 * items balance out, on the calling thread and up to {@code threads - 1} pool threads. Items
	 * of one chunk come in order, so a task may carry running sums from one item to the next.
	 * Results must not depend on the split (each chunk writes only its own items). After a
	 * failure in any chunk no further chunk starts, and the failure is rethrown here once every
	 * thread has stopped; which items were done is then unspecified.
	 *
	 * @param from        first item
	 * @param to          one past the last item; nothing runs when {@code to <= from}
	 * @param threads     at most this many threads, the caller's included (below 1 counts as 1)
	 * @param workPerItem rough work per item, so small jobs use fewer threads
	 * @param task        the work, called from several threads at once on disjoint ranges
	 */
	public static void forRange(int from, int to, int threads, long workPerItem, Range task) {
		long items = (long) to - from;
		if (items <= 0) return;
		long byWork = items * Math.max(1, workPerItem) / MIN_WORK_PER_THREAD + 1;
		int n = (int) Math.min(Math.min(threads, items), byWork);
		if (n <= 1) {
			task.run(from, to);
			return;
		}
		// chunks are handed out by index: a shared start that kept growing past `to` would wrap
		// around once ranges come near 2^31 items
		int chunk = (int) Math.max(1, (items + 4L * n - 1) / (4L * n));
		int chunks = (int) ((items + chunk - 1) / chunk);
		AtomicInteger next = new AtomicInteger();
		// once a chunk has failed the call fails, so the other threads take no more chunks: out of
		// memory, every further chunk would run a full collection before failing in its turn
		AtomicBoolean failed = new AtomicBoolean();
		Runnable worker = () -> {
			for (int k = next.getAndIncrement(); k < chunks && !failed.get(); k = next.getAndIncrement()) {
				long s = from + (long) k * chunk;
				try {
					task.run((int) s, (int) Math.min(to, s + chunk));
				} catch (RuntimeException | Error e) {
					failed.set(true);
					throw e;
				}
			}
		};
		// The pool threads report to a monitor of plain fields, not through futures. Out of memory,
		// a FutureTask's own completion could fail (its first use links code), and the caller then
		// waited for it for good; a failure handed to a FutureTask went to the thread's
		// uncaught-exception handler instead (a trace on the console of every batch run that ran
		// out of memory).
		Team team = new Team(n - 1);
		int started = 0;
		try {
			for (; started < n - 1; started++) {
				int slot = started;
				pool.execute(() -> {
					if (!team.begin(slot)) return;
					try {
						worker.run();
					} catch (Throwable t) {
						team.keep(t);
					} finally {
						team.end(slot);
					}
				});
			}
		} catch (RuntimeException | OutOfMemoryError e) {
			// no thread to be had ("unable to create native thread", a refusing pool): throwing here
			// would leave the workers already started writing the caller's data after it was told
			// the call failed, so the threads already running do the work instead
		}
		Throwable failure = null;
		try {
			worker.run();
		} catch (RuntimeException | Error e) {
			failure = e;
		}
		// the workers must finish before their output is used, interrupted or not
		boolean interrupted = team.awaitAll();
		if (interrupted) Thread.currentThread().interrupt();
		if (failure == null) failure = team.first();
		if (failure instanceof RuntimeException) throw (RuntimeException) failure;
		if (failure instanceof Error) throw (Error) failure;
		if (failure != null) throw new IllegalStateException(failure);
	}

	/**
	 * The pool threads of one call: which have begun and which have ended, and the first
	 * failure. A monitor of plain fields, so that neither ending nor recording a failure needs an
	 * allocation, or code linked for the first time, when memory has run out.
	 */
	private static final class Team {
		private static final byte WAITING = 0, RUNNING = 1, DONE = 2;
		private final byte[] state;
		private Throwable first;

		Team(int members) {
			state = new byte[members];
		}

		/** @return whether member {@code i} is to work: false once the caller has given up on it */
		synchronized boolean begin(int i) {
			if (state[i] != WAITING) return false;
			state[i] = RUNNING;
			return true;
		}

		synchronized void end(int i) {
			state[i] = DONE;
			notifyAll();
		}

		synchronized void keep(Throwable t) {
			if (first == null) first = t;
		}

		synchronized Throwable first() {
			return first;
		}

		/**
		 * Gives up on the members not begun, which then do nothing if they ever run (the caller's
		 * own loop has taken every chunk by now, or stopped at a failure; out of memory, the pool
		 * can lose a task handed to a thread that dies in its bookkeeping), and waits for those
		 * running.
		 *
		 * @return whether this thread was interrupted meanwhile
		 */
		synchronized boolean awaitAll() {
			boolean interrupted = false;
			for (int i = 0; i < state.length; i++)
				if (state[i] == WAITING) state[i] = DONE;
			for (int i = 0; i < state.length; i++)
				while (state[i] == RUNNING) {
					try {
						wait();
					} catch (InterruptedException e) {
						interrupted = true;
					}
				}
			return interrupted;
		}
	}

	/**
	 * Allocates {@code count} arrays on up to {@code threads} threads. A new Java array is zeroed
	 * by the thread that allocates it, and the pages of fresh heap are faulted in by it, so the
	 * result planes of a large stack cost several times longer made one after the other than the
	 * GPU takes to compute them.
	 *
	 * @param count   how many arrays
	 * @param threads at most this many threads, the caller's included
	 * @param bytes   the bytes of one array, so that small ones stay on the calling thread
	 * @param make    makes array {@code i}
	 * @return the arrays, in order
	 * @throws OutOfMemoryError when the heap cannot hold them
	 */
	public static Object[] newArrays(int count, int threads, long bytes, java.util.function.IntFunction<Object> make) {
		Object[] out = new Object[count];
		forRange(0, count, threads, bytes / 64, (a, b) -> {
			for (int i = a; i < b; i++)
				out[i] = make.apply(i);
		});
		return out;
	}
}
