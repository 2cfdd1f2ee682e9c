package fiji.cuda.ij;

import fiji.cuda.image.Planes;
import fiji.cuda.integral.IntegralImage;
import fiji.cuda.integral.SatBuild;
import fiji.cuda.integral.SummedAreaTable;
import fiji.cuda.ops.CpuParallel;
import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.Macro;
import ij.gui.GenericDialog;
import ij.plugin.PlugIn;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * "GPU Integral Image...": the summed-area table of each slice (Σ I, Σ I², or both) as a new
 * 32-bit image. Macro keys: {@code table=[Sum|Sum of squares|Both]} and {@code stack}. With
 * "Both", each slice gives two output slices, the sum then the sum of squares.
 * <p>
 * 32-bit float holds integers exactly only up to 2^24 = 16,777,216; table values pass that
 * quickly (a 256x256 8-bit image sums to up to 16.7 million), so a warning goes to the Log
 * the first time they do in a session. The SciJava command and the API give exact 64-bit tables.
 * <p>
 * A selection is ignored: entry (x, y) counts from the image's corner, so the tables of a
 * selection's rectangle would be another image's tables (Image&gt;Duplicate it first for those).
 */
public class IntegralImagePlugin implements PlugIn {

	static {
		IjBridge.init();
	}

	/** The command's name in the menu (without the dots) and in messages. */
	public static final String COMMAND = "GPU Integral Image";

	/** The table choices, as in the dialog and the {@code table} macro key. */
	static final String[] TABLES = { "Sum", "Sum of squares", "Both" };

	/** The table field, for messages. */
	static final Field TABLE = new Field("Table", "table");

	/** The largest integer up to which every integer is exact in a float. */
	static final double FLOAT_EXACT = 1 << 24;

	/** Remembered for the next interactive use only; a macro's omitted {@code table} is Sum. */
	private static String lastTable = TABLES[0];
	private static boolean lastStack = true;

	/** Whether the Log has said that a table passed 2^24; tests set it back. */
	static boolean floatWarned;

	@Override
	public void run(String arg) {
		IjErrors.enter();
		ImagePlus imp = IjErrors.currentImage(COMMAND);
		if (imp == null) return;
		if (imp.getBitDepth() == 24) {
			// before the dialog, as ImageJ's filters refuse a type they do not take: not after
			// the user has chosen the tables
			IjErrors.report(COMMAND, fiji.cuda.ops.Texts.RGB);
			return;
		}
		if (IjErrors.noOptionsToRunWith(COMMAND, "table=Both")) return;
		String unbracketed = TABLE.unbracketedChoice(Macro.getOptions(), TABLES);
		if (unbracketed != null) {
			IjErrors.report(COMMAND, unbracketed);
			return;
		}
		if (IjErrors.inUseForReading(COMMAND, imp)) return; // another command is changing the pixels it would read
		// a key a macro leaves out takes the default, not what an earlier run chose: otherwise
		// the same call would give another table from one image of a batch to the next
		boolean macro = Macro.getOptions() != null;
		GenericDialog gd = new GenericDialog(COMMAND);
		gd.addChoice("Table:", TABLES, macro ? TABLES[0] : lastTable);
		boolean isStack = imp.getStackSize() > 1;
		if (isStack) gd.addCheckbox("Stack (all slices)", macro || lastStack);
		gd.addMessage("Entry (x, y) is the sum over the rectangle from (0, 0) to (x, y)\n"
			+ "of the whole image: a selection is ignored (Image>Duplicate it first).\n"
			+ "Values above 2^24 are not exact in a 32-bit image.");
		gd.showDialog();
		if (gd.wasCanceled()) {
			IjErrors.canceled();
			return;
		}
		// in a macro this is the value as written (any case, with or without brackets, a macro
		// variable's value), which GenericDialog does not check: named here, as compute() tells
		// the tables apart by their exact names, and refused when it is none of them
		String chosen = gd.getNextChoice();
		String table = tableNamed(chosen);
		if (table == null) {
			IjErrors.report(COMMAND, TABLE.mustBe("Sum, [Sum of squares] or Both", chosen));
			return;
		}
		boolean stack = isStack && gd.getNextBoolean();
		if (!macro) {
			lastTable = table;
			if (isStack) lastStack = stack;
		}
		try {
			// held while read: a command changing the pixels meanwhile gave a result of both states
			ImagePlus out = ImagePlusPlanes.whileReading(imp, null, () -> compute(imp, table, stack));
			// as ImageJ names a second duplicate: a title alike found the earlier result
			if (out != null) IjBridge.showUnique(out);
		} catch (RuntimeException | OutOfMemoryError e) {
			IjErrors.report(COMMAND, e); // out of memory too: ImageJ would let the macro go on
		}
	}

