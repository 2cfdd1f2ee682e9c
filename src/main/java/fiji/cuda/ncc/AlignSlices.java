package fiji.cuda.ncc;

import fiji.cuda.ops.CpuParallel;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.Fallback;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Progress;
import fiji.cuda.ops.Texts;
import fiji.cuda.runtime.GpuAccess;
import fiji.cuda.runtime.GpuException;

import java.util.ArrayList;
import java.util.List;

/**
 * Stack registration by a landmark: a rectangle cut from a reference slice is found in every
 * other slice by normalized cross-correlation ({@link TemplateMatching}, TM_CCOEFF_NORMED),
 * and each slice is translated, in place, so that the landmark comes back to where it was in
 * the reference. On the GPU ({@link AlignSlicesGpu}) the matching and the translation both run
 * on the device; the translation is bit for bit the CPU path's, and the shifts agree to the
 * precision of the scores (1e-4).
 * <ul>
 * <li><b>Search.</b> In each slice the landmark is searched within {@code margin} pixels of
 * its position in every direction (the rectangle expanded by the margin, clipped to the
 * image). The best score wins; among equal scores the one nearest the expected position. In
 * "previous slice" mode the template is cut from the neighbouring slice already aligned, and
 * the search is centred where that neighbour's landmark was found, so the margin bounds the
 * motion between consecutive slices rather than the total drift; slices are then processed
 * outwards from the reference.</li>
 * <li><b>Sub-pixel.</b> With sub-pixel shifts the peak is refined by {@link Peaks#refine} (a
 * quadratic fit to the 3x3 scores around it). A perfect score (at least 1 − 1e-6) means the
 * landmark occurs exactly at a whole-pixel position, and is not refined: the fit could only
 * add its bias. A peak on the edge of the searched area is not refined along that axis.</li>
 * <li><b>Translation</b> is ImageJ's {@code ImageProcessor.translate(dx, dy)}, bit for bit:
 * whole-pixel shifts only move pixels; otherwise each pixel is sampled at (x − dx, y − dy)
 * bilinearly or bicubically (ImageJ's Catmull-Rom bicubic, falling back to clamped bilinear
 * within a pixel of the border). Pixels whose source lies outside the image become 0, also
 * for 32-bit images (ImageJ's translate uses a background of 0). A quirk kept for
 * compatibility: with bilinear interpolation and a fractional shift, a source position in the
 * last column or row ({@code x ≥ width − 1}) also gives 0. A plane 1 pixel wide or high has no
 * neighbourhood to interpolate in, so a fractional shift makes it 0 (ImageJ fails there). 8
 * and 16-bit results are rounded
 * (bilinear half up, bicubic by truncating v + 0.5) and clamped to the type's range.</li>
 * <li><b>Shifts</b> are reported as the translation applied to each slice: positive dX moves
 * the slice right, positive dY down; the landmark had moved by (−dX, −dY). The reference
 * slice is reported with shift 0 and score 1. A slice where nothing scores above 0 (a flat
 * search area or, in "previous slice" mode, a flat template) keeps the shift of the slice it
 * was compared with (0 for a fixed reference) and reports its best score (NaN where the
 * template was flat or not finite, and nothing was scored).</li>
 * <li><b>Types.</b> 8, 16 and 32-bit. RGB is refused: convert to 8-bit or split the channels,
 * align one and apply the shifts to the others.</li>
 * <li><b>Cancellation</b> is checked between slices; a canceled run leaves every slice either
 * translated or untouched, and returns the shifts of the slices done.</li>
 * </ul>
 */
public final class AlignSlices {

	/**
	 * The operation's name in its error messages and Log lines, and in its menu entry,
	 * "GPU Align Slices...".
	 */
	public static final String NAME = "Align Slices";

	/** Scores at or above this are a perfect match at a whole-pixel position. */
	static final double PERFECT = 1 - 1e-6;

	private AlignSlices() {}

	/** How a fractional shift samples the pixels, as in ImageJ. */
	public enum Interpolation {
		/** Linear in x and y from the 4 nearest pixels. */
		BILINEAR,
		/** ImageJ's bicubic (Catmull-Rom, a = 0.5) from the 16 nearest pixels. */
		BICUBIC
	}

