package fiji.cuda.ncc;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.Fallback;
import fiji.cuda.ops.Progress;
import fiji.cuda.ops.Texts;
import fiji.cuda.runtime.GpuAccess;
import fiji.cuda.runtime.GpuException;

import java.util.ArrayList;
import java.util.List;

/**
 * Template matching by normalized cross-correlation, OpenCV's {@code TM_CCOEFF_NORMED}
 * (scikit-image's {@code match_template}). For the window of the template's size at each
 * position, with N the number of counted pixels:
 * <pre>
 * R = (N·ΣIT − ΣI·ΣT) / √((N·ΣI² − (ΣI)²) · (N·ΣT² − (ΣT)²))
 * </pre>
 * <ul>
 * <li><b>Size.</b> "Valid": (W−w+1)×(H−h+1), the score at (x, y) is that of the window whose
 * top-left pixel is (x, y). "Same": W×H, the score of the window at (x, y) stored at
 * (x + w/2, y + h/2) (integer division: the template's centre pixel, the right one of the two
 * middle pixels for an even size), and 0 where the template does not fit.</li>
 * <li><b>Flat cases.</b> A flat (constant) image window, or a flat template, scores 0. OpenCV
 * gives 1 for a flat template and scikit-image 0; 0 is chosen for both because a featureless
 * template or window carries no evidence of a match. A template of one pixel is flat.</li>
 * <li><b>Range.</b> Scores are clamped to [−1, 1] (rounding can exceed it by a hair). A
 * window holding NaN or infinite pixels scores NaN; a template holding them is refused.</li>
 * <li><b>Mask.</b> With a template mask only the mask's pixels count: every sum runs over
 * them, for the template and for each window alike, and N is the mask's count.</li>
 * <li><b>Types.</b> Image and template are 8, 16 or 32-bit each, independently. RGB is refused.
 * 8/16-bit against 8/16-bit is computed in exact integers, anything with 32-bit in double.</li>
 * </ul>
 * The same call runs on the GPU or on the multithreaded CPU path (the fallback and the test
 * oracle); nothing passed in is modified.
 */
public final class TemplateMatching {

	/**
	 * The operation's name in its error messages and Log lines, and in its menu entry,
	 * "GPU Template Matching...".
	 */
	public static final String NAME = "Template Matching";

	private TemplateMatching() {}

	/**
	 * Scores every position of one template in one plane of an image.
	 *
	 * @param image         the image searched
	 * @param plane         0-based plane of {@code image}
	 * @param template      the template
	 * @param templatePlane 0-based plane of {@code template}
	 * @param mask          template-sized mask, non-zero where a pixel counts; or null for all
	 * @param sameSize      false for the "valid" map, true for the image-sized map (see the class comment)
	 * @param opts          backend and CPU threads
	 * @return the score map, row-major, (W−w+1)×(H−h+1) or W×H
	 * @throws IllegalArgumentException for bad input, with nothing changed
	 * @throws GpuException             only when the GPU was forced and failed
	 */
	public static float[] match(Planes image, int plane, Planes template, int templatePlane, byte[] mask,
		boolean sameSize, ExecutionOptions opts)
	{
		return match(image, plane, template, templatePlane, mask, sameSize, opts, Progress.NONE);
	}

	/**
	 * {@link #match(Planes, int, Planes, int, byte[], boolean, ExecutionOptions)}, with the CPU
	 * path's progress and cancellation in {@code within}: one map there can take seconds (Align
	 * Slices' large landmarks), also when the GPU has just failed over to it. The GPU's map is
	 * one short launch and hears neither.
	 *
	 * @return the score map; null when {@code within} canceled the CPU path
	 */
	static float[] match(Planes image, int plane, Planes template, int templatePlane, byte[] mask, boolean sameSize,
		ExecutionOptions opts, Progress within)
	{
		check(image, plane, template, templatePlane, mask);
		opts = ExecutionOptions.orDefaults(opts);
		if (opts.backend() != Backend.CPU) {
			try {
				return TemplateMatchingGpu.match(GpuAccess.get(), image, plane, template, templatePlane, mask, sameSize);
			} catch (GpuException e) {
				Fallback.reason(NAME, opts, e);
			}
		}
		return TemplateMatchingCpu.match(image, plane, template, templatePlane, mask, sameSize, opts.threads(), within);
	}

