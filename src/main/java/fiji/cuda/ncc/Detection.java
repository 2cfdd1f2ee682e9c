package fiji.cuda.ncc;

/**
 * One object found by template matching: the template-sized box where it matched, its
 * score, and which template of a bank (with which rotation and flip) found it.
 * <p>
 * Coordinates are in pixels of the searched image. {@code x, y} is the box's top-left
 * corner, where the template's top-left pixel lay; the centre is {@code x + width/2,
 * y + height/2} in integer division, the pixel a "same size" score map holds the score at.
 * The refined centre is the centre moved by a sub-pixel fit, or equal to it when no
 * refinement was asked for.
 */
public final class Detection {

	/** Box corner, the template's top-left pixel. */
	public final int x, y;
	/** Box size, the (rotated) template's size. */
	public final int width, height;
	/** TM_CCOEFF_NORMED score, -1 to 1. */
	public final double score;
	/** 0-based index of the template in the caller's list (before rotations and flips). */
	public final int template;
	/** Rotation of the template in degrees, counter-clockwise as displayed. */
	public final double angle;
	/** True when the template was mirrored left to right (before rotating). */
	public final boolean flipped;
	/** 0-based plane of the image it was found in. */
	public final int plane;
	/** Centre with sub-pixel refinement, or the integer centre. */
	public final double refinedX, refinedY;

	/**
	 * @param x        box corner x
	 * @param y        box corner y
	 * @param width    box width
	 * @param height   box height
	 * @param score    the score at the corner
	 * @param template 0-based template index
	 * @param angle    rotation in degrees
	 * @param flipped  mirrored left to right
	 * @param plane    0-based plane
	 * @param refinedX refined centre x
	 * @param refinedY refined centre y
	 * @throws IllegalArgumentException when the box is narrower or lower than 1 pixel (a template
	 *                                  is at least 1x1), or the score is not a number
	 */
	public Detection(int x, int y, int width, int height, double score, int template, double angle, boolean flipped,
		int plane, double refinedX, double refinedY)
	{
		// a template, and so its box, is at least 1x1; a script's empty or negative box overlapped
		// nothing, not even itself (iou 0), so suppression never dropped its duplicates
		if (width < 1 || height < 1)
			throw new IllegalArgumentException(TemplateMatching.NAME + ": a detection's box must be at least 1x1 pixels, not "
				+ width + "x" + height + ".");
		// no score map gives one (a NaN is never a peak); a script's would be ranked below -1
		if (Double.isNaN(score))
			throw new IllegalArgumentException(TemplateMatching.NAME + ": a detection's score is not a number.");
		this.x = x;
		this.y = y;
		this.width = width;
		this.height = height;
		this.score = score;
		this.template = template;
		this.angle = angle;
		this.flipped = flipped;
		this.plane = plane;
		this.refinedX = refinedX;
		this.refinedY = refinedY;
	}

	/** @return the centre's x: {@code x + width/2} */
	public int centreX() {
		return x + width / 2;
	}

	/** @return the centre's y: {@code y + height/2} */
	public int centreY() {
		return y + height / 2;
	}

	/**
	 * @param dx pixels to add to x (and to the refined centre's x)
	 * @param dy pixels to add to y (and to the refined centre's y)
	 * @return the same detection moved by (dx, dy), e.g. from a search rectangle to the image;
	 *         this one is unchanged
	 */
	public Detection shifted(int dx, int dy) {
		return new Detection(x + dx, y + dy, width, height, score, template, angle, flipped, plane, refinedX + dx,
			refinedY + dy);
	}

	/**
	 * How much two boxes overlap, for suppressing duplicate detections; planes are not compared.
	 *
	 * @param o the other detection
	 * @return intersection over union of the two boxes, 0 (apart, or both empty) to 1 (the same box)
	 * @throws IllegalArgumentException when there is no other detection
	 */
	public double iou(Detection o) {
		// a caller's list with a hole in it: a bare NullPointerException named nothing
		if (o == null) throw new IllegalArgumentException(TemplateMatching.NAME + ": there is no detection to compare with.");
		long ix = Math.max(0, Math.min(x + width, o.x + o.width) - Math.max(x, o.x));
		long iy = Math.max(0, Math.min(y + height, o.y + o.height) - Math.max(y, o.y));
		long inter = ix * iy;
		long union = (long) width * height + (long) o.width * o.height - inter;
		return union > 0 ? inter / (double) union : 0;
	}

	@Override
	public String toString() {
		return String.format(java.util.Locale.ROOT,
			"template %d%s%s at (%d,%d) %dx%d score %.4f", template, angle != 0 ? " angle " + angle : "",
			flipped ? " flipped" : "", x, y, width, height, score);
	}
}