	/** What to align and how; the defaults are those of the command's dialog. */
	public static final class Settings {
		/** The landmark rectangle in the reference slice, which must lie wholly inside the image. */
		public int x, y, width, height;
		/** How far, in pixels, the landmark is searched around its position; at least 0. */
		public int margin = 20;
		/** 0-based reference slice (the first slice compared in "previous slice" mode). */
		public int reference;
		/** Compare each slice with its already aligned neighbour instead of the reference. */
		public boolean previous;
		/** Refine shifts to sub-pixel precision (else they are whole pixels). */
		public boolean subpixel = true;
		/** How fractional shifts sample the pixels. */
		public Interpolation interpolation = Interpolation.BILINEAR;

		/** @return the landmark as a region */
		public Region landmark() {
			return new Region(x, y, width, height, null);
		}

		/**
		 * Sets the landmark rectangle; checked against the image only when the stack is aligned.
		 *
		 * @param x      left edge in the reference slice, pixels
		 * @param y      top edge, pixels
		 * @param width  width, pixels
		 * @param height height, pixels
		 * @return these settings, changed, for chaining
		 */
		public Settings landmark(int x, int y, int width, int height) {
			this.x = x;
			this.y = y;
			this.width = width;
			this.height = height;
			return this;
		}
	}

	/** The translation applied to one slice, and how well its landmark matched. */
	public static final class Shift {
		/** 0-based slice. */
		public final int plane;
		/** Translation applied, pixels: positive moves right, resp. down. */
		public final double dx, dy;
		/** The landmark's best score in this slice (1 for the reference). */
		public final double score;

		/**
		 * @param plane 0-based slice
		 * @param dx    translation along x
		 * @param dy    translation along y
		 * @param score the best score
		 */
		public Shift(int plane, double dx, double dy, double score) {
			this.plane = plane;
			this.dx = dx;
			this.dy = dy;
			this.score = score;
		}

		@Override
		public String toString() {
			return String.format(java.util.Locale.ROOT, "slice %d: (%.3f, %.3f) score %.4f", plane + 1, dx, dy, score);
		}
	}

