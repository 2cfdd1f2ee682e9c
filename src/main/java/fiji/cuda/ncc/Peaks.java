package fiji.cuda.ncc;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Turns score maps into detections: local maxima at or above a threshold, best first,
 * thinned by non-maximum suppression, and the sub-pixel position of a peak.
 */
public final class Peaks {

	/** Best score first; ties by plane, row, column, template, so the order is reproducible. */
	public static final Comparator<Detection> BEST_FIRST = Comparator.<Detection>comparingDouble(d -> -d.score)
		.thenComparingInt(d -> d.plane).thenComparingInt(d -> d.y).thenComparingInt(d -> d.x)
		.thenComparingInt(d -> d.template).thenComparingDouble(d -> d.angle)
		.thenComparing(d -> d.flipped);

	private Peaks() {}

	/**
	 * The threshold as the scores are held, in float: an exact score of 0.9 is stored as
	 * 0.899999976 and was dropped by {@code score_threshold=0.9}, though it is shown as 0.900.
	 * Rounding to float keeps the order of any two numbers, so no score at or above the
	 * threshold is dropped.
	 *
	 * @param threshold the lowest score kept, as the user gave it
	 * @return the float nearest to it, for comparisons with float scores
	 */
	static double asScore(double threshold) {
		return (float) threshold;
	}

	/**
	 * Finds the local maxima of a "valid" score map: pixels whose score is at least
	 * {@code threshold}, at least that of each of their 8 neighbours inside the map, and above
	 * those of the neighbours before them in raster order (the left one and the three above).
	 * A plateau therefore counts at those of its pixels that have no plateau neighbour before
	 * them: once, at its first pixel in raster order, for a rectangle, a disk or any other shape
	 * without a notch open to the top (a V or U of equal scores counts at the top of each arm).
	 * A flat background, where every window scores 0, would otherwise make each of its pixels a
	 * candidate for a threshold of 0 or below. NaN scores never count.
	 *
	 * @param map       the scores, row-major
	 * @param mapWidth  its width
	 * @param mapHeight its height
	 * @param box       a detection giving the box size, template, angle, flip and plane
	 *                  that every candidate gets (its position and score are ignored)
	 * @param threshold the lowest score kept
	 * @param refine    true to refine each peak's centre by {@link #refine}
	 * @return the candidates, best first
	 * @throws IllegalArgumentException when the map does not hold {@code mapWidth × mapHeight}
	 *                                  scores, or no box is given
	 */
	public static List<Detection> localMaxima(float[] map, int mapWidth, int mapHeight, Detection box,
		double threshold, boolean refine)
	{
		checkMap(map, mapWidth, mapHeight);
		if (box == null) throw new IllegalArgumentException(TemplateMatching.NAME + ": no box was given for the candidates.");
		List<Detection> out = new ArrayList<>();
		double lowest = asScore(threshold);
		for (int y = 0; y < mapHeight; y++)
			for (int x = 0; x < mapWidth; x++) {
				float v = map[y * mapWidth + x];
				if (!(v >= lowest) || !isLocalMax(map, mapWidth, mapHeight, x, y, v)) continue;
				double cx = x + box.width / 2, cy = y + box.height / 2;
				if (refine) {
					double[] d = refine(map, mapWidth, mapHeight, x, y);
					cx += d[0];
					cy += d[1];
				}
				out.add(new Detection(x, y, box.width, box.height, v, box.template, box.angle, box.flipped,
					box.plane, cx, cy));
			}
		out.sort(BEST_FIRST);
		return out;
	}

	private static boolean isLocalMax(float[] map, int w, int h, int x, int y, float v) {
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++) {
				int xx = x + dx, yy = y + dy;
				if ((dx | dy) == 0 || xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
				float n = map[yy * w + xx];
				if (dy < 0 || (dy == 0 && dx < 0) ? n >= v : n > v) return false;
			}
		return true;
	}

