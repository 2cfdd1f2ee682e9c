package fiji.cuda.image;

/**
 * The part of a plane an operation writes: a rectangle, and optionally a mask over
 * it. As in ImageJ, pixels outside the rectangle are read (as neighbours) but never
 * written, and where a mask is given the pixels of the rectangle outside the mask are
 * restored after the operation.
 */
public final class Region {

	/** Left edge, inclusive. */
	public final int x;
	/** Top edge, inclusive. */
	public final int y;
	/** Width in pixels. */
	public final int width;
	/** Height in pixels. */
	public final int height;
	/** Mask over the rectangle, row-major, non-zero = inside; or null for the whole rectangle. */
	public final byte[] mask;

	/**
	 * @param x      left edge
	 * @param y      top edge
	 * @param width  width, at least 1
	 * @param height height, at least 1
	 * @param mask   width*height mask bytes (non-zero = inside), or null
	 */
	public Region(int x, int y, int width, int height, byte[] mask) {
		if (width < 1 || height < 1)
			throw new IllegalArgumentException("The selection has zero area (" + width + "x" + height + ").");
		if (mask != null && mask.length != (long) width * height)
			throw new IllegalArgumentException("The selection mask has " + mask.length + " pixels, expected "
				+ ((long) width * height) + ".");
		this.x = x;
		this.y = y;
		this.width = width;
		this.height = height;
		this.mask = mask;
	}

	/**
	 * @param width  plane width, at least 1
	 * @param height plane height, at least 1
	 * @return the whole plane of the given size, unmasked
	 * @throws IllegalArgumentException when a side is below 1
	 */
	public static Region all(int width, int height) {
		return new Region(0, 0, width, height, null);
	}

	/**
	 * Lets an operation take its whole-plane path, e.g. the blur's batched copies of whole planes.
	 *
	 * @param planeWidth  the plane's width
	 * @param planeHeight the plane's height
	 * @return true when this region is the whole plane without a mask
	 */
	public boolean isAll(int planeWidth, int planeHeight) {
		return x == 0 && y == 0 && width == planeWidth && height == planeHeight && mask == null;
	}

	/**
	 * Clips a selection that reaches past the image, as ImageJ's selections may, to the plane;
	 * the mask is cut to match.
	 *
	 * @param planeWidth  the plane's width
	 * @param planeHeight the plane's height
	 * @return this region clipped to the plane: this same object when it already lies inside
	 * @throws IllegalArgumentException when it lies wholly outside the plane
	 */
	public Region clipTo(int planeWidth, int planeHeight) {
		return clipTo(planeWidth, planeHeight, "The selection");
	}

	/**
	 * As {@link #clipTo(int, int)}, with the message naming what lies outside: a script calling an
	 * operation with a rectangle off the image heard "The selection lies outside the image."
	 * without the operation, where every other refusal names it.
	 *
	 * @param planeWidth  the plane's width
	 * @param planeHeight the plane's height
	 * @param what        the start of the message, e.g. "Gaussian Blur: the selection"
	 * @return this region clipped to the plane: this same object when it already lies inside
	 * @throws IllegalArgumentException "WHAT lies outside the image." when it lies wholly outside
	 */
	public Region clipTo(int planeWidth, int planeHeight, String what) {
		int x0 = Math.max(0, x), y0 = Math.max(0, y);
		// the far edges in long: a rectangle reaching to Integer.MAX_VALUE ("everything right
		// of x") would otherwise wrap around to a negative edge and seem to lie outside
		int x1 = (int) Math.min(planeWidth, (long) x + width), y1 = (int) Math.min(planeHeight, (long) y + height);
		if (x1 <= x0 || y1 <= y0)
			throw new IllegalArgumentException(what + " lies outside the image.");
		if (x0 == x && y0 == y && x1 - x0 == width && y1 - y0 == height) return this;
		byte[] m = null;
		if (mask != null) {
			m = new byte[(x1 - x0) * (y1 - y0)];
			for (int r = y0; r < y1; r++)
				System.arraycopy(mask, (r - y) * width + (x0 - x), m, (r - y0) * (x1 - x0), x1 - x0);
		}
		return new Region(x0, y0, x1 - x0, y1 - y0, m);
	}

	@Override
	public String toString() {
		return "[" + x + "," + y + " " + width + "x" + height + (mask != null ? " masked" : "") + "]";
	}
}
