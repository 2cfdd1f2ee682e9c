package fiji.cuda.runtime;

/**
 * The GPU cannot run this operation for a reason that the CPU path cures: no driver, no
 * device, a driver too old for the shipped kernels, the CPU forced by the user, or too
 * little free device memory. Operations on {@code AUTO} catch it and fall back.
 */
public class GpuUnavailableException extends GpuException {

	private static final long serialVersionUID = 1L;

	/** @param reason a short sentence for the log, e.g. "no CUDA driver found" */
	public GpuUnavailableException(String reason) {
		super(reason);
	}

	/**
	 * @param reason a short sentence for the log
	 * @param cause  the underlying failure
	 */
	public GpuUnavailableException(String reason, Throwable cause) {
		super(reason, cause);
	}
}