	/**
	 * Aligns every slice to the reference, in place.
	 *
	 * @param stack the slices, changed in place; each an array of its own
	 * @param s     landmark, margin, reference, mode, sub-pixel and interpolation
	 * @param opts  backend and threads of the matching, progress and cancellation (between slices,
	 *              and on the CPU within a slice's matching, before the slice is touched)
	 * @return one shift per slice done, in slice order (all slices unless canceled)
	 * @throws IllegalArgumentException for bad input, before any slice is changed
	 * @throws PartlyDoneException      when a failure stops it after some slices are aligned: each
	 *                                  slice is aligned or unchanged, and the message says which
	 * @throws GpuException             only when the GPU was forced and failed; where slices were
	 *                                  aligned before it failed, the message says which
	 */
	public static List<Shift> align(Planes stack, Settings s, ExecutionOptions opts) {
		check(stack, s);
		// slices are moved one after another: the later slice of one array was matched already
		// moved, its shift reported as about 0, and a fractional one interpolated it twice
		stack.checkOwnArrays(NAME, "slices");
		opts = ExecutionOptions.orDefaults(opts);
		Interpolation interp = s.interpolation == null ? Interpolation.BILINEAR : s.interpolation;
		Region landmark = s.landmark();
		Planes fixed = TemplateMatching.crop(stack, s.reference, landmark);
		if (!usable(fixed))
			// "choose a landmark with structure" was the advice for a landmark of noise with one NaN too
			throw new IllegalArgumentException(NAME + ": the landmark is " + (flat(fixed)
				? "flat in slice " + (s.reference + 1) + " (all its pixels are equal); choose a landmark with structure."
				: "not finite in slice " + (s.reference + 1) + " (it holds NaN or infinite pixels); move it off them, or "
					+ "replace them first (Process>Math>Remove NaNs...)."));
		int n = stack.depth();
		Shift[] done = new Shift[n];
		done[s.reference] = new Shift(s.reference, 0, 0, 1);
		Progress progress = opts.progress();
		int[] order = order(n, s.reference, s.previous);
		ExecutionOptions matchOpts = opts.withProgress(Progress.NONE);
		int k = 0;
		if (opts.backend() != Backend.CPU && stack.depth() > 1) {
			try {
				k = AlignSlicesGpu.align(GpuAccess.get(), stack, s, fixed, order, 0, done, interp, progress);
			} catch (GpuException e) {
				while (k < order.length && done[order[k]] != null)
					k++; // the slices written before the failure stay aligned
				// where every slice came back before the error was reported (at the session's end),
				// the GPU did the work, and there is no fallback to speak of
				if (k < order.length) {
					if (k > 0) Fallback.reasonAfterPart(NAME, opts, e, alignedPrefix(order, k));
					else Fallback.reason(NAME, opts, e);
				}
			} catch (RuntimeException | Error e) {
				// not the GPU's (the progress listener, or Java's memory): the slices written stay
				// aligned, and the user must hear which, as after a failure on the CPU below
				while (k < order.length && done[order[k]] != null)
					k++;
				if (k == 0) throw e;
				throw new PartlyDoneException(NAME, e, alignedPrefix(order, k));
			}
			// the matching of the slices left runs on the CPU too: the GPU just failed
			matchOpts = matchOpts.withBackend(Backend.CPU);
		}
		try {
			for (; k < order.length && !progress.isCanceled(); k++) {
				int z = order[k];
				Shift from = null;
				Planes template = fixed;
				if (s.previous) {
					from = lastMatched(done, z, s.reference);
					template = TemplateMatching.crop(stack, from.plane, landmark);
				}
				// a large landmark and margin take seconds a slice on the CPU: its matching moves the bar
				// and stops on a cancel, before the slice is touched
				Shift shift = measure(stack, z, template, landmark, s, from, matchOpts,
					progress.part(k / (double) order.length, 1.0 / order.length));
				if (shift == null) break; // canceled within the slice's matching: the slice is untouched
				translate(stack, z, shift.dx, shift.dy, interp, opts.threads());
				done[z] = shift;
				progress.update((k + 1) / (double) order.length);
			}
		} catch (RuntimeException | Error e) {
			// translate writes a slice only once it has all it needs, so each slice is aligned or
			// untouched; the user must hear which, as the shifts that say it are lost with the result
			while (k < order.length && done[order[k]] != null)
				k++;
			if (k == 0) throw e;
			throw new PartlyDoneException(NAME, e, alignedPrefix(order, k));
		}
		List<Shift> out = new ArrayList<>();
		for (Shift sh : done)
			if (sh != null) out.add(sh);
		return out;
	}

	/**
	 * @return which slices are aligned when the first {@code k} of {@code order} are, for an
	 *         error that stops part way (1-based, as ImageJ counts slices)
	 */
	static String alignedPrefix(int[] order, int k) {
		StringBuilder b = new StringBuilder(k == 1 ? "slice " : "slices ");
		// order is ascending, or outwards from the reference: list it as runs of consecutive slices
		int[] z = java.util.Arrays.copyOf(order, k);
		java.util.Arrays.sort(z);
		for (int i = 0; i < k;) {
			int j = i;
			while (j + 1 < k && z[j + 1] == z[j] + 1)
				j++;
			if (i > 0) b.append(", ");
			b.append(z[i] + 1);
			if (j > i) b.append('-').append(z[j] + 1);
			i = j + 1;
		}
		return b.append(k == 1 ? " is" : " are").append(" aligned (besides the reference); the other slices are unchanged")
			.toString();
	}