	/** @return the entry of {@link #TABLES} with this name, any case; null for none */
	static String tableNamed(String name) {
		for (String t : TABLES)
			if (t.equalsIgnoreCase(name.trim())) return t;
		return null;
	}

	/** The part of the progress bar for making the result planes; the tables take the rest. */
	private static final double PLANES_SHARE = 0.3;

	/**
	 * @param table one of {@link #TABLES}
	 * @param stack all slices, else the current one
	 * @return the new 32-bit image (not shown), or null when canceled
	 */
	static ImagePlus compute(ImagePlus imp, String table, boolean stack) {
		// before the copy and the result planes, which take seconds for a large stack: made after
		// them, it cleared an Esc pressed meanwhile
		IjProgress progress = new IjProgress();
		Planes planes = stack ? ImagePlusPlanes.read(imp) : ImagePlusPlanes.wrap(imp.getProcessor());
		boolean sum = !table.equals(TABLES[1]), sq = !table.equals(TABLES[0]);
		int per = sum && sq ? 2 : 1, n = planes.planeSize(), threads = IjBridge.options().threads();
		// the result planes first, on several threads: zeroed one after another they took longer
		// than the tables of a large stack, and a stack whose tables do not fit in memory fails
		// here, before any table is built. They take seconds for a large stack, most of the
		// work on a GPU: they move the bar, and an Esc meanwhile stops the making of the rest.
		int count = planes.depth() * per;
		AtomicInteger made = new AtomicInteger();
		double[] largest = { 0 };
		// planes whose 32-bit tables hold NaN or infinity, and the first of them
		int[] nonFinite = { 0, -1 };
		// planes with pixels whose squares are below the smallest normal float, and the first of them
		int[] tiny = { 0, -1 };
		boolean floats32 = planes.type() == fiji.cuda.image.PixelType.FLOAT32;
		try {
			Object[] floats = CpuParallel.newArrays(count, threads, 4L * n, i -> {
				if (progress.isCanceled()) return null;
				float[] f = new float[n];
				progress.update(PLANES_SHARE * made.incrementAndGet() / count);
				return f;
			});
			if (progress.isCanceled()) {
				IJ.log(COMMAND + ": canceled");
				return null;
			}
			// each plane's 64-bit tables become floats at once: held for a whole stack they would
			// take 16 bytes a pixel of it
			int built = IntegralImage.buildEach(planes, SatBuild.AUTO,
				IjBridge.options().withProgress(progress.part(PLANES_SHARE, 1 - PLANES_SHARE)), (t, z) -> {
					if (sum) {
						largest[0] = Math.max(largest[0], largest(t, false, threads));
						t.toFloats(false, (float[]) floats[z * per], threads);
					}
					if (sq) {
						largest[0] = Math.max(largest[0], largest(t, true, threads));
						t.toFloats(true, (float[]) floats[z * per + per - 1], threads);
					}
					if (floats32 && !(allFinite((float[]) floats[z * per], threads)
						&& (per == 1 || allFinite((float[]) floats[z * per + 1], threads))) && nonFinite[0]++ == 0)
						nonFinite[1] = z;
					if (floats32 && sq && hasTiny((float[]) planes.plane(z), threads) && tiny[0]++ == 0) tiny[1] = z;
				});
			if (built == planes.depth()) return finish(imp, planes, floats, sum, sq, stack, largest[0], nonFinite, tiny);
		} finally {
			IJ.showProgress(1.0); // also after a failure, which would leave the bar standing part way
		}
		IJ.log(COMMAND + ": canceled");
		return null;
	}

