package fiji.cuda.ij;

import fiji.cuda.image.Planes;
import fiji.cuda.integral.LocalThreshold;
import fiji.cuda.integral.LocalThreshold.Method;
import fiji.cuda.integral.LocalThreshold.Settings;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Progress;
import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.Macro;
import ij.Undo;
import ij.WindowManager;
import ij.gui.GenericDialog;
import ij.plugin.PlugIn;
import ij.process.ByteProcessor;
import ij.process.ImageProcessor;

/**
 * "GPU Local Threshold...": Auto Local Threshold's Mean, Niblack, Sauvola and Phansalkar
 * methods with its macro keys ({@code method}, {@code radius}, {@code parameter_1},
 * {@code parameter_2}, {@code white}, {@code stack}) and defaults, computed by
 * {@link LocalThreshold} over a square window of side 2r+1 (Auto Local Threshold uses a
 * circle of radius r). 8, 16 and 32-bit images are accepted; the image becomes an 8-bit
 * binary image in place, as Auto Local Threshold makes it. A single image, or the one slice
 * of an 8-bit stack thresholded, can be undone.
 * <p>
 * Without {@code stack}, only the current slice of an 8-bit stack is thresholded, as Auto
 * Local Threshold does; a 16 or 32-bit stack cannot change type slice by slice, so there
 * {@code stack} is required.
 */
public class LocalThresholdPlugin implements PlugIn {

	static {
		IjBridge.init();
	}

	/** The command's name in the menu (without the dots) and in messages. */
	public static final String COMMAND = "GPU Local Threshold";

	/* the fields, for messages */
	static final Field METHOD = new Field("Method", "method"), RADIUS = new Field("Radius", "radius"),
		PARAMETER_1 = new Field("Parameter 1", "parameter_1"), PARAMETER_2 = new Field("Parameter 2", "parameter_2");

	/* the dialog's defaults, which a macro's omitted keys take (white is a flag: absent is off) */
	private static final String DEFAULT_METHOD = Method.SAUVOLA.label();
	private static final double DEFAULT_RADIUS = 15;

	/* remembered for the next interactive use only, as ImageJ's filters do */
	private static String lastMethod = DEFAULT_METHOD;
	private static double lastRadius = DEFAULT_RADIUS, lastP1, lastP2;
	private static boolean lastWhite = true;

	/**
	 * The ID of the image whose 16 or 32-bit processor the last conversion left to Undo, or 0.
	 * ImageJ lets go of it when that image's window closes, but closing a batch-mode image
	 * tells no one: a batch macro kept the whole last image in memory while it thresholded the
	 * next, and one heap enough for a single image ran out of memory on the second.
	 */
	private static volatile int convertedForUndo;

	@Override
	public void run(String arg) {
		IjErrors.enter();
		ImagePlus imp = IjErrors.currentImage(COMMAND);
		if (imp == null) return;
		try {
			checkImage(imp); // before the dialog: no settings could threshold these
		} catch (IllegalArgumentException e) {
			IjErrors.report(COMMAND, e);
			return;
		}
		String[] labels = new String[Method.values().length];
		for (Method m : Method.values())
			labels[m.ordinal()] = m.label();
		String notNumber = IjBridge.notANumber(Macro.getOptions(), RADIUS, PARAMETER_1, PARAMETER_2);
		if (notNumber != null) {
			IjErrors.report(COMMAND, notNumber);
			return;
		}
		if (IjErrors.inUse(COMMAND, imp)) return;
		if (IjErrors.noOptionsToRunWith(COMMAND, "method=Sauvola radius=15 parameter_1=0 parameter_2=0 white")) return;
		// a key a macro leaves out takes the default, not what an earlier run chose: otherwise
		// the same call would threshold differently from one image of a batch to the next
		boolean macro = Macro.getOptions() != null;
		GenericDialog gd = new GenericDialog(COMMAND);
		gd.addChoice("Method:", labels, macro ? DEFAULT_METHOD : lastMethod);
		gd.addNumericField("Radius:", macro ? DEFAULT_RADIUS : lastRadius, 0, 5, "pixels");
		gd.addMessage("Square window of side 2r+1 centred on each pixel\n"
			+ "(Auto Local Threshold uses a circle of radius r).");
		gd.addMessage("Special parameters (0 = the method's default):\n"
			+ "Mean: 1 = C (0).  Niblack: 1 = k (0.2; -0.2 for black objects), 2 = C (0).\n"
			+ "Sauvola: 1 = k (0.5), 2 = R (128 for 8-bit, scaled for 16 and 32-bit).\n"
			+ "Phansalkar: 1 = k (0.25), 2 = R (0.5).");
		addParameterField(gd, "Parameter_1:", macro ? 0 : lastP1);
		addParameterField(gd, "Parameter_2:", macro ? 0 : lastP2);
		gd.addCheckbox("White objects on black background", lastWhite);
		boolean isStack = imp.getStackSize() > 1;
		// checked for a 16 or 32-bit stack, which is refused without it: OK on the defaults would
		// otherwise always end in that message (a macro still says stack itself)
		if (isStack) gd.addCheckbox("Stack", imp.getBitDepth() != 8);
		gd.showDialog();
		if (gd.wasCanceled()) {
			IjErrors.canceled();
			return;
		}
		// read in the dialog's order, in which the Recorder writes the keys: Auto Local Threshold's
		String method = gd.getNextChoice();
		double radius, p1, p2;
		try {
			radius = RADIUS.read(gd, 0);
			p1 = PARAMETER_1.read(gd, 1);
			p2 = PARAMETER_2.read(gd, 2);
		} catch (IllegalArgumentException e) {
			IjErrors.report(COMMAND, e);
			return;
		}
		boolean white = gd.getNextBoolean();
		boolean stack = isStack && gd.getNextBoolean();
		if (!IjErrors.lock(COMMAND, imp)) return;
		try {
			checkRadius(radius);
			checkParameters(p1, p2);
			// any radius past the image's larger side gives the same windows, the whole image
			int clipped = (int) Math.min(radius, Math.max(imp.getWidth(), imp.getHeight()));
			Method m = method(method);
			Settings settings = Settings.of(m, clipped, p1, p2, white);
			if (!macro) {
				lastMethod = m.label();
				lastRadius = radius;
				lastP1 = p1;
				lastP2 = p2;
				lastWhite = white;
			}
			threshold(imp, settings, stack);
		} catch (RuntimeException | OutOfMemoryError e) {
			IjErrors.report(COMMAND, e); // out of memory too: ImageJ would let the macro go on
		} finally {
			imp.unlock();
		}
	}

