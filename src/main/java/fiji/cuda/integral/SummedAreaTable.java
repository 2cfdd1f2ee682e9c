package fiji.cuda.integral;

import net.imglib2.img.array.ArrayImg;
import net.imglib2.img.array.ArrayImgs;
import net.imglib2.img.basictypeaccess.array.DoubleArray;
import net.imglib2.img.basictypeaccess.array.LongArray;
import net.imglib2.type.numeric.real.DoubleType;
import net.imglib2.type.numeric.integer.LongType;

/**
 * The summed-area tables of one plane: Σ I and Σ I², inclusive and unbordered (seed 001):
 * entry (x, y) holds the sum over every pixel (x', y') with x' ≤ x and y' ≤ y, and the table
 * has the plane's own size. Integer planes (8 and 16-bit) give exact {@code long} tables;
 * 32-bit planes give {@code double} tables, accumulated along each row first and then down
 * each column (the order the GPU builds must keep to agree bit for bit).
 * <p>
 * Rectangle queries take inclusive corners and are clipped to the plane, so any rectangle
 * may be asked for; the part outside the plane contributes nothing.
 */
public final class SummedAreaTable {

	private final int width;
	private final int height;
	private final long[] sumL, sumSqL;
	private final double[] sumD, sumSqD;

	private SummedAreaTable(int width, int height, long[] sumL, long[] sumSqL, double[] sumD, double[] sumSqD) {
		this.width = width;
		this.height = height;
		this.sumL = sumL;
		this.sumSqL = sumSqL;
		this.sumD = sumD;
		this.sumSqD = sumSqD;
	}

	/** Wraps exact tables (for the CPU and GPU builds of this package); the arrays are not copied. */
	static SummedAreaTable ofLong(int width, int height, long[] sum, long[] sumSq) {
		checkLength(width, height, sum.length, sumSq.length);
		return new SummedAreaTable(width, height, sum, sumSq, null, null);
	}

	/** Wraps floating-point tables; the arrays are not copied. */
	static SummedAreaTable ofDouble(int width, int height, double[] sum, double[] sumSq) {
		checkLength(width, height, sum.length, sumSq.length);
		return new SummedAreaTable(width, height, null, null, sum, sumSq);
	}

	private static void checkLength(int w, int h, int a, int b) {
		if (a != (long) w * h || b != (long) w * h)
			throw new IllegalArgumentException("Tables of " + a + " and " + b + " entries for a " + w + "x" + h + " plane.");
	}

	/** @return the plane width, which is the table width */
	public int width() {
		return width;
	}

	/** @return the plane height, which is the table height */
	public int height() {
		return height;
	}

	/** @return true for the exact {@code long} tables of 8 and 16-bit planes, false for {@code double} tables */
	public boolean isExact() {
		return sumL != null;
	}

	/**
	 * @return the Σ I table as an ImgLib2 image of the plane's size, sharing this table's
	 *         array: {@code ArrayImg<LongType, ?>} when {@link #isExact()}, else
	 *         {@code ArrayImg<DoubleType, ?>}
	 */
	public ArrayImg<?, ?> sumImg() {
		return sumL != null ? ArrayImgs.longs(sumL, width, height) : ArrayImgs.doubles(sumD, width, height);
	}

	/** @return the Σ I² table as an ImgLib2 image; see {@link #sumImg()} */
	public ArrayImg<?, ?> sumSqImg() {
		return sumL != null ? ArrayImgs.longs(sumSqL, width, height) : ArrayImgs.doubles(sumSqD, width, height);
	}

	/**
	 * @return the Σ I table as {@code LongType}, sharing the array
	 * @throws IllegalStateException for the double tables of a 32-bit plane
	 */
	public ArrayImg<LongType, LongArray> sumLongImg() {
		requireExact();
		return ArrayImgs.longs(sumL, width, height);
	}

	/** @return the Σ I² table as {@code LongType}, sharing the array; see {@link #sumLongImg()} */
	public ArrayImg<LongType, LongArray> sumSqLongImg() {
		requireExact();
		return ArrayImgs.longs(sumSqL, width, height);
	}

	/**
	 * @return the Σ I table as {@code DoubleType}, sharing the array
	 * @throws IllegalStateException for the exact tables of an 8 or 16-bit plane
	 */
	public ArrayImg<DoubleType, DoubleArray> sumDoubleImg() {
		requireDouble();
		return ArrayImgs.doubles(sumD, width, height);
	}

