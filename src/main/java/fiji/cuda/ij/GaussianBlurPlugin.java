package fiji.cuda.ij;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Texts;
import ij.IJ;
import ij.ImagePlus;
import ij.Macro;
import ij.Prefs;
import ij.WindowManager;
import ij.gui.DialogListener;
import ij.gui.GUI;
import ij.gui.GenericDialog;
import ij.measure.Calibration;
import ij.plugin.filter.ExtendedPlugInFilter;
import ij.plugin.filter.PlugInFilterRunner;
import ij.process.ColorProcessor;
import ij.process.ImageProcessor;

import java.awt.AWTEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * "GPU Gaussian Blur...": ImageJ's "Gaussian Blur..." with the same dialog, macro keys
 * ({@code sigma}, {@code scaled}, {@code stack}, and the old {@code radius}), selection and
 * Undo behaviour, computed by {@link GaussianBlur#blur2D} on the GPU when one is usable.
 * <p>
 * ImageJ's plug-in filter runner does the per-slice work around it: the stack question,
 * progress and Esc between slices, the snapshot for Undo of a single image, and restoring
 * the pixels outside a non-rectangular selection.
 */
public class GaussianBlurPlugin implements ExtendedPlugInFilter, DialogListener {

	static {
		IjBridge.init();
	}

	/** The command's name in the menu (without the dots) and in messages. */
	public static final String COMMAND = "GPU Gaussian Blur";

	// FINAL_PROCESSING gives one call on the runner's thread after all slices, where a
	// failure seen on any slice thread is reported once
	private static final int FLAGS = DOES_ALL | SUPPORTS_MASKING | PARALLELIZE_STACKS | FINAL_PROCESSING;

	/** The sigma field, for messages. */
	static final Field SIGMA = new Field("Sigma (Radius)", "sigma");

	/**
	 * For the SciJava command, which has no "0 leaves the image unchanged" (the blur refuses it):
	 * its sigma was refused as "X sigma must be 0 (that axis is not blurred) or more", or "at
	 * least one sigma must be greater than 0", of a command with one sigma.
	 *
	 * @param sigma the sigma given, in pixels or calibrated units
	 * @throws IllegalArgumentException unless sigma is a finite number greater than 0
	 */
	public static void checkPositiveSigma(double sigma) {
		if (!(sigma > 0) || Double.isInfinite(sigma)) throw SIGMA.refused("a finite number greater than 0", sigma);
	}

	/**
	 * The SciJava command's sigma in pixels along x and y, by the menu command's rule: an image
	 * in pixels has no units to scale to, whatever its pixel size.
	 *
	 * @param cal    the image's calibration
	 * @param sigma  the sigma given
	 * @param scaled whether it is in the calibration's units
	 * @return {sigma x, sigma y} in pixels
	 * @throws IllegalArgumentException for a sigma that is not a finite number above 0, or, when
	 *                                  scaled, a pixel size that {@link #checkPixelSize} refuses
	 */
	public static double[] sigmasInPixels(Calibration cal, double sigma, boolean scaled) {
		checkPositiveSigma(sigma);
		boolean units = scaled && !cal.getUnits().equals("pixels");
		if (units) checkPixelSize(cal, sigma);
		return units ? new double[] {sigma / cal.pixelWidth, sigma / cal.pixelHeight} : new double[] {sigma, sigma};
	}

	/** The dialog's sigma, which a macro that leaves it out takes. */
	private static final double DEFAULT_SIGMA = 2.0;

	/* remembered for the next interactive use only, as ImageJ does */
	private static double lastSigma = DEFAULT_SIGMA;
	private static boolean lastScaled;

	private double sigma = lastSigma;
	private boolean scaled = lastScaled;
	private boolean hasScale;
	private ImagePlus imp;
	private int flags = FLAGS;
	private ExecutionOptions options = IjBridge.options();
	private final AtomicReference<Throwable> failure = new AtomicReference<>();
	/** Whether the slices' threads have dropped what Undo could swap back, which one of them does. */
	private final AtomicBoolean undoDropped = new AtomicBoolean();
	/** The slices of a stack blurred, for a failure's message: the runner's threads each take a range. */
	private final Set<Integer> slicesDone = new ConcurrentSkipListSet<>();
	/** The slice whose blur failed first, with {@link #failure}. */
	private volatile int failedSlice;

	/** One slice's blur, as {@link GaussianBlur#blur2D}. */
	@FunctionalInterface
	interface SliceBlur {
		OpReport blur(Planes plane, double sigmaX, double sigmaY, Region rect, ExecutionOptions opts);
	}

	/** What blurs each slice; tests put in one that fails on a later slice of a stack. */
	static SliceBlur sliceBlur = GaussianBlur::blur2D;

	@Override
	public int setup(String arg, ImagePlus imp) {
		if (!"final".equals(arg)) IjErrors.enter();
		if ("final".equals(arg)) {
			Throwable e = failure.get();
			if (e != null) IjErrors.report(COMMAND, (flags & DOES_STACKS) != 0 ? inStack(e) : e);
			return DONE;
		}
		if (imp == null) {
			// the runner's own "no image" message is a dialog, which would hang a batch run
			IjErrors.report(COMMAND, "There is no image open.");
			return DONE;
		}
		// the runner's own refusal of an image without pixels, which would leave the lock below held
		try {
			ImagePlusPlanes.checkHasPixels(imp);
		} catch (IllegalArgumentException e) {
			IjErrors.report(COMMAND, e);
			return DONE;
		}
		// The runner locks the image only after setup, and on a lock it cannot get it only beeps and
		// leaves the image as it is, and a macro goes on: a command that took the image in between
		// left it unblurred without a word. So the lock is taken here. ImageJ's lock counts a
		// thread's nested locks, so the runner's own then succeeds, and showDialog gives this one
		// back: nothing between the two can stop the runner for an image with pixels (DOES_ALL).
		if (!IjErrors.lock(COMMAND, imp)) return DONE;
		heldSinceSetup = imp;
		this.imp = imp;
		return flags;
	}

	/** The image locked in {@link #setup}, until {@link #showDialog} gives that lock back. */
	private ImagePlus heldSinceSetup;

	@Override
	public int showDialog(ImagePlus imp, String command, PlugInFilterRunner pfr) {
		if (heldSinceSetup != null) {
			heldSinceSetup.unlock(); // the runner holds its own lock now
			heldSinceSetup = null;
		}
		String macroOptions = Macro.getOptions();
		boolean oldMacro = macroOptions != null && macroOptions.contains("radius=");
		if (oldMacro) Macro.setOptions(macroOptions.replaceAll("radius=", "sigma="));
		// a message names the key the macro wrote
		Field field = oldMacro ? new Field(SIGMA.label, "radius") : SIGMA;
		String notNumber = IjBridge.notANumber(macroOptions, field);
		if (notNumber != null) {
			IjErrors.report(COMMAND, notNumber);
			return DONE;
		}
		if (IjErrors.noOptionsToRunWith(COMMAND, "sigma=2")) return DONE;
		if (macroOptions != null) {
			// a macro that leaves sigma out gets the default, not the last dialog's value (which
			// ImageJ's Gaussian Blur would give): the same macro does the same in every session
			sigma = DEFAULT_SIGMA;
			scaled = false;
		}
		// non-blocking, as ImageJ's, when its "Non-blocking filter dialogs" option is on and the
		// image has a window: the user may then scroll the stack or adjust the display meanwhile
		GenericDialog gd = GUI.newNonBlockingDialog(command, imp);
		IjBridge.addExactField(gd, "Sigma (Radius):", Math.abs(sigma), 2);
		Calibration cal = imp.getCalibration();
		hasScale = cal != null && !cal.getUnits().equals("pixels");
		if (hasScale)
			gd.addCheckbox("Scaled Units (" + cal.getUnits() + ")", scaled);
		else
			scaled = false;
		gd.addPreviewCheckbox(pfr);
		gd.addDialogListener(this);
		gd.showDialog();
		if (gd.wasCanceled()) {
			IjErrors.canceled();
			return DONE;
		}
		failure.set(null); // a preview's failure is reported by the real run, if it recurs
		slicesDone.clear(); // the runner puts back a previewed slice before the real run
		// the dialog listener has read the field (and cleared its invalid-number flag): a text that
		// is no number is NaN here (a macro's is refused above)
		if (Double.isNaN(sigma) || Double.isInfinite(sigma) || sigma < 0) {
			IjErrors.report(COMMAND, Double.isNaN(sigma) ? field.notANumber(Field.typed(gd, 0))
				: field.mustBe(sigma < 0 ? "at least 0" : "a finite number", sigma));
			return DONE;
		}
		// a pixel size of 0, below 0 or NaN made a sigma in pixels that the operation refused as
		// "X sigma must be ...", a field this dialog does not have
		if (scaled) {
			try {
				checkPixelSize(cal, sigma);
			} catch (IllegalArgumentException e) {
				IjErrors.report(COMMAND, e);
				return DONE;
			}
		}
		// refused here, not by each slice's run: the runner has by then copied the plane over the
		// snapshot a filter before left, and marks the image changed after any run, so an image with
		// no pixel changed asked to be saved and Undo no longer took back that filter
		if (sigma != 0) {
			try {
				ImagePlusPlanes.selection(imp);
			} catch (IllegalArgumentException e) {
				IjErrors.report(COMMAND, e);
				return DONE;
			}
		}
		if (macroOptions == null) {
			lastSigma = sigma;
			lastScaled = scaled;
		}
		if (oldMacro) sigma /= 2.5; // before ImageJ 1.38r, "radius" meant 2.5 sigma
		IJ.register(getClass()); // keeps the remembered values when ImageJ unloads classes
		flags = IJ.setupDialog(imp, FLAGS);
		if (flags == DONE) { // Cancel on "Process all N images?"
			IjErrors.canceled();
			return DONE;
		}
		if ((flags & DOES_STACKS) == 0 && !roomForUndo(imp)) return DONE;
		if ((flags & DOES_STACKS) != 0) {
			try {
				// asked in the dialog ImageJ refuses a virtual stack itself; with "stack" in a macro
				// (or a composite image) the runner would blur slices read from disk and drop them
				ImagePlusPlanes.checkNotVirtual(imp.getStack());
			} catch (IllegalArgumentException e) {
				IjErrors.report(COMMAND, e);
				return DONE;
			}
			// the runner blurs this many slices at once; share the CPU path's threads among them
			int sliceThreads = Math.max(1, Math.min(Prefs.getThreads(), imp.getStackSize()));
			options = options.withThreads(Prefs.getThreads() / sliceThreads);
		}
		return flags;
	}

	/** Holds the probe of {@link #roomForUndo} until it is dropped, so that it is really made. */
	private static volatile Object undoProbe;

	/**
	 * ImageJ's runner takes Undo's copy of a single image after this dialog, outside the
	 * plug-in: out of memory there was only logged by ImageJ, and a macro went on with the
	 * image unblurred as its result. So room for that copy is made here first, where running
	 * out can be reported. Where the runner will take the copy, the array made here becomes the
	 * processor's snapshot array, which {@code snapshot()} reuses when its length fits: a probe
	 * dropped at once left the runner to ask for the same memory again, which the heap need not
	 * give (once, on the H200 machine's 16 cores with 100 MB for Java, ImageJ's own out-of-memory
	 * message came after the probe had fit, and the macro went on).
	 *
	 * @return false after reporting that there is no room
	 */
	static boolean roomForUndo(ImagePlus imp) {
		ImageProcessor ip = imp.getProcessor();
		int n = imp.getWidth() * imp.getHeight();
		Object had = ip.getSnapshotPixels();
		if (had != null && java.lang.reflect.Array.getLength(had) == n) return true; // the runner's copy goes there
		// the runner's condition for its copy; without one, an array of zeros left as the
		// snapshot would be what a later reset() puts back, so the probe is only dropped then
		boolean runnerCopies = !Prefs.disableUndo
			|| ip instanceof ColorProcessor && WindowManager.getWindow("B&C") != null;
		try {
			switch (imp.getBitDepth()) {
			case 8:
				undoProbe = new byte[n];
				break;
			case 16:
				undoProbe = new short[n];
				break;
			case 24:
				undoProbe = new int[n];
				break;
			default:
				undoProbe = new float[n];
			}
			if (runnerCopies) ip.setSnapshotPixels(undoProbe);
			return true;
		} catch (OutOfMemoryError e) {
			IjErrors.report(COMMAND, e);
			return false;
		} finally {
			undoProbe = null;
		}
	}

	/**
	 * @param cal   the calibration a sigma in its units is divided by
	 * @param sigma that sigma, at least 0
	 * @throws IllegalArgumentException when the pixel width or height is 0, below 0 or not
	 *                                  finite, or so small that the sigma in pixels is infinite
	 */
	public static void checkPixelSize(Calibration cal, double sigma) {
		String bad = !(cal.pixelWidth > 0 && cal.pixelWidth < Double.POSITIVE_INFINITY)
			? "pixel width is " + Texts.number(cal.pixelWidth)
			: !(cal.pixelHeight > 0 && cal.pixelHeight < Double.POSITIVE_INFINITY)
				? "pixel height is " + Texts.number(cal.pixelHeight) : null;
		if (bad != null)
			throw new IllegalArgumentException("Sigma in " + cal.getUnits() + " (\"Scaled Units\") needs a pixel width and "
				+ "height above 0; this image's " + bad + " (Image>Properties...).");
		// a pixel of 1e-310 units made the sigma in pixels infinite, which the operation refused
		// as "X sigma", a field this dialog does not have
		double smaller = Math.min(cal.pixelWidth, cal.pixelHeight);
		if (Double.isInfinite(sigma / smaller))
			throw new IllegalArgumentException("Sigma " + Texts.number(sigma) + " " + cal.getUnits() + " (\"Scaled Units\") "
				+ "is more pixels than can be counted at this image's pixel " + (smaller == cal.pixelWidth ? "width" : "height")
				+ " of " + Texts.number(smaller) + " " + cal.getUnits() + "; check the pixel size (Image>Properties...), or "
				+ "give sigma in pixels.");
	}

	@Override
	public boolean dialogItemChanged(GenericDialog gd, AWTEvent e) {
		sigma = gd.getNextNumber();
		if (hasScale) scaled = gd.getNextBoolean();
		return !gd.invalidNumber() && sigma >= 0;
	}

	@Override
	public void setNPasses(int nPasses) {
		// progress comes from the runner, one step per slice
	}

	@Override
	public void run(ImageProcessor ip) {
		if (failure.get() != null) return; // the remaining slices stay as they are
		Calibration cal = imp.getCalibration();
		double sx = scaled ? sigma / cal.pixelWidth : sigma;
		double sy = scaled ? sigma / cal.pixelHeight : sigma;
		if (sx == 0 && sy == 0) return; // ImageJ leaves the image unchanged
		boolean written = true;
		try {
			// a single image shows the blur's progress, as ImageJ's does: seconds on the CPU at a
			// large sigma (the runner shows a stack's progress itself, slice by slice)
			ExecutionOptions o = (flags & DOES_STACKS) != 0 ? options : options.withProgress(IjProgress.BAR_ONLY);
			OpReport r = sliceBlur.blur(ImagePlusPlanes.wrap(ip), sx, sy, ImagePlusPlanes.rectangle(ip), o);
			if (r != null) hintWhereImageJIsFaster(COMMAND, "Gaussian Blur...", r, sx, sy);
			if ((flags & DOES_STACKS) != 0) slicesDone.add(ip.getSliceNumber());
		} catch (fiji.cuda.runtime.GpuException e) {
			// the operation saw one plane; the user needs to know which slice of the stack it was (a
			// whole stack's failure names it, with the slices blurred, at the end: inStack)
			boolean named = (flags & DOES_STACKS) == 0 && imp.getStackSize() > 1 && ip.getSliceNumber() > 0;
			if (failure.compareAndSet(null,
				named ? new fiji.cuda.runtime.GpuException(e.getMessage() + " (slice " + ip.getSliceNumber() + ")", e) : e))
				failedSlice = ip.getSliceNumber();
		} catch (RuntimeException | OutOfMemoryError e) {
			// out of memory too: ImageJ would log it and let a macro go on with the slice unblurred
			if (failure.compareAndSet(null, e)) failedSlice = ip.getSliceNumber();
			written = e instanceof PartlyDoneException;
		} finally {
			// once a slice is written: a stack that nothing changed (sigma 0, or every slice failing
			// before it wrote) leaves Undo to the filter before, as ImageJ's runner leaves it. Here,
			// not in the final call, which the runner skips when Esc stops the stack part way
			if (written && (flags & DOES_STACKS) != 0 && undoDropped.compareAndSet(false, true)) ImagePlusPlanes.noUndo(imp);
		}
	}

	/** ImageJ's Gaussian Blur downsamples above this sigma, in pixels (2 · 4 + 0.5). */
	static final double IMAGEJ_DOWNSAMPLES_ABOVE = 8.5;
	/** Whether {@link #hintWhereImageJIsFaster} has spoken this session (tests reset it). */
	static final AtomicBoolean HINTED = new AtomicBoolean();

	/**
	 * Says once a session, when a blur at a sigma where ImageJ downsamples ran on the CPU, that
	 * ImageJ's own command is then the faster one: a user without a GPU took this command for
	 * the faster of the two at every sigma.
	 */
	static void hintWhereImageJIsFaster(String command, String imagejCommand, OpReport r, double... sigmas) {
		boolean large = false;
		for (double sigma : sigmas)
			large |= sigma > IMAGEJ_DOWNSAMPLES_ABOVE;
		if (!large || r.ranOn() != Backend.CPU || HINTED.getAndSet(true)) return;
		IJ.log(command + ": on the CPU, above sigma " + IMAGEJ_DOWNSAMPLES_ABOVE + " (pixels) ImageJ's own Process>Filters>"
			+ imagejCommand + " is faster: it blurs a downsampled image, an approximation, where this command "
			+ "computes the full kernel. (Said once a session.)");
	}

	/**
	 * @param e the first failure of a run over a stack
	 * @return the failure, saying which slices hold the result: the other slices' threads may
	 *         have blurred some past the one that failed, so they are no prefix of the stack. A
	 *         GPU failure (the GPU chosen in GPU Info) keeps its kind and its words, which say what
	 *         became of its own slice, and adds which slice that was and what became of the others.
	 */
	private Throwable inStack(Throwable e) {
		if (failedSlice < 1) return e;
		if (e instanceof fiji.cuda.runtime.GpuException) {
			// "(slice 3)" alone left a stack blurred up to slice 2, or past slice 3 on more threads,
			// without a word of it
			List<Integer> unchanged = new ArrayList<>();
			for (int s = 1; s <= imp.getStackSize(); s++)
				if (s != failedSlice && !slicesDone.contains(s)) unchanged.add(s);
			String others = (slicesDone.isEmpty() ? "" : "; " + slices(slicesDone, "blurred"))
				+ (unchanged.isEmpty() ? "" : (slicesDone.isEmpty() ? "; " : " and ") + slices(unchanged, "unchanged"));
			return new fiji.cuda.runtime.GpuException(e.getMessage() + " (slice " + failedSlice + " of " + imp.getStackSize()
				+ others + ")", e);
		}
		boolean partly = e instanceof PartlyDoneException; // of a single plane: the slice failed in part
		if (slicesDone.isEmpty() && !partly) return e;
		StringBuilder what = new StringBuilder();
		if (!slicesDone.isEmpty()) {
			what.append(slicesDone.size() == 1 ? "slice " : "slices ").append(Texts.runs(slicesDone)).append(" of ")
				.append(imp.getStackSize()).append(slicesDone.size() == 1 ? " holds" : " hold").append(" the result, ");
		}
		if (partly) what.append("slice ").append(failedSlice).append(" may be part blurred, ");
		what.append("and the others are unchanged");
		return new PartlyDoneException(GaussianBlur.NAME, partly ? e.getCause() : e, what.toString());
	}

	/** @return "slices 1-2 and 5 are STATE", or "slice 4 is STATE" */
	private static String slices(Collection<Integer> ascending, String state) {
		boolean one = ascending.size() == 1;
		return (one ? "slice " : "slices ") + Texts.runs(ascending) + (one ? " is " : " are ") + state;
	}

	/** @return the sigma in the units of the dialog (for tests) */
	double sigma() {
		return sigma;
	}
}
