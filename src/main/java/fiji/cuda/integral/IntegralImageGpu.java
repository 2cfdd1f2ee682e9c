package fiji.cuda.integral;

import fiji.cuda.image.Planes;
import fiji.cuda.ops.Progress;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuUnavailableException;

/**
 * The GPU path of this package: the four summed-area-table builds of seed 001 and the box
 * statistics and local thresholds computed from the tables on the device.
 * <p>
 * Not written yet: every method throws {@link GpuUnavailableException}, so that {@code AUTO}
 * falls back to the CPU path with one log line. Each method must give exactly what its CPU
 * counterpart gives (named in its documentation); the facades catch {@code GpuException} and
 * finish the remaining planes on the CPU.
 */
final class IntegralImageGpu {

	/** The fallback reason until the kernels exist. */
	static final String NOT_WRITTEN = "GPU integral image not written yet";

	private IntegralImageGpu() {}

	/**
	 * Builds both tables of plane {@code z} with the given build; must equal
	 * {@link IntegralImageCpu#build} bit for bit for 8 and 16-bit planes.
	 *
	 * @param build a concrete build, or AUTO for the fastest
	 */
	static SummedAreaTable build(Gpu gpu, Planes image, int z, SatBuild build) {
		throw new GpuUnavailableException(NOT_WRITTEN);
	}

	/**
	 * Writes the statistic of every window of planes [from, to) into {@code out}'s float planes;
	 * the CPU counterpart is {@link BoxStatistics}' per-plane loop ({@code BoxStatistics.plane}).
	 *
	 * @return the first plane not done ({@code to}, or earlier when canceled)
	 */
	static int boxStatistics(Gpu gpu, Planes image, Planes out, int from, int to, BoxStatistics.Statistic statistic,
		Window window, Progress progress)
	{
		throw new GpuUnavailableException(NOT_WRITTEN);
	}

	/**
	 * Thresholds planes [from, to) into {@code out}'s byte planes (which may be the input's own
	 * for 8-bit images); the CPU counterpart is {@code LocalThreshold.plane}, whose per-pixel
	 * rule is {@link LocalThreshold#isForeground}.
	 *
	 * @return the first plane not done ({@code to}, or earlier when canceled)
	 */
	static int localThreshold(Gpu gpu, Planes image, Planes out, int from, int to, LocalThreshold.Settings settings,
		Progress progress)
	{
		throw new GpuUnavailableException(NOT_WRITTEN);
	}
}
