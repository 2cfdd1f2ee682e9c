package fiji.cuda.ops;

import fiji.cuda.runtime.GpuAccess;
import fiji.cuda.runtime.GpuException;
import fiji.cuda.runtime.GpuUnavailableException;

/**
 * The one rule every operation follows when its GPU path fails: a forced GPU is an error; on
 * AUTO the operation goes on on the CPU path and the Log gets one line saying why. A GPU that
 * is unavailable (no driver, no device, too little memory) gives the same reason on every
 * call, so that line appears once per operation and reason in a session; other GPU errors
 * are logged each time.
 */
public final class Fallback {

	private Fallback() {}

	/**
	 * @param op   the operation's name, e.g. "Gaussian Blur"
	 * @param opts the caller's options (their backend decides)
	 * @param e    why the GPU path failed
	 * @return the reason, for the operation's report
	 * @throws GpuException when the GPU was forced; other failures are wrapped, naming {@code op}
	 */
	public static String reason(String op, ExecutionOptions opts, Throwable e) {
		if (opts.backend() == Backend.GPU) {
			if (e instanceof GpuException) throw (GpuException) e;
			throw new GpuException(op + ": " + e.getMessage(), e);
		}
		String why = e.getMessage();
		if (!(e instanceof GpuUnavailableException) || GpuAccess.shouldLogFallback(op + ": " + why))
			OpLog.log(op + " ran on the CPU: " + why);
		return why;
	}
}