	/**
	 * Greedy non-maximum suppression: takes the candidates best first, and drops each whose
	 * box overlaps an already kept box of the same plane by an intersection over union above
	 * {@code maxOverlap}.
	 *
	 * @param candidates any order; not modified
	 * @param maxOverlap 0 to 1; 1 turns suppression off: every candidate is kept, and a box that
	 *                   two copies of a template both find (a symmetric template and its
	 *                   mirror, or its half turn) is reported twice
	 * @param maxObjects the most detections returned
	 * @return the kept detections, best first
	 * @throws IllegalArgumentException when there is no list, or it holds a null
	 */
	public static List<Detection> suppress(List<Detection> candidates, double maxOverlap, int maxObjects) {
		// a script's list with a hole in it ended in a bare NullPointerException inside the sort
		if (candidates == null) throw new IllegalArgumentException(TemplateMatching.NAME + ": there is no list of candidates.");
		List<Detection> sorted = new ArrayList<>(candidates);
		// one pass over the copy, an array: the caller's list may be linked, or refuse contains(null)
		for (int i = 0; i < sorted.size(); i++)
			if (sorted.get(i) == null)
				throw new IllegalArgumentException(TemplateMatching.NAME + ": detection " + (i + 1) + " of the candidates is missing.");
		sorted.sort(BEST_FIRST);
		List<Detection> kept = new ArrayList<>();
		if (!(maxOverlap >= 0)) {
			// a negative limit makes even disjoint boxes suppress each other: compare with all kept
			for (Detection d : sorted) {
				if (kept.size() >= maxObjects) break;
				boolean overlaps = false;
				for (Detection k : kept)
					if (k.plane == d.plane && k.iou(d) > maxOverlap) {
						overlaps = true;
						break;
					}
				if (!overlaps) kept.add(d);
			}
			return kept;
		}
		// an intersection over union is never above 1: nothing is compared
		if (maxOverlap >= 1) return new ArrayList<>(sorted.subList(0, Math.min(sorted.size(), Math.max(0, maxObjects))));
		// With a limit of 0 or more only intersecting boxes can suppress each other. Kept boxes
		// are filed by size class (the power of two at least their larger side), each class in a
		// grid of cells that size, by corner; a candidate looks only in the cells of each class
		// where an intersecting box's corner can lie, and skips a class whose areas are too far
		// from its own for any overlap above the limit (the intersection over union of two boxes
		// is at most the smaller area over the larger). Same result as comparing with every kept
		// box, without the quadratic cost when a low threshold and a high max_objects keep
		// hundreds of thousands, also of templates of different sizes in one bank.
		java.util.Map<Long, SizeClass> classes = new java.util.HashMap<>();
		for (Detection d : sorted) {
			if (kept.size() >= maxObjects) break;
			long area = (long) d.width * d.height;
			boolean overlaps = false;
			for (SizeClass c : classes.values())
				if (c.plane == d.plane && c.mayOverlap(area, maxOverlap) && c.overlaps(d, maxOverlap)) {
					overlaps = true;
					break;
				}
			if (!overlaps) {
				kept.add(d);
				int bits = 32 - Integer.numberOfLeadingZeros(Math.max(1, Math.max(d.width, d.height)) - 1);
				classes.computeIfAbsent(((long) d.plane << 6) | bits, k -> new SizeClass(d.plane, 1 << bits)).file(d, area);
			}
		}
		return kept;
	}

	/** The kept boxes of one plane whose larger side lies in (size / 2, size], filed by corner in cells of that size. */
	private static final class SizeClass {
		final int plane, size;
		final java.util.Map<Long, List<Detection>> cells = new java.util.HashMap<>();
		long minArea = Long.MAX_VALUE, maxArea;

		SizeClass(int plane, int size) {
			this.plane = plane;
			this.size = size;
		}

		void file(Detection d, long area) {
			cells.computeIfAbsent(cell(Math.floorDiv(d.x, size), Math.floorDiv(d.y, size)), k -> new ArrayList<>()).add(d);
			minArea = Math.min(minArea, area);
			maxArea = Math.max(maxArea, area);
		}

		/** Whether a box of this area could overlap one of this class by more than the limit. */
		boolean mayOverlap(long area, double maxOverlap) {
			// the bound rounds as iou's own division does, so a skipped class had nothing above the limit
			if (area > maxArea) return maxArea / (double) area > maxOverlap;
			if (area < minArea) return area / (double) minArea > maxOverlap;
			return true;
		}

		boolean overlaps(Detection d, double maxOverlap) {
			// an intersecting box of at most size x size has its corner within (d.x - size, d.x + width)
			int x0 = Math.floorDiv(d.x - size + 1, size), x1 = Math.floorDiv(d.x + d.width - 1, size);
			int y0 = Math.floorDiv(d.y - size + 1, size), y1 = Math.floorDiv(d.y + d.height - 1, size);
			for (int gy = y0; gy <= y1; gy++)
				for (int gx = x0; gx <= x1; gx++) {
					List<Detection> in = cells.get(cell(gx, gy));
					if (in != null)
						for (Detection k : in)
							if (k.iou(d) > maxOverlap) return true;
				}
			return false;
		}

		private static long cell(int gx, int gy) {
			return ((long) gx << 32) ^ (gy & 0xffffffffL);
		}
	}