	/**
	 * @param imageSize    the image's width (or height)
	 * @param templateSize the template's width (or height)
	 * @return the "valid" map's width (or height): imageSize − templateSize + 1
	 */
	public static int validSize(int imageSize, int templateSize) {
		return imageSize - templateSize + 1;
	}

	/**
	 * Places a "valid" map in an image-sized one, anchored at the template centre, 0 elsewhere.
	 *
	 * @param valid          the (W−w+1)×(H−h+1) map
	 * @param imageWidth     W
	 * @param imageHeight    H
	 * @param templateWidth  w
	 * @param templateHeight h
	 * @return the W×H map
	 * @throws IllegalArgumentException when there is no map, a size is below 1, W×H is more than
	 *         an array holds, or the map is not (W−w+1)×(H−h+1)
	 */
	public static float[] toSameSize(float[] valid, int imageWidth, int imageHeight, int templateWidth,
		int templateHeight)
	{
		if (valid == null) throw new IllegalArgumentException(NAME + ": there is no score map.");
		// a template of 0 pixels made a map one larger than the image, copied past its rows (an
		// ArrayIndexOutOfBoundsException), and W×H past 2^31 wrapped to a map of another size
		if (imageWidth < 1 || imageHeight < 1 || templateWidth < 1 || templateHeight < 1)
			throw new IllegalArgumentException(NAME + ": a score map of a " + templateWidth + "x" + templateHeight
				+ " template in a " + imageWidth + "x" + imageHeight + " image has no size; each side must be at least 1.");
		if ((long) imageWidth * imageHeight > Integer.MAX_VALUE - 8)
			throw new IllegalArgumentException(NAME + ": a score map of " + imageWidth + "x" + imageHeight
				+ " pixels is larger than Java arrays allow.");
		int ow = validSize(imageWidth, templateWidth), oh = validSize(imageHeight, templateHeight);
		if (ow < 1 || oh < 1 || valid.length != ow * oh)
			throw new IllegalArgumentException(NAME + ": the score map has " + valid.length + " values, expected " + ow
				+ "x" + oh + ".");
		float[] same = new float[imageWidth * imageHeight];
		for (int y = 0; y < oh; y++)
			System.arraycopy(valid, y * ow, same, (y + templateHeight / 2) * imageWidth + templateWidth / 2, ow);
		return same;
	}

	/** Receives each "valid" score map that {@link #detect} computes. */
	public interface MapSink {
		/**
		 * @param template the bank's template
		 * @param plane    the image plane
		 * @param map      its "valid" score map, (W−w+1)×(H−h+1)
		 */
		void accept(Template template, int plane, float[] map);
	}

