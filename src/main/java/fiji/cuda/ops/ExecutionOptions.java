package fiji.cuda.ops;

/**
 * How to run an operation: which backend, how many CPU threads, and where progress goes.
 * Immutable; the {@code with...} methods return modified copies.
 */
public final class ExecutionOptions {

	private final Backend backend;
	private final int threads;
	private final Progress progress;

	private ExecutionOptions(Backend backend, int threads, Progress progress) {
		this.backend = backend;
		this.threads = threads;
		this.progress = progress;
	}

	/** @return AUTO backend, all processors, no progress reporting */
	public static ExecutionOptions defaults() {
		return new ExecutionOptions(Backend.AUTO, Runtime.getRuntime().availableProcessors(), Progress.NONE);
	}

	/** @return {@code opts}, or {@link #defaults()} for null: every operation takes null as "the defaults" */
	public static ExecutionOptions orDefaults(ExecutionOptions opts) {
		return opts != null ? opts : defaults();
	}

	/** @return a copy running on the given backend */
	public ExecutionOptions withBackend(Backend b) {
		return new ExecutionOptions(b, threads, progress);
	}

	/** @return a copy using at most n CPU threads (at least 1) */
	public ExecutionOptions withThreads(int n) {
		return new ExecutionOptions(backend, Math.max(1, n), progress);
	}

	/** @return a copy reporting to p (null means nowhere) */
	public ExecutionOptions withProgress(Progress p) {
		return new ExecutionOptions(backend, threads, p == null ? Progress.NONE : p);
	}

	/** @return the requested backend */
	public Backend backend() {
		return backend;
	}

	/** @return the CPU thread count */
	public int threads() {
		return threads;
	}

	/** @return the progress sink, never null */
	public Progress progress() {
		return progress;
	}
}
