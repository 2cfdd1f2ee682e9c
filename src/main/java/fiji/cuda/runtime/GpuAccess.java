package fiji.cuda.runtime;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The way into {@link Gpu} for code that must also run where JCuda is missing, for example
 * when only the plug-in jar was copied into Fiji. Loading {@code Gpu} then fails with a
 * {@link LinkageError} (its methods name JCuda's classes), which no {@code catch} of
 * {@link GpuException} sees: an operation would stop without a word and leave the image as
 * it was. This class names no JCuda class, so it can turn that error into the ordinary reason
 * to use the CPU.
 */
public final class GpuAccess {

	/** Why the GPU path cannot run when JCuda's classes cannot be loaded. */
	static final String MISSING = "JCuda is not installed (jcuda-12.6.0.jar and its natives belong in "
		+ "Fiji.app/jars, or ImageJ/plugins/jars in a plain ImageJ; see the README)";

	private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

	private GpuAccess() {}

	/**
	 * @return {@link Gpu#get()}
	 * @throws GpuUnavailableException also when JCuda is missing
	 */
	public static Gpu get() {
		try {
			return Gpu.get();
		} catch (LinkageError e) {
			throw new GpuUnavailableException(MISSING, e);
		}
	}

	/** @return {@link Gpu#isAvailable()}; false when JCuda is missing; never throws */
	public static boolean isAvailable() {
		try {
			return Gpu.isAvailable();
		} catch (LinkageError e) {
			return false;
		}
	}

	/** @return {@link Gpu#describe()}; never throws */
	public static List<String> describe() {
		try {
			return Gpu.describe();
		} catch (LinkageError e) {
			return Arrays.asList(GpuSettings.describe(), "CUDA: " + MISSING, "Operations run on: the CPU, because " + MISSING);
		}
	}

	/** @return {@link Gpu#selfCheck()}; never throws */
	public static String selfCheck() {
		try {
			return Gpu.selfCheck();
		} catch (LinkageError e) {
			return "Self-check not run: " + MISSING;
		}
	}

	/** @return {@link Gpu#deviceCount()}; 0 when JCuda is missing */
	public static int deviceCount() {
		try {
			return Gpu.deviceCount();
		} catch (LinkageError e) {
			return 0;
		}
	}

	/**
	 * @param reason a fallback's operation and {@linkplain GpuUnavailableException#kind() kind of reason}
	 * @return true the first time it is seen, so each is logged once per session
	 */
	public static boolean shouldLogFallback(String reason) {
		return LOGGED.add(String.valueOf(reason));
	}
}