	/**
	 * The slices whose best match lies on the border of the positions searched, along an axis
	 * that had more than one: the landmark may lie beyond the search there (a margin too small
	 * for the drift, or a landmark so near the image's border that the search was cut), and the
	 * shift reported is then the one cut short at that border, with a plausible score.
	 *
	 * @param shifts as {@link #align} returned them for a stack of this size and these settings
	 * @param s      the settings of that alignment
	 * @param width  the stack's width
	 * @param height the stack's height
	 * @return the 0-based slices, ascending; slices that kept a shift because nothing matched
	 *         (score NaN or at most 0) are not among them
	 * @throws IllegalArgumentException when there are no shifts or settings, a shift is null or of
	 *         a slice below 1, or the landmark or margin are ones {@link #align} refuses in such a stack
	 */
	public static List<Integer> atSearchBorder(List<Shift> shifts, Settings s, int width, int height) {
		// a null, a shift of slice 0 or a landmark of no area were a NullPointerException, an
		// ArrayIndexOutOfBoundsException or a message of a selection, and one larger than the
		// image gave no slice at all
		if (shifts == null) throw new IllegalArgumentException(NAME + ": there are no shifts.");
		if (s == null) throw new IllegalArgumentException(NAME + ": there are no settings.");
		for (Shift sh : shifts) {
			if (sh == null) throw new IllegalArgumentException(NAME + ": the list of shifts holds a null.");
			if (sh.plane < 0)
				throw new IllegalArgumentException(NAME + ": a shift is of slice " + ((long) sh.plane + 1)
					+ "; slices count from 1.");
		}
		checkLandmark(s, width, height);
		Shift[] byPlane = new Shift[shifts.stream().mapToInt(sh -> sh.plane).max().orElse(-1) + 1];
		for (Shift sh : shifts)
			byPlane[sh.plane] = sh;
		Region landmark = s.landmark();
		List<Integer> out = new ArrayList<>();
		for (Shift sh : byPlane) {
			if (sh == null || sh.plane == s.reference || !(sh.score > 0)) continue;
			int neighbour = sh.plane < s.reference ? sh.plane + 1 : sh.plane - 1;
			Shift from = s.previous && neighbour < byPlane.length ? byPlane[neighbour] : null;
			if (s.previous && from == null) continue;
			Search search = new Search(width, height, landmark, s, from);
			int mw = TemplateMatching.validSize(search.area.width, landmark.width);
			int mh = TemplateMatching.validSize(search.area.height, landmark.height);
			// the position found in the map, back from the shift: a peak on the border is not
			// refined along that axis, so it lies exactly on it
			double fx = landmark.x - sh.dx - search.area.x, fy = landmark.y - sh.dy - search.area.y;
			if (mw > 1 && (onto(fx, 0) || onto(fx, mw - 1)) || mh > 1 && (onto(fy, 0) || onto(fy, mh - 1)))
				out.add(sh.plane);
		}
		return out;
	}

	/**
	 * The slices of a 32-bit stack that hold a NaN or an infinite pixel where {@link #align}
	 * may search them. Every position whose window includes such a pixel scores NaN and is
	 * passed over, so the landmark is not found where it covers one, and another position wins
	 * with a plausible score. To be called before the stack is aligned, which moves the pixels.
	 * With {@code previous} the search follows the neighbours' shifts, each up to the margin
	 * (and a pixel of rounding), so slice z is checked within that many margins of the landmark.
	 *
	 * @param stack the stack as it will be aligned
	 * @param s     the settings it will be aligned with
	 * @param opts  threads, and the cancellation that stops the look (a long 32-bit stack in
	 *              "previous" mode is read nearly whole)
	 * @return the 0-based slices other than the reference, ascending; none for 8 and 16-bit,
	 *         and those found so far when canceled
	 * @throws IllegalArgumentException for no stack, or a 32-bit stack and settings that {@link #align} refuses
	 */
	public static List<Integer> notFiniteInSearch(Planes stack, Settings s, ExecutionOptions opts) {
		// before the type is read: no stack was a NullPointerException
		if (stack == null) throw new IllegalArgumentException(NAME + ": there is no image.");
		List<Integer> out = new ArrayList<>();
		if (stack.type() != PixelType.FLOAT32) return out;
		check(stack, s);
		opts = ExecutionOptions.orDefaults(opts);
		Progress progress = opts.progress();
		Region landmark = s.landmark();
		int w = stack.width(), h = stack.height(), n = stack.depth();
		long m = Search.margin(s, w, h);
		boolean[] found = new boolean[n];
		CpuParallel.forRange(0, n, opts.threads(), (long) w * h, (from, to) -> {
			for (int z = from; z < to && !progress.isCanceled(); z++) {
				if (z == s.reference) continue;
				long reach = s.previous ? (m + 1) * Math.abs(z - s.reference) : m;
				int x0 = (int) Math.max(0, landmark.x - reach), y0 = (int) Math.max(0, landmark.y - reach);
				int x1 = (int) Math.min(w, landmark.x + landmark.width + reach);
				int y1 = (int) Math.min(h, landmark.y + landmark.height + reach);
				float[] p = (float[]) stack.plane(z);
				rows:
				for (int y = y0; y < y1; y++)
					for (int i = y * w + x0, end = y * w + x1; i < end; i++)
						if (!Float.isFinite(p[i])) {
							found[z] = true;
							break rows;
						}
			}
		});
		for (int z = 0; z < n; z++)
			if (found[z]) out.add(z);
		return out;
	}

