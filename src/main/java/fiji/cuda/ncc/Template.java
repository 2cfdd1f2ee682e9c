package fiji.cuda.ncc;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Texts;

import java.util.ArrayList;
import java.util.List;

/**
 * One template of a bank: its pixels (one plane), an optional mask of the pixels that count,
 * and where it came from: the index of the caller's template, the rotation and the flip that
 * made it.
 * <p>
 * Rotated copies ({@link #rotated}) are 32-bit: each pixel is sampled from the original by
 * bilinear interpolation, the copy is the rotated template's bounding box, and its mask keeps
 * only the pixels whose four source neighbours all lie in the template (and in its mask, if it
 * has one). Rotations by multiples of 90 degrees sample pixel centres exactly, so they only
 * move pixels. Flipped copies mirror left to right and keep the pixel type.
 */
public final class Template {

	/** The pixels, a single plane. */
	public final Planes pixels;
	/** Non-zero where a pixel counts, row-major, template-sized; or null for all. */
	public final byte[] mask;
	/** 0-based index of the template this one derives from. */
	public final int index;
	/** Rotation in degrees, counter-clockwise as displayed. */
	public final double angle;
	/** True when mirrored left to right (before the rotation). */
	public final boolean flipped;

	/**
	 * @param pixels  the template; only its first plane is used
	 * @param mask    template-sized mask (non-zero counts), or null
	 * @param index   0-based index reported with its detections
	 * @param angle   rotation it represents, degrees
	 * @param flipped whether it is mirrored
	 * @throws IllegalArgumentException when there is no template, or the mask is not
	 *         template-sized or selects no pixel
	 */
	public Template(Planes pixels, byte[] mask, int index, double angle, boolean flipped) {
		if (pixels == null) throw new IllegalArgumentException(TemplateMatching.NAME + ": there is no template.");
		// here, not only when matching: mirrored() and rotated() index the mask by the template
		TemplateMatching.checkMask(mask, pixels.width(), pixels.height());
		this.pixels = pixels.depth() == 1 ? pixels : pixels.range(0, 1);
		this.mask = mask;
		this.index = index;
		this.angle = angle;
		this.flipped = flipped;
	}

	/** @return the template's width in pixels */
	public int width() {
		return pixels.width();
	}

	/** @return the template's height in pixels */
	public int height() {
		return pixels.height();
	}

	/**
	 * @return true when every pixel that counts (all, or the mask's) has the same value, as in
	 *         any 1x1 template: such a template has no variance to correlate, so it scores 0
	 *         everywhere and finds nothing
	 */
	public boolean isFlat() {
		Object a = pixels.plane(0);
		PixelType type = pixels.type();
		boolean seen = false;
		double first = 0;
		for (int i = 0; i < width() * height(); i++) {
			if (mask != null && mask[i] == 0) continue;
			double v = TemplateMatchingCpu.value(a, type, i);
			if (!seen) {
				first = v;
				seen = true;
			} else if (v != first) {
				return false; // a NaN differs from everything, itself included
			}
		}
		return true;
	}

	/**
	 * Every plane of a template stack as a template, each with the same mask.
	 *
	 * @param stack one template per plane
	 * @param mask  template-sized, or null
	 * @return templates with indices 0 to depth-1
	 * @throws IllegalArgumentException when there is no stack, or the mask is not template-sized
	 */
	public static List<Template> fromPlanes(Planes stack, byte[] mask) {
		if (stack == null) throw new IllegalArgumentException(TemplateMatching.NAME + ": there is no template.");
		List<Template> out = new ArrayList<>();
		for (int z = 0; z < stack.depth(); z++)
			out.add(new Template(stack.range(z, z + 1), mask, z, 0, false));
		return out;
	}

