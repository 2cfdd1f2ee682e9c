package fiji.cuda.integral;

/**
 * A rectangular window placed on every pixel. A window of odd width w covers the pixel and
 * (w−1)/2 columns on each side; for an even width the extra column lies to the right, so
 * the window of pixel x spans columns x − (w−1)/2 to x + w/2 (integer division). Rows work the
 * same way, the extra row lying below. A square window of radius r has side 2r+1.
 * <p>
 * At the borders the window is clipped to the image, and a statistic over it uses only the
 * pixels inside: near an edge a window covers fewer than w·h pixels.
 */
public final class Window {

	private final int width;
	private final int height;

	private Window(int width, int height) {
		this.width = width;
		this.height = height;
	}

	/**
	 * @param radius at least 1
	 * @return the square window of side 2·radius+1 centred on each pixel
	 * @throws IllegalArgumentException when radius &lt; 1 (or so large that the side overflows)
	 */
	public static Window square(int radius) {
		if (radius < 1)
			throw new IllegalArgumentException("The radius must be at least 1, not " + radius + ".");
		if (radius > (Integer.MAX_VALUE - 1) / 2)
			throw new IllegalArgumentException("The radius " + radius + " is too large.");
		return new Window(2 * radius + 1, 2 * radius + 1);
	}

	/**
	 * @param width  columns, at least 1
	 * @param height rows, at least 1
	 * @return the window of that size, anchored as the class documentation says
	 * @throws IllegalArgumentException when a side is below 1
	 */
	public static Window rectangle(int width, int height) {
		if (width < 1 || height < 1)
			throw new IllegalArgumentException("The window must be at least 1x1 pixels, not " + width + "x" + height + ".");
		return new Window(width, height);
	}

	/** @return the window width in pixels (before clipping) */
	public int width() {
		return width;
	}

	/** @return the window height in pixels (before clipping) */
	public int height() {
		return height;
	}

	/** @return columns of the window left of its pixel: (width − 1) / 2 */
	public int left() {
		return (width - 1) / 2;
	}

	/** @return columns right of its pixel: width / 2 */
	public int right() {
		return width / 2;
	}

	/** @return rows above its pixel: (height − 1) / 2 */
	public int above() {
		return (height - 1) / 2;
	}

	/** @return rows below its pixel: height / 2 */
	public int below() {
		return height / 2;
	}

	@Override
	public String toString() {
		return width + "x" + height;
	}
}