	private static boolean onto(double position, int border) {
		return Math.abs(position - border) < 1e-6;
	}

	/**
	 * The slice "previous slice" mode compares slice {@code z} with: its aligned neighbour, or,
	 * where that one matched nothing (a blank or flat frame keeps the shift before it, unmatched),
	 * the nearest one towards the reference that did. Compared with such a frame, the next one
	 * kept a stale shift and every frame after it lined up with that one, at score 1.
	 *
	 * @param done      the shifts so far, the reference's and every slice's between it and z
	 * @param z         the slice to align
	 * @param reference the reference slice, which always matched
	 * @return the shift of the slice to compare with
	 */
	static Shift lastMatched(Shift[] done, int z, int reference) {
		int step = z < reference ? 1 : -1;
		int from = z + step;
		while (from != reference && !(done[from].score > 0))
			from += step;
		return done[from];
	}

	/** Slices other than the reference: in order, or outwards from it for "previous slice" mode. */
	private static int[] order(int n, int reference, boolean previous) {
		int[] o = new int[n - 1];
		int k = 0;
		if (!previous) {
			for (int z = 0; z < n; z++)
				if (z != reference) o[k++] = z;
		} else {
			for (int z = reference + 1; z < n; z++)
				o[k++] = z;
			for (int z = reference - 1; z >= 0; z--)
				o[k++] = z;
		}
		return o;
	}

	/**
	 * Finds the landmark in one slice.
	 *
	 * @param from   the aligned neighbour the template was cut from ("previous slice" mode), or null
	 * @param opts   backend and threads of the matching
	 * @param within hears the fraction of the CPU's matching done, and may cancel it
	 * @return the translation that brings the landmark back to its reference position; null when
	 *         canceled
	 */
	private static Shift measure(Planes stack, int z, Planes template, Region landmark, Settings s, Shift from,
		ExecutionOptions opts, Progress within)
	{
		Search search = new Search(stack.width(), stack.height(), landmark, s, from);
		if (!usable(template)) return search.keep(z);
		Planes area = TemplateMatching.crop(stack, z, search.area);
		float[] map = TemplateMatching.match(area, 0, template, 0, null, false, opts, within);
		return map == null ? null : search.pick(z, map);
	}

	/** Where the landmark is expected in one slice, the area searched around it, and the choice of the peak. */
	static final class Search {
		final Region landmark;
		final Settings settings;
		/** The shift kept when nothing matches: the neighbour's, or 0. */
		final double keepDx, keepDy;
		/** The expected top-left corner of the landmark. */
		final int ex, ey;
		/** The searched rectangle, clipped to the image. */
		final Region area;

		Search(int iw, int ih, Region landmark, Settings s, Shift from) {
			this.landmark = landmark;
			this.settings = s;
			int w = landmark.width, h = landmark.height;
			keepDx = from == null ? 0 : from.dx;
			keepDy = from == null ? 0 : from.dy;
			// where the landmark is expected: its reference position, or where the neighbour's was found
			ex = clamp(landmark.x - (int) Math.round(keepDx), 0, iw - w);
			ey = clamp(landmark.y - (int) Math.round(keepDy), 0, ih - h);
			int m = margin(s, iw, ih);
			area = new Region(ex - m, ey - m, w + 2 * m, h + 2 * m, null).clipTo(iw, ih);
		}

		/**
		 * @return the margin, where any margin past the image's size means the whole image: so
		 *         that w + 2 margin cannot overflow (a margin may be any int up to 2^31 - 1)
		 */
		static int margin(Settings s, int iw, int ih) {
			return Math.min(s.margin, Math.max(iw, ih));
		}

