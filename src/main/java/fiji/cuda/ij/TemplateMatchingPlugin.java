package fiji.cuda.ij;

import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ncc.Detection;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.Progress;
import fiji.cuda.ops.Texts;
import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.Macro;
import ij.WindowManager;
import ij.gui.GenericDialog;
import ij.gui.Overlay;
import ij.gui.Roi;
import ij.io.Opener;
import ij.macro.Interpreter;
import ij.measure.ResultsTable;
import ij.plugin.PlugIn;
import ij.plugin.frame.RoiManager;
import ij.process.FloatProcessor;
import ij.process.ImageProcessor;
import ij.util.Tools;

import java.awt.Color;
import java.awt.GraphicsEnvironment;
import java.awt.Rectangle;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.regex.Pattern;

/**
 * "GPU Template Matching...": finds the objects that look like a template in an image with
 * {@link TemplateMatching#detect} (normalized cross-correlation, TM_CCOEFF_NORMED).
 * <p>
 * Macro keys: {@code image} and {@code template} (titles of open images; every slice of the
 * template image is a template, and an area selection on it restricts the template to the
 * selection: its bounds, with a mask when it is not a rectangle; {@code template} may also be
 * a folder, see {@link #folderTemplates}), {@code template_folder} (a folder of templates,
 * used instead of {@code template} when not empty; it is the dialog's "Template folder"
 * field, which starts empty every time and, left empty, is recorded as
 * {@code template_folder=[]}), {@code score_threshold}, {@code max_objects}, {@code nms}
 * (largest overlap, intersection over union, between two detections), {@code angles}
 * (degrees, separated by spaces or commas; the Angle column gives them as given, and the same
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
 * for a folder the file name, with ":slice" for a slice of a stack), the ROI Manager (a rectangle per detection,
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

	private static final Settings LAST = new Settings();

	/** Whether the Log has said that templates of different sizes give an image-sized score map; tests set it back. */
	static boolean sizesNoted;

	/* the fields, for messages */
	static final Field THRESHOLD = new Field("Score threshold", "score_threshold"),
		MAX_OBJECTS = new Field("Max objects", "max_objects"), NMS = new Field("NMS (maximal overlap)", "nms"),
		ANGLES = new Field("Angles (degrees)", "angles");

	/** The macro key of the dialog's folder field, which GenericDialog derives from its label. */
	static final String FOLDER_KEY = "template_folder";
	private static final String FOLDER_LABEL = "Template_folder:";

	@Override
	public void run(String arg) {
		try {
			String options = Macro.getOptions();
			int[] ids = WindowManager.getIDList();
			if (ids == null) {
				IjErrors.report(COMMAND, "There is no image open.");
				return;
			}
			ImagePlus image, template = null;
			NamedTemplates folder = null;
			Settings s = new Settings();
			if (options != null) {
				// read the keys here: GenericDialog answers an unknown image title with a macro
				// error dialog, which would hang a batch run
				image = find(IjBridge.macroValue(options, "image", WindowManager.getCurrentImage().getTitle()), "image");
				// the dialog records template_folder=[] when the field is left empty: then template counts
				String f = IjBridge.macroValue(options, FOLDER_KEY, "").trim();
				String t = IjBridge.macroValue(options, "template", "");
				if (!f.isEmpty()) folder = folderTemplates(new File(f).toPath(), FOLDER_KEY);
				else if (WindowManager.getImage(t) == null && isFolderPath(t)) folder = folderTemplates(new File(t).toPath(), "template");
				else template = find(t, "template");
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
				String[] titles = new String[ids.length];
				int[][] sizes = new int[ids.length][];
				int current = 0;
				for (int i = 0; i < ids.length; i++) {
					ImagePlus open = WindowManager.getImage(ids[i]);
					titles[i] = open.getTitle();
					sizes[i] = new int[] { open.getWidth(), open.getHeight() };
					if (open == WindowManager.getCurrentImage()) current = i;
				}
				int[] first = defaultChoices(sizes, current);
				Answer a = dialog(titles, first[0], first[1]);
				if (a == null) return;
				image = WindowManager.getImage(ids[a.image]);
				if (!a.folder.isEmpty()) folder = folderTemplates(new File(a.folder).toPath(), FOLDER_KEY);
				else template = WindowManager.getImage(ids[a.template]);
				s = a.settings;
			}
			ExecutionOptions opts = ExecutionOptions.defaults().withProgress(new IjProgress());
			Outcome out = folder != null ? run(image, folder, s, opts) : run(image, template, s, opts);
			show(image, out);
		} catch (RuntimeException | OutOfMemoryError e) {
			IjErrors.report(COMMAND, e); // out of memory too: ImageJ would let the macro go on
		} finally {
			IJ.showProgress(1.0);
		}
	}

	/** angles= with an unbracketed value followed by a bare number: a list that lost its brackets. */
	private static final java.util.regex.Pattern UNBRACKETED_ANGLES = java.util.regex.Pattern
		.compile("(?:^|\\s)angles=([^\\[\\s]\\S*)((?:\\s+[-+]?[0-9.]+(?=\\s|$))+)");

	/**
	 * @throws IllegalArgumentException for {@code angles=0 90}: ImageJ reads a macro value only up
	 *         to the first space unless it is in brackets, so only 0 was matched, without a word
	 */
	static void checkBracketed(String options) {
		// bracketed values (titles, paths, a bracketed list) are no list that lost its brackets
		java.util.regex.Matcher m = UNBRACKETED_ANGLES.matcher(outsideBrackets(options));
		if (m.find()) {
			String list = (m.group(1) + m.group(2)).trim().replaceAll("\\s+", " ");
			throw new IllegalArgumentException("Several angles must be in brackets: " + ANGLES.key + "=[" + list + "], not "
				+ ANGLES.key + "=" + list + " (only the first would be read).");
		}
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
		int container = -1;
		for (int i = sizes.length - 1; i >= 0; i--)
			if (i != current && fits(sizes[current], sizes[i]) && area(sizes[i]) >= 4 * area(sizes[current])
				&& (container < 0 || area(sizes[i]) > area(sizes[container]))) container = i;
		if (container >= 0) return new int[] { container, current };
		for (int i = sizes.length - 1; i >= 0; i--)
			if (i != current && fits(sizes[i], sizes[current])) return new int[] { current, i };
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
		gd.addNumericField("Score_threshold:", LAST.threshold, 2);
		gd.addNumericField("Max_objects:", LAST.maxObjects, 0);
		gd.addNumericField("NMS (maximal overlap, 0-1):", LAST.nms, 2);
		gd.addStringField("Angles (degrees):", format(LAST.angles), 20);
		gd.addCheckbox("Flip (also mirrored templates)", LAST.flip);
		gd.addCheckbox("Stack (match every slice)", LAST.stack);
		gd.addCheckbox("Score_map", LAST.scoreMap);
		gd.addCheckbox("Same_size score map", LAST.sameSize);
		gd.showDialog();
		if (gd.wasCanceled()) return null;
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
		if (image.getBitDepth() == 24) throw new IllegalArgumentException(Texts.RGB);
		if (template.getBitDepth() == 24)
			throw new IllegalArgumentException("The template \"" + template.getTitle() + "\" is RGB, which is not supported. "
				+ Texts.CONVERT_RGB);
		// a selection on an image that is also the template marks the template, not the search
		return run(image, templates(template), null, image == template, template.getStackSize() > 1, s, opts);
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
		if (image.getBitDepth() == 24) throw new IllegalArgumentException(Texts.RGB);
		return run(image, templates.templates, templates.names, false, true, s, opts);
	}

	/**
	 * @param names      the Template column's names, or null to number the templates
	 * @param selfSearch the image is its own template: its selection is not a search area
	 * @param several    more than one template: the score map's labels say which
	 */
	private static Outcome run(ImagePlus image, List<Template> originals, List<String> names, boolean selfSearch,
		boolean several, Settings s, ExecutionOptions opts)
	{
		checkSettings(s);
		List<Template> bank = Template.bank(originals, s.flip, s.angles);
		Rectangle search = selfSearch ? null : searchRectangle(image);
		if (search != null) checkFits(bank, search);
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
			ImageProcessor ip = stack.getProcessor(z);
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
					labels.add("slice " + slice + ", " + describe(t, names, bank.size() > 1 || several));
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
				addRow(out.table, image, inImage, names);
			}
			out.slicesMatched++;
		}
		// an Esc after the last slice was matched stopped nothing
		out.canceled = out.slicesMatched < out.slices;
		if (s.scoreMap && !maps.isEmpty()) {
			out.scoreMap = scoreMap(image.getTitle(), maps, labels, sizes, s.sameSize);
			out.scoreMap.setCalibration(scoreMapCalibration(image, search));
			// the maps of a whole hyperstack keep its channels (each once per template), slices and
			// frames, as its integral images and box statistics do: they were one long z-series
			if (s.stack && !out.canceled && maps.size() % stack.getSize() == 0)
				ImagePlusPlanes.copyLayout(out.scoreMap, image, maps.size() / stack.getSize());
		}
		return out;
	}

	/**
	 * The operation refuses these too, naming them as an API does; here they are named as the
	 * dialog and the macro name them (the SciJava command's inputs carry the same labels).
	 */
	private static void checkSettings(Settings s) {
		if (!(s.threshold >= -1 && s.threshold <= 1)) throw THRESHOLD.refused("between -1 and 1", s.threshold);
		// in the words of the dialog and the macro, which refuse a fraction too
		if (s.maxObjects < 1) throw MAX_OBJECTS.refused("a whole number of at least 1", s.maxObjects);
		if (!(s.nms >= 0 && s.nms <= 1)) throw NMS.refused("between 0 and 1", s.nms);
	}

	/**
	 * @param v the number given for Max objects
	 * @return it as an int (a fraction cut off, as the dialog's field has no decimals)
	 * @throws IllegalArgumentException below 1, showing the value given (as an int, -1e12 read
	 *                                  as -2147483648)
	 */
	/** The {@code max_objects} key of macro options (a number or a macro variable), checked as the dialog's. */
	static int macroMaxObjects(String options, int dflt) {
		return maxObjects(IjBridge.macroNumber(options, MAX_OBJECTS, dflt));
	}

	private static int maxObjects(double v) {
		// refused, not cut to a whole number, as GPU Align Slices refuses its numbers: 2.7 ran as 2
		// without a word, and ImageJ records the 2.7 typed into the dialog, so the recorded macro must
		// refuse it too; a whole number past int's range keeps every detection, as the largest int does
		if (!(v >= 1) || v != Math.rint(v)) throw MAX_OBJECTS.refused("a whole number of at least 1", v);
		return (int) Math.min(v, Integer.MAX_VALUE);
	}

	private static void addRow(ResultsTable rt, ImagePlus image, Detection d, List<String> names) {
		rt.incrementCounter();
		rt.addValue("Image", image.getTitle());
		rt.addValue("Slice", d.plane + 1);
		if (names != null) rt.addValue("Template", names.get(d.template));
		else rt.addValue("Template", d.template + 1);
		rt.addValue("Angle", d.angle);
		rt.addValue("Flip", d.flipped ? 1 : 0);
		rt.addValue("Score", d.score);
		rt.addValue("X", d.x);
		rt.addValue("Y", d.y);
		rt.addValue("Width", d.width);
		rt.addValue("Height", d.height);
		rt.addValue("Centre X", d.centreX());
		rt.addValue("Centre Y", d.centreY());
	}

	/** Every slice of the template image, cut to its area selection with the selection's mask. */
	static List<Template> templates(ImagePlus template) {
		return templates(template, 0);
	}

	/** {@link #templates(ImagePlus)}, their {@link Template#index} counting from {@code first}. */
	private static List<Template> templates(ImagePlus template, int first) {
		Roi roi = template.getRoi();
		Region r = roi != null && roi.isArea() ? ImagePlusPlanes.region(roi) : null;
		ImageStack stack = template.getStack();
		List<Template> out = new ArrayList<>();
		for (int z = 1; z <= stack.getSize(); z++) {
			ImageProcessor ip = stack.getProcessor(z);
			Planes p = Planes.wrap(ip.getWidth(), ip.getHeight(), ip.getPixels());
			if (r == null) {
				out.add(new Template(p, null, first + z - 1, 0, false));
				continue;
			}
			Region c = r.clipTo(p.width(), p.height()); // clips the mask too
			out.add(new Template(TemplateMatching.crop(p, 0, c), c.mask, first + z - 1, 0, false));
		}
		return out;
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
		return folderTemplates(folder, "template");
	}

	/** {@link #folderTemplates(Path)}, its messages naming the macro key that gave the folder. */
	static NamedTemplates folderTemplates(Path folder, String key) {
		if (folder != null && Files.isRegularFile(folder))
			throw new IllegalArgumentException("'" + folder + "' is a file, not a folder: open it and give its title, "
				+ "or give a folder of templates (" + key + ").");
		if (folder == null || !Files.isDirectory(folder))
			throw new IllegalArgumentException("The template folder '" + folder + "' does not exist (" + key + ").");
		List<Path> files;
		try (Stream<Path> list = Files.list(folder)) {
			files = list.filter(f -> isTiff(f.getFileName().toString()) && Files.isRegularFile(f)).sorted()
				.collect(Collectors.toList());
		} catch (IOException e) {
			throw new IllegalArgumentException("The folder '" + folder + "' cannot be read (" + key + "): " + e.getMessage());
		}
		if (files.isEmpty())
			throw new IllegalArgumentException("The folder '" + folder + "' holds no .tif or .tiff image (" + key + ").");
		NamedTemplates out = new NamedTemplates();
		for (Path f : files) {
			String name = f.getFileName().toString();
			ImagePlus imp = new Opener().openImage(f.toString());
			if (imp == null)
				throw new IllegalArgumentException("The template '" + name + "' in '" + folder + "' cannot be opened (" + key
					+ ").");
			if (imp.getBitDepth() == 24)
				throw new IllegalArgumentException("The template '" + name + "' in '" + folder
					+ "' is RGB, which is not supported. " + Texts.CONVERT_RGB);
			// the area selection saved with a file (which the Opener restores) cuts and masks its
			// templates, as it does a single template file opened and given as template=: the same
			// files moved into a folder gave other scores, their masked-out corners counted
			List<Template> cut;
			try {
				cut = templates(imp, out.templates.size());
			} catch (IllegalArgumentException e) {
				String why = e.getMessage().replaceFirst("^" + Pattern.quote(TemplateMatching.NAME) + ": ", "");
				throw new IllegalArgumentException("The template '" + name + "' in '" + folder + "' (" + key + "): " + why);
			}
			int slices = imp.getStackSize();
			for (int z = 1; z <= slices; z++) {
				out.templates.add(cut.get(z - 1));
				out.names.add(slices > 1 ? name + ":" + z : name);
			}
		}
		return out;
	}

	private static boolean isTiff(String name) {
		String n = name.toLowerCase(Locale.ROOT);
		return !n.startsWith(".") && (n.endsWith(".tif") || n.endsWith(".tiff"));
	}

	/**
	 * A {@code template} value that is no open image's title is taken as a folder when it is
	 * one, or when it looks like a path (so that a missing folder gets its own message).
	 */
	private static boolean isFolderPath(String value) {
		if (value == null || value.isEmpty()) return false;
		File f = new File(value);
		return f.isDirectory() || f.isAbsolute() || value.indexOf('/') >= 0 || value.indexOf(File.separatorChar) >= 0;
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
	 * The operation would call the searched rectangle "the image", which the user, looking at a
	 * larger image, would not recognize: a template that does not fit is reported here.
	 */
	private static void checkFits(List<Template> bank, Rectangle search) {
		for (Template t : bank)
			if (t.width() > search.width || t.height() > search.height)
				throw new IllegalArgumentException("The template" + (t.angle % 360 != 0 ? " rotated by "
					+ format(new double[] {t.angle}) + " degrees" : "") + " (" + t.width() + "x" + t.height()
					+ ") is larger than the search selection (" + search.width + "x" + search.height
					+ "); enlarge the selection, or remove it to search the whole image.");
	}

	private static ImagePlus scoreMap(String title, List<float[]> maps, List<String> labels, List<int[]> sizes,
		boolean sameSize)
	{
		int[] s0 = sizes.get(0);
		boolean differ = false;
		for (int[] s : sizes)
			differ |= s[0] != s0[0] || s[1] != s0[1];
		if (differ && !sameSize && !sizesNoted) {
			// once: a batch that matched the same templates in every image got this line per image
			sizesNoted = true;
			IJ.log(COMMAND + ": the templates differ in size, so the score map has the image's size, as with same_size "
				+ "(in this and any later run; said once per session).");
		}
		boolean same = sameSize || differ;
		int w = same ? s0[2] : s0[2] - s0[0] + 1, h = same ? s0[3] : s0[3] - s0[1] + 1;
		ImageStack st = new ImageStack(w, h);
		for (int i = 0; i < maps.size(); i++) {
			int[] s = sizes.get(i);
			float[] m = same ? TemplateMatching.toSameSize(maps.get(i), s[2], s[3], s[0], s[1]) : maps.get(i);
			st.addSlice(labels.get(i), new FloatProcessor(w, h, m));
		}
		ImagePlus imp = new ImagePlus("Score map of " + title, st);
		imp.getProcessor().setMinAndMax(-1, 1);
		return imp;
	}

	/**
	 * The image's pixel size and unit, so that measurements on the score map are in the image's
	 * units, with the origin moved so that each score lies over the image pixel it belongs to
	 * (map pixel 0, 0 is the search rectangle's corner). Without the density calibration:
	 * scores are no grey values of the image.
	 */
	private static ij.measure.Calibration scoreMapCalibration(ImagePlus image, Rectangle search) {
		ij.measure.Calibration c = image.getCalibration().copy();
		c.disableDensityCalibration();
		if (search != null) {
			c.xOrigin -= search.x;
			c.yOrigin -= search.y;
		}
		return c;
	}

	/** Fills ImageJ's Results table, the ROI Manager and the overlay, and shows the score map. */
	private static void show(ImagePlus image, Outcome out) {
		ResultsTable rt = ResultsTable.getResultsTable();
		if (rt == null) rt = new ResultsTable();
		rt.reset();
		for (int i = 0; i < out.table.size(); i++) {
			rt.incrementCounter();
			for (String h : out.table.getHeadings())
				if (h.equals("Image") || h.equals("Template") && out.namedTemplates)
					rt.addValue(h, out.table.getStringValue(h, i));
				else rt.addValue(h, out.table.getValue(h, i));
		}
		rt.show("Results");
		RoiManager rm = RoiManager.getInstance();
		if (rm == null) rm = Interpreter.getBatchModeRoiManager();
		if (rm == null && !GraphicsEnvironment.isHeadless()) rm = new RoiManager();
		// the Results table starts afresh, so do the matches of an earlier run, and only they:
		// the user's own overlay and ROI Manager entries stay
		Overlay overlay = withoutMatches(image.getOverlay());
		if (rm != null) {
			List<Integer> old = new ArrayList<>();
			for (int i = 0; i < rm.getCount(); i++)
				if (isMatchName(rm.getName(i))) old.add(i);
			if (!old.isEmpty()) {
				rm.setSelectedIndexes(old.stream().mapToInt(Integer::intValue).toArray());
				rm.runCommand("Delete");
			}
		}
		int n = 0;
		for (Detection d : out.detections) {
			Roi r = new Roi(d.x, d.y, d.width, d.height);
			r.setName(String.format(Locale.US, "Match %d (%.3f)", ++n, d.score));
			r.setStrokeColor(Color.yellow);
			placeOn(r, image, d.plane);
			overlay.add(r);
			if (rm != null) rm.addRoi((Roi) r.clone());
		}
		image.setOverlay(overlay);
		if (out.scoreMap != null) out.scoreMap.show();
		if (out.canceled) IJ.log(COMMAND + ": " + canceled(out) + " (" + image.getTitle() + ").");
		IJ.showStatus(COMMAND + ": " + out.detections.size() + " found" + (out.canceled ? " (" + canceled(out) + ")" : ""));
	}

	/**
	 * The Log line of a canceled run, saying which slices were matched, as Align Slices and
	 * Gaussian Blur 3D count what they finished: a slice Esc interrupted is not listed at all.
	 */
	static String canceled(Outcome out) {
		int n = out.slicesMatched, first = out.firstSlice;
		if (n == 0)
			return out.slices == 1 ? "canceled; slice " + first + " was not matched, nothing is listed"
				: "canceled; 0 of " + out.slices + " slices matched, nothing is listed";
		return "canceled; " + n + " of " + out.slices + " slices matched (" + (n == 1 ? "slice " + first
			: "slices " + first + "-" + (first + n - 1)) + "), only their detections are listed";
	}

	/** @return the overlay without the rectangles of an earlier run (a new one for null) */
	static Overlay withoutMatches(Overlay overlay) {
		if (overlay == null) return new Overlay();
		for (int i = overlay.size() - 1; i >= 0; i--)
			if (isMatchName(overlay.get(i).getName())) overlay.remove(i);
		return overlay;
	}

	/**
	 * Puts r on 0-based stack index {@code plane}; a hyperstack reads a plain position as z or t.
	 * So does an image of channels alone, which is no "hyperstack" to ImageJ (three dimensions)
	 * yet is drawn as one once it has several channels: a plain position 2 was read as frame 2,
	 * and the matches of every channel but the first were never shown.
	 */
	static void placeOn(Roi r, ImagePlus image, int plane) {
		if (image.isHyperStack() || image.getNChannels() > 1) {
			int[] czt = image.convertIndexToPosition(plane + 1);
			r.setPosition(czt[0], czt[1], czt[2]);
		} else if (image.getStackSize() > 1) {
			r.setPosition(plane + 1);
		}
	}

	private static boolean isMatchName(String name) {
		return name != null && name.matches("Match \\d+ \\(.*\\)");
	}

	private static String describe(Template t, List<String> names, boolean withIndex) {
		String s = names != null ? names.get(t.index) : withIndex ? "template " + (t.index + 1) : "template";
		if (t.angle != 0) s += ", " + format(new double[] {t.angle}) + " deg";
		if (t.flipped) s += ", flipped";
		return s;
	}

	private static ImagePlus find(String title, String key) {
		if (title == null || title.isEmpty())
			throw new IllegalArgumentException("Please give the " + key + " (" + key + "=[title of an open image]"
				+ (key.equals("template") ? ", or " + FOLDER_KEY + "=[folder of templates]" : "") + ").");
		ImagePlus imp = WindowManager.getImage(title);
		if (imp == null) throw new IllegalArgumentException("There is no open image called '" + title + "' (" + key + ").");
		return imp;
	}

	static boolean flag(String options, String key) {
		// not inside a bracketed value: image=[cells stack 1] does not set "stack"
		return Pattern.compile("(^|\\s)" + Pattern.quote(key) + "(\\s|$)").matcher(outsideBrackets(options)).find();
	}

	/** @return the macro options with every bracketed value emptied: titles and paths hold no keys */
	private static String outsideBrackets(String options) {
		return options.replaceAll("\\[[^\\]]*\\]", "[]");
	}

	/**
	 * @param list angles in degrees separated by spaces, commas or semicolons, e.g. "0 90 180"
	 * @return the angles; {0} for an empty list
	 * @throws IllegalArgumentException naming the first entry that is not a number
	 */
	public static double[] parseAngles(String list) {
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

	private static String format(double[] a) {
		StringBuilder b = new StringBuilder();
		for (double v : a)
			b.append(b.length() > 0 ? " " : "").append(v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v));
		return b.toString();
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

}
