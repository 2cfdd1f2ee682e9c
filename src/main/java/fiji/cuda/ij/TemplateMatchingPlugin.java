package fiji.cuda.ij;

import fiji.cuda.ncc.Detection;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.Texts;
import ij.IJ;
import ij.ImagePlus;
import ij.Macro;
import ij.WindowManager;
import ij.gui.GenericDialog;
import ij.measure.ResultsTable;
import ij.plugin.PlugIn;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * "GPU Template Matching...": finds the objects that look like a template in an image with
 * {@link TemplateMatching#detect} (normalized cross-correlation, TM_CCOEFF_NORMED).
 * <p>
 * Macro keys: {@code image} and {@code template} (titles of open images; {@code image} left
 * out is the current image, the one {@code IJ.run(imp, ...)} was given, shown or not, and the
 * current image's title names it rather than another image of that title; every slice of the
 * template image is a template, and an area selection on it restricts the template to the
 * selection: its bounds, with a mask when it is not a rectangle; {@code template} may also be
 * a folder, see {@link #folderTemplates}), {@code template_folder} (a folder of templates,
 * used instead of {@code template} when not empty; it is the dialog's "Template folder"
 * field, which starts empty every time and, left empty, is recorded as
 * {@code template_folder=[]}), {@code score_threshold}, {@code max_objects}, {@code nms}
 * (largest overlap, intersection over union, between two detections), {@code angles}
 * (degrees, separated by spaces or commas, a single comma between two whole numbers being refused
 * as a possible decimal comma, see {@link #parseAngles}; the Angle column gives them as given, and the same
 * rotation given twice is matched once, see {@link Template#bank}), and the flags
 * {@code flip} (also mirrored templates), {@code stack} (every slice, else the current one),
 * {@code score_map} (a 32-bit "Score map of &lt;title&gt;", one slice per image slice and
 * template) and {@code same_size} (the map at the image's size, anchored at the template
 * centre). A selection on the image limits the search to its bounding rectangle, unless the
 * image is also the template: then the selection is the template and the whole image is searched.
 * The score map then covers that rectangle only (with {@code same_size}, at its size), its
 * positions counted from the rectangle's top-left corner.
 * <p>
 * Outputs: the Results table (one row per detection: Image, Slice, Template, Angle, Flip,
 * Score, X, Y, Width, Height, Centre X, Centre Y; Template is the template's slice number, or
 * for a folder the file name, with ":slice" for a slice of a stack; an image of several channels
 * or frames adds Channel, Z and Frame after Slice), the ROI Manager (a rectangle per detection,
 * named with its score), and an overlay of the same rectangles on the image.
 */
public class TemplateMatchingPlugin implements PlugIn {

	static {
		IjBridge.init();
	}

	/** The command's name in the menu (without the dots) and in messages. */
	public static final String COMMAND = "GPU Template Matching";

	/** What a run is asked to do; the defaults are those of the dialog. */
	public static final class Settings {
		/** Lowest score kept. */
		public double threshold = 0.5;
		/** Most detections per slice. */
		public int maxObjects = 10;
		/** Largest intersection over union between two detections. */
		public double nms = 0.3;
		/** Rotations of each template, degrees. */
		public double[] angles = {0};
		/** Also match mirrored templates. */
		public boolean flip;
		/** Match every slice, else the current one. */
		public boolean stack;
		/** Also make the score map image. */
		public boolean scoreMap;
		/** The score map at the searched area's size rather than "valid". */
		public boolean sameSize;
	}

	/** What a run found. */
	public static final class Outcome {
		/** The detections, in image coordinates, per slice best first. */
		public final List<Detection> detections = new ArrayList<>();
		/** One row per detection. */
		public final ResultsTable table = new ResultsTable();
		/** "Score map of ...", or null when not asked for. */
		public ImagePlus scoreMap;
		/** True when the Template column holds names (templates from a folder), not numbers. */
		boolean namedTemplates;
		/** True when Esc stopped the matching before every slice asked for was matched. */
		public boolean canceled;
		/** The first slice asked for, 1-based. */
		public int firstSlice;
		/** How many slices were asked for: the stack's, or 1 (the current slice). */
		public int slices;
		/**
		 * How many slices, from {@link #firstSlice} on, were matched with every template: the
		 * only ones whose detections (and score maps) are kept. A slice that Esc interrupted
		 * between groups of templates is left out whole.
		 */
		public int slicesMatched;
	}

	/** Templates read from files, each with the name the Results table gives it. */
	public static final class NamedTemplates {
		/** The templates, {@link Template#index} counting from 0 in this list's order. */
		public final List<Template> templates = new ArrayList<>();
		/** One per template: the file name, with ":slice" (1-based) for a slice of a stack. */
		public final List<String> names = new ArrayList<>();
	}

	/** The dialog's remembered choices (not private: tests put them back). */
	static final Settings LAST = new Settings();

	/** The score map's title, before the image's. */
	static final String SCORE_MAP_TITLE = "Score map of ";

	/* the fields, for messages */
	static final Field THRESHOLD = new Field("Score threshold", "score_threshold"),
		MAX_OBJECTS = new Field("Max objects", "max_objects"), NMS = new Field("NMS (maximal overlap)", "nms"),
		ANGLES = new Field("Angles (degrees)", "angles");

	/** The macro key of the dialog's folder field, which GenericDialog derives from its label. */
	static final String FOLDER_KEY = "template_folder";
	private static final String FOLDER_LABEL = "Template_folder:";

	/**
	 * @return the image {@code current} is the score map of, while that image is open; else
	 *         {@code current}. A run again right after one with a score map, which is then the
	 *         current image, searched the map: the dialog offers this image instead, and a macro
	 *         without {@code image=} searches it.
	 */
	private static ImagePlus mapSource(ImagePlus current) {
		Object mapOf = current.getProperty(TemplateMatchingResults.MAP_OF);
		ImagePlus source = mapOf instanceof Integer ? WindowManager.getImage((Integer) mapOf) : null;
		return source != null ? source : current;
	}

	@Override
	public void run(String arg) {
		IjErrors.enter();
		try {
			String options = Macro.getOptions();
			int[] ids = WindowManager.getIDList();
			// the image IJ.run(imp, ...) was given, for this thread only: a script's image need not be shown
			ImagePlus given = WindowManager.getCurrentImage();
			if (ids == null && given == null) {
				IjErrors.report(COMMAND, "There is no image open.");
				return;
			}
			ImagePlus image, template = null;
			NamedTemplates folder = null;
			Settings s = new Settings();
			if (options != null) {
				// read the keys here: GenericDialog answers an unknown image title with a macro
				// error dialog, which would hang a batch run
				IjBridge.checkClosed(options);
				String title = IjBridge.macroValue(options, "image", null);
				image = title == null && given != null ? mapSource(given) : find(title, "image", given);
				// the dialog records template_folder=[] when the field is left empty: then template counts
				String f = IjBridge.macroValue(options, FOLDER_KEY, "").trim();
				String t = IjBridge.macroValue(options, "template", "");
				if (!f.isEmpty()) folder = TemplateMatchingTemplates.fromFolder(new File(f).toPath(), FOLDER_KEY);
				else if (WindowManager.getImage(t) == null && !isTitleOf(given, t) && TemplateMatchingTemplates.isFolderPath(t))
					folder = TemplateMatchingTemplates.fromFolder(new File(t).toPath(), "template");
				else template = find(t, "template", given);
				s.threshold = IjBridge.macroNumber(options, THRESHOLD, s.threshold);
				s.maxObjects = macroMaxObjects(options, s.maxObjects);
				s.nms = IjBridge.macroNumber(options, NMS, s.nms);
				checkBracketed(options);
				s.angles = parseAngles(IjBridge.macroValue(options, ANGLES.key, "0"));
				s.flip = flag(options, "flip");
				s.stack = flag(options, "stack");
				s.scoreMap = flag(options, "score_map");
				s.sameSize = flag(options, "same_size");
			} else {
				if (IjErrors.noOptionsToRunWith(COMMAND, "image=cells.tif template=cell.tif score_threshold=0.5")) return;
				// an image another thread closes meanwhile is not offered: its lookup below was null
				ImagePlus[] opened = stillOpen(ids);
				ids = opened == null ? null : java.util.Arrays.stream(opened).mapToInt(ImagePlus::getID).toArray();
				if (ids == null) {
					// the dialog offers open images only, and a script's image of its own is none
					IjErrors.report(COMMAND, "There is no image open.");
					return;
				}
				String[] titles = new String[ids.length];
				int[][] sizes = new int[ids.length][];
				boolean[] maps = new boolean[ids.length];
				int current = 0;
				for (int i = 0; i < ids.length; i++) {
					ImagePlus open = opened[i];
					titles[i] = open.getTitle();
					sizes[i] = new int[] { open.getWidth(), open.getHeight() };
					maps[i] = titles[i].startsWith(SCORE_MAP_TITLE) || open.getProperty(TemplateMatchingResults.MAP_OF) != null;
					if (open == WindowManager.getCurrentImage()) current = i;
				}
				// a run again right after one with a score map, which is then in front, searched the map
				ImagePlus source = mapSource(opened[current]);
				for (int i = 0; i < opened.length; i++)
					if (opened[i] == source) current = i;
				int[] first = defaultChoices(sizes, current, maps);
				Answer a = dialog(titles, first[0], first[1]);
				if (a == null) return;
				image = WindowManager.getImage(ids[a.image]);
				if (!a.folder.isEmpty()) folder = TemplateMatchingTemplates.fromFolder(new File(a.folder).toPath(), FOLDER_KEY);
				else template = WindowManager.getImage(ids[a.template]);
				s = a.settings;
			}
			// both held while read: a command changing the pixels meanwhile gave matches of both states
			ExecutionOptions opts = IjBridge.options().withProgress(new IjProgress());
			ImagePlus img = image, tpl = template;
			NamedTemplates named = folder;
			Settings set = s;
			Outcome out = ImagePlusPlanes.whileReading(image, template,
				() -> named != null ? run(img, named, set, opts) : run(img, tpl, set, opts));
			TemplateMatchingResults.show(image, out);
		} catch (RuntimeException | OutOfMemoryError e) {
			IjErrors.report(COMMAND, e); // out of memory too: ImageJ would let the macro go on
		} finally {
			IJ.showProgress(1.0);
		}
	}

	/** @return the images of {@code ids} that are still open, in order, or null for none */
	private static ImagePlus[] stillOpen(int[] ids) {
		ImagePlus[] open = ids == null ? new ImagePlus[0]
			: java.util.Arrays.stream(ids).mapToObj(WindowManager::getImage).filter(java.util.Objects::nonNull)
				.toArray(ImagePlus[]::new);
		return open.length == 0 ? null : open;
	}

	/**
	 * Matches without showing anything; for the plug-in, the SciJava command and tests.
	 *
	 * @param image    the image searched (8, 16 or 32-bit; its selection, if any, bounds the search)
	 * @param template the templates, one per slice (its selection, if any, bounds and masks them)
	 * @param s        the settings
	 * @param opts     backend, threads, progress and cancellation (checked between groups of
	 *                 templates; a cancel keeps whole slices only, see {@link Outcome#slicesMatched})
	 * @return the detections, their table, and the score map if asked for
	 * @throws IllegalArgumentException for bad input, before anything is shown or changed
	 */
	public static Outcome run(ImagePlus image, ImagePlus template, Settings s, ExecutionOptions opts) {
		if (image == null) throw new IllegalArgumentException("There is no image.");
		if (template == null) throw new IllegalArgumentException("There is no template.");
		ImagePlusPlanes.checkHasPixels(image);
		ImagePlusPlanes.checkHasPixels(template);
		if (image.getBitDepth() == 24) throw new IllegalArgumentException(Texts.RGB);
		if (template.getBitDepth() == 24)
			throw new IllegalArgumentException("The template \"" + template.getTitle() + "\" is RGB, which is not supported. "
				+ Texts.CONVERT_RGB);
		// a selection on an image that is also the template marks the template, not the search,
		// and it is cut from the slice shown
		boolean itself = image == template;
		return TemplateMatchingRun.match(image, itself ? TemplateMatchingTemplates.ofItself(image)
			: TemplateMatchingTemplates.fromImage(template), null, itself, !itself && template.getStackSize() > 1, s, opts);
	}

	/**
	 * The SciJava command's run: {@link #run(ImagePlus, ImagePlus, Settings, ExecutionOptions)}
	 * with the user's options, both images read under their locks, and a score map titled apart
	 * from an earlier map of the same image, which Fiji may be showing beside it (as from the menu).
	 *
	 * @param image    the image searched
	 * @param template the templates, one per slice
	 * @param s        the settings
	 * @return the detections, their table, and the score map if asked for
	 * @throws IllegalArgumentException for bad input, or when another command holds an image
	 */
	public static Outcome runForScript(ImagePlus image, ImagePlus template, Settings s) {
		Outcome out = ImagePlusPlanes.whileReading(image, template, () -> run(image, template, s, IjBridge.options()));
		if (out.scoreMap != null) out.scoreMap.setTitle(IjBridge.uniqueTitle(out.scoreMap.getTitle()));
		return out;
	}

	/**
	 * Matches the templates of a folder (see {@link #folderTemplates}) without showing anything.
	 *
	 * @param image     the image searched (8, 16 or 32-bit; its selection, if any, bounds the search)
	 * @param templates the templates and their names, which the Template column and the score
	 *                  map's slice labels carry
	 * @param s         the settings
	 * @param opts      backend, threads, progress and cancellation (checked between groups of
	 *                  templates; a cancel keeps whole slices only, see {@link Outcome#slicesMatched})
	 * @return the detections, their table, and the score map if asked for
	 * @throws IllegalArgumentException for bad input, before anything is shown or changed
	 */
	public static Outcome run(ImagePlus image, NamedTemplates templates, Settings s, ExecutionOptions opts) {
		if (image == null) throw new IllegalArgumentException("There is no image.");
		if (templates == null || templates.templates.isEmpty()) throw new IllegalArgumentException("There is no template.");
		ImagePlusPlanes.checkHasPixels(image);
		if (image.getBitDepth() == 24) throw new IllegalArgumentException(Texts.RGB);
		return TemplateMatchingRun.match(image, templates.templates, templates.names, false, true, s, opts);
	}

	/**
	 * Reads a folder of templates: every .tif or .tiff file in it (not in its subfolders, and
	 * not hidden files), sorted by name, and every slice of each, as one template. The files
	 * may differ in size and type (8, 16 or 32-bit); each template is scored on its own, and
	 * the detections of all compete in the same non-maximum suppression. An area selection
	 * saved with a file cuts its templates to it, and masks them when it is not a rectangle,
	 * as a selection on the Template image does.
	 *
	 * @param folder the folder
	 * @return the templates, named "file.tif", or "file.tif:2" for slice 2 of a stack
	 * @throws IllegalArgumentException when the folder does not exist, holds no .tif or .tiff
	 *                                  file, or a file cannot be read or is RGB
	 */
	public static NamedTemplates folderTemplates(Path folder) {
		return TemplateMatchingTemplates.fromFolder(folder, "template");
	}

	/** angles= with an unbracketed value followed by a bare number: a list that lost its brackets. */
	private static final Pattern UNBRACKETED_ANGLES = Pattern
		.compile("(?:^|\\s)angles=([^\\[\\s]\\S*)((?:\\s+[-+]?[0-9.]+(?=\\s|$))+)");

	/**
	 * @throws IllegalArgumentException for {@code angles=0 90}: ImageJ reads a macro value only up
	 *         to the first space unless it is in brackets, so only 0 was matched, without a word
	 */
	static void checkBracketed(String options) {
		// bracketed values (titles, paths, a bracketed list) are no list that lost its brackets
		java.util.regex.Matcher m = UNBRACKETED_ANGLES.matcher(IjBridge.outsideBrackets(options));
		if (m.find()) {
			String list = (m.group(1) + m.group(2)).trim().replaceAll("\\s+", " ");
			throw new IllegalArgumentException("Several angles must be in brackets: " + ANGLES.key + "=[" + list + "], not "
				+ ANGLES.key + "=" + list + " (only the first would be read).");
		}
	}

	/** The {@code max_objects} key of macro options (a number or a macro variable), checked as the dialog's. */
	static int macroMaxObjects(String options, int dflt) {
		return maxObjects(IjBridge.macroNumber(options, MAX_OBJECTS, dflt));
	}

	/**
	 * @param v the number given for Max objects
	 * @return it as an int; a whole number past int's range as the largest int
	 * @throws IllegalArgumentException below 1 or not a whole number, showing the value as given
	 *                                  (-1e12 as -1000000000000)
	 */
	private static int maxObjects(double v) {
		// refused, not cut to a whole number, as GPU Align Slices refuses its numbers: 2.7 ran as 2
		// without a word, and ImageJ records the 2.7 typed into the dialog, so the recorded macro must
		// refuse it too; a whole number past int's range keeps every detection, as the largest int does
		if (!(v >= 1) || v != Math.rint(v)) throw MAX_OBJECTS.refused("a whole number of at least 1", v);
		return (int) Math.min(v, Integer.MAX_VALUE);
	}

	/**
	 * @param given   this thread's current image, or null: the one named when it has the title.
	 *                Several threads of a batch may each hold an image of the same title (a file
	 *                of the same name in each folder), and the first open one of that title was
	 *                another thread's, matched and marked instead of this one.
	 */
	private static ImagePlus find(String title, String key, ImagePlus given) {
		if (title == null || title.isEmpty())
			throw new IllegalArgumentException("Please give the " + key + " (" + key + "=[title of an open image]"
				+ (key.equals("template") ? ", or " + FOLDER_KEY + "=[folder of templates]" : "") + ").");
		if (isTitleOf(given, title)) return given;
		ImagePlus imp = WindowManager.getImage(title);
		if (imp == null) throw new IllegalArgumentException("There is no open image called '" + title + "' (" + key + ").");
		return imp;
	}

	private static boolean isTitleOf(ImagePlus imp, String title) {
		return imp != null && imp.getTitle().equals(title);
	}

	static boolean flag(String options, String key) {
		// not inside a bracketed value: image=[cells stack 1] does not set "stack"
		return Pattern.compile("(^|\\s)" + Pattern.quote(key) + "(\\s|$)").matcher(IjBridge.outsideBrackets(options)).find();
	}

	/**
	 * @param list angles in degrees separated by spaces, commas or semicolons, e.g. "0 90 180".
	 *             Two whole numbers joined by one comma ("22,5") may be a decimal comma, as a
	 *             German or French user writes it, and are refused: between other angles it is
	 *             one, and alone it may be either
	 * @return the angles; {0} for an empty list
	 * @throws IllegalArgumentException naming the first entry that is not a number, or a
	 *         possible decimal comma
	 */
	public static double[] parseAngles(String list) {
		// "22,5" was read as 22 and 5 without a word
		String[] groups = list == null ? new String[0] : list.trim().split("[\\s;]+");
		for (String g : groups)
			if (g.matches("[+-]?\\d+,\\d+"))
				throw new IllegalArgumentException(ANGLES.label + " must be numbers separated by spaces, not "
					+ Texts.option(ANGLES.key, list.trim()) + " ('" + g + "' " + (groups.length == 1 ? "could be "
					+ g.replace(',', '.') + " or the two angles " + g.replace(',', ' ') + ": write the one meant"
					: "has a decimal comma: write " + g.replace(',', '.')) + ").");
		String[] parts = list == null ? new String[0] : list.trim().split("[\\s,;]+");
		List<Double> out = new ArrayList<>();
		for (String p : parts) {
			if (p.isEmpty()) continue;
			double a;
			try {
				a = Double.parseDouble(p);
			} catch (NumberFormatException e) {
				a = Double.NaN;
			}
			// a word, NaN or infinity (which the bank would refuse as "not a finite number")
			if (!Double.isFinite(a))
				throw new IllegalArgumentException(ANGLES.label + " must be numbers separated by spaces, not "
					+ Texts.option(ANGLES.key, list.trim()) + " ('" + p + "' is not " + (Double.isNaN(a) ? "a number" : "finite")
					+ ").");
			out.add(a);
		}
		if (out.isEmpty()) out.add(0.0);
		return out.stream().mapToDouble(Double::doubleValue).toArray();
	}

	/**
	 * The Image and Template the dialog offers first. A current image that fits inside an open
	 * image of at least four times its area is most likely a template cut from it
	 * (Image&gt;Duplicate of a selection leaves the copy current): it is offered as the Template,
	 * and the largest image it fits in as the Image; two scenes of similar sizes stay as they are. Otherwise the current image is the Image, and the Template the image opened last
	 * that fits inside it, or the first other image. The second open image, offered before
	 * whatever the sizes, was the current one itself in that Duplicate workflow, so both choices
	 * named the template.
	 *
	 * @param sizes   width and height of each open image, in the choices' order (the order the
	 *                images were opened in)
	 * @param current the index of the current image
	 * @return the indices of the Image and the Template
	 */
	static int[] defaultChoices(int[][] sizes, int current) {
		return defaultChoices(sizes, current, new boolean[sizes.length]);
	}

	/**
	 * {@link #defaultChoices(int[][], int)} passing over the images marked {@code results} (a
	 * score map of an earlier run, which is no template: it was offered as the Template, as the
	 * image opened last that fits), unless there is nothing else.
	 *
	 * @param results per open image, whether it is a result of this command
	 * @return the indices of the Image and the Template
	 */
	static int[] defaultChoices(int[][] sizes, int current, boolean[] results) {
		int container = -1;
		for (int i = sizes.length - 1; i >= 0; i--)
			if (i != current && !results[i] && fits(sizes[current], sizes[i]) && area(sizes[i]) >= 4 * area(sizes[current])
				&& (container < 0 || area(sizes[i]) > area(sizes[container]))) container = i;
		if (container >= 0) return new int[] { container, current };
		for (int i = sizes.length - 1; i >= 0; i--)
			if (i != current && !results[i] && fits(sizes[i], sizes[current])) return new int[] { current, i };
		for (int i = 0; i < sizes.length; i++)
			if (i != current && !results[i]) return new int[] { current, i };
		for (int i = 0; i < sizes.length; i++)
			if (i != current) return new int[] { current, i };
		return new int[] { current, current };
	}

	private static boolean fits(int[] inner, int[] outer) {
		return inner[0] <= outer[0] && inner[1] <= outer[1];
	}

	private static long area(int[] size) {
		return (long) size[0] * size[1];
	}

	/** What the dialog was answered. */
	static final class Answer {
		/** Indices into the titles given to {@link #dialog}. */
		int image, template;
		/** The template folder, or "" to use the Template image. */
		String folder;
		final Settings settings = new Settings();
	}

	/**
	 * The parameter dialog. The folder field starts empty every time: a folder remembered from
	 * an earlier run would silently replace the Template image chosen in this one.
	 *
	 * @param titles   the open images' titles
	 * @param image    the index of the Image choice shown first
	 * @param template the index of the Template choice shown first
	 * @return the answer, or null when the dialog was canceled
	 * @throws IllegalArgumentException for a number or an angle that is not one
	 */
	static Answer dialog(String[] titles, int image, int template) {
		GenericDialog gd = new GenericDialog(COMMAND);
		gd.addChoice("Image:", titles, titles[image]);
		gd.addChoice("Template:", titles, titles[template]);
		gd.addDirectoryField(FOLDER_LABEL, "");
		gd.addMessage("When a template folder is given, its .tif/.tiff images are the templates,\n"
			+ "instead of the Template image. Leave it empty to use the Template image.");
		IjBridge.addExactField(gd, "Score_threshold:", LAST.threshold, 2);
		gd.addNumericField("Max_objects:", LAST.maxObjects, 0);
		IjBridge.addExactField(gd, "NMS (maximal overlap, 0-1):", LAST.nms, 2);
		// the macro key stays "angles": GenericDialog keys a field by the first word of its label
		gd.addStringField("Angles (degrees, counter-clockwise):", format(LAST.angles), 20);
		gd.addCheckbox("Flip (also mirrored templates)", LAST.flip);
		gd.addCheckbox("Stack (match every slice)", LAST.stack);
		gd.addCheckbox("Score_map", LAST.scoreMap);
		gd.addCheckbox("Same_size score map", LAST.sameSize);
		gd.showDialog();
		if (gd.wasCanceled()) {
			IjErrors.canceled();
			return null;
		}
		Answer a = new Answer();
		Settings s = a.settings;
		a.image = gd.getNextChoiceIndex();
		a.template = gd.getNextChoiceIndex();
		a.folder = gd.getNextString().trim();
		s.threshold = THRESHOLD.read(gd, 0);
		s.maxObjects = maxObjects(MAX_OBJECTS.read(gd, 1));
		s.nms = NMS.read(gd, 2);
		s.angles = parseAngles(gd.getNextString());
		s.flip = gd.getNextBoolean();
		s.stack = gd.getNextBoolean();
		s.scoreMap = gd.getNextBoolean();
		s.sameSize = gd.getNextBoolean();
		copy(s, LAST);
		return a;
	}

	private static void copy(Settings from, Settings to) {
		to.threshold = from.threshold;
		to.maxObjects = from.maxObjects;
		to.nms = from.nms;
		to.angles = from.angles.clone();
		to.flip = from.flip;
		to.stack = from.stack;
		to.scoreMap = from.scoreMap;
		to.sameSize = from.sameSize;
	}

	/** The angles as the dialog, messages and score map labels write them: whole degrees without ".0". */
	static String format(double[] a) {
		StringBuilder b = new StringBuilder();
		for (double v : a)
			b.append(b.length() > 0 ? " " : "").append(v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v));
		return b.toString();
	}

}