		/**
		 * @return the index of the highest positive score, the one nearest (cx, cy) among equal
		 *         scores, the first in row order among equally near ones; -1 when no score is positive
		 */
		static int best(float[] map, int mw, int mh, int cx, int cy) {
			// two plain passes (the maximum, then the nearest of its copies) instead of one with
			// a distance per score: the GPU path picks its shifts on the thread that feeds the device
			float top = 0;
			for (int i = 0; i < mw * mh; i++)
				if (map[i] > top) top = map[i];
			if (!(top > 0)) return -1;
			int best = -1;
			long bestDist = Long.MAX_VALUE;
			for (int y = 0; y < mh; y++)
				for (int x = 0, row = y * mw; x < mw; x++)
					if (map[row + x] == top) {
						long d = (long) (x - cx) * (x - cx) + (long) (y - cy) * (y - cy);
						if (d < bestDist) {
							best = row + x;
							bestDist = d;
						}
					}
			return best;
		}

		/** @return the shift of a slice whose template cannot be matched (flat or not finite) */
		Shift keep(int z) {
			return new Shift(z, keepDx, keepDy, Double.NaN);
		}

		/**
		 * @param map the "valid" score map of the landmark over {@link #area}
		 * @return the best position's translation (nearest the expected one among equal scores)
		 */
		Shift pick(int z, float[] map) {
			int w = landmark.width, h = landmark.height;
			int mw = TemplateMatching.validSize(area.width, w), mh = TemplateMatching.validSize(area.height, h);
			int cx = ex - area.x, cy = ey - area.y; // the expected position in the map
			int best = best(map, mw, mh, cx, cy);
			if (best < 0) return new Shift(z, keepDx, keepDy, max(map));
			int px = best % mw, py = best / mw;
			double fx = px, fy = py;
			if (settings.subpixel && map[best] < PERFECT) {
				double[] d = Peaks.refine(map, mw, mh, px, py);
				fx += d[0];
				fy += d[1];
			}
			// +0.0 turns a -0.0 into 0, which reads better in tables
			return new Shift(z, landmark.x - (area.x + fx) + 0.0, landmark.y - (area.y + fy) + 0.0, map[best]);
		}
	}

	private static double max(float[] map) {
		double m = Double.NaN;
		for (float v : map)
			if (!Float.isNaN(v) && !(v <= m)) m = v;
		return m;
	}

	private static int clamp(int v, int lo, int hi) {
		return Math.max(lo, Math.min(hi, v));
	}

	/** @return true when the template can be matched: finite and not flat */
	static boolean usable(Planes template) {
		if (template.type() == PixelType.FLOAT32)
			for (float v : (float[]) template.plane(0))
				if (!Float.isFinite(v)) return false;
		return !flat(template);
	}

	private static boolean flat(Planes p) {
		return new Template(p, null, 0, 0, false).isFlat();
	}

	/** Why an RGB stack is refused, and what to do. */
	public static final String RGB = "RGB images are not supported. Convert to 8-bit (Image>Type>8-bit), or split the "
		+ "channels (Image>Color>Split Channels) and align one of them.";

	/** Why a single image is refused. */
	public static final String SINGLE_SLICE = "the image has a single slice; aligning needs a stack.";

	static void check(Planes stack, Settings s) {
		if (stack == null) throw new IllegalArgumentException(NAME + ": there is no image.");
		if (s == null) throw new IllegalArgumentException(NAME + ": there are no settings.");
		if (stack.type() == PixelType.RGB) throw new IllegalArgumentException(NAME + ": " + RGB);
		if (stack.depth() < 2)
			throw new IllegalArgumentException(NAME + ": " + SINGLE_SLICE);
		int iw = stack.width(), ih = stack.height();
		if (iw < 2 || ih < 2)
			throw new IllegalArgumentException(NAME + ": the image (" + iw + "x" + ih + ") is too small to align.");
		// named as the dialog and the macro name them, 1-based: the command's are these settings
		if (s.reference < 0 || s.reference >= stack.depth())
			throw new IllegalArgumentException(NAME + ": Reference slice must be a slice of the stack, 1 to " + stack.depth()
				+ ", not reference=" + ((long) s.reference + 1) + ".");
		checkLandmark(s, iw, ih);
	}

