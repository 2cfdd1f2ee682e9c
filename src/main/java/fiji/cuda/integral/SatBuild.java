package fiji.cuda.integral;

/**
 * Which GPU algorithm builds a summed-area table: seed 001's four builds and RTS. All five
 * give the same table; they differ only in speed. The CPU path ignores the choice.
 */
public enum SatBuild {
	/** The fastest build for the image: RTS from about 1024^2 pixels up, FUSED below. */
	AUTO,
	/** One thread per row, then one per column: the slow baseline. */
	NAIVE,
	/** Row scans, a tiled transpose, scans again and a transpose back. */
	CUB,
	/** Row scans into 32-bit row sums, then a single-pass decoupled look-back down the columns. */
	DLB,
	/** One pass of 2D tiled decoupled look-back, both moments from one load of the image. */
	FUSED,
	/**
	 * Reduce, scan, write: per-tile aggregates, two small scans of them into every tile's
	 * carries, then a second pass over the image that writes the tables without any tile
	 * waiting on another. Reads the image twice.
	 */
	RTS
}
