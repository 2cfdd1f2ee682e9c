package fiji.cuda.ij;

import static fiji.cuda.ij.TemplateMatchingPlugin.COMMAND;

import fiji.cuda.ij.TemplateMatchingPlugin.Outcome;
import fiji.cuda.ncc.Detection;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;
import ij.IJ;
import ij.ImagePlus;
import ij.WindowManager;
import ij.ImageStack;
import ij.gui.Overlay;
import ij.gui.Roi;
import ij.macro.Interpreter;
import ij.measure.Calibration;
import ij.measure.ResultsTable;
import ij.plugin.frame.RoiManager;
import ij.process.FloatProcessor;

import java.awt.Color;
import java.awt.GraphicsEnvironment;
import java.awt.Rectangle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What "GPU Template Matching" gives back and shows: the rows of its table and its score map,
 * which every caller gets in the {@link TemplateMatchingPlugin.Outcome}, and, for the menu
 * command only, ImageJ's Results table, the ROI Manager and the image's overlay.
 */
final class TemplateMatchingResults {

	/** Whether the Log has said that templates of different sizes give an image-sized score map; tests set it back. */
	static boolean sizesNoted;

	private TemplateMatchingResults() {}

	static void addRow(ResultsTable rt, ImagePlus image, Detection d, List<String> names) {
		rt.incrementCounter();
		rt.addValue("Image", image.getTitle());
		rt.addValue("Slice", d.plane + 1);
		if (image.getNChannels() > 1 || image.getNFrames() > 1) {
			// Slice counts every plane of the stack; in a hyperstack the user looks for the position
			int[] czt = image.convertIndexToPosition(d.plane + 1);
			rt.addValue("Channel", czt[0]);
			rt.addValue("Z", czt[1]);
			rt.addValue("Frame", czt[2]);
		}
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

	/** The template as a score map slice's label names it: by name or number, with its angle and flip. */
	static String describe(Template t, List<String> names, boolean withIndex) {
		String s = names != null ? names.get(t.index) : withIndex ? "template " + (t.index + 1) : "template";
		if (t.angle != 0) s += ", " + TemplateMatchingPlugin.format(new double[] {t.angle}) + " deg";
		if (t.flipped) s += ", flipped";
		return s;
	}

	/** The property of a score map that holds the ID of the image it was made from. */
	static final String MAP_OF = "fiji.cuda.scoreMapOf";

	static ImagePlus scoreMap(String title, List<float[]> maps, List<String> labels, List<int[]> sizes,
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
		ImagePlus imp = new ImagePlus(TemplateMatchingPlugin.SCORE_MAP_TITLE + title, st);
		imp.getProcessor().setMinAndMax(-1, 1);
		return imp;
	}

	/**
	 * The image's pixel size and unit, so that measurements on the score map are in the image's
	 * units, with the origin moved so that each score lies over the image pixel it belongs to
	 * (map pixel 0, 0 is the search rectangle's corner). Without the density calibration:
	 * scores are no grey values of the image.
	 */
	static Calibration scoreMapCalibration(ImagePlus image, Rectangle search) {
		Calibration c = image.getCalibration().copy();
		c.disableDensityCalibration();
		if (search != null) {
			c.xOrigin -= search.x;
			c.yOrigin -= search.y;
		}
		return c;
	}

	/** Where the detections go when the user keeps unsaved measurements in the Results table. */
	static final String RESULTS_TITLE = "Template Matching Results";

	/**
	 * Fills ImageJ's Results table, the ROI Manager and the overlay, and shows the score map. A
	 * run that Esc stopped before its first slice was matched found nothing: it leaves them all
	 * as they were, this image's earlier matches included, and only says so in the Log.
	 */
	static void show(ImagePlus image, Outcome out) {
		// emptied, the table and this image's earlier matches were lost for a run that found nothing
		if (!out.canceled || out.slicesMatched > 0) fill(image, out);
		// a second map of one image took the first's title, and selectImage by title found the old one
		if (out.scoreMap != null) IjBridge.showUnique(out.scoreMap);
		if (out.canceled) IJ.log(COMMAND + ": " + canceled(out) + " (" + image.getTitle() + ").");
		IJ.showStatus(COMMAND + ": " + out.detections.size() + " found" + (out.canceled ? " (" + canceled(out) + ")" : ""));
	}

	/** Fills ImageJ's Results table, the ROI Manager and the overlay with the run's detections. */
	private static void fill(ImagePlus image, Outcome out) {
		// another run's rows and matches must not go in between
		boolean held = IjBridge.holdSharedWindows();
		try {
			ResultsTable rt = IjBridge.resultsTable(IjBridge.keepsResults(COMMAND, RESULTS_TITLE));
			for (int i = 0; i < out.table.size(); i++) {
				rt.incrementCounter();
				for (String h : out.table.getHeadings())
					if (h.equals("Image") || h.equals("Template") && out.namedTemplates)
						rt.addValue(h, out.table.getStringValue(h, i));
					else rt.addValue(h, out.table.getValue(h, i));
			}
			IjBridge.show(rt, RESULTS_TITLE);
			RoiManager rm = RoiManager.getInstance();
			if (rm == null) rm = Interpreter.getBatchModeRoiManager();
			if (rm == null && !GraphicsEnvironment.isHeadless()) rm = new RoiManager();
			// the Results table starts afresh, so do this image's matches of an earlier run, and only
			// they: the user's own overlay and ROI Manager entries stay, and so do the matches of other
			// images (a batch, or a second image compared by eye)
			Overlay overlay = withoutMatches(image.getOverlay());
			List<Roi> matches = new ArrayList<>();
			boolean registered = registered(image);
			String of = matchOf(image.getID(), registered);
			if (!registered) {
				// at each run: purged only where the ROI Manager's entries were read, the map grew by one
				// image a run in a headless script's batch, which has no ROI Manager
				UNREGISTERED.values().removeIf(ref -> ref.get() == null);
				UNREGISTERED.put(image.getID(), new java.lang.ref.WeakReference<>(image));
			}
			int n = 0;
			for (Detection d : out.detections) {
				Roi r = new Roi(d.x, d.y, d.width, d.height);
				r.setName(String.format(Locale.US, "Match %d (%.3f)", ++n, d.score));
				r.setStrokeColor(Color.yellow);
				r.setProperty(MATCH_OF, of);
				placeOn(r, image, d.plane);
				overlay.add(r);
				matches.add((Roi) r.clone());
			}
			if (rm != null) replaceMatches(rm, image, matches);
			image.setOverlay(overlay);
		} finally {
			IjBridge.releaseSharedWindows(held);
		}
	}

	/**
	 * The Log line of a canceled run, saying which slices were matched, as Align Slices and
	 * Gaussian Blur 3D count what they finished: a slice Esc interrupted is not listed at all,
	 * and a run that matched none keeps the earlier results (see {@link #show}).
	 */
	static String canceled(Outcome out) {
		int n = out.slicesMatched, first = out.firstSlice;
		if (n == 0)
			return "canceled; nothing was matched (" + (out.slices == 1 ? "slice " + first : "0 of " + out.slices
				+ " slices") + "), so the earlier results are kept: the Results table, the ROI Manager and the "
				+ "overlay are as they were";
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

	/**
	 * Puts {@code matches} in the ROI Manager in place of the earlier ones of {@code image}.
	 * Entries are not selected and deleted: a selection in a shown manager put one old match on
	 * the current image as its selection (and the next run searched only inside it), and the
	 * Recorder wrote each selection as a macro line. Nor are they deleted one by one, which
	 * repainted a shown list for each entry (4000 matches of a stack took 1.7 s), and which
	 * ImageJ before 1.54 cannot do by index: the manager is cleared in one step and refilled
	 * with its other entries, in their order, under their names. A shown manager's list is
	 * changed on the event thread, where Swing paints it, never from the command's thread.
	 */
	static void replaceMatches(RoiManager rm, ImagePlus image, List<Roi> matches) {
		Runnable change = () -> {
			List<Integer> old = earlierMatches(rm, image);
			if (!old.isEmpty()) {
				Roi[] all = rm.getRoisAsArray();
				java.util.Set<Integer> drop = new java.util.HashSet<>(old);
				rm.reset();
				// named entries keep their names: add() numbers or labels only an unnamed one
				for (int i = 0; i < all.length; i++)
					if (!drop.contains(i)) rm.add(image, all[i], -1);
			}
			// with the image given: addRoi would place a match by the current image, which on
			// the event thread is the front window's, not necessarily the image matched
			for (Roi r : matches)
				rm.add(image, r, -1);
		};
		if (!rm.isShowing() || java.awt.EventQueue.isDispatchThread()) {
			change.run();
			return;
		}
		try {
			java.awt.EventQueue.invokeAndWait(change);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		} catch (java.lang.reflect.InvocationTargetException e) {
			Throwable c = e.getCause();
			if (c instanceof RuntimeException) throw (RuntimeException) c;
			if (c instanceof Error) throw (Error) c;
			throw new IllegalStateException(c);
		}
	}

	/**
	 * The ROI property that ties a match to the image it was found on, so that a new run on that
	 * image replaces only its own matches in the ROI Manager, which all images share. Its value
	 * is this session's token and ImageJ's image ID: IDs start again in every session, and a ROI
	 * set saved with its properties and opened in a later one must not pass for another image's.
	 */
	static final String MATCH_OF = "FijiCudaMatchOf";

	private static final String SESSION = java.util.UUID.randomUUID().toString();

	/**
	 * @param imageId    the image the match was found on
	 * @param registered whether ImageJ knows that image by its ID (shown, or a batch-mode
	 *                   image), so that its closing can be seen later
	 * @return the {@link #MATCH_OF} value: "session:ID", with ":open" for a registered image
	 */
	static String matchOf(int imageId, boolean registered) {
		return SESSION + ":" + imageId + (registered ? ":open" : "");
	}

	/**
	 * The images without a window or batch-mode registration (a script's {@code IJ.openImage})
	 * whose matches this session put in the ROI Manager, by ID. Once such an image is collected
	 * no one can run on it again, and its matches count as those of a closed image: a script
	 * over a folder filled the manager by ten thousand entries a thousand images, each run
	 * slower than the one before.
	 */
	static final java.util.Map<Integer, java.lang.ref.WeakReference<ImagePlus>> UNREGISTERED =
		new java.util.concurrent.ConcurrentHashMap<>();

	/**
	 * @return whether the image has a window or is a batch-mode image: a script's image given to
	 *         {@code IJ.run(imp, ...)} has neither, and its matches must not pass for those of a
	 *         closed image
	 */
	private static boolean registered(ImagePlus image) {
		return image.getWindow() != null || Interpreter.getBatchModeImage(image.getID()) != null;
	}

	/**
	 * @return the indexes of the ROI Manager's entries that an earlier run of this session put
	 *         there for {@code image}, or for a shown or batch-mode image since closed, or for a
	 *         script's image without a window since collected: a batch over a folder closes or
	 *         drops each image, and its matches would otherwise pile up in the manager
	 */
	static List<Integer> earlierMatches(RoiManager rm, ImagePlus image) {
		String prefix = SESSION + ":";
		List<Integer> out = new ArrayList<>();
		for (int i = 0; i < rm.getCount(); i++) {
			Roi r = rm.getRoi(i);
			String of = r == null ? null : r.getProperty(MATCH_OF);
			if (of == null || !of.startsWith(prefix) || !isMatchName(r.getName())) continue;
			String[] idAndOpen = of.substring(prefix.length()).split(":");
			int id;
			try {
				id = Integer.parseInt(idAndOpen[0]);
			} catch (NumberFormatException e) {
				continue;
			}
			boolean closed = idAndOpen.length > 1 ? ij.WindowManager.getImage(id) == null : collected(id);
			if (id == image.getID() || closed) out.add(i);
		}
		return out;
	}

	/** @return whether the unregistered image of this ID is gone (collected, or never seen) */
	private static boolean collected(int id) {
		java.lang.ref.WeakReference<ImagePlus> ref = UNREGISTERED.get(id);
		return ref == null || ref.get() == null;
	}

	private static boolean isMatchName(String name) {
		return name != null && name.matches("Match \\d+ \\(.*\\)");
	}

}