	/**
	 * A bank: for each template, itself and, if asked, its mirror image, each at every angle.
	 * Each copy carries the angle as given (360 stays 360, though it keeps the original's
	 * pixels), so that detections report the angle asked for. Angles that are the same
	 * rotation (0 and 360, 90 and -270) make one copy, under the first of them: matching the
	 * same pixels twice would only cost time and, with non-maximum suppression off, list
	 * every object twice.
	 *
	 * @param templates the originals (angle 0, not flipped)
	 * @param flip      also add mirrored copies
	 * @param angles    rotations in degrees; null or empty means {0}; multiples of 360 keep the
	 *                  original's pixels
	 * @return the bank, template by template, unflipped first, angles in the given order
	 * @throws IllegalArgumentException when there are no templates, the list holds a null, an angle
	 *         is not finite, or a rotation refuses the template ({@link #rotated})
	 */
	public static List<Template> bank(List<Template> templates, boolean flip, double[] angles) {
		if (templates == null) throw new IllegalArgumentException(TemplateMatching.NAME + ": there is no template.");
		// mirrored or rotated, a null was a NullPointerException; else it went into the bank as it was
		for (Template t : templates)
			if (t == null)
				throw new IllegalArgumentException(TemplateMatching.NAME + ": the list of templates holds a null.");
		if (angles == null || angles.length == 0) angles = new double[] {0};
		for (double a : angles)
			if (!Double.isFinite(a))
				throw new IllegalArgumentException(TemplateMatching.NAME + ": the angle " + Texts.number(a) + " is not a finite number.");
		List<Double> distinct = new ArrayList<>();
		for (double a : angles)
			if (distinct.stream().noneMatch(b -> sameRotation(a, b))) distinct.add(a);
		List<Template> out = new ArrayList<>();
		for (Template t : templates)
			for (int f = 0; f < (flip ? 2 : 1); f++) {
				Template base = f == 0 ? t : t.mirrored();
				for (double a : distinct)
					out.add(a == 0 ? base : a % 360 == 0 ? base.at(a) : base.rotated(a));
			}
		return out;
	}

	/** @return whether turning by a and by b degrees is the same rotation */
	static boolean sameRotation(double a, double b) {
		double d = Math.abs((a - b) % 360);
		// within rounding of a whole turn, as 0.1 and 360.1 are
		return Math.min(d, 360 - d) < 1e-9;
	}

	/** @return the same pixels, labelled with another angle equivalent to this one's */
	private Template at(double degrees) {
		return new Template(pixels, mask, index, degrees, flipped);
	}

