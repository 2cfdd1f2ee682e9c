package fiji.cuda.ij;

import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics;
import fiji.cuda.integral.BoxStatistics.Statistic;
import fiji.cuda.integral.Window;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.Texts;
import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.Macro;
import ij.gui.GenericDialog;
import ij.plugin.PlugIn;
import ij.process.FloatProcessor;

/**
 * "GPU Box Statistics...": the local mean, variance or standard deviation of every pixel over
 * a square window of side 2r+1 (or a width x height rectangle), as a new 32-bit image. Macro
 * keys: {@code radius}, {@code statistic=[Mean|Variance|Standard deviation]}, optional
 * {@code width} and {@code height} (a rectangle instead of the square when both are above 0)
 * and {@code stack}. At the borders the window is clipped to the image; see {@link Window}.
 */
public class BoxStatisticsPlugin implements PlugIn {

	static {
		IjBridge.init();
	}

	/** The command's name in the menu (without the dots) and in messages. */
	public static final String COMMAND = "GPU Box Statistics";

	/* the fields, for messages */
	static final Field RADIUS = new Field("Radius", "radius"), WIDTH = new Field("Width", "width"),
		HEIGHT = new Field("Height", "height"), STATISTIC = new Field("Statistic", "statistic");

	/* the dialog's defaults, which a macro's omitted keys take */
	private static final double DEFAULT_RADIUS = 2;
	private static final String DEFAULT_STATISTIC = Statistic.MEAN.label();

	/* remembered for the next interactive use only, as ImageJ's filters do */
	private static double lastRadius = DEFAULT_RADIUS;
	private static String lastStatistic = DEFAULT_STATISTIC;
	private static double lastWidth, lastHeight;
	private static boolean lastStack = true;

	@Override
	public void run(String arg) {
		IjErrors.enter();
		ImagePlus imp = IjErrors.currentImage(COMMAND);
		if (imp == null) return;
		if (imp.getBitDepth() == 24) {
			// before the dialog, as Integral Image refuses it: not after the user has chosen a window
			IjErrors.report(COMMAND, Texts.RGB);
			return;
		}
		String[] labels = new String[Statistic.values().length];
		for (Statistic s : Statistic.values())
			labels[s.ordinal()] = s.label();
		String refused = IjBridge.notANumber(Macro.getOptions(), RADIUS, WIDTH, HEIGHT);
		if (refused == null) refused = STATISTIC.unbracketedChoice(Macro.getOptions(), labels);
		if (refused != null) {
			IjErrors.report(COMMAND, refused);
			return;
		}
		if (IjErrors.noOptionsToRunWith(COMMAND, "radius=7 statistic=Mean")) return;
		if (IjErrors.inUseForReading(COMMAND, imp)) return; // another command is changing the pixels it would read
		// a key a macro leaves out takes the default, not what an earlier run chose: otherwise
		// the same call would give another window or statistic from one image of a batch to the next
		boolean macro = Macro.getOptions() != null;
		GenericDialog gd = new GenericDialog(COMMAND);
		gd.addNumericField("Radius:", macro ? DEFAULT_RADIUS : lastRadius, 0, 5, "pixels");
		gd.addChoice("Statistic:", labels, macro ? DEFAULT_STATISTIC : lastStatistic);
		gd.addNumericField("Width:", macro ? 0 : lastWidth, 0, 5, "pixels (0 = square)");
		gd.addNumericField("Height:", macro ? 0 : lastHeight, 0, 5, "pixels (0 = square)");
		boolean isStack = imp.getStackSize() > 1;
		if (isStack) gd.addCheckbox("Stack (all slices)", macro || lastStack);
		gd.addMessage("Square window of side 2r+1 centred on each pixel (not a circle),\n"
			+ "or width x height with the extra row and column below and right.\n"
			+ "At the borders only the pixels inside the image count.\n"
			+ "The whole image is computed: a selection is ignored (Image>Duplicate it first).");
		gd.showDialog();
		if (gd.wasCanceled()) {
			IjErrors.canceled();
			return;
		}
		try {
			double radius = RADIUS.read(gd, 0);
			String statistic = gd.getNextChoice();
			double width = WIDTH.read(gd, 1), height = HEIGHT.read(gd, 2);
			boolean stack = isStack && gd.getNextBoolean();
			Window window = window(radius, width, height, Math.max(imp.getWidth(), imp.getHeight()));
			Statistic chosen = statistic(statistic);
			if (!macro) {
				// a radius the rectangle made unused is kept only when it would be taken: 2.5,
				// remembered, showed as a whole number and was refused as 2.5 once width and
				// height went back to 0
				if (radius >= 1 && radius == Math.floor(radius)) lastRadius = radius;
				lastStatistic = chosen.label();
				lastWidth = width;
				lastHeight = height;
				if (isStack) lastStack = stack;
			}
			// held while read: a command changing the pixels meanwhile gave a result of both states
			ImagePlus out = ImagePlusPlanes.whileReading(imp, null, () -> compute(imp, chosen, window, stack,
				windowLabel(radius, width, height)));
			if (out != null) IjBridge.showUnique(out);
		} catch (RuntimeException | OutOfMemoryError e) {
			IjErrors.report(COMMAND, e); // out of memory too: ImageJ would let the macro go on
		}
	}

