package fiji.cuda.integral;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.params.provider.Arguments;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;

/**
 * What the GPU tests of the operations on summed-area tables share ({@link IntegralImageGpuTest},
 * {@link BoxStatisticsGpuTest}, {@link LocalThresholdGpuTest}): the forced backends, the cases
 * that Box Statistics and Local Threshold are both checked on, so that the two cover the same
 * tables, and the switch to int64 tables.
 */
final class GpuCases {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	private GpuCases() {}

	/**
	 * {type, width, height, window, seed}: each type on sizes from one pixel up, with windows that
	 * read both kinds of 8-bit tables.
	 */
	static List<Arguments> statCases() {
		List<Arguments> a = new ArrayList<>();
		int seed = 500;
		int[][] sizes = { { 1, 1 }, { 7, 1 }, { 37, 53 }, { 300, 97 }, { 1021, 769 } };
		// 8-bit planes read wrap-around tables for the first four windows and int64 tables for the
		// last, whose 259 x 259 pixels could take the sum of squares past 2^32
		Window[] windows = { Window.square(1), Window.square(7), Window.square(40), Window.rectangle(4, 7),
			Window.square(129) };
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 })
			for (int[] sz : sizes)
				for (Window w : windows)
					a.add(Arguments.of(t, sz[0], sz[1], w, seed++));
		return a;
	}

	/** @return what {@code run} gives with the 8-bit planes' wrap-around tables turned off (int64 tables) */
	static Planes withWideTables(Supplier<Planes> run) {
		try {
			IntegralImageGpu.wideTablesForTest = true;
			return run.get();
		} finally {
			IntegralImageGpu.wideTablesForTest = false;
		}
	}
}
