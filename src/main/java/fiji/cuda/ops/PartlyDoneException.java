package fiji.cuda.ops;

/**
 * An operation that changes its input in place stopped on a failure after part of the input
 * already held the result. The message names the operation, the failure, and which parts hold
 * the result and which are unchanged, so that the user knows what the image now is; the cause
 * is the failure itself (an {@link OutOfMemoryError}, an exception of a progress listener, ...).
 */
public final class PartlyDoneException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param op    the operation's name, e.g. "Align Slices"
	 * @param cause the failure
	 * @param done  which parts hold the result and which are unchanged, e.g. "slices 1-3 are
	 *              aligned (besides the reference); the other slices are unchanged"
	 */
	public PartlyDoneException(String op, Throwable cause, String done) {
		super(op + ": stopped part way (" + describe(op, cause) + "); " + done + ".", cause);
		this.done = done;
	}

	/** What the message says of the parts, for a caller that works in larger parts. */
	private final String done;

	/** @return which parts hold the result and which are unchanged, as given to the constructor */
	public String done() {
		return done;
	}

	private static String describe(String op, Throwable e) {
		String msg = Fallback.withoutOp(op, e.getMessage());
		// "Java heap space" and the like say nothing more to the user
		if (e instanceof OutOfMemoryError) return "Java ran out of memory";
		if ((e instanceof IllegalArgumentException || e instanceof fiji.cuda.runtime.GpuException) && msg != null) return msg;
		// a bug: its class, for a report
		return "an unexpected error: " + e.getClass().getSimpleName() + (msg != null ? ": " + msg : "");
	}
}