	/** Refuses a landmark that is not wholly inside an {@code iw} x {@code ih} image, and a negative margin. */
	private static void checkLandmark(Settings s, int iw, int ih) {
		// a negative size was said to be "zero area (-5x16)"
		if (s.width < 0 || s.height < 0)
			throw new IllegalArgumentException(NAME + ": the landmark's width and height must be at least 1, not "
				+ s.width + "x" + s.height + ".");
		if (s.width < 1 || s.height < 1)
			throw new IllegalArgumentException(NAME + ": the landmark has zero area (" + s.width + "x" + s.height
				+ "); draw a rectangle or give width and height.");
		if (s.x < 0 || s.y < 0 || (long) s.x + s.width > iw || (long) s.y + s.height > ih)
			throw new IllegalArgumentException(NAME + ": the landmark (x=" + s.x + " y=" + s.y + " width=" + s.width
				+ " height=" + s.height + ") does not lie inside the image (" + iw + "x" + ih + ").");
		if (s.margin < 0)
			throw new IllegalArgumentException(NAME + ": Margin must be at least 0 (pixels), not margin=" + s.margin + ".");
	}

	/**
	 * Translates one plane in place exactly as ImageJ's {@code ImageProcessor.translate(dx, dy)}
	 * does with the given interpolation (see the class comment).
	 *
	 * @param planes  the planes (8, 16 or 32-bit)
	 * @param plane   0-based plane to translate
	 * @param dx      pixels to the right (negative: left)
	 * @param dy      pixels down (negative: up)
	 * @param interp  for fractional shifts
	 * @param threads CPU threads
	 * @throws IllegalArgumentException for no planes, RGB, a missing plane, or a shift that is not finite
	 */
	public static void translate(Planes planes, int plane, double dx, double dy, Interpolation interp, int threads) {
		if (planes == null) throw new IllegalArgumentException(NAME + ": there is no image.");
		if (planes.type() == PixelType.RGB)
			throw new IllegalArgumentException(NAME + ": " + RGB);
		if (plane < 0 || plane >= planes.depth())
			throw new IllegalArgumentException(NAME + ": the image has no slice " + (plane + 1) + ".");
		if (!Double.isFinite(dx) || !Double.isFinite(dy))
			throw new IllegalArgumentException(NAME + ": the shift (" + Texts.number(dx) + ", " + Texts.number(dy) + ") is not finite.");
		int w = planes.width(), h = planes.height();
		PixelType type = planes.type();
		Object dst = planes.plane(plane);
		// the source copied in the plane's own type: as doubles it took 8 bytes a pixel, and a
		// large 8-bit slice ran out of memory where ImageJ's Translate did not
		Object src = type == PixelType.UINT8 ? ((byte[]) dst).clone()
			: type == PixelType.UINT16 ? ((short[]) dst).clone() : ((float[]) dst).clone();
		if (dx == (int) dx && dy == (int) dy) {
			int ix = (int) dx, iy = (int) dy;
			CpuParallel.forRange(0, h, threads, w, (y0, y1) -> {
				for (int y = y0; y < y1; y++)
					for (int x = 0; x < w; x++) {
						int sx = x - ix, sy = y - iy;
						boolean in = sx >= 0 && sy >= 0 && sx < w && sy < h;
						store(dst, type, y * w + x, in ? at(src, type, sy * w + sx) : 0, false);
					}
			});
			return;
		}
		Axis ax = new Axis(w, dx), ay = new Axis(h, dy);
		boolean cubic = interp == Interpolation.BICUBIC;
		CpuParallel.forRange(0, h, threads, cubic ? 16L * w : 4L * w, (y0, y1) -> {
			for (int y = y0; y < y1; y++)
				for (int x = 0; x < w; x++) {
					double v;
					if (cubic) v = bicubic(src, type, w, h, ax, ay, x, y);
					else if (ax.pos[x] < 0 || ay.pos[y] < 0 || ax.pos[x] >= w - 1 || ay.pos[y] >= h - 1) v = 0;
					else v = bilinear(src, type, w, ax.pos[x], ay.pos[y]);
					store(dst, type, y * w + x, v, cubic);
				}
		});
	}

	/**
	 * The source positions along one axis and their cubic weights. A translation samples every
	 * row at the same x positions, so what ImageJ computes per pixel is computed once per column
	 * (and per row): the same doubles, hence the same results.
	 */
	static final class Axis {
		final double[] pos;
		final int[] base;
		final double[] weights;

