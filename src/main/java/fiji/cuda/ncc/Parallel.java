package fiji.cuda.ncc;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** Splits output rows among CPU threads for the CPU path of template matching. */
final class Parallel {

	/** A task over output rows {@code from} (inclusive) to {@code to} (exclusive). */
	interface Rows {
		void run(int from, int to);
	}

	/** Below about this many multiply-adds a further thread costs more than it saves. */
	private static final long MIN_WORK_PER_THREAD = 50_000;

	private static final AtomicInteger COUNT = new AtomicInteger();

	// daemon threads that end when idle, so the pool neither keeps the JVM alive nor grows
	private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
		Thread t = new Thread(r, "Fiji CUDA NCC " + COUNT.incrementAndGet());
		t.setDaemon(true);
		return t;
	});

	private Parallel() {}

	/**
	 * Runs {@code task} over rows 0 to {@code rows} in contiguous chunks (a chunk's rows are in
	 * order, so a task may carry running sums from one row to the next), on the calling thread
	 * and up to {@code threads - 1} pool threads. A failure in any chunk is rethrown here after
	 * all threads have stopped.
	 */
	static void forRows(int rows, int threads, long costPerRow, Rows task) {
		if (rows <= 0) return;
		long byWork = rows * Math.max(1, costPerRow) / MIN_WORK_PER_THREAD + 1;
		int n = (int) Math.min(Math.min(threads, rows), byWork);
		if (n <= 1) {
			task.run(0, rows);
			return;
		}
		// a few chunks per thread balance uneven rows without losing the running sums' benefit
		int chunk = Math.max(1, (rows + 4 * n - 1) / (4 * n));
		AtomicInteger next = new AtomicInteger();
		Runnable worker = () -> {
			for (int s = next.getAndAdd(chunk); s < rows; s = next.getAndAdd(chunk))
				task.run(s, Math.min(rows, s + chunk));
		};
		Future<?>[] others = new Future<?>[n - 1];
		for (int i = 0; i < others.length; i++)
			others[i] = POOL.submit(worker);
		Throwable failure = null;
		try {
			worker.run();
		} catch (RuntimeException | Error e) {
			failure = e;
		}
		boolean interrupted = false;
		for (Future<?> f : others) {
			while (true) {
				try {
					f.get();
					break;
				} catch (InterruptedException e) {
					interrupted = true; // the workers must finish before their output is used
				} catch (ExecutionException e) {
					if (failure == null) failure = e.getCause();
					break;
				}
			}
		}
		if (interrupted) Thread.currentThread().interrupt();
		if (failure instanceof RuntimeException) throw (RuntimeException) failure;
		if (failure instanceof Error) throw (Error) failure;
		if (failure != null) throw new IllegalStateException(failure);
	}
}
