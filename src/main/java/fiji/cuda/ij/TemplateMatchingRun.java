package fiji.cuda.ij;

import fiji.cuda.ij.TemplateMatchingPlugin.Outcome;
import fiji.cuda.ij.TemplateMatchingPlugin.Settings;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ncc.Detection;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpLog;
import fiji.cuda.ops.Progress;
import ij.ImagePlus;
import ij.ImageStack;
import ij.gui.Roi;
import ij.process.ImageProcessor;

import java.awt.Rectangle;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of "GPU Template Matching" over the slices asked for. It shows nothing, so that the
 * menu command, the SciJava command and the tests, which all come through
 * {@link TemplateMatchingPlugin#run(ImagePlus, ImagePlus, Settings, ExecutionOptions)} or its
 * folder twin, get the same detections.
 */
final class TemplateMatchingRun {

	private TemplateMatchingRun() {}

	/**
	 * Refuses a template, as it is or at one of the angles, that is larger than the image, before
	 * the bank is made: the rotated copies' pixels were allocated first, so a large template at
	 * 45 degrees ran out of memory, or past 2^31 pixels failed with a stack trace, instead of this
	 * message. The angles are looked at in the order given, the template as it is among them: with
	 * angles 0 and 90 a template too wide at 0 was refused for its 90-degree copy, "leave that
	 * angle out", which left the same failure. A file of a folder is named: the message gave a
	 * size alone, and the user had to find which of the folder's files it was.
	 */
	private static void checkFitsImage(ImagePlus image, List<Template> originals, List<String> names, double[] angles) {
		if (angles == null || angles.length == 0) angles = new double[] {0};
		int iw = image.getWidth(), ih = image.getHeight();
		for (Template t : originals)
			for (double a : angles) {
				if (!Double.isFinite(a)) continue; // the bank says what is wrong with a NaN
				int[] wh = a % 360 == 0 ? new int[] {t.width(), t.height()} : t.rotatedSize(a);
				if (wh[0] > iw || wh[1] > ih)
					throw new IllegalArgumentException(TemplateMatching.tooLarge(fileName(t, names), a, wh[0], wh[1], iw, ih));
			}
	}

	/** @return a folder template's file name in quotes, or "" for a template of an image */
	private static String fileName(Template t, List<String> names) {
		return names != null && t.index < names.size() ? "'" + names.get(t.index) + "'" : "";
	}

	/**
	 * Matches the slices asked for with every rotation and flip of the templates.
	 *
	 * @param names      the Template column's names, or null to number the templates
	 * @param selfSearch the image is its own template: its selection is not a search area
	 * @param several    more than one template: the score map's labels say which
	 */
	static Outcome match(ImagePlus image, List<Template> originals, List<String> names, boolean selfSearch,
		boolean several, Settings s, ExecutionOptions opts)
	{
		checkSettings(s);
		checkFinite(originals, names);
		checkFitsImage(image, originals, names, s.angles);
		List<Template> bank = Template.bank(originals, s.flip, s.angles);
		warnOfFlatTemplates(originals, names);
		Rectangle search = selfSearch ? null : searchRectangle(image);
		if (search != null) {
			checkFits(bank, names, search);
			warnOfOnePosition(bank, search, image);
		}
		ImageStack stack = image.getStack();
		int first = s.stack ? 1 : image.getCurrentSlice(), last = s.stack ? stack.getSize() : first;
		Outcome out = new Outcome();
		out.namedTemplates = names != null;
		List<float[]> maps = new ArrayList<>();
		List<String> labels = new ArrayList<>();
		List<int[]> sizes = new ArrayList<>();
		Progress p = opts.progress();
		out.firstSlice = first;
		out.slices = last - first + 1;
		for (int z = first; z <= last && !p.isCanceled(); z++) {
			ImageProcessor ip = ImagePlusPlanes.slice(image, z);
			Planes plane = Planes.wrap(ip.getWidth(), ip.getHeight(), ip.getPixels());
			if (search != null) plane = TemplateMatching.crop(plane, 0, new Region(search.x, search.y, search.width,
				search.height, null));
			int slice = z;
			Planes searched = plane;
			double done = (z - first) / (double) (last - first + 1), share = 1.0 / (last - first + 1);
			boolean[] complete = { false };
			ExecutionOptions sliceOpts = opts.withProgress(new Progress() {
				@Override
				public void update(double f) {
					// detect reaches 1 only once every template of the bank is matched
					if (f >= 1) complete[0] = true;
					p.update(done + share * f);
				}

				@Override
				public boolean isCanceled() {
					return p.isCanceled();
				}
			});
			int mapsBefore = maps.size();
			List<Detection> found = TemplateMatching.detect(plane, 0, bank, s.threshold, s.maxObjects, s.nms, false,
				s.scoreMap ? (t, unused, map) -> {
					maps.add(map);
					sizes.add(new int[] {t.width(), t.height(), searched.width(), searched.height()});
					labels.add("slice " + slice + ", "
						+ TemplateMatchingResults.describe(t, names, bank.size() > 1 || several));
				} : null, sliceOpts);
			if (!complete[0]) {
				// Esc between groups of templates: some templates were matched and others not, so
				// the slice's detections would list some of its objects and silently miss others
				maps.subList(mapsBefore, maps.size()).clear();
				labels.subList(mapsBefore, labels.size()).clear();
				sizes.subList(mapsBefore, sizes.size()).clear();
				break;
			}
			for (Detection d : found) {
				Detection inImage = search != null ? d.shifted(search.x, search.y) : d;
				inImage = new Detection(inImage.x, inImage.y, inImage.width, inImage.height, inImage.score,
					inImage.template, inImage.angle, inImage.flipped, z - 1, inImage.refinedX, inImage.refinedY);
				out.detections.add(inImage);
				TemplateMatchingResults.addRow(out.table, image, inImage, names);
			}
			out.slicesMatched++;
		}
		// an Esc after the last slice was matched stopped nothing
		out.canceled = out.slicesMatched < out.slices;
		if (s.scoreMap && !maps.isEmpty()) {
			out.scoreMap = TemplateMatchingResults.scoreMap(image.getTitle(), maps, labels, sizes, s.sameSize);
			out.scoreMap.setCalibration(TemplateMatchingResults.scoreMapCalibration(image, search));
			out.scoreMap.setProperty(TemplateMatchingResults.MAP_OF, image.getID());
			// the maps of a whole hyperstack keep its channels (each once per template), slices and
			// frames, as its integral images and box statistics do: they were one long z-series
			if (s.stack && !out.canceled && maps.size() % stack.getSize() == 0)
				ImagePlusPlanes.copyLayout(out.scoreMap, image, maps.size() / stack.getSize());
		}
		return out;
	}

	/**
	 * Says in the Log which templates cannot find anything: a flat one scores 0 everywhere (the
	 * operation's documented answer), which otherwise looked like a search that found no object.
	 */
	private static void warnOfFlatTemplates(List<Template> originals, List<String> names) {
		List<String> flat = new ArrayList<>();
		for (Template t : originals)
			if (t.pixels.type() != PixelType.RGB && t.isFlat())
				flat.add(name(t, originals, names));
		if (flat.isEmpty()) return;
		String which = flat.get(0).isEmpty() ? "The template is"
			: (flat.size() == 1 ? "Template " : "Templates ") + String.join(", ", flat) + (flat.size() == 1 ? " is" : " are");
		OpLog.log(TemplateMatchingPlugin.COMMAND + ": " + which + " flat (all " + (flat.size() == 1 ? "its"
			: "their") + " pixels are equal, as in any 1x1 template), so " + (flat.size() == 1 ? "it scores" : "they score")
			+ " 0 everywhere and can find nothing; choose a template with structure.");
	}

	/**
	 * @return how the Log and messages name a template: its file in quotes, its number in a stack
	 *         of several, or nothing when it is the only one
	 */
	private static String name(Template t, List<Template> originals, List<String> names) {
		return names != null && t.index < names.size() ? "'" + names.get(t.index) + "'"
			: originals.size() > 1 ? String.valueOf(t.index + 1) : "";
	}

	/**
	 * The operation refuses a template with NaN or infinite pixels too, but cannot say which of a
	 * stack or a folder of templates it was.
	 */
	private static void checkFinite(List<Template> originals, List<String> names) {
		for (Template t : originals) {
			if (t.pixels.type() != PixelType.FLOAT32) continue;
			float[] p = (float[]) t.pixels.plane(0);
			for (int i = 0; i < p.length; i++)
				if ((t.mask == null || t.mask[i] != 0) && !Float.isFinite(p[i])) {
					String which = name(t, originals, names);
					throw new IllegalArgumentException("The template" + (which.isEmpty() ? "" : " " + which) + " holds NaN or infinite pixels, which would "
						+ "make every score NaN; replace them (Process>Math>Remove NaNs...), or leave them out with a "
						+ "selection on the template.");
				}
		}
	}

	/**
	 * The operation refuses these too, naming them as an API does; here they are named as the
	 * dialog and the macro name them (the SciJava command's inputs carry the same labels).
	 */
	private static void checkSettings(Settings s) {
		if (!(s.threshold >= -1 && s.threshold <= 1))
			throw TemplateMatchingPlugin.THRESHOLD.refused("between -1 and 1", s.threshold);
		// in the words of the dialog and the macro, which refuse a fraction too
		if (s.maxObjects < 1) throw TemplateMatchingPlugin.MAX_OBJECTS.refused("a whole number of at least 1", s.maxObjects);
		if (!(s.nms >= 0 && s.nms <= 1)) throw TemplateMatchingPlugin.NMS.refused("between 0 and 1", s.nms);
	}

	/** @return the bounds of the image's area selection clipped to the image, or null for the whole image */
	private static Rectangle searchRectangle(ImagePlus image) {
		Roi roi = image.getRoi();
		if (roi == null || !roi.isArea()) return null;
		Rectangle r = roi.getBounds().intersection(new Rectangle(0, 0, image.getWidth(), image.getHeight()));
		if (r.width < 1 || r.height < 1)
			throw new IllegalArgumentException("The search selection has no area inside the image.");
		return r;
	}

	/**
	 * Says in the Log when the search selection is a template's own size, so that it is searched
	 * at one position only. That is the selection Image>Duplicate... leaves on the image a
	 * template was cut from: matching right after it found the template itself, and nothing else,
	 * without a word of why.
	 */
	private static void warnOfOnePosition(List<Template> bank, Rectangle search, ImagePlus image) {
		for (Template t : bank)
			if (t.width() == search.width && t.height() == search.height) {
				OpLog.log(TemplateMatchingPlugin.COMMAND + ": the selection on \"" + image.getTitle() + "\" ("
					+ search.width + "x" + search.height + " at " + search.x + "," + search.y + ") is the template's size"
					+ (bank.size() > 1 ? " (of template " + (t.index + 1) + ")" : "") + ", so only that one position was "
					+ "searched. To search the whole image, remove the selection first (Edit>Selection>Select None).");
				return;
			}
	}

	/**
	 * The operation would call the searched rectangle "the image", which the user, looking at a
	 * larger image, would not recognize: a template that does not fit is reported here.
	 */
	private static void checkFits(List<Template> bank, List<String> names, Rectangle search) {
		for (Template t : bank)
			if (t.width() > search.width || t.height() > search.height)
				throw new IllegalArgumentException("The template" + (fileName(t, names).isEmpty() ? "" : " " + fileName(t, names))
					+ (t.angle % 360 != 0 ? " rotated by "
					+ TemplateMatchingPlugin.format(new double[] {t.angle}) + " degrees" : "") + " (" + t.width() + "x" + t.height()
					+ ") is larger than the search selection (" + search.width + "x" + search.height
					+ "); enlarge the selection, or remove it to search the whole image.");
	}

}