	/** A parameter's field, showing the value exactly ({@link IjBridge#addExactField}). */
	private static void addParameterField(GenericDialog gd, String label, double value) {
		IjBridge.addExactField(gd, label, value, 2);
	}

	/**
	 * In the same words as Box Statistics for the same radius (the operation's own check named
	 * neither the field nor the key, and saw a radius cut to an int).
	 *
	 * @param radius the radius given
	 * @throws IllegalArgumentException for a radius that is not a whole number of at least 1
	 */
	public static void checkRadius(double radius) {
		if (!(radius >= 1) || radius != Math.floor(radius)) throw RADIUS.refused(BoxStatisticsPlugin.WHOLE_AT_LEAST_1, radius);
	}

	/**
	 * The operation's own check named neither the field's key nor the value as a macro gives it.
	 *
	 * @param p1 parameter 1 given
	 * @param p2 parameter 2 given
	 * @throws IllegalArgumentException for the first that is not a finite number, naming its field and key
	 */
	public static void checkParameters(double p1, double p2) {
		if (!Double.isFinite(p1)) throw PARAMETER_1.refused("a finite number", p1);
		if (!Double.isFinite(p2)) throw PARAMETER_2.refused("a finite number", p2);
	}

	/**
	 * The SciJava command's run: the menu command's checks in its words and order, then every
	 * slice thresholded into a new image (see {@link #result}), the source read under its lock.
	 * As from the menu, a radius past the image's larger side covers all of it, and is not
	 * refused as too large.
	 *
	 * @param image  the image thresholded, not changed
	 * @param method a method's label, any case
	 * @param radius the window's radius, a whole number of at least 1
	 * @param p1     parameter 1, 0 for the method's default
	 * @param p2     parameter 2, 0 for the method's default
	 * @param white  whether objects are white (255) on a black background
	 * @return the new binary image, not shown
	 * @throws IllegalArgumentException for bad input, or when another command holds the image
	 */
	public static ImagePlus thresholdForScript(ImagePlus image, String method, int radius, double p1, double p2,
		boolean white) {
		checkRadius(radius);
		checkParameters(p1, p2);
		int r = Math.min(radius, Math.max(image.getWidth(), image.getHeight()));
		Method m = method(method);
		Planes out = ImagePlusPlanes.whileReading(image, null, () -> LocalThreshold.threshold(ImagePlusPlanes.read(image), m,
			r, p1, p2, white, IjBridge.options()));
		return result(image, out, m);
	}