		Axis(int n, double shift) {
			pos = new double[n];
			base = new int[n];
			weights = new double[4 * n];
			for (int i = 0; i < n; i++) {
				double p = i - shift;
				pos[i] = p;
				base[i] = (int) Math.floor(p);
				for (int k = 0; k < 4; k++)
					weights[4 * i + k] = cubic(p - (base[i] - 1 + k));
			}
		}
	}

	/** ImageJ's bicubic kernel: Catmull-Rom, a = 0.5, written as ImageJ evaluates it (same rounding). */
	static double cubic(double t) {
		final double a = 0.5;
		if (t < 0.0) t = -t;
		if (t < 1.0) return t * t * (t * (-a + 2.0) + (a - 3.0)) + 1.0;
		if (t < 2.0) return -a * t * t * t + 5.0 * a * t * t - 8.0 * a * t + 4.0 * a;
		return 0.0;
	}

	private static double bicubic(Object src, PixelType type, int w, int h, Axis ax, Axis ay, int x, int y) {
		int u0 = ax.base[x], v0 = ay.base[y];
		if (u0 <= 0 || u0 >= w - 2 || v0 <= 0 || v0 >= h - 2) {
			// ImageJ's fallback near the border: bilinear with the position clamped to the image
			double sx = ax.pos[x], sy = ay.pos[y];
			// a plane 1 pixel wide or high has no 2x2 neighbourhood (ImageJ would read past it)
			if (!(sx >= -1 && sx < w && sy >= -1 && sy < h) || w < 2 || h < 2) return 0;
			if (sx < 0.0) sx = 0.0;
			if (sx >= w - 1.0) sx = w - 1.001;
			if (sy < 0.0) sy = 0.0;
			if (sy >= h - 1.0) sy = h - 1.001;
			return bilinear(src, type, w, sx, sy);
		}
		double q = 0;
		for (int j = 0; j < 4; j++) {
			int row = (v0 - 1 + j) * w + u0 - 1;
			double p = 0;
			for (int i = 0; i < 4; i++)
				p = p + at(src, type, row + i) * ax.weights[4 * x + i];
			q = q + p * ay.weights[4 * y + j];
		}
		return q;
	}

	/**
	 * Bilinear value at (sx, sy), both at least 0 and below the last column/row (a position
	 * of w − 1.001 reads the last column with weight 0.999). A NaN neighbour (32-bit only) is
	 * skipped in favour of the nearer side, as ImageJ does.
	 */
	private static double bilinear(Object src, PixelType type, int w, double sx, double sy) {
		int xb = (int) sx, yb = (int) sy;
		double fx = sx - xb, fy = sy - yb;
		int o = yb * w + xb;
		double ll = at(src, type, o), lr = at(src, type, o + 1), ur = at(src, type, o + w + 1), ul = at(src, type, o + w);
		double upper = lerpNaN(ul, ur, fx), lower = lerpNaN(ll, lr, fx);
		return lerpNaN(lower, upper, fy);
	}

	/** @return pixel {@code i} of a plane of 8, 16 or 32-bit pixels, as a double */
	private static double at(Object src, PixelType type, int i) {
		if (type == PixelType.UINT8) return ((byte[]) src)[i] & 0xff;
		if (type == PixelType.UINT16) return ((short[]) src)[i] & 0xffff;
		return ((float[]) src)[i];
	}

	private static double lerpNaN(double a, double b, double f) {
		if (Double.isNaN(a) && f >= 0.5) return b;
		if (Double.isNaN(b) && f < 0.5) return a;
		return a + f * (b - a);
	}

	/** Writes a value as ImageJ's putPixel would after its translate rounded it. */
	private static void store(Object dst, PixelType type, int i, double v, boolean cubic) {
		if (type == PixelType.FLOAT32) {
			((float[]) dst)[i] = (float) v;
			return;
		}
		long r = cubic ? (long) (v + 0.5) : Math.round(v);
		r = Math.max(0, Math.min((long) type.maxValue(), r));
		if (type == PixelType.UINT8) ((byte[]) dst)[i] = (byte) r;
		else ((short[]) dst)[i] = (short) r;
	}
}
