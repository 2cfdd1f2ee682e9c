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

	/**
	 * @param opts a caller's options, or null
	 * @return {@code opts}, or {@link #defaults()} for null: every operation takes null as "the defaults"
	 */
	public static ExecutionOptions orDefaults(ExecutionOptions opts) {
		return opts != null ? opts : defaults();
	}

	/**
	 * @param b where to run: {@link Backend#AUTO}, or {@link Backend#GPU} / {@link Backend#CPU}
	 *          to force one (a forced GPU that fails is an error, see {@link Fallback})
	 * @return a copy running on the given backend
	 * @throws IllegalArgumentException for no backend; {@link Backend#AUTO} is the default
	 */
	public ExecutionOptions withBackend(Backend b) {
		// null ran as AUTO without a word: a caller who meant to force a backend and lost it on the
		// way (an unset field, a failed lookup) got the GPU-or-CPU choice instead
		if (b == null)
			throw new IllegalArgumentException("No backend was given; choose AUTO (the GPU when one is usable, else the "
				+ "CPU), GPU or CPU.");
		return new ExecutionOptions(b, threads, progress);
	}

	/**
	 * @param n the most CPU threads the CPU path may use, the calling thread included; values
	 *          below 1 mean 1. The GPU path's host copies use threads of their own
	 * @return a copy using at most n CPU threads
	 */
	public ExecutionOptions withThreads(int n) {
		return new ExecutionOptions(backend, Math.max(1, n), progress);
	}

	/**
	 * @param p where progress goes and where cancellation is asked; null means nowhere (never
	 *          canceled)
	 * @return a copy reporting to p
	 */
	public ExecutionOptions withProgress(Progress p) {
		return new ExecutionOptions(backend, threads, p == null ? Progress.NONE : p);
	}

	/** @return the requested backend; {@link OpReport#ranOn()} says which one ran */
	public Backend backend() {
		return backend;
	}

	/** @return the most threads the CPU path uses, the calling thread included; at least 1 */
	public int threads() {
		return threads;
	}

	/** @return the progress sink, never null */
	public Progress progress() {
		return progress;
	}
}
