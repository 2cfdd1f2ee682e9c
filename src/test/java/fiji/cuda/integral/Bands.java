package fiji.cuda.integral;

import java.util.function.Supplier;

/** Runs work with the CPU path's tables built in bands of another height, for the tests of the bands. */
final class Bands {

	/** A band height that makes one band of any plane: the whole tables. */
	static final int WHOLE = Integer.MAX_VALUE / 4;

	private Bands() {}

	/** @return what {@code work} gives with bands of {@code rows} rows; the height is put back after */
	static <T> T of(int rows, Supplier<T> work) {
		int saved = IntegralImageCpu.bandRows;
		IntegralImageCpu.bandRows = rows;
		try {
			return work.get();
		} finally {
			IntegralImageCpu.bandRows = saved;
		}
	}
}