	/** @return this template mirrored left to right, same type */
	public Template mirrored() {
		int w = width(), h = height();
		PixelType type = pixels.type();
		Object src = pixels.plane(0), dst = type.newPlane(w * h);
		byte[] m = mask == null ? null : new byte[w * h];
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				int i = y * w + x, j = y * w + (w - 1 - x);
				System.arraycopy(src, i, dst, j, 1);
				if (m != null) m[j] = mask[i];
			}
		return new Template(Planes.wrap(w, h, dst), m, index, angle, !flipped);
	}

	/**
	 * @param degrees counter-clockwise as displayed, finite
	 * @return {width, height} of {@link #rotated}'s bounding box, without making it: a box larger
	 *         than the image can be refused before its pixels are allocated
	 */
	public int[] rotatedSize(double degrees) {
		double rad = Math.toRadians(degrees);
		double cos = snap(Math.cos(rad)), sin = snap(Math.sin(rad));
		int w = width(), h = height();
		int ow = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(Math.abs(w * cos) + Math.abs(h * sin) - 1e-6)));
		int oh = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(Math.abs(w * sin) + Math.abs(h * cos) - 1e-6)));
		return new int[] { ow, oh };
	}

	/**
	 * @param degrees counter-clockwise as displayed
	 * @return this template rotated about its centre into its bounding box, 32-bit, with a mask
	 *         of the pixels that could be sampled (null when all could)
	 * @throws IllegalArgumentException when the angle is not a finite number, the template is RGB,
	 *                                  the rotated box would hold more pixels than an array can, or
	 *                                  no pixel could be sampled
	 */
	public Template rotated(double degrees) {
		// NaN gave a 1x1 template of NaN, which matched nothing without a word
		if (!Double.isFinite(degrees))
			throw new IllegalArgumentException(TemplateMatching.NAME + ": the angle " + Texts.number(degrees) + " is not a finite number.");
		int w = width(), h = height();
		PixelType type = pixels.type();
		if (type == PixelType.RGB)
			throw new IllegalArgumentException(TemplateMatching.NAME + ": the template is RGB, which is not supported. "
				+ Texts.CONVERT_RGB);
		double rad = Math.toRadians(degrees);
		double cos = snap(Math.cos(rad)), sin = snap(Math.sin(rad));
		int[] size = rotatedSize(degrees);
		int ow = size[0], oh = size[1];
		// a long template's box at 45 degrees passed 2^31 pixels: a NegativeArraySizeException
		if ((long) ow * oh > Integer.MAX_VALUE - 8)
			throw new IllegalArgumentException(TemplateMatching.NAME + ": the template rotated by " + Texts.number(degrees)
				+ " degrees would be " + ow + "x" + oh + " pixels, more than an image can hold; leave that angle out, or "
				+ "use a smaller template.");
		double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0, ocx = (ow - 1) / 2.0, ocy = (oh - 1) / 2.0;
		Object src = pixels.plane(0);
		float[] out = new float[ow * oh];
		byte[] m = new byte[ow * oh];
		int valid = 0;
		for (int y = 0; y < oh; y++)
			for (int x = 0; x < ow; x++) {
				double u = x - ocx, v = y - ocy;
				// the inverse of the display rotation (y points down): source = R(-angle) applied to (u, v)
				double sx = snap(cx + u * cos - v * sin), sy = snap(cy + u * sin + v * cos);
				if (sx < 0 || sy < 0 || sx > w - 1 || sy > h - 1) continue;
				int x0 = Math.min((int) sx, Math.max(0, w - 2)), y0 = Math.min((int) sy, Math.max(0, h - 2));
				double fx = sx - x0, fy = sy - y0;
				double acc = 0;
				boolean inMask = true;
				for (int j = 0; j <= 1; j++)
					for (int i = 0; i <= 1; i++) {
						double wt = (i == 0 ? 1 - fx : fx) * (j == 0 ? 1 - fy : fy);
						if (wt == 0) continue;
						int k = (y0 + j) * w + x0 + i;
						if (mask != null && mask[k] == 0) inMask = false;
						acc += wt * TemplateMatchingCpu.value(src, type, k);
					}
				if (!inMask) continue;
				out[y * ow + x] = (float) acc;
				m[y * ow + x] = 1;
				valid++;
			}
		// only a template 1 pixel wide or high gets here (no sample has all its neighbours in a
		// line but those falling exactly on it): the bare "leaves no pixel" said neither why nor what to do
		if (valid == 0)
			throw new IllegalArgumentException(TemplateMatching.NAME + ": rotating the " + w + "x" + h + " template by "
				+ Texts.number(degrees) + " degrees leaves no pixel (turned by other than a multiple of 90 degrees, a "
				+ "template 1 pixel wide or high keeps only pixels that fall exactly on it); leave that angle out, or use "
				+ "a template at least 2 pixels wide and high.");
		return new Template(Planes.wrap(ow, oh, out), valid == ow * oh ? null : m, index, degrees, flipped);
	}

	/** Rounds values within 1e-9 of an integer to it, so that 90-degree turns hit pixel centres. */
	private static double snap(double v) {
		double r = Math.rint(v);
		return Math.abs(v - r) < 1e-9 ? r : v;
	}

	@Override
	public String toString() {
		return "template " + index + (angle != 0 ? " at " + angle + " deg" : "") + (flipped ? ", flipped" : "") + " ("
			+ width() + "x" + height() + (mask != null ? ", masked" : "") + ")";
	}
}