	/**
	 * Sub-pixel position of a peak: a least-squares fit of
	 * {@code a + bx + cy + dx² + exy + fy²} to the 3x3 scores around {@code (x, y)}, and the
	 * fitted surface's maximum. Along an axis where the peak touches the map's edge, or when
	 * the fit has no maximum within one pixel, that axis falls back to a parabola through
	 * the three scores along it, or to 0.
	 *
	 * @param map a score map, row-major
	 * @param w   the map's width
	 * @param h   the map's height
	 * @param x   the peak's column, 0 to w − 1
	 * @param y   the peak's row, 0 to h − 1
	 * @return {dx, dy}, each within [-1, 1]; added to the integer peak position
	 * @throws IllegalArgumentException when the map does not hold {@code w × h} scores or the
	 *                                  peak lies outside it
	 */
	public static double[] refine(float[] map, int w, int h, int x, int y) {
		checkMap(map, w, h);
		if (x < 0 || y < 0 || x >= w || y >= h)
			throw new IllegalArgumentException(TemplateMatching.NAME + ": the peak (" + x + ", " + y + ") lies outside the " + w + "x" + h
				+ " score map.");
		float[] p = new float[9];
		for (int j = -1; j <= 1; j++)
			for (int i = -1; i <= 1; i++) {
				int xx = x + i, yy = y + j;
				if (xx >= 0 && yy >= 0 && xx < w && yy < h) p[3 * (j + 1) + i + 1] = map[yy * w + xx];
			}
		return refine(p, x > 0 && x < w - 1, y > 0 && y < h - 1);
	}

	/**
	 * {@link #refine(float[], int, int, int, int)} from the 3x3 scores around the peak.
	 *
	 * @param p   the scores at (x + i, y + j) in {@code p[3(j + 1) + i + 1]}; those outside the map are not read
	 * @param inX whether the peak has a neighbour on both sides along x
	 * @param inY the same along y
	 */
	static double[] refine(float[] p, boolean inX, boolean inY) {
		if (inX && inY) {
			double sx = 0, sy = 0, sxy = 0, side = 0, midX = 0, top = 0, midY = 0;
			for (int j = -1; j <= 1; j++)
				for (int i = -1; i <= 1; i++) {
					double f = p[3 * (j + 1) + i + 1];
					sx += i * f;
					sy += j * f;
					sxy += i * j * f;
					if (i != 0) side += f;
					else midX += f;
					if (j != 0) top += f;
					else midY += f;
				}
			double b = sx / 6, c = sy / 6, e = sxy / 4;
			double d = side / 6 - midX / 3, f = top / 6 - midY / 3;
			// gradient zero: [2d e; e 2f] (dx, dy) = -(b, c); a maximum needs it negative definite
			double det = 4 * d * f - e * e;
			if (d < 0 && det > 0) {
				double dx = (-b * 2 * f + c * e) / det, dy = (-c * 2 * d + b * e) / det;
				if (Math.abs(dx) <= 1 && Math.abs(dy) <= 1) return new double[] {dx, dy};
			}
		}
		return new double[] {inX ? parabola(p[3], p[4], p[5]) : 0, inY ? parabola(p[1], p[4], p[7]) : 0};
	}

	/**
	 * {@link #localMaxima} from peaks found elsewhere (on the GPU): the same detections, given
	 * each peak's position and the 3x3 scores around it.
	 *
	 * @param index     y·mapWidth + x of each peak, any order
	 * @param patches   9 scores per peak, as {@link #refine(float[], boolean, boolean)} takes them
	 * @return the candidates, best first
	 */
	static List<Detection> fromPeaks(int[] index, float[] patches, int mapWidth, int mapHeight, Detection box,
		boolean refine)
	{
		List<Detection> out = new ArrayList<>(index.length);
		for (int k = 0; k < index.length; k++) {
			int x = index[k] % mapWidth, y = index[k] / mapWidth;
			float[] p = java.util.Arrays.copyOfRange(patches, 9 * k, 9 * k + 9);
			double cx = x + box.width / 2, cy = y + box.height / 2;
			if (refine) {
				double[] d = refine(p, x > 0 && x < mapWidth - 1, y > 0 && y < mapHeight - 1);
				cx += d[0];
				cy += d[1];
			}
			out.add(new Detection(x, y, box.width, box.height, p[4], box.template, box.angle, box.flipped, box.plane,
				cx, cy));
		}
		out.sort(BEST_FIRST);
		return out;
	}

	/** @return the vertex offset of the parabola through (-1, a), (0, b), (1, c), or 0 if it has none near */
	private static double parabola(double a, double b, double c) {
		double curv = a - 2 * b + c;
		if (!(curv < 0)) return 0;
		double d = 0.5 * (a - c) / curv;
		return Math.abs(d) <= 1 ? d : 0;
	}

	/** A script's map of another size read past its end, or gave peaks at wrong places, with no message. */
	private static void checkMap(float[] map, int w, int h) {
		if (map == null) throw new IllegalArgumentException(TemplateMatching.NAME + ": there is no score map.");
		if (w < 0 || h < 0 || map.length != (long) w * h)
			throw new IllegalArgumentException(TemplateMatching.NAME + ": a " + w + "x" + h + " score map needs " + Math.max(0, (long) w * h)
				+ " scores, not " + map.length + ".");
	}
}