	/**
	 * The SciJava command's result, a new image that shows and measures as the menu command
	 * leaves the image it thresholds in place: titled like "cells Sauvola", with the source's
	 * slice labels, layout, spatial calibration and LUT (a composite's channel colours), and the
	 * threshold 255-255 set, so that Analyze Particles takes the foreground whatever "Black
	 * background" says.
	 *
	 * @param source the image thresholded, not changed
	 * @param binary its thresholded planes, one per slice, 8-bit
	 * @param method the method used, for the title
	 * @return the new image, not shown
	 */
	public static ImagePlus result(ImagePlus source, Planes binary, Method method) {
		ImageStack s = new ImageStack(binary.width(), binary.height());
		for (int z = 0; z < binary.depth(); z++)
			s.addSlice(ImagePlusPlanes.sliceLabel(source, z + 1),
				new ByteProcessor(binary.width(), binary.height(), (byte[]) binary.plane(z)));
		// an inverting or coloured LUT stays on the menu command's image, as Image>Type>8-bit keeps it
		s.setColorModel(ImagePlusPlanes.shownLut(source));
		ImagePlus out = ImagePlusPlanes.binaryLikeSource(new ImagePlus(ImagePlusPlanes.baseTitle(source) + " " + method.label(), s),
			source);
		out.getProcessor().setThreshold(255, 255, ImageProcessor.NO_LUT_UPDATE);
		return out;
	}

	/**
	 * @param label a method's label, any case (a macro gives it as written)
	 * @return the method
	 * @throws IllegalArgumentException naming the field, the value and the choices
	 */
	public static Method method(String label) {
		try {
			return Method.fromLabel(label);
		} catch (IllegalArgumentException e) {
			throw METHOD.refused("Mean, Niblack, Sauvola or Phansalkar", label);
		}
	}

	/**
	 * Refuses the images that no settings could threshold: RGB, and a 16 or 32-bit virtual
	 * stack (or single slice of one), which becomes 8-bit only as a whole, and whose changes
	 * would be lost. Such a stack was first told to check 'Stack', and then refused for being virtual.
	 *
	 * @throws IllegalArgumentException saying why
	 */
	static void checkImage(ImagePlus imp) {
		if (imp.getBitDepth() == 24)
			throw new IllegalArgumentException(fiji.cuda.ops.Texts.RGB);
		if (imp.getBitDepth() != 8) ImagePlusPlanes.checkNotVirtual(imp.getStack());
	}

	/**
	 * Thresholds the image (all slices, or the current one) in place, converting it to 8-bit.
	 *
	 * @return false when canceled (the slices not reached are unchanged; a 16 or 32-bit image
	 *         is then left as it was)
	 * @throws IllegalArgumentException for bad input, with the image unchanged
	 */
	static boolean threshold(ImagePlus imp, Settings settings, boolean stack) {
		return threshold(imp, settings, stack, new IjProgress());
	}

	/** {@link #threshold(ImagePlus, Settings, boolean)} with its progress and cancellation from {@code progress}. */
	static boolean threshold(ImagePlus imp, Settings settings, boolean stack, Progress progress) {
		try {
			return thresholdShown(imp, settings, stack, progress);
		} finally {
			IJ.showProgress(1.0); // also after a failure, which would leave the bar standing part way
		}
	}

