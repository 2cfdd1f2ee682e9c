package fiji.cuda.integral;

/**
 * Which GPU algorithm builds a summed-area table (seed 001's four builds). All four give
 * the same table; they differ only in speed. The CPU path ignores the choice.
 */
public enum SatBuild {
	/** The fastest build for the device and image (FUSED where it applies). */
	AUTO,
	/** One thread per row, then one per column: the slow baseline. */
	NAIVE,
	/** Row scans, a tiled transpose, scans again and a transpose back. */
	CUB,
	/** Row scans into 32-bit row sums, then a single-pass decoupled look-back down the columns. */
	DLB,
	/** One pass of 2D tiled decoupled look-back, both moments from one load of the image. */
	FUSED
}
