package fiji.cuda.runtime;

/**
 * The GPU cannot run this operation for a reason that the CPU path cures: no driver, no
 * device, a driver too old for the shipped kernels, the CPU forced by the user, or too
 * little free device memory. Operations on {@code AUTO} catch it and fall back.
 */
public class GpuUnavailableException extends GpuException {

	private static final long serialVersionUID = 1L;

	/** The {@link #kind()} of every "too little free GPU memory" reason, whatever amounts it names. */
	public static final String OUT_OF_MEMORY = "too little free GPU memory";

	/** The reason without its amounts, which the log's once-per-reason rule compares; null for the reason itself. */
	private final String kind;

	/** @param reason a short sentence for the log, e.g. "no CUDA driver found" */
	public GpuUnavailableException(String reason) {
		this(reason, null, null);
	}

	/**
	 * @param reason a short sentence for the log
	 * @param cause  the underlying failure
	 */
	public GpuUnavailableException(String reason, Throwable cause) {
		this(reason, null, cause);
	}

	/**
	 * @param reason a short sentence for the log, which may name amounts, e.g. "Gaussian Blur: a
	 *               block of 537 MB of GPU memory did not fit in the 300 MB free"
	 * @param kind   the reason without what changes from one call to the next, e.g.
	 *               {@link #OUT_OF_MEMORY}; null for the reason itself
	 * @param cause  the underlying failure, or null
	 */
	public GpuUnavailableException(String reason, String kind, Throwable cause) {
		super(reason, cause);
		this.kind = kind;
	}

	/**
	 * @param reason a short sentence for the log that says how much memory was missing
	 * @param cause  the underlying failure, or null
	 * @return an exception of the kind {@link #OUT_OF_MEMORY}
	 */
	public static GpuUnavailableException outOfMemory(String reason, Throwable cause) {
		return new GpuUnavailableException(reason, OUT_OF_MEMORY, cause);
	}

	/**
	 * A batch of images of mixed sizes that do not fit in GPU memory gives a reason with other
	 * numbers for each size; the fallback is logged once per operation and kind, so that such a
	 * batch logs one line, not one per size.
	 *
	 * @return what kind of reason this is, without amounts that change from call to call; the
	 *         reason itself unless a kind was given
	 */
	public String kind() {
		return kind != null ? kind : getMessage();
	}
}