	/**
	 * Finds objects: matches every template of a bank against one plane, takes the local maxima
	 * of each score map at or above the threshold, and keeps the best by non-maximum
	 * suppression across the whole bank.
	 *
	 * @param image      the image searched
	 * @param plane      0-based plane
	 * @param bank       templates, e.g. from {@link Template#bank}
	 * @param threshold  the lowest score kept, -1 to 1
	 * @param maxObjects the most detections returned, at least 1
	 * @param nms        the largest intersection over union allowed between two detections, 0 to 1
	 * @param refine     true to refine centres to sub-pixel precision ({@link Peaks#refine})
	 * @param maps       receives each score map, or null
	 * @param opts       backend, threads and progress (checked for cancellation between groups
	 *                   of templates, and on the CPU also between templates and between bands of
	 *                   rows of one map; it is told the fraction of the bank matched, and reaches
	 *                   1 only once every template is matched)
	 * @return the detections, best first; after a cancellation, among the templates done so far
	 *         only: a progress that never reached 1 tells such a partial result
	 * @throws IllegalArgumentException for bad input, before anything is computed
	 * @throws GpuException             only when the GPU was forced and failed
	 */
	public static List<Detection> detect(Planes image, int plane, List<Template> bank, double threshold,
		int maxObjects, double nms, boolean refine, MapSink maps, ExecutionOptions opts)
	{
		if (bank == null || bank.isEmpty()) throw new IllegalArgumentException(NAME + ": there is no template.");
		// scores lie between -1 and 1: a threshold of 50, meant as percent, would silently find nothing
		if (!(threshold >= -1 && threshold <= 1))
			throw new IllegalArgumentException(NAME + ": the score threshold must be between -1 and 1, not "
				+ Texts.number(threshold) + ".");
		if (maxObjects < 1)
			throw new IllegalArgumentException(NAME + ": the maximum number of objects must be at least 1, not "
				+ maxObjects + ".");
		if (!(nms >= 0 && nms <= 1))
			throw new IllegalArgumentException(NAME + ": the overlap (nms) must be between 0 and 1, not " + Texts.number(nms) + ".");
		if (image == null) throw new IllegalArgumentException(NAME + ": there is no image.");
		for (Template t : bank) {
			if (t == null) throw new IllegalArgumentException(NAME + ": the list of templates holds a null.");
			if (t.angle % 360 != 0 && (t.width() > image.width() || t.height() > image.height()))
				throw new IllegalArgumentException(rotatedTooLarge(t.angle, t.width(), t.height(), image.width(),
					image.height()));
			check(image, plane, t.pixels, 0, t.mask);
		}
		opts = ExecutionOptions.orDefaults(opts);
		Progress progress = opts.progress();
		List<Detection> candidates = new ArrayList<>();
		long groupBytes = groupBytesForTest > 0 ? groupBytesForTest : GROUP_BYTES;
		for (int i = 0; i < bank.size() && !progress.isCanceled();) {
			// templates go to the device in groups whose maps fit a bounded amount of memory
			int j = i;
			long bytes = 0;
			do {
				Template t = bank.get(j++);
				bytes += 4L * validSize(image.width(), t.width()) * validSize(image.height(), t.height());
			} while (j < bank.size() && bytes < groupBytes);
			List<Template> group = bank.subList(i, j);
			// without a map sink the maps can stay on the GPU: only their peaks come back
			List<List<Detection>> peaks = null;
			if (maps == null && opts.backend() != Backend.CPU) {
				peaks = peaksOnGpu(image, plane, group, threshold, refine, opts);
				// the GPU failed under AUTO, and said so once: the CPU does the rest of the bank,
				// rather than the GPU being tried again (and logged again) for every group
				if (peaks == null) opts = opts.withBackend(Backend.CPU);
			}
			boolean[] fellBack = { false };
			// the CPU tells how far into the group it is, never 1 (which means the bank is matched)
			Progress within = progress.part(i / (double) bank.size(), (j - i) / (double) bank.size());
			List<float[]> groupMaps = peaks == null ? maps(image, plane, group, opts, fellBack, within) : null;
			if (fellBack[0]) opts = opts.withBackend(Backend.CPU);
			// Esc within a map on the CPU: the group is incomplete, and so is the bank
			if (groupMaps != null && groupMaps.size() < group.size()) break;
			for (int k = 0; k < group.size(); k++) {
				Template t = group.get(k);
				if (peaks != null) {
					candidates.addAll(peaks.get(k));
					continue;
				}
				float[] map = groupMaps.get(k);
				if (maps != null) maps.accept(t, plane, map);
				// at most maxObjects survive anyway, and only a candidate's betters can suppress it,
				// but a candidate that is suppressed frees a place: keep them all for the global pass
				candidates.addAll(Peaks.localMaxima(map, validSize(image.width(), t.width()),
					validSize(image.height(), t.height()), box(t, plane), threshold, refine));
			}
			i = j;
			progress.update(i / (double) bank.size());
		}
		return Peaks.suppress(candidates, nms, maxObjects);
	}

	/** What every candidate of a template gets: its box size, template, angle, flip and plane. */
	private static Detection box(Template t, int plane) {
		return new Detection(0, 0, t.width(), t.height(), 0, t.index, t.angle, t.flipped, plane, 0, 0);
	}

	/**
	 * The candidates of each template, with the maps and the search for local maxima on the GPU.
	 *
	 * @return one list per template, or null when the CPU must do it (CPU backend, or the GPU
	 *         failed under AUTO: logged)
	 */
	private static List<List<Detection>> peaksOnGpu(Planes image, int plane, List<Template> group, double threshold,
		boolean refine, ExecutionOptions opts)
	{
		if (opts.backend() == Backend.CPU) return null;
		List<Planes> pixels = new ArrayList<>();
		List<byte[]> masks = new ArrayList<>();
		for (Template t : group) {
			pixels.add(t.pixels);
			masks.add(t.mask);
		}
		TemplateMatchingGpu.PeakList[] found;
		try {
			found = TemplateMatchingGpu.peaksBank(GpuAccess.get(), image, plane, pixels, masks, threshold);
		} catch (GpuException e) {
			Fallback.reason(NAME, opts, e);
			return null;
		}
		List<List<Detection>> out = new ArrayList<>();
		for (int k = 0; k < group.size(); k++) {
			Template t = group.get(k);
			int mw = validSize(image.width(), t.width()), mh = validSize(image.height(), t.height());
			TemplateMatchingGpu.PeakList p = found[k];
			out.add(p.map != null ? Peaks.localMaxima(p.map, mw, mh, box(t, plane), threshold, refine)
				: Peaks.fromPeaks(p.index, p.patches, mw, mh, box(t, plane), refine));
		}
		return out;
	}