	private static boolean thresholdShown(ImagePlus imp, Settings settings, boolean stack, Progress progress) {
		int n = imp.getStackSize();
		boolean eightBit = imp.getBitDepth() == 8;
		checkImage(imp);
		if (n > 1 && !stack && !eightBit)
			throw new IllegalArgumentException("A " + imp.getBitDepth() + "-bit stack becomes 8-bit as a whole: "
				+ "check 'Stack' (the macro flag stack) to threshold every slice.");
		releaseClosedConversion();
		// the fraction done is planes done over planes given: what a canceled run must report
		double[] reached = { 0 };
		ExecutionOptions opts = IjBridge.options().withProgress(new Progress() {
			@Override
			public void update(double fraction) {
				reached[0] = fraction;
				progress.update(fraction);
			}

			@Override
			public boolean isCanceled() {
				return progress.isCanceled();
			}
		});
		long t0 = System.currentTimeMillis();
		OpReport r;
		boolean onePlane = n == 1 || !stack;
		if (eightBit) {
			Planes planes = stack ? ImagePlusPlanes.wrap(imp) : ImagePlusPlanes.wrap(imp.getProcessor());
			ImageProcessor ip = imp.getProcessor();
			// one plane changed, the current one (a single image, or one slice of a stack) can be
			// undone, as after ImageJ's filters; Undo cannot restore a stack, and is reset once a
			// slice of it is written: a run stopped or failing before leaves the filter before undoable
			Object earlier = null;
			if (onePlane) earlier = ImagePlusPlanes.snapshotKeepingEarlier(ip);
			try {
				r = LocalThreshold.thresholdInto(planes, planes, settings, opts);
			} catch (PartlyDoneException e) {
				imp.changes = true; // the slices thresholded before the failure must show
				imp.updateAndDraw();
				// and a plane said to hold the result can be undone, as after a run that ended
				if (onePlane) Undo.setup(Undo.FILTER, imp);
				else ImagePlusPlanes.noUndo(imp);
				throw e;
			} catch (RuntimeException | Error e) {
				if (onePlane) ip.setSnapshotPixels(earlier); // unchanged: Undo still takes back the filter before
				throw e;
			}
			if (onePlane && r.canceled()) {
				ip.setSnapshotPixels(earlier); // a plane stopped part way is put back: nothing changed
			} else if (onePlane) {
				Undo.setup(Undo.FILTER, imp);
				convertedForUndo = 0; // Undo let go of any earlier conversion's processor
			}
		} else {
			Planes planes = ImagePlusPlanes.wrap(imp);
			Planes result = LocalThreshold.newResult(planes, opts.threads());
			r = LocalThreshold.thresholdInto(planes, result, settings, opts);
			if (!r.canceled()) {
				// an inverting or coloured LUT stays, as Image>Type>8-bit keeps it
				java.awt.image.ColorModel lut = ImagePlusPlanes.shownLut(imp);
				if (n == 1) {
					Undo.setup(Undo.TYPE_CONVERSION, imp); // keeps the 16 or 32-bit processor for Undo
					convertedForUndo = imp.getID();
					ByteProcessor bp = new ByteProcessor(planes.width(), planes.height(), (byte[]) result.plane(0));
					bp.setColorModel(lut);
					imp.setProcessor(bp);
				} else {
					Undo.reset();
					convertedForUndo = 0;
					ImageStack old = imp.getStack(), s = new ImageStack(planes.width(), planes.height());
					for (int z = 0; z < result.depth(); z++)
						s.addSlice(old.getSliceLabel(z + 1),
							new ByteProcessor(planes.width(), planes.height(), (byte[]) result.plane(z)));
					int c = imp.getNChannels(), zs = imp.getNSlices(), t = imp.getNFrames();
					// setStack gives a composite the default colours: each channel keeps its own,
					// as Image>Type>8-bit keeps them
					ij.process.LUT[] luts = imp.isComposite() ? ((ij.CompositeImage) imp).getLuts() : null;
					s.setColorModel(lut);
					imp.setStack(s, c, zs, t);
					if (luts != null && imp.isComposite() && luts.length == imp.getNChannels())
						for (int i = 0; i < luts.length; i++) {
							luts[i].min = 0;
							luts[i].max = 255;
							((ij.CompositeImage) imp).setChannelLut(luts[i], i + 1);
						}
				}
				imp.getCalibration().disableDensityCalibration();
			}
		}
		// floored: the bar moves within a plane too, and a plane stopped half way is put back
		int given = eightBit && !stack ? 1 : n, done = (int) Math.floor(reached[0] * given + 1e-9);
		if (r.canceled()) {
			boolean unchanged = !eightBit || done == 0;
			IJ.log(COMMAND + ": canceled" + (unchanged ? "; the image is unchanged"
				: " after " + done + " of " + given + " slices; the others are unchanged"));
			if (unchanged) return false;
		}
		if (eightBit && !onePlane) {
			ImagePlusPlanes.noUndo(imp); // slices of the stack changed
			convertedForUndo = 0; // Undo let go of any earlier conversion's processor
		}
		// a new 8-bit image shows 0-255; an 8-bit one keeps its range, as Auto Local Threshold
		// leaves it (0 and 255 are black and white under any range): slices not thresholded keep
		// their look, and Undo gives back the image as it was shown
		if (!eightBit) {
			imp.getProcessor().resetMinAndMax();
			// a composite shows its channel's LUT range, not the processor's: a one-plane composite
			// (Make Subset... of one channel) kept its 16 or 32-bit range
			if (imp.isComposite()) imp.setDisplayRange(0, 255);
		}
		// the threshold Auto Local Threshold leaves, unseen: Analyze Particles and "Limit to
		// threshold" then take the 255 pixels, whatever "Black background" says
		imp.getProcessor().setThreshold(255, 255, ImageProcessor.NO_LUT_UPDATE);
		imp.changes = true;
		imp.updateAndDraw();
		IJ.showStatus(COMMAND + ": " + (System.currentTimeMillis() - t0) + " ms");
		return !r.canceled();
	}

	/**
	 * Before a run takes its own memory: once the image an earlier conversion left to Undo is
	 * closed, no Undo can reach that processor any more, and Undo lets go of it. Whatever Undo
	 * holds instead would be replaced at the end of this run anyway, as every run that gets
	 * past its checks sets up Undo anew.
	 */
	private static void releaseClosedConversion() {
		int id = convertedForUndo;
		if (id != 0 && WindowManager.getImage(id) == null) {
			Undo.reset();
			convertedForUndo = 0;
		}
	}
}