	/** @return the Σ I² table as {@code DoubleType}, sharing the array; see {@link #sumDoubleImg()} */
	public ArrayImg<DoubleType, DoubleArray> sumSqDoubleImg() {
		requireDouble();
		return ArrayImgs.doubles(sumSqD, width, height);
	}

	/**
	 * Reads one table entry as it is stored, without clipping (for tests and the comparison
	 * with the GPU tables); {@link #boxSum} is the query that takes any rectangle.
	 *
	 * @param x column, 0 to {@link #width()} − 1
	 * @param y row, 0 to {@link #height()} − 1
	 * @return the table entry Σ I over [0, x] × [0, y]; a coordinate outside the plane gives
	 *         another entry or an {@link ArrayIndexOutOfBoundsException}
	 */
	public double sumAt(int x, int y) {
		int i = y * width + x;
		return sumL != null ? sumL[i] : sumD[i];
	}

	/**
	 * Reads one Σ I² entry as it is stored, without clipping; see {@link #sumAt}.
	 *
	 * @param x column, 0 to {@link #width()} − 1
	 * @param y row, 0 to {@link #height()} − 1
	 * @return the table entry Σ I² over [0, x] × [0, y]
	 */
	public double sumSqAt(int x, int y) {
		int i = y * width + x;
		return sumL != null ? sumSqL[i] : sumSqD[i];
	}

	/**
	 * Writes one table as a 32-bit image holds it. Each exact entry is rounded to float once:
	 * through a double (as {@link #sumAt} gives it) an entry past 2^53, as the Σ I² of a bright
	 * 16-bit image of 2 million pixels reaches, is rounded twice and can land one float step
	 * from the nearest float.
	 *
	 * @param squares the Σ I² table, else Σ I
	 * @param out     width·height floats, row by row
	 * @param threads at most this many threads, the caller's included
	 * @throws IllegalArgumentException when {@code out} is not of the table's size
	 */
	public void toFloats(boolean squares, float[] out, int threads) {
		int n = width * height;
		if (out == null || out.length != n)
			throw new IllegalArgumentException("A float table of " + width + "x" + height + " needs " + n + " floats, not "
				+ (out == null ? "none." : out.length + "."));
		if (sumL != null) {
			long[] s = squares ? sumSqL : sumL;
			fiji.cuda.ops.CpuParallel.forRange(0, n, threads, 1, (a, b) -> {
				for (int i = a; i < b; i++)
					out[i] = s[i];
			});
		} else {
			double[] s = squares ? sumSqD : sumD;
			fiji.cuda.ops.CpuParallel.forRange(0, n, threads, 1, (a, b) -> {
				for (int i = a; i < b; i++)
					out[i] = (float) s[i];
			});
		}
	}

	/**
	 * @param x0 left column, inclusive; may lie outside the plane
	 * @param y0 top row, inclusive; may lie outside the plane
	 * @param x1 right column, inclusive; may lie outside the plane
	 * @param y1 bottom row, inclusive; may lie outside the plane
	 * @return the number of pixels of the plane inside the rectangle with inclusive corners
	 *         (x0, y0) and (x1, y1); 0 when it misses the plane or x1 &lt; x0 or y1 &lt; y0
	 */
	public long boxCount(int x0, int y0, int x1, int y1) {
		int[] c = clip(x0, y0, x1, y1);
		return c == null ? 0 : (long) (c[2] - c[0]) * (c[3] - c[1]);
	}

	/**
	 * @param x0 left column, inclusive; may lie outside the plane
	 * @param y0 top row, inclusive; may lie outside the plane
	 * @param x1 right column, inclusive; may lie outside the plane
	 * @param y1 bottom row, inclusive; may lie outside the plane
	 * @return Σ I over the rectangle with inclusive corners (x0, y0) and (x1, y1), clipped to
	 *         the plane (0 when nothing is left); exact for 8 and 16-bit planes as long as the
	 *         sum is below 2^53, see {@link #boxSumExact}
	 */
	public double boxSum(int x0, int y0, int x1, int y1) {
		int[] c = clip(x0, y0, x1, y1);
		if (c == null) return 0;
		return sumL != null ? box(sumL, width, c[0], c[1], c[2], c[3]) : box(sumD, width, c[0], c[1], c[2], c[3]);
	}