	/** Score maps held at once while {@link #detect} works through a bank. */
	private static final long GROUP_BYTES = 256L << 20;

	/**
	 * When positive, replaces {@link #GROUP_BYTES}: a bank splits into several groups (and is
	 * checked for cancellation between them) only with maps of hundreds of megabytes, which
	 * tests of a cancel part way through a plane cannot afford.
	 */
	static volatile long groupBytesForTest;

	/**
	 * Scores every template of a list (plane 0 of each, with its mask) against one plane. On the
	 * GPU the image and its tables go to the device once for the whole list, and templates of
	 * one size and type without masks share one launch (a template bank).
	 *
	 * @param image     the image searched
	 * @param plane     0-based plane
	 * @param templates the templates
	 * @param opts      backend and CPU threads
	 * @return one "valid" map per template, in order
	 * @throws IllegalArgumentException for bad input, with nothing computed
	 * @throws GpuException             only when the GPU was forced and failed
	 */
	public static List<float[]> matchAll(Planes image, int plane, List<Template> templates, ExecutionOptions opts) {
		if (templates == null || templates.isEmpty()) throw new IllegalArgumentException(NAME + ": there is no template.");
		for (Template t : templates) {
			if (t == null) throw new IllegalArgumentException(NAME + ": the list of templates holds a null.");
			check(image, plane, t.pixels, 0, t.mask);
		}
		// one map per template, as promised: a cancel is not looked at
		return maps(image, plane, templates, ExecutionOptions.orDefaults(opts), new boolean[1], Progress.NONE);
	}

	/**
	 * {@link #matchAll} of templates already checked ({@link #detect} checks the whole bank
	 * first); fellBack[0] becomes true when the GPU failed under AUTO and the CPU made the maps.
	 * On the CPU {@code within} is told the fraction of the list done, below 1, and a cancel
	 * stops it part way: the maps of the templates done before it come back, fewer than asked for.
	 */
	private static List<float[]> maps(Planes image, int plane, List<Template> templates, ExecutionOptions opts,
		boolean[] fellBack, Progress within)
	{
		List<Planes> pixels = new ArrayList<>();
		List<byte[]> masks = new ArrayList<>();
		for (Template t : templates) {
			pixels.add(t.pixels);
			masks.add(t.mask);
		}
		if (opts.backend() != Backend.CPU) {
			try {
				return java.util.Arrays.asList(TemplateMatchingGpu.matchBank(GpuAccess.get(), image, plane, pixels, masks));
			} catch (GpuException e) {
				Fallback.reason(NAME, opts, e);
				fellBack[0] = true;
			}
		}
		List<float[]> maps = new ArrayList<>();
		int n = templates.size();
		for (int k = 0; k < n; k++) {
			if (k > 0) {
				within.update(k / (double) n);
				if (within.isCanceled()) break;
			}
			Template t = templates.get(k);
			float[] map = TemplateMatchingCpu.match(image, plane, t.pixels, 0, t.mask, false, opts.threads(),
				within.part(k / (double) n, 1.0 / n));
			if (map == null) break;
			maps.add(map);
		}
		return maps;
	}

