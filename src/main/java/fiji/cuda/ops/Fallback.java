package fiji.cuda.ops;

import fiji.cuda.runtime.GpuAccess;
import fiji.cuda.runtime.GpuException;
import fiji.cuda.runtime.GpuUnavailableException;

/**
 * The one rule every operation follows when its GPU path fails: a forced GPU is an error; on
 * AUTO the operation goes on on the CPU path and the Log gets one line saying why. A GPU that
 * is unavailable (no driver, no device, too little memory) gives the same kind of reason on
 * every call, so that line appears once per operation and {@linkplain GpuUnavailableException#kind()
 * kind of reason} in a session: the first says how much memory was missing, and the next
 * image of a batch that does not fit, whatever its size, adds nothing. Other GPU errors are
 * logged each time.
 */
public final class Fallback {

	private Fallback() {}

	/**
	 * @param op   the operation's name, e.g. "Gaussian Blur"
	 * @param opts the caller's options (their backend decides), not null
	 * @param e    why the GPU path failed
	 * @return the reason, for the operation's report
	 * @throws GpuException when the GPU was forced; other failures are wrapped, naming {@code op}
	 */
	public static String reason(String op, ExecutionOptions opts, Throwable e) {
		if (opts.backend() == Backend.GPU) {
			String msg = e.getMessage();
			if (e instanceof GpuException && msg != null && msg.startsWith(op + ":")) throw (GpuException) e;
			// a refusal that does not name the operation ("images taller than ... rows are past
			// the GPU kernels' grids") reached a script with no word of which command it was
			if (e instanceof GpuUnavailableException)
				throw new GpuUnavailableException(op + ": " + msg, ((GpuUnavailableException) e).kind(), e);
			throw new GpuException(op + ": " + msg, e);
		}
		String why = e.getMessage();
		if (!(e instanceof GpuUnavailableException)
			|| GpuAccess.shouldLogFallback(op + ": " + ((GpuUnavailableException) e).kind()))
			OpLog.log(op + " ran on the CPU: " + withoutOp(op, why));
		return why;
	}

	/**
	 * {@link #reason} for a GPU failure after part of the caller's data was already written. On
	 * AUTO the CPU finishes the rest, so nothing more needs saying. A forced GPU stops there, and
	 * its error must say what is already done: the caller's image is left part changed.
	 *
	 * @param op   the operation's name, e.g. "Gaussian Blur"
	 * @param opts the caller's options (their backend decides), not null
	 * @param e    why the GPU path failed
	 * @param done what holds the result and what is unchanged, e.g. "planes 1-16 of 40 hold the
	 *             result and the later ones are unchanged"; {@link #prefixDone} words it
	 * @return the reason, for the operation's report
	 * @throws GpuException when the GPU was forced, naming {@code op}, the failure and {@code done}
	 */
	public static String reasonAfterPart(String op, ExecutionOptions opts, Throwable e, String done) {
		if (opts.backend() == Backend.GPU)
			throw new GpuException(op + ": the GPU failed part way (" + withoutOp(op, e.getMessage()) + "); " + done + ".", e);
		return reason(op, opts, e);
	}

	/**
	 * @param op      the operation's name, e.g. "Gaussian Blur"
	 * @param message a message that may start with it, or null
	 * @return the message without a leading "op: ", for a sentence that names the operation
	 *         already: "Gaussian Blur ran on the CPU: Gaussian Blur: ..." said it twice
	 */
	public static String withoutOp(String op, String message) {
		return message != null && message.startsWith(op + ": ") ? message.substring(op.length() + 2) : message;
	}

	/**
	 * @param done  items [0, done) hold the result, the rest are unchanged (done &gt; 0)
	 * @param total items given
	 * @param what  their name in the plural, e.g. "planes"
	 * @return the text {@link #reasonAfterPart} takes, counting from 1
	 */
	public static String prefixDone(int done, int total, String what) {
		return (done == 1 ? what.substring(0, what.length() - 1) + " 1" : what + " 1-" + done) + " of " + total
			+ (done == 1 ? " holds" : " hold") + " the result and the later ones are unchanged";
	}
}
