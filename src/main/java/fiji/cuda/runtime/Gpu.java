package fiji.cuda.runtime;

/** The GPU runtime entry point. TODO(lead): implement. */
public final class Gpu {
	private Gpu() {}

	/** @return the usable GPU @throws GpuUnavailableException when none can be used */
	public static Gpu get() {
		throw new GpuUnavailableException("no CUDA runtime yet");
	}

	/** @return true the first time a reason is seen, so each fallback reason is logged once */
	public static boolean shouldLogFallback(String reason) {
		return true;
	}
}
