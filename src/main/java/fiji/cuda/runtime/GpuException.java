package fiji.cuda.runtime;

/**
 * A CUDA failure during an operation. The message names the operation and the CUDA
 * error, e.g. {@code "Gaussian Blur: cuLaunchKernel failed: CUDA_ERROR_ILLEGAL_ADDRESS"}.
 */
public class GpuException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** @param message names the operation and what failed */
	public GpuException(String message) {
		super(message);
	}

	/**
	 * @param message names the operation and what failed
	 * @param cause   the underlying JCuda exception
	 */
	public GpuException(String message, Throwable cause) {
		super(message, cause);
	}
}