	/**
	 * The square of the radius, or the rectangle when width and height are both above 0. Sizes
	 * past the image are clipped to it, as every window reaching past all of it is the same.
	 *
	 * @param radius      the radius given, used when width and height are both 0
	 * @param width       the width given, 0 for the square of the radius
	 * @param height      the height given, 0 for the square of the radius
	 * @param largestSide the image's larger side, in pixels
	 * @return the window
	 * @throws IllegalArgumentException naming the field, its key and the value
	 */
	public static Window window(double radius, double width, double height, int largestSide) {
		// a side of 2n+1 covers the whole image from every pixel, as any larger one does
		long limit = Math.min(2L * largestSide + 1, Integer.MAX_VALUE);
		if (width != 0 || height != 0) {
			if (width != Math.floor(width) || height != Math.floor(height) || width < 1 || height < 1)
				throw new IllegalArgumentException("Width and height must both be whole numbers of at least 1 (or both 0 "
					+ "for the square of the radius), not " + Texts.option(WIDTH.key, width) + " "
					+ Texts.option(HEIGHT.key, height) + ".");
			return Window.rectangle((int) Math.min(width, limit), (int) Math.min(height, limit));
		}
		if (!(radius >= 1) || radius != Math.floor(radius)) throw RADIUS.refused(WHOLE_AT_LEAST_1, radius);
		return Window.square((int) Math.min(radius, largestSide));
	}

	/**
	 * @param radius the radius given, used when width and height are both 0
	 * @param width  the width given, 0 for the square of the radius
	 * @param height the height given, 0 for the square of the radius
	 * @return the size of the window asked for, for a result's title, before {@link #window}
	 *         clips it to the image
	 */
	public static String windowLabel(double radius, double width, double height) {
		return width != 0 || height != 0 ? (long) width + "x" + (long) height
			: (2 * (long) radius + 1) + "x" + (2 * (long) radius + 1);
	}

	/** What a radius must be, in the messages of every command that has one. */
	static final String WHOLE_AT_LEAST_1 = "a whole number of at least 1";

	/**
	 * @param label a statistic's label or name, any case (a macro gives it as written)
	 * @return the statistic
	 * @throws IllegalArgumentException naming the field, the value and the choices
	 */
	public static Statistic statistic(String label) {
		try {
			return Statistic.fromLabel(label);
		} catch (IllegalArgumentException e) {
			throw STATISTIC.refused("Mean, Variance or [Standard deviation]", label);
		}
	}

	/** @return 8 or 16-bit planes as 32-bit ones through the calibration table, as Image>Type>32-bit converts them */
	private static Planes calibrated(Planes planes, float[] table, int threads) {
		int n = planes.planeSize();
		Object[] out = fiji.cuda.ops.CpuParallel.newArrays(planes.depth(), threads, 4L * n, z -> new float[n]);
		for (int z = 0; z < planes.depth(); z++) {
			Object in = planes.plane(z);
			float[] f = (float[]) out[z];
			if (in instanceof byte[])
				for (int i = 0; i < n; i++)
					f[i] = table[((byte[]) in)[i] & 0xff];
			else
				for (int i = 0; i < n; i++)
					f[i] = table[((short[]) in)[i] & 0xffff];
		}
		return Planes.wrap(planes.width(), planes.height(), out);
	}

	/**
	 * The menu command's result, also the SciJava command's: titled like "cells variance 5x5",
	 * with the slice labels, hyperstack layout and spatial calibration of the source, computed from
	 * the source's calibrated values where it has a density calibration. Shows
	 * progress in ImageJ's progress bar and the backend in its status bar; Esc cancels between
	 * slices. The source is not modified and the result is not shown.
	 *
	 * @param imp       the source, 8, 16 or 32-bit
	 * @param statistic what to compute over each window
	 * @param window    the window, anchored as {@link Window} says
	 * @param stack     every slice when true, only the current one when false
	 * @return the statistic of every (or the current) slice as a new 32-bit image, or null when canceled
	 * @throws IllegalArgumentException for bad input
	 */
	public static ImagePlus compute(ImagePlus imp, Statistic statistic, Window window, boolean stack) {
		return compute(imp, statistic, window, stack, window.toString());
	}

