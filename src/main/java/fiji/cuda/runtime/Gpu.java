package fiji.cuda.runtime;

import java.util.List;

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

	/**
	 * @return human-readable lines: every CUDA device (index, name, compute capability, memory),
	 *         the driver version, the current setting, and which path operations will take
	 */
	public static List<String> describe() {
		return List.of("CUDA runtime not written yet");
	}

	/**
	 * Runs a small blur on the GPU and compares it with the CPU path.
	 * @return one line: "Self-check passed: ..." or "Self-check failed: ..." (never throws)
	 */
	public static String selfCheck() {
		return "Self-check not available";
	}
}