	/**
	 * @param x0 left column, inclusive; may lie outside the plane
	 * @param y0 top row, inclusive; may lie outside the plane
	 * @param x1 right column, inclusive; may lie outside the plane
	 * @param y1 bottom row, inclusive; may lie outside the plane
	 * @return Σ I² over the clipped rectangle (0 when nothing is left); see {@link #boxSum}
	 */
	public double boxSumSq(int x0, int y0, int x1, int y1) {
		int[] c = clip(x0, y0, x1, y1);
		if (c == null) return 0;
		return sumL != null ? box(sumSqL, width, c[0], c[1], c[2], c[3]) : box(sumSqD, width, c[0], c[1], c[2], c[3]);
	}

	/**
	 * @param x0 left column, inclusive; may lie outside the plane
	 * @param y0 top row, inclusive; may lie outside the plane
	 * @param x1 right column, inclusive; may lie outside the plane
	 * @param y1 bottom row, inclusive; may lie outside the plane
	 * @return Σ I over the clipped rectangle, exactly (0 when nothing is left)
	 * @throws IllegalStateException for the double tables of a 32-bit plane
	 */
	public long boxSumExact(int x0, int y0, int x1, int y1) {
		requireExact();
		int[] c = clip(x0, y0, x1, y1);
		return c == null ? 0 : box(sumL, width, c[0], c[1], c[2], c[3]);
	}

	/**
	 * @param x0 left column, inclusive; may lie outside the plane
	 * @param y0 top row, inclusive; may lie outside the plane
	 * @param x1 right column, inclusive; may lie outside the plane
	 * @param y1 bottom row, inclusive; may lie outside the plane
	 * @return Σ I² over the clipped rectangle, exactly (0 when nothing is left)
	 * @throws IllegalStateException for the double tables of a 32-bit plane
	 */
	public long boxSumSqExact(int x0, int y0, int x1, int y1) {
		requireExact();
		int[] c = clip(x0, y0, x1, y1);
		return c == null ? 0 : box(sumSqL, width, c[0], c[1], c[2], c[3]);
	}

	/**
	 * @param x0 left column, inclusive; may lie outside the plane
	 * @param y0 top row, inclusive; may lie outside the plane
	 * @param x1 right column, inclusive; may lie outside the plane
	 * @param y1 bottom row, inclusive; may lie outside the plane
	 * @return the mean over the pixels of the plane inside the rectangle with inclusive corners
	 * @throws IllegalArgumentException when no pixel of the plane is inside
	 */
	public double boxMean(int x0, int y0, int x1, int y1) {
		int[] c = clipNonEmpty(x0, y0, x1, y1);
		long n = (long) (c[2] - c[0]) * (c[3] - c[1]);
		return sumL != null ? box(sumL, width, c[0], c[1], c[2], c[3]) / (double) n
			: box(sumD, width, c[0], c[1], c[2], c[3]) / n;
	}

	/**
	 * @param x0 left column, inclusive; may lie outside the plane
	 * @param y0 top row, inclusive; may lie outside the plane
	 * @param x1 right column, inclusive; may lie outside the plane
	 * @param y1 bottom row, inclusive; may lie outside the plane
	 * @return the population variance (Σ (I − mean)² / N) over the pixels of the plane inside
	 *         the rectangle; for 8 and 16-bit planes it is computed from the exact sums without
	 *         cancellation, so it is the correctly rounded variance up to two roundings
	 * @throws IllegalArgumentException when no pixel of the plane is inside
	 */
	public double boxVariance(int x0, int y0, int x1, int y1) {
		int[] c = clipNonEmpty(x0, y0, x1, y1);
		long n = (long) (c[2] - c[0]) * (c[3] - c[1]);
		if (sumL != null)
			return variance(box(sumL, width, c[0], c[1], c[2], c[3]), box(sumSqL, width, c[0], c[1], c[2], c[3]), n);
		return variance(box(sumD, width, c[0], c[1], c[2], c[3]), box(sumSqD, width, c[0], c[1], c[2], c[3]), n);
	}