	/**
	 * The SciJava command's run: the menu command's window and its words for a bad one, then
	 * {@link #compute(ImagePlus, Statistic, Window, boolean, String)} of every slice, the source
	 * read under its lock. A single image is one slice to the menu command too, whose result
	 * takes no label from it (ImageJ makes one of its title and Info, which the result would
	 * carry as its own).
	 *
	 * @param imp       an 8, 16 or 32-bit image
	 * @param radius    the square window's radius, used when width and height are both 0
	 * @param statistic a statistic's label
	 * @param width     the window's width, 0 for the square of the radius
	 * @param height    the window's height, 0 for the square of the radius
	 * @return the statistic as a new 32-bit image, or null when Esc canceled it
	 * @throws IllegalArgumentException for bad input, or when another command holds the image
	 */
	public static ImagePlus computeForScript(ImagePlus imp, int radius, String statistic, int width, int height) {
		// past the image's larger side every window covers all of it, and is not refused as too large
		Window w = window(radius, width, height, Math.max(imp.getWidth(), imp.getHeight()));
		Statistic st = statistic(statistic);
		return ImagePlusPlanes.whileReading(imp, null, () -> compute(imp, st, w, imp.getStackSize() > 1,
			windowLabel(radius, width, height)));
	}

	/**
	 * {@link #compute(ImagePlus, Statistic, Window, boolean)}, the title naming the window as
	 * the user gave it ({@link #windowLabel}), not as clipped to the image: radius 30, 100 and
	 * 1000 all made "61x61" windows of a 30x20 image, and their results read alike.
	 *
	 * @param imp       an 8, 16 or 32-bit image
	 * @param statistic what to compute
	 * @param window    the window around each pixel
	 * @param stack     every slice when true, only the current one when false
	 * @param size      the window's size for the title, e.g. "201x201"
	 * @return the statistic as a new 32-bit image, or null when canceled
	 */
	public static ImagePlus compute(ImagePlus imp, Statistic statistic, Window window, boolean stack, String size) {
		// before the copy and the result planes, which take seconds for a large stack: made after
		// them, it cleared an Esc pressed meanwhile
		ExecutionOptions opts = IjBridge.options().withProgress(new IjProgress());
		Planes planes = stack ? ImagePlusPlanes.read(imp) : ImagePlusPlanes.wrap(imp.getProcessor());
		// the values shown and measured are the calibrated ones (a signed 16-bit image, a DICOM
		// rescale, Analyze>Calibrate): the raw mean of a signed image was 32768 too high
		if (imp.getBitDepth() != 32 && imp.getCalibration().calibrated())
			planes = calibrated(planes, imp.getCalibration().getCTable(), opts.threads());
		Planes result = BoxStatistics.newResult(planes, opts.threads());
		OpReport r;
		try {
			r = BoxStatistics.computeInto(planes, result, statistic, window, opts);
		} finally {
			IJ.showProgress(1.0); // also after a failure, which would leave the bar standing part way
		}
		if (r.canceled()) {
			IJ.log(COMMAND + ": canceled");
			return null;
		}
		ImageStack s = new ImageStack(planes.width(), planes.height());
		for (int z = 0; z < result.depth(); z++)
			s.addSlice(ImagePlusPlanes.sliceLabel(imp, stack ? z + 1 : imp.getCurrentSlice()),
				new FloatProcessor(planes.width(), planes.height(), (float[]) result.plane(z)));
		// the source's LUT, as ImageJ's Type>32-bit and Mean... keep it: an inverting one made a
		// local mean show with the opposite contrast (a composite's colours are set below)
		s.setColorModel(ImagePlusPlanes.shownLut(imp));
		ImagePlus o = new ImagePlus(ImagePlusPlanes.baseTitle(imp) + " " + statistic.label().toLowerCase(java.util.Locale.ROOT)
			+ " " + size, s);
		if (stack) ImagePlusPlanes.copyLayout(o, imp, 1);
		o.setCalibration(imp.getCalibration().copy());
		o.getCalibration().disableDensityCalibration();
		ImagePlusPlanes.copyMetadata(o, imp);
		o.resetDisplayRange();
		if (stack) o = ImagePlusPlanes.asComposite(o, imp, 1);
		IJ.showStatus(COMMAND + ": " + r);
		return o;
	}
}