	/**
	 * @param found how many slices a warning concerns, and the first of them (0-based)
	 * @return " (3 of its 20 slices, the first slice 7)" for a stack, nothing for one plane
	 */
	private static String whichSlices(Planes planes, boolean stack, int[] found) {
		return stack && planes.depth() > 1 ? " (" + found[0] + " of its " + planes.depth() + " slices, the first slice "
			+ (found[1] + 1) + ")" : "";
	}

	/** The warnings the tables call for, and the tables as a new image. */
	private static ImagePlus finish(ImagePlus imp, Planes planes, Object[] floats, boolean sum, boolean sq, boolean stack,
		double largest, int[] nonFinite, int[] tiny)
	{
		int per = sum && sq ? 2 : 1;
		if (largest > FLOAT_EXACT && !floatWarned) {
			// once: most 8-bit images from 256x256 up pass 2^24, and a batch got this line per image
			floatWarned = true;
			IJ.log(COMMAND + ": values reach " + fiji.cuda.ops.Texts.number(largest) + " in \"" + imp.getTitle() + "\""
				+ ", above 2^24 = 16777216, where 32-bit images no longer hold every integer: the table is rounded "
				+ "there (in this and any later table; said once per session). The SciJava command and the API "
				+ "give " + (planes.type().isInteger() ? "exact 64-bit tables." : "64-bit (double) tables."));
		}
		if (nonFinite[0] > 0) {
			// a NaN pixel, common in ratio images, made most of the table NaN without a word
			IJ.log(COMMAND + ": the result for \"" + imp.getTitle() + "\"" + whichSlices(planes, stack, nonFinite)
				+ " holds NaN or infinite values: a NaN or infinite pixel makes every entry below and to the right of it "
				+ "so, as does a sum beyond 3.4e38, the largest 32-bit value. Process>Math>Remove NaNs... replaces NaN "
				+ "pixels first.");
		}
		if (tiny[0] > 0) {
			// 1e-30 everywhere gave a table of 0 without a word, where a sum beyond 3.4e38 was said
			IJ.log(COMMAND + ": \"" + imp.getTitle() + "\"" + whichSlices(planes, stack, tiny)
				+ " holds values below 1.1e-19 in magnitude, whose squares are below the smallest normal 32-bit value "
				+ "(1.2e-38): the sum-of-squares table is 0 or has lost digits where only such values add up. Multiply "
				+ "the image first (Process>Math>Multiply...); the SciJava command and the API give 64-bit tables.");
		}
		// pixel arrays, not processors: a FloatProcessor finds its range when it is made, one
		// pass over the whole stack on one thread for the range of the slice shown only
		ImageStack out = new ImageStack(planes.width(), planes.height());
		for (int z = 0; z < planes.depth(); z++) {
			// a single plane's is the current slice's: which channel, slice or frame it came from
			String label = labelOf(ImagePlusPlanes.sliceLabel(imp, stack ? z + 1 : imp.getCurrentSlice()));
			if (sum) out.addSlice(label + "sum", floats[z * per]);
			if (sq) out.addSlice(label + "sum of squares", floats[z * per + per - 1]);
		}
		// the source's LUT, as Image>Type>32-bit and Box Statistics keep it: one table of an
		// inverting-LUT image showed with the opposite contrast to both tables of it (a
		// composite's colours, and those of two tables, are set below)
		out.setColorModel(ImagePlusPlanes.shownLut(imp));
		ImagePlus result = new ImagePlus(ImagePlusPlanes.baseTitle(imp) + " " + (sum && sq ? "integral" : sum ? "sum table" : "sum-of-squares table"), out);
		result.setCalibration(imp.getCalibration().copy());
		result.getCalibration().disableDensityCalibration();
		ImagePlusPlanes.copyMetadata(result, imp);
		// the tables of a plane are next to each other, as channels are: with both tables
		// each channel becomes two
		boolean laidOut = stack && ImagePlusPlanes.copyLayout(result, imp, per);
		result.resetDisplayRange();
		return laidOut ? ImagePlusPlanes.asComposite(result, imp, per) : ImagePlusPlanes.planeAsComposite(result, imp, per);
	}

