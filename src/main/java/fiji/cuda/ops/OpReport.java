package fiji.cuda.ops;

/**
 * What happened when an operation ran: the backend that did the work, why the GPU was
 * not used if it was not, whether the user canceled, and the wall time.
 */
public final class OpReport {

	private final Backend ranOn;
	private final String fallbackReason;
	private final boolean canceled;
	private final int planesDone;
	private final long nanos;

	/**
	 * @param ranOn          GPU or CPU (never AUTO)
	 * @param fallbackReason why the CPU ran although AUTO was asked, or null
	 * @param canceled       true when the operation stopped early at the user's request
	 * @param nanos          wall time of the whole operation
	 */
	public OpReport(Backend ranOn, String fallbackReason, boolean canceled, long nanos) {
		this(ranOn, fallbackReason, canceled, -1, nanos);
	}

	/**
	 * @param ranOn          GPU or CPU (never AUTO)
	 * @param fallbackReason why the CPU ran although AUTO was asked, or null
	 * @param canceled       true when the operation stopped early at the user's request
	 * @param planesDone     how many planes, from the first, hold the result; -1 when not counted
	 * @param nanos          wall time of the whole operation
	 */
	public OpReport(Backend ranOn, String fallbackReason, boolean canceled, int planesDone, long nanos) {
		this.ranOn = ranOn;
		this.fallbackReason = fallbackReason;
		this.canceled = canceled;
		this.planesDone = planesDone;
		this.nanos = nanos;
	}

	/** @return the backend that did the work, GPU or CPU, never AUTO */
	public Backend ranOn() {
		return ranOn;
	}

	/**
	 * @return why the GPU was not used although AUTO was asked (the reason the Log line gave),
	 *         or null when the GPU ran or the CPU was asked for
	 */
	public String fallbackReason() {
		return fallbackReason;
	}

	/** @return true when canceled before all planes were done (the done planes are complete) */
	public boolean canceled() {
		return canceled;
	}

	/**
	 * @return how many planes, from the first, hold the result (the others are as they were),
	 *         or -1 where the operation does not count them; a caller that canceled in place
	 *         must tell its user which planes changed
	 */
	public int planesDone() {
		return planesDone;
	}

	/** @return wall time in milliseconds */
	public double millis() {
		return nanos / 1e6;
	}

	/**
	 * @return e.g. "ran on the GPU in 3.214 ms", or "ran on the CPU in 80.123 ms (canceled): no
	 *         CUDA driver found (...)" (for scripts and the status bar; it read "CPU, 80.123 ms
	 *         (CPU fallback: ...)")
	 */
	@Override
	public String toString() {
		return String.format(java.util.Locale.ROOT,
			"ran on the %s in %.3f ms%s%s", ranOn, millis(), canceled ? " (canceled)" : "",
			fallbackReason != null ? ": " + fallbackReason : "");
	}
}