	/**
	 * @param image a plane source
	 * @param plane 0-based plane
	 * @param r     the rectangle (its mask is ignored), clipped to the image
	 * @return a copy of the rectangle of that plane, for searching only part of an image
	 * @throws IllegalArgumentException when there is no image or rectangle, the image has no such
	 *                                  plane, or the rectangle has no area inside the image
	 */
	public static Planes crop(Planes image, int plane, Region r) {
		if (image == null) throw new IllegalArgumentException(NAME + ": there is no image.");
		if (r == null) throw new IllegalArgumentException(NAME + ": there is no search rectangle.");
		if (plane < 0 || plane >= image.depth())
			throw new IllegalArgumentException(NAME + ": the image has no slice " + (plane + 1) + ".");
		Region c = r.clipTo(image.width(), image.height(), NAME + ": the rectangle");
		Object src = image.plane(plane), dst = image.type().newPlane(c.width * c.height);
		for (int y = 0; y < c.height; y++)
			System.arraycopy(src, (c.y + y) * image.width() + c.x, dst, y * c.width, c.width);
		return Planes.wrap(c.width, c.height, dst);
	}


	/** @throws IllegalArgumentException when a mask is not w x h or selects no pixel */
	static void checkMask(byte[] mask, int w, int h) {
		if (mask == null) return;
		if (mask.length != (long) w * h)
			throw new IllegalArgumentException(NAME + ": the mask has " + mask.length + " pixels, but the template "
				+ w + "x" + h + " has " + ((long) w * h) + ".");
		for (byte b : mask)
			if (b != 0) return;
		throw new IllegalArgumentException(NAME + ": the template mask is empty (it selects no pixel).");
	}

	static void check(Planes image, int plane, Planes template, int templatePlane, byte[] mask) {
		if (image == null) throw new IllegalArgumentException(NAME + ": there is no image.");
		if (template == null) throw new IllegalArgumentException(NAME + ": there is no template.");
		if (image.type() == PixelType.RGB)
			throw new IllegalArgumentException(NAME + ": " + Texts.RGB);
		if (template.type() == PixelType.RGB)
			throw new IllegalArgumentException(NAME + ": the template is RGB, which is not supported. " + Texts.CONVERT_RGB);
		if (plane < 0 || plane >= image.depth())
			throw new IllegalArgumentException(NAME + ": the image has no slice " + (plane + 1) + ".");
		if (templatePlane < 0 || templatePlane >= template.depth())
			throw new IllegalArgumentException(NAME + ": the template has no slice " + (templatePlane + 1) + ".");
		int w = template.width(), h = template.height();
		if (w > image.width() || h > image.height())
			throw new IllegalArgumentException(tooLarge("", 0, w, h, image.width(), image.height()));
		checkMask(mask, w, h);
		if (template.type() == PixelType.FLOAT32) {
			float[] t = (float[]) template.plane(templatePlane);
			for (int i = 0; i < t.length; i++)
				if ((mask == null || mask[i] != 0) && !Float.isFinite(t[i]))
					throw new IllegalArgumentException(NAME + ": the template" + (templatePlane > 0 ? " (slice "
						+ (templatePlane + 1) + ")" : "") + " holds NaN or infinite pixels, which would make every score "
						+ "NaN; replace them (Process>Math>Remove NaNs...), or leave them out with a selection on the "
						+ "template.");
		}
	}

	/**
	 * @param angle the rotation, in degrees
	 * @param tw    the rotated template's width
	 * @param th    its height
	 * @param w     the image's width
	 * @param h     its height
	 * @return why a template rotated to {@code tw x th} cannot be matched in a {@code w x h}
	 *         image; {@link #tooLarge} also names the template, for the plug-in, which checks
	 *         before it rotates
	 */
	public static String rotatedTooLarge(double angle, int tw, int th, int w, int h) {
		return tooLarge("", angle, tw, th, w, h);
	}

	/**
	 * @param which how the template is named, e.g. its file in quotes; "" for no name
	 * @param angle the rotation, in degrees: a whole turn (0 included) is the template as it is
	 * @param tw    the (rotated) template's width
	 * @param th    its height
	 * @param w     the image's width
	 * @param h     its height
	 * @return why that template cannot be matched in a {@code w x h} image, and what to do
	 */
	public static String tooLarge(String which, double angle, int tw, int th, int w, int h) {
		String t = "the template" + (which == null || which.isEmpty() ? "" : " " + which);
		if (angle % 360 == 0)
			return NAME + ": " + t + " (" + tw + "x" + th + ") is larger than the image (" + w + "x" + h + "); use a "
				+ "smaller template, or a smaller selection on it.";
		return NAME + ": " + t + " rotated by " + Texts.number(angle) + " degrees (" + tw + "x" + th + ") is larger "
			+ "than the image (" + w + "x" + h + "); leave that angle out, or use a smaller template.";
	}
}
