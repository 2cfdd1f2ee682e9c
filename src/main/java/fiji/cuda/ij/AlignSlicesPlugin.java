package fiji.cuda.ij;

import fiji.cuda.image.Planes;
import fiji.cuda.ncc.AlignSlices;
import fiji.cuda.ncc.AlignSlices.Interpolation;
import fiji.cuda.ncc.AlignSlices.Settings;
import fiji.cuda.ncc.AlignSlices.Shift;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpLog;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Texts;
import ij.IJ;
import ij.ImagePlus;
import ij.Macro;
import ij.Undo;
import ij.gui.GenericDialog;
import ij.gui.Roi;
import ij.measure.ResultsTable;
import ij.plugin.PlugIn;

import java.awt.Rectangle;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * "GPU Align Slices...": registers the slices of a stack by translation with
 * {@link AlignSlices#align}: a landmark rectangle of the reference slice is found in every
 * other slice by normalized cross-correlation, and each slice is moved (in place) to bring it
 * back.
 * <p>
 * Macro keys: {@code reference} (1-based slice), the landmark {@code x}, {@code y},
 * {@code width}, {@code height} (all four, or none: then the bounds of the image's area selection),
 * {@code margin} (search distance in pixels), {@code interpolation} ({@code Bilinear} or
 * {@code Bicubic}), and the flags {@code subpixel} (sub-pixel shifts, else whole pixels) and
 * {@code previous} (compare each slice with its already aligned neighbour rather than with
 * the reference). All slices of the stack are aligned in stack order: the slices of a z-stack,
 * or the frames of a time series; hyperstacks with several channels, or with both slices and
 * frames, are refused (reduce them to one axis first).
 * <p>
 * Output: the Results table, one row per slice: Slice, dX, dY (the translation applied,
 * positive right and down) and Score (the landmark's best match; 1 for the reference). The Log
 * names the shifts to doubt: cut short at the border of the search, or kept where nothing matched.
 * Progress shows on ImageJ's bar; Esc stops between slices, leaving each slice either aligned
 * or untouched, and the table lists the slices done.
 */
public class AlignSlicesPlugin implements PlugIn {

	static {
		IjBridge.init();
	}

	/** The command's name in the menu (without the dots) and in messages. */
	public static final String COMMAND = "GPU Align Slices";

	private static final String[] INTERPOLATIONS = {"Bilinear", "Bicubic"};

	/* the fields, for messages; the dialog's numeric fields in order */
	private static final Field[] NUMBERS = { new Field("Reference slice", "reference"), new Field("X", "x"),
		new Field("Y", "y"), new Field("Width", "width"), new Field("Height", "height"), new Field("Margin", "margin") };
	private static final Field REFERENCE = NUMBERS[0], X = NUMBERS[1], Y = NUMBERS[2], WIDTH = NUMBERS[3],
		HEIGHT = NUMBERS[4], MARGIN = NUMBERS[5], INTERPOLATION = new Field("Interpolation", "interpolation");

	/* remembered for the next interactive use */
	private static int lastMargin = 20;
	private static int lastInterpolation;
	private static boolean lastSubpixel = true, lastPrevious;

	/** What a run did. */
	public static final class Outcome {
		/** One shift per slice done, in slice order. */
		public final List<Shift> shifts;
		/** Slice, dX, dY, Score: one row per shift. */
		public final ResultsTable table = new ResultsTable();
		/** True when Esc stopped the run before every slice was aligned. */
		public final boolean canceled;

		Outcome(List<Shift> shifts, int slices) {
			this.shifts = shifts;
			this.canceled = shifts.size() < slices;
			for (Shift s : shifts) {
				table.incrementCounter();
				table.addValue("Slice", s.plane + 1);
				table.addValue("dX", s.dx);
				table.addValue("dY", s.dy);
				table.addValue("Score", s.score);
			}
			table.setPrecision(4);
		}
	}

	@Override
	public void run(String arg) {
		IjErrors.enter();
		try {
			ImagePlus imp = IjErrors.currentImage(COMMAND);
			if (imp == null || IjErrors.inUse(COMMAND, imp)) return; // said before the dialog, not after it
			checkImage(imp); // no settings could align these: the dialog would ask for nothing
			String options = Macro.getOptions();
			if (IjErrors.noOptionsToRunWith(COMMAND, "x=10 y=10 width=64 height=64 margin=20")) return;
			Settings s = options != null ? fromMacro(imp, options) : dialog(imp);
			if (s == null) return;
			if (!IjErrors.lock(COMMAND, imp)) return; // another command is still working on these pixels
			Outcome out;
			try {
				out = run(imp, s, IjBridge.options().withProgress(new IjProgress()));
			} finally {
				imp.unlock();
			}
			show(imp, out, s.reference);
		} catch (RuntimeException | OutOfMemoryError e) {
			IjErrors.report(COMMAND, e); // out of memory too: ImageJ would let the macro go on
		} finally {
			IJ.showProgress(1.0);
		}
	}

	/**
	 * Aligns without showing anything; for the plug-in, the SciJava command and tests.
	 *
	 * @param imp  the stack, changed in place
	 * @param s    landmark, reference (0-based), margin, mode, sub-pixel and interpolation
	 * @param opts backend, threads, progress and cancellation
	 * @return the shifts and their table
	 * @throws IllegalArgumentException for bad input, before any slice is changed
	 * @throws PartlyDoneException      when a failure stops it after some slices are aligned
	 *                                  (they are shown, and the message names them)
	 */
	public static Outcome run(ImagePlus imp, Settings s, ExecutionOptions opts) {
		// SciJava fills an image input left out with an empty ImagePlus, which is no image either
		if (imp == null || imp.getProcessor() == null) throw new IllegalArgumentException("There is no image.");
		checkImage(imp);
		Planes planes = ImagePlusPlanes.wrap(imp);
		// looked for now: the alignment moves the pixels
		List<Integer> notFinite = AlignSlices.notFiniteInSearch(planes, s, opts);
		List<Shift> shifts;
		try {
			shifts = AlignSlices.align(planes, s, opts);
		} catch (PartlyDoneException e) {
			ImagePlusPlanes.noUndo(imp);
			imp.changes = true; // the slices aligned before the failure must show, and not be lost unasked
			imp.updateAndDraw();
			throw e;
		}
		// Esc before any slice but the reference (which stays) moved: nothing changed, so the image
		// is not marked changed and Undo still takes back a one-slice filter run before
		if (shifts.size() < planes.depth() && shifts.stream().allMatch(x -> x.dx == 0 && x.dy == 0))
			return new Outcome(shifts, planes.depth());
		ImagePlusPlanes.noUndo(imp);
		imp.changes = true;
		imp.updateAndDraw();
		warnOfDoubtfulShifts(imp, s, shifts, notFinite);
		return new Outcome(shifts, planes.depth());
	}

	/**
	 * Says in the Log which shifts deserve a look, since their scores alone do not tell: those
	 * whose best match lies on the border of the area searched (the landmark may lie beyond it),
	 * those where nothing matched at all, and those whose search met NaN or infinite pixels.
	 *
	 * @param notFinite the slices {@link AlignSlices#notFiniteInSearch} named before the alignment
	 */
	static void warnOfDoubtfulShifts(ImagePlus imp, Settings s, List<Shift> shifts, List<Integer> notFinite) {
		String where = " of \"" + imp.getTitle() + "\"";
		// allowed, as a search of the landmark's own position only, but a stack marked changed
		// with every shift 0 and no word said looked like an alignment that found no motion
		if (s.margin == 0 && shifts.size() > 1)
			OpLog.log(COMMAND + ": with margin 0 only the landmark's own position is searched in the slices" + where
				+ ", so no slice could move; give the margin as the largest motion expected, in pixels.");
		boolean wide = s.width >= imp.getWidth() && s.margin > 0, tall = s.height >= imp.getHeight() && s.margin > 0;
		if (wide || tall)
			OpLog.log(COMMAND + ": the landmark spans the whole " + (wide && tall ? "image" : wide ? "width" : "height")
				+ where + ", so no slice could be shifted " + (wide && tall ? "at all" : wide ? "left or right" : "up or down")
				+ "; choose a smaller landmark, inside the image, to follow that motion.");
		List<Integer> border = AlignSlices.atSearchBorder(shifts, s, imp.getWidth(), imp.getHeight());
		if (!border.isEmpty())
			OpLog.log(COMMAND + ": in " + slices(border) + where + " the best match lies on the border of the area "
				+ "searched, so the landmark may lie beyond it and the shift be cut short. Check "
				+ (border.size() == 1 ? "it" : "them") + ", or align again with a larger margin (now " + s.margin
				+ ") or a landmark further from the image's edges.");
		// a best score of 0 or NaN is a flat or non-finite search; one below 0 a textured search
		// where no position correlates positively with the landmark
		List<Integer> none = new ArrayList<>(), negative = new ArrayList<>();
		for (Shift sh : shifts)
			if (sh.plane != s.reference && !(sh.score > 0)) (sh.score < 0 ? negative : none).add(sh.plane);
		String kept = s.previous ? "the shift of the slice compared with was kept." : "%s not moved.";
		if (!none.isEmpty())
			OpLog.log(COMMAND + ": in " + slices(none) + where + " nothing matched the landmark (the area searched "
				+ (s.previous ? "or the landmark in the slice compared with " : "") + "is flat, or not finite), so "
				+ String.format(kept, none.size() == 1 ? "it was" : "they were"));
		if (!negative.isEmpty())
			OpLog.log(COMMAND + ": in " + slices(negative) + where + " no position of the area searched correlates "
				+ "positively with the landmark (every score is below 0), so " + String.format(kept, negative.size() == 1
					? "it was" : "they were") + " The landmark may have changed there, or moved further than the margin "
				+ "(now " + s.margin + ").");
		none.addAll(negative);
		List<Integer> holes = new ArrayList<>();
		for (Shift sh : shifts)
			if (notFinite.contains(sh.plane) && !none.contains(sh.plane)) holes.add(sh.plane);
		if (!holes.isEmpty())
			OpLog.log(COMMAND + ": " + slices(holes) + where + (holes.size() == 1 ? " holds" : " hold")
				+ " NaN or infinite pixels where the landmark was searched; positions whose window includes one "
				+ "were passed over, so the landmark is not found where it covers one. Check "
				+ (holes.size() == 1 ? "its shift" : "their shifts")
				+ ", or replace those pixels first (Process>Math>Remove NaNs...).");
	}

	/** @return "slice 3" or "slices 3-5 and 9", 1-based */
	static String slices(List<Integer> planes) {
		List<Integer> oneBased = new ArrayList<>();
		for (int p : planes)
			oneBased.add(p + 1);
		return (planes.size() == 1 ? "slice " : "slices ") + Texts.runs(oneBased);
	}

	/**
	 * Refuses an image that no settings could align, before any are asked for.
	 *
	 * @param imp an image
	 * @throws IllegalArgumentException naming why: no pixels, RGB, several channels, both
	 *                                  slices and frames, a single slice, or a virtual stack
	 */
	public static void checkImage(ImagePlus imp) {
		ImagePlusPlanes.checkHasPixels(imp);
		if (imp.getBitDepth() == 24) throw new IllegalArgumentException(AlignSlices.RGB);
		if (imp.getNChannels() > 1)
			throw new IllegalArgumentException("This hyperstack has " + imp.getNChannels() + " channels; split them "
				+ "first (Image>Color>Split Channels) and align one channel.");
		// in stack order the slices of one time point would be matched against those of the
		// next, each plane to a landmark cut from one slice of one frame
		if (imp.getNSlices() > 1 && imp.getNFrames() > 1)
			throw new IllegalArgumentException("This hyperstack has " + imp.getNSlices() + " slices and " + imp.getNFrames()
				+ " frames; aligning follows one of them. Keep the frames of one slice (Image>Hyperstacks>Reduce "
				+ "Dimensionality..., with Frames checked) or the slices of one frame, and align that.");
		if (imp.getStackSize() < 2) throw new IllegalArgumentException(AlignSlices.SINGLE_SLICE);
		ImagePlusPlanes.checkNotVirtual(imp.getStack());
	}

	/**
	 * Reads the settings from macro options.
	 *
	 * @param imp     the image, whose area selection is the landmark when none of x, y, width
	 *                and height is given
	 * @param options the macro options
	 * @return the settings, with the reference 0-based
	 * @throws IllegalArgumentException for a bracket or quote never closed, a value that is not a
	 *         whole number within int's range, an unknown interpolation, no landmark, or only some
	 *         of its keys
	 */
	public static Settings fromMacro(ImagePlus imp, String options) {
		IjBridge.checkClosed(options);
		Settings s = new Settings();
		s.reference = integer(options, REFERENCE, 1) - 1;
		Integer[] xywh = new Integer[4];
		Field[] keys = { X, Y, WIDTH, HEIGHT };
		for (int k = 0; k < 4; k++)
			if (IjBridge.getValue(options, keys[k].key, null) != null) xywh[k] = integer(options, keys[k], 0);
		Rectangle r = landmark(imp, xywh[0], xywh[1], xywh[2], xywh[3]);
		s.landmark(r.x, r.y, r.width, r.height);
		s.margin = integer(options, MARGIN, s.margin);
		s.interpolation = interpolation(IjBridge.macroValue(options, INTERPOLATION.key, INTERPOLATIONS[0]));
		s.subpixel = flag(options, "subpixel");
		s.previous = flag(options, "previous");
		return s;
	}

	/** The dialog, recorded by ImageJ's macro recorder with the keys {@link #fromMacro} reads. */
	static Settings dialog(ImagePlus imp) {
		Rectangle r = selection(imp);
		if (r == null) {
			int w = Math.max(1, imp.getWidth() / 2), h = Math.max(1, imp.getHeight() / 2);
			r = new Rectangle((imp.getWidth() - w) / 2, (imp.getHeight() - h) / 2, w, h);
		}
		GenericDialog gd = new GenericDialog(COMMAND);
		gd.addNumericField("Reference slice:", imp.getCurrentSlice(), 0);
		gd.addMessage("Landmark (the selection's bounds, if any):");
		gd.addNumericField("X:", r.x, 0);
		gd.addNumericField("Y:", r.y, 0);
		gd.addNumericField("Width:", r.width, 0);
		gd.addNumericField("Height:", r.height, 0);
		gd.addNumericField("Margin (search distance):", lastMargin, 0, 6, "pixels");
		gd.addChoice("Interpolation:", INTERPOLATIONS, INTERPOLATIONS[lastInterpolation]);
		gd.addCheckbox("Subpixel shifts", lastSubpixel);
		gd.addCheckbox("Previous slice (compare each slice with its aligned neighbour)", lastPrevious);
		gd.showDialog();
		if (gd.wasCanceled()) {
			IjErrors.canceled();
			return null;
		}
		Settings s = new Settings();
		// refused, not cut to a whole number: the recorder keeps what was typed, and the recorded
		// macro, read by fromMacro, must do what this run did
		int[] n = new int[NUMBERS.length];
		for (int i = 0; i < n.length; i++) {
			double v = NUMBERS[i].read(gd, i);
			n[i] = whole(v, Texts.number(v), NUMBERS[i]);
		}
		s.reference = n[0] - 1;
		s.landmark(n[1], n[2], n[3], n[4]);
		s.margin = n[5];
		lastInterpolation = gd.getNextChoiceIndex();
		s.interpolation = Interpolation.values()[lastInterpolation];
		s.subpixel = lastSubpixel = gd.getNextBoolean();
		s.previous = lastPrevious = gd.getNextBoolean();
		lastMargin = s.margin;
		IJ.register(AlignSlicesPlugin.class); // keeps the remembered values when ImageJ unloads classes
		return s;
	}

	/** Where the shifts go when the user keeps unsaved measurements in the Results table. */
	static final String RESULTS_TITLE = "Align Slices Results";

	/**
	 * Fills ImageJ's Results table and says how it went. A run that Esc stopped before any slice
	 * but the reference was aligned changed nothing: it leaves the Results table, and Undo, as
	 * they were, and only says so in the Log.
	 *
	 * @param reference the reference slice, 0-based
	 */
	private static void show(ImagePlus imp, Outcome out, int reference) {
		// the user's measurements were emptied (after ImageJ's question) for the reference's row alone
		if (!out.canceled || !out.shifts.stream().allMatch(sh -> sh.plane == reference)) fillResults(out);
		String msg = out.canceled ? canceled(out, reference, imp.getStackSize()) : imp.getStackSize() + " slices aligned";
		IJ.showStatus(COMMAND + ": " + msg);
		if (out.canceled) IJ.log(COMMAND + ": " + msg + " (" + imp.getTitle() + ").");
	}

	/** Puts the shifts in ImageJ's Results table, or in a table of their own when the user keeps measurements there. */
	private static void fillResults(Outcome out) {
		Undo.reset(); // ImageJ's Undo cannot restore a stack
		boolean held = IjBridge.holdSharedWindows(); // another run's rows must not go in between
		try {
			ResultsTable rt = IjBridge.resultsTable(IjBridge.keepsResults(COMMAND, RESULTS_TITLE));
			for (int i = 0; i < out.table.size(); i++) {
				rt.incrementCounter();
				for (String h : out.table.getHeadings())
					rt.addValue(h, out.table.getValue(h, i));
			}
			// per column, which emptying the table undoes: the precision of ImageJ's Results table
			// outlives it, and every later table there (a macro's, Template Matching's) had 4 decimals
			for (String h : out.table.getHeadings()) {
				int c = rt.getColumnIndex(h);
				for (int i = 0; i < rt.size(); i++)
					if (rt.getValueAsDouble(c, i) != Math.rint(rt.getValueAsDouble(c, i))) {
						rt.setDecimalPlaces(c, 4);
						break;
					}
			}
			IjBridge.show(rt, RESULTS_TITLE);
		} finally {
			IjBridge.releaseSharedWindows(held);
		}
	}

	/**
	 * The Log line of a run Esc stopped, naming the slices it aligned as runs ("slices 2-40 of
	 * 500"), as Template Matching's names the slices it matched: a count alone did not say which
	 * slices were moved, least of all outwards from a reference in the middle of the stack.
	 *
	 * @param out       the run's outcome, whose shifts are those of the slices done, the
	 *                  reference's among them
	 * @param reference the reference slice, 0-based
	 * @param slices    the slices of the stack
	 * @return e.g. "canceled; slices 2-40 of 500 were aligned (slice 1 is the reference), the
	 *         others are unchanged"
	 */
	static String canceled(Outcome out, int reference, int slices) {
		List<Integer> moved = new ArrayList<>();
		for (Shift sh : out.shifts)
			if (sh.plane != reference) moved.add(sh.plane);
		String ref = "slice " + (reference + 1) + " is the reference";
		if (moved.isEmpty())
			return "canceled; no slice was aligned (" + ref + "), so the image and the Results table are as they were";
		return "canceled; " + slices(moved) + " of " + slices + (moved.size() == 1 ? " was" : " were") + " aligned (" + ref
			+ "), the others are unchanged";
	}

	/**
	 * The landmark of the menu command's macros and of the SciJava command alike: x, y, width
	 * and height together, or none of them (or all four 0) for the bounds of the image's area
	 * selection. Some left out were taken as 0 (a landmark at the corner), or gave way to the
	 * selection: either way a landmark nobody meant, matched without a word. All four 0 is no
	 * landmark anyone can mean: the SciJava command read it as none, and the macros refused it
	 * as a landmark of zero area, so the two now agree on none.
	 *
	 * @param imp    the image, whose area selection is the landmark when none is given
	 * @param x      the landmark's left edge, or null when not given
	 * @param y      its top edge, or null
	 * @param width  its width, or null
	 * @param height its height, or null
	 * @return the landmark (not yet checked against the image)
	 * @throws IllegalArgumentException when only some are given, or none (or all 0) and there is no
	 *                                  area selection
	 */
	public static Rectangle landmark(ImagePlus imp, Integer x, Integer y, Integer width, Integer height) {
		Integer[] v = { x, y, width, height };
		String missing = "";
		int given = 0;
		for (int k = 0; k < 4; k++)
			if (v[k] != null) given++;
			else missing += (missing.isEmpty() ? "" : ", ") + new Field[] { X, Y, WIDTH, HEIGHT }[k].key + "=";
		if (given > 0 && given < 4)
			throw new IllegalArgumentException("The landmark needs x=, y=, width= and height= together (or none of them, "
				+ "to take the selection's bounds); missing: " + missing + ".");
		if (given == 4 && (x != 0 || y != 0 || width != 0 || height != 0)) return new Rectangle(x, y, width, height);
		Rectangle r = selection(imp);
		if (r == null)
			throw new IllegalArgumentException("Please give the landmark (x= y= width= height=) or draw a rectangle "
				+ "on the image (a line or a point is no landmark).");
		return r;
	}

	/** @return the bounds of the image's area selection, or null */
	private static Rectangle selection(ImagePlus imp) {
		Roi roi = imp.getRoi();
		return roi != null && roi.isArea() ? roi.getBounds() : null;
	}

	/**
	 * @param name "Bilinear" or "Bicubic", in any case; for the macro key and the SciJava command
	 * @return the interpolation
	 * @throws IllegalArgumentException for any other name, which names the choices
	 */
	public static Interpolation interpolation(String name) {
		if (name == null) name = "";
		for (int i = 0; i < INTERPOLATIONS.length; i++)
			if (INTERPOLATIONS[i].equalsIgnoreCase(name.trim())) return Interpolation.values()[i];
		throw INTERPOLATION.refused("Bilinear or Bicubic", name);
	}

	private static int integer(String options, Field field, int dflt) {
		String v = IjBridge.getValue(options, field.key, null);
		if (v == null) return dflt;
		double d;
		try {
			d = IjBridge.macroNumber(options, field, dflt); // also a macro variable, as in GenericDialog
		} catch (IllegalArgumentException e) {
			d = Double.NaN;
		}
		return whole(d, v, field);
	}

	/**
	 * @param shown the value as the user wrote it, for the message
	 * @throws IllegalArgumentException when d is not a whole number within int's range
	 */
	private static int whole(double d, String shown, Field field) {
		if (d != Math.rint(d)) throw field.refused("a whole number", shown);
		// margin=1e10 is a whole number: the message said it was not
		if (Math.abs(d) > Integer.MAX_VALUE) throw field.refused("a whole number from -2147483647 to 2147483647", shown);
		return (int) d;
	}

	private static boolean flag(String options, String key) {
		return Pattern.compile("(^|\\s)" + Pattern.quote(key) + "(\\s|$)").matcher(options).find();
	}
}