	/**
	 * The first line of a slice's label, to go before "sum": DICOM and other files keep a
	 * header after it, which ImageJ does not show, and the sum and the sum of squares of such a
	 * slice read alike.
	 */
	private static String labelOf(String label) {
		if (label == null) return "";
		int newline = label.indexOf('\n');
		if (newline >= 0) label = label.substring(0, newline);
		return label.isEmpty() ? "" : label + " ";
	}

	/** Below this magnitude a float's square is below the smallest normal float. */
	private static final float SQUARE_UNDERFLOWS = (float) Math.sqrt(Float.MIN_NORMAL);

	/** @return whether a pixel is non-zero and smaller than {@link #SQUARE_UNDERFLOWS} in magnitude */
	private static boolean hasTiny(float[] f, int threads) {
		java.util.concurrent.atomic.AtomicBoolean found = new java.util.concurrent.atomic.AtomicBoolean();
		CpuParallel.forRange(0, f.length, threads, 1, (a, b) -> {
			for (int i = a; i < b && !found.get(); i++) {
				float v = Math.abs(f[i]);
				if (v > 0 && v < SQUARE_UNDERFLOWS) found.set(true);
			}
		});
		return found.get();
	}

	private static boolean allFinite(float[] f, int threads) {
		java.util.concurrent.atomic.AtomicBoolean finite = new java.util.concurrent.atomic.AtomicBoolean(true);
		CpuParallel.forRange(0, f.length, threads, 1, (a, b) -> {
			for (int i = a; i < b; i++)
				if (!Float.isFinite(f[i])) {
					finite.set(false);
					return;
				}
		});
		return finite.get();
	}

	/**
	 * The largest finite magnitude from the 64-bit table, not from its floats: 2^24 + 1 would
	 * round to 2^24 there and escape the warning. The tables of 8 and 16-bit planes only grow to
	 * the right and down, so that is the last entry.
	 */
	private static double largest(SummedAreaTable t, boolean squares, int threads) {
		if (floatWarned) return 0; // said once a session: no need to look again
		int w = t.width(), h = t.height();
		if (t.isExact()) return Math.abs(squares ? t.sumSqAt(w - 1, h - 1) : t.sumAt(w - 1, h - 1));
		// a 32-bit plane's sums go down as well as up, so every entry is looked at, on every core
		// as the other passes over the plane are; integer values (a 16-bit image made 32-bit) were
		// rounded past 2^24 without the warning
		java.util.concurrent.atomic.DoubleAccumulator m = new java.util.concurrent.atomic.DoubleAccumulator(Math::max, 0);
		CpuParallel.forRange(0, h, threads, w, (y0, y1) -> {
			double row = 0;
			for (int j = y0; j < y1; j++)
				for (int i = 0; i < w; i++) {
					double v = Math.abs(squares ? t.sumSqAt(i, j) : t.sumAt(i, j));
					if (v > row && v != Double.POSITIVE_INFINITY) row = v;
				}
			m.accumulate(row);
		});
		return m.get();
	}
}