	/** @return the corners clipped to the plane as {x0, y0, x1 exclusive, y1 exclusive}, or null when empty */
	private int[] clip(int x0, int y0, int x1, int y1) {
		int a = Math.max(0, x0), b = Math.max(0, y0);
		// inclusive to exclusive in long, so that Integer.MAX_VALUE corners do not overflow
		int c = (int) Math.min(width, x1 + 1L), d = (int) Math.min(height, y1 + 1L);
		return c <= a || d <= b ? null : new int[] { a, b, c, d };
	}

	private int[] clipNonEmpty(int x0, int y0, int x1, int y1) {
		int[] c = clip(x0, y0, x1, y1);
		if (c == null)
			throw new IllegalArgumentException("The rectangle (" + x0 + "," + y0 + ")-(" + x1 + "," + y1
				+ ") has no pixel inside the " + width + "x" + height + " image.");
		return c;
	}

	private void requireExact() {
		if (sumL == null) throw new IllegalStateException("The tables of a 32-bit image hold doubles, not exact integers.");
	}

	private void requireDouble() {
		if (sumL != null) throw new IllegalStateException("The tables of an 8 or 16-bit image hold exact integers, not doubles.");
	}

	long[] sumLong() {
		return sumL;
	}

	long[] sumSqLong() {
		return sumSqL;
	}

	double[] sumDouble() {
		return sumD;
	}

	double[] sumSqDouble() {
		return sumSqD;
	}

	/*
	 * The four-corner query of seed 001 (satBox) on an inclusive table of width w, for the
	 * rectangle [x0, x1) x [y0, y1) already inside the plane and not empty; the row above and
	 * the column left of the table count as zero.
	 */
	static long box(long[] s, int w, int x0, int y0, int x1, int y1) {
		long d = s[(y1 - 1) * w + (x1 - 1)];
		long b = y0 > 0 ? s[(y0 - 1) * w + (x1 - 1)] : 0;
		long c = x0 > 0 ? s[(y1 - 1) * w + (x0 - 1)] : 0;
		long a = x0 > 0 && y0 > 0 ? s[(y0 - 1) * w + (x0 - 1)] : 0;
		return d - b - c + a;
	}

	/** The same query on a double table; the order of the three operations is part of the contract. */
	static double box(double[] s, int w, int x0, int y0, int x1, int y1) {
		double d = s[(y1 - 1) * w + (x1 - 1)];
		double b = y0 > 0 ? s[(y0 - 1) * w + (x1 - 1)] : 0;
		double c = x0 > 0 ? s[(y1 - 1) * w + (x0 - 1)] : 0;
		double a = x0 > 0 && y0 > 0 ? s[(y0 - 1) * w + (x0 - 1)] : 0;
		return d - b - c + a;
	}

	/**
	 * Population variance from exact sums: (N·Q − S²) / N², with the numerator formed in 128
	 * bits (it reaches about 2^94 for 16-bit planes of 2^31 pixels), so that no cancellation
	 * occurs, then rounded once to double.
	 */
	static double variance(long s, long q, long n) {
		long aHi = Math.multiplyHigh(n, q), aLo = n * q;
		long bHi = Math.multiplyHigh(s, s), bLo = s * s;
		long lo = aLo - bLo;
		long hi = aHi - bHi - (Long.compareUnsigned(aLo, bLo) < 0 ? 1 : 0);
		if (hi < 0) return 0; // impossible for real sums (Cauchy-Schwarz); guards corrupt tables
		return unsigned128ToDouble(hi, lo) / ((double) n * n);
	}

	/** Population variance from floating-point sums: (Q − S·m) / N with m = S / N, never below 0. */
	static double variance(double s, double q, long n) {
		double m = s / n;
		double v = (q - s * m) / n;
		return v > 0 ? v : 0;
	}

	/** @return the unsigned 128-bit value hi·2^64 + lo, correctly rounded to double */
	static double unsigned128ToDouble(long hi, long lo) {
		if (hi == 0) return unsignedToDouble(lo);
		int bits = 64 - Long.numberOfLeadingZeros(hi);
		long top = (hi << (64 - bits)) | (lo >>> bits);
		if ((lo << (64 - bits)) != 0) top |= 1; // sticky bit: far below double precision, it only breaks ties
		return Math.scalb(unsignedToDouble(top), bits);
	}

	private static double unsignedToDouble(long v) {
		if (v >= 0) return v;
		return ((v >>> 1) | (v & 1)) * 2.0;
	}
}
