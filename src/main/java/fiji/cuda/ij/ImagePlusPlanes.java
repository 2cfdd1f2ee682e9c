package fiji.cuda.ij;

import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.gui.Roi;
import ij.process.ImageProcessor;

import java.awt.Rectangle;
import java.util.ArrayList;
import java.util.List;

/**
 * Views of ImageJ 1 images as {@link Planes} and selections as {@link Region}s. The planes
 * are ImageJ's own pixel arrays, so an operation on them changes the image in place and no
 * pixel data is copied.
 */
public final class ImagePlusPlanes {

	static {
		// a script or a SciJava command wraps its image here before any plug-in class may have
		// loaded: the device chosen in "GPU Info..." must apply all the same, and the CPU path's
		// reason reach ImageJ's Log
		IjBridge.init();
	}

	private ImagePlusPlanes() {}

	/**
	 * @param ip a processor
	 * @return its pixels as one plane
	 */
	public static Planes wrap(ImageProcessor ip) {
		if (ip == null) throw new IllegalArgumentException("There is no image.");
		return Planes.wrap(ip.getWidth(), ip.getHeight(), ip.getPixels());
	}

	/**
	 * @param stack an in-memory stack
	 * @return all its slices, in order
	 * @throws IllegalArgumentException for a virtual stack, whose slices are read from disk
	 *         and whose changes would be lost
	 */
	public static Planes wrap(ImageStack stack) {
		if (stack == null) throw new IllegalArgumentException("There is no image.");
		checkNotVirtual(stack);
		Object[] planes = new Object[stack.getSize()];
		for (int i = 0; i < planes.length; i++)
			planes[i] = stack.getPixels(i + 1);
		return Planes.wrap(stack.getWidth(), stack.getHeight(), planes);
	}

	/**
	 * @param imp an image
	 * @return every slice of its stack (all channels, slices and frames), in stack order
	 * @throws IllegalArgumentException when there is no image, or for a virtual stack
	 */
	public static Planes wrap(ImagePlus imp) {
		if (imp == null) throw new IllegalArgumentException("There is no image.");
		return wrap(imp.getStack());
	}

	/**
	 * For commands that only read the image and make a new one: unlike {@link #wrap(ImagePlus)},
	 * a virtual stack is accepted, each of its slices read once (as new arrays; the current one
	 * as shown, with the changes not yet in the stack).
	 *
	 * @param imp an image
	 * @return every slice of its stack, in stack order; never to be written
	 */
	public static Planes read(ImagePlus imp) {
		if (imp == null) throw new IllegalArgumentException("There is no image.");
		ImageStack stack = imp.getStack();
		if (!stack.isVirtual()) return wrap(stack);
		Object[] planes = new Object[stack.getSize()];
		for (int i = 0; i < planes.length; i++) {
			// the shown slice with its changes, as every other slice the command reads is as shown
			ImageProcessor ip = slice(imp, i + 1);
			planes[i] = ip == null ? null : ip.getPixels();
			if (planes[i] == null) throw new IllegalArgumentException("Slice " + (i + 1) + " of the virtual stack could not be read.");
		}
		return Planes.wrap(stack.getWidth(), stack.getHeight(), planes);
	}

	/**
	 * @param imp an image
	 * @throws IllegalArgumentException naming the image when it has no pixels: a script's image
	 *                                  whose window was closed (ImageJ flushed it) was taken for
	 *                                  a single slice, or failed on a stack index, elsewhere
	 */
	public static void checkHasPixels(ImagePlus imp) {
		if (imp.getProcessor() == null)
			throw new IllegalArgumentException("The image \"" + imp.getTitle() + "\" has no pixels (was it closed?).");
	}

	/**
	 * One slice as the user sees it. A virtual stack keeps the current slice's changes (a filter,
	 * an edit) in the image's processor until another slice is shown, and reads its other slices
	 * from disk: the stack's own processor for the current slice would be the file's, without
	 * them, while Duplicate, Measure and the other commands use what is shown.
	 *
	 * @param imp an image
	 * @param z   a slice, 1-based
	 * @return the processor of that slice: the shown one for the current slice of a virtual stack
	 */
	public static ImageProcessor slice(ImagePlus imp, int z) {
		ImageStack stack = imp.getStack();
		if (stack.isVirtual() && z == imp.getCurrentSlice() && imp.getProcessor() != null) return imp.getProcessor();
		return stack.getProcessor(z);
	}

	/**
	 * The z-series that ImageJ's "Gaussian Blur 3D..." blurs along its third axis: for a
	 * hyperstack one per channel and frame (stack indices of one (c, t), z ascending); for a
	 * hyperstack with a single z slice one per channel, running along time (ImageJ's quirk);
	 * for a composite image of channels alone one plane per channel (ImageJ's command refuses
	 * such an image); and for a plain stack the whole stack. Together they hold every slice
	 * exactly once.
	 *
	 * @param imp an image
	 * @return the volumes, channel-major then frame, sharing the image's arrays
	 */
	public static List<Planes> volumes(ImagePlus imp) {
		if (imp == null) throw new IllegalArgumentException("There is no image.");
		ImageStack stack = imp.getStack();
		List<Planes> out = new ArrayList<>();
		// the one plane of a one-slice virtual stack is the one shown, which the image keeps as it
		// keeps the 2D blur's result; read from the stack it was a copy from disk, and refused, the
		// 3D blur alone of the commands turned such an image away
		if (stack.isVirtual() && stack.getSize() == 1) {
			out.add(wrap(imp.getProcessor()));
			return out;
		}
		checkNotVirtual(stack);
		// a composite of channels alone is no hyperstack to ImageJ (three dimensions), yet its
		// planes are channels: one volume of all of them blurred the channels into each other
		if (!imp.isHyperStack() && !(imp.isComposite() && imp.getNChannels() > 1)) {
			out.add(wrap(stack));
			return out;
		}
		int nc = imp.getNChannels(), nz = imp.getNSlices(), nt = imp.getNFrames();
		int w = stack.getWidth(), h = stack.getHeight();
		for (int c = 1; c <= nc; c++) {
			if (nz == 1) {
				Object[] p = new Object[nt];
				for (int t = 1; t <= nt; t++)
					p[t - 1] = stack.getPixels(imp.getStackIndex(c, 1, t));
				out.add(Planes.wrap(w, h, p));
			} else {
				for (int t = 1; t <= nt; t++) {
					Object[] p = new Object[nz];
					for (int z = 1; z <= nz; z++)
						p[z - 1] = stack.getPixels(imp.getStackIndex(c, z, t));
					out.add(Planes.wrap(w, h, p));
				}
			}
		}
		return out;
	}

	/**
	 * @param roi a selection, or null
	 * @return its bounding rectangle with its mask (none for a plain rectangle), or null
	 *         (the whole image) when there is no area selection
	 */
	public static Region region(Roi roi) {
		if (roi == null || !roi.isArea()) return null;
		Rectangle r = roi.getBounds();
		ImageProcessor mask = roi.getMask();
		byte[] m = null;
		if (mask != null) {
			// ImageJ may share and later reuse the mask's array, so the region keeps its own
			m = ((byte[]) mask.convertToByteProcessor(false).getPixels()).clone();
			if (mask.getWidth() != r.width || mask.getHeight() != r.height)
				throw new IllegalArgumentException("The selection's mask does not match its bounds.");
		}
		return new Region(r.x, r.y, r.width, r.height, m);
	}

	/**
	 * @param ip a processor
	 * @return its roi rectangle, without a mask (the plug-in filter runner restores the pixels
	 *         outside a non-rectangular selection itself)
	 * @throws IllegalArgumentException when the selection has no area inside the image: it lies
	 *                                  outside it, or its mask encloses no pixel
	 */
	public static Region rectangle(ImageProcessor ip) {
		Rectangle r = ip.getRoi();
		// ImageJ clips the selection to the image: an empty rectangle is one outside it, or one of
		// zero width or height (a polygon of points on one line) inside it
		if (r.width < 1 || r.height < 1) throw new IllegalArgumentException(NO_AREA);
		// a polygon of points on one slanted line has bounds but a mask of no pixel: the image was
		// marked changed with no pixel changed and no word said
		ImageProcessor mask = ip.getMask();
		if (mask != null && mask.getWidth() == r.width && mask.getHeight() == r.height
			&& enclosesNone(mask, new Rectangle(r.width, r.height)))
			throw new IllegalArgumentException(NO_AREA);
		return new Region(r.x, r.y, r.width, r.height, null);
	}

	/** @return whether {@code mask} has no pixel set within {@code part} (in the mask's own coordinates) */
	private static boolean enclosesNone(ImageProcessor mask, Rectangle part) {
		for (int y = part.y; y < part.y + part.height; y++)
			for (int x = part.x; x < part.x + part.width; x++)
				if (mask.get(x, y) != 0) return false;
		return true;
	}

	private static final String NO_AREA = "The selection has no area inside the image: it lies outside it, or encloses "
		+ "no pixel (points on one line). Remove it (Edit>Selection>Select None) or draw another.";

	/**
	 * {@link #region(Roi)} of the image's selection, refused as {@link #rectangle} refuses it
	 * when it has no area inside the image: the SciJava command said "The selection lies outside
	 * the image" or "has zero area (0x18)" where the menu command says what to do.
	 *
	 * @param imp the image
	 * @return its selection's rectangle and mask, or null for the whole image
	 * @throws IllegalArgumentException for an area selection with no area inside the image
	 */
	public static Region selection(ImagePlus imp) {
		Roi roi = imp.getRoi();
		if (roi == null || !roi.isArea()) return null;
		Rectangle b = roi.getBounds(), r = b.intersection(new Rectangle(imp.getWidth(), imp.getHeight()));
		if (r.width < 1 || r.height < 1) throw new IllegalArgumentException(NO_AREA);
		ImageProcessor mask = roi.getMask();
		if (mask != null && mask.getWidth() == b.width && mask.getHeight() == b.height
			&& enclosesNone(mask, new Rectangle(r.x - b.x, r.y - b.y, r.width, r.height)))
			throw new IllegalArgumentException(NO_AREA);
		return region(roi);
	}

	/**
	 * Gives {@code result}, made of {@code perPlane} consecutive planes for each plane of
	 * {@code source}, the source's channels (times {@code perPlane}), slices and frames. A
	 * time series or an image of channels alone is no ImageJ "hyperstack" (it has only three
	 * dimensions), yet its planes are frames or channels, not slices: it is laid out too.
	 * A plain z-stack is left alone where each of its planes gives one; where each gives more,
	 * they become channels, as they would of a hyperstack's slices: interleaved in one stack,
	 * a sum and a sum of squares made twice the slices, at the source's slice spacing.
	 * <p>
	 * The result opens where the source is shown (its first result there), as Image &gt;
	 * Duplicate leaves a copy: a user looking at slice 30 got a result showing slice 1.
	 *
	 * @return true when the result was laid out
	 */
	static boolean copyLayout(ImagePlus result, ImagePlus source, int perPlane) {
		int c = source.getNChannels(), z = source.getNSlices(), t = source.getNFrames();
		if (!source.isHyperStack() && c == 1 && t == 1 && (perPlane == 1 || z == 1)) {
			// the position, not the slice alone: Stack.getPosition of a result not yet shown said
			// slice 1 while it showed the source's, and a macro's Stack.setPosition went back to 1
			if (result.getStackSize() == (long) perPlane * source.getStackSize())
				result.setPositionWithoutUpdate(1, (source.getCurrentSlice() - 1) * perPlane + 1, 1);
			return false;
		}
		if ((long) perPlane * c * z * t != result.getStackSize()) return false;
		result.setDimensions(perPlane * c, z, t);
		result.setOpenAsHyperStack(true);
		// from the slice shown: getC(), getZ() and getT() of a plain stack not shown say 1, 1, 1
		int[] czt = source.convertIndexToPosition(source.getCurrentSlice());
		result.setPositionWithoutUpdate((czt[0] - 1) * perPlane + 1, czt[1], czt[2]);
		return true;
	}

	/**
	 * A result laid out by {@link #copyLayout} with two channels or more is shown as a
	 * composite, each channel with a display range of its own, as channels of very different
	 * values (a sum beside a sum of squares) cannot share one: in a composite source's mode and
	 * each channel in its source channel's colour (each colour {@code perPlane} times), or, from
	 * any other source, in grayscale with the source's LUT.
	 *
	 * @return the composite, or {@code result} itself for a result of one channel
	 */
	static ImagePlus asComposite(ImagePlus result, ImagePlus source, int perPlane) {
		if (result.getNChannels() != perPlane * source.getNChannels() || result.getNChannels() < 2) return result;
		ij.CompositeImage src = source.isComposite() ? (ij.CompositeImage) source : null;
		return composite(result, src != null ? src.getMode() : IJ.GRAYSCALE,
			c -> src != null ? src.getChannelLut((c - 1) / perPlane + 1) : source.getProcessor().getLut());
	}

	/**
	 * The results of one plane of {@code source}, {@code perPlane} of them (a sum beside a sum of
	 * squares), as the channels of a composite, each with a display range of its own: one range,
	 * the first's, showed the others as white. Each in the colour the source shows that plane in,
	 * in grayscale mode.
	 *
	 * @return the composite, or {@code result} itself unless it holds {@code perPlane} &ge; 2 slices
	 */
	static ImagePlus planeAsComposite(ImagePlus result, ImagePlus source, int perPlane) {
		if (perPlane < 2 || result.getStackSize() != perPlane) return result;
		result.setDimensions(perPlane, 1, 1);
		result.setOpenAsHyperStack(true);
		ij.process.LUT shown = source.isComposite() ? ((ij.CompositeImage) source).getChannelLut()
			: source.getProcessor().getLut();
		return composite(result, IJ.GRAYSCALE, c -> shown);
	}

	/** A composite of {@code result}'s channels, each with a copy of its LUT and its own range. */
	private static ImagePlus composite(ImagePlus result, int mode, java.util.function.IntFunction<ij.process.LUT> lutOf) {
		int[] at = { result.getC(), result.getZ(), result.getT() };
		ij.CompositeImage out = new ij.CompositeImage(result, mode);
		for (int c = 1; c <= out.getNChannels(); c++) {
			out.setPositionWithoutUpdate(c, 1, 1);
			ImageProcessor ip = out.getStack().getProcessor(out.getStackIndex(c, 1, 1));
			ip.resetMinAndMax();
			ij.process.LUT lut = (ij.process.LUT) lutOf.apply(c).clone();
			lut.min = ip.getMin();
			lut.max = ip.getMax();
			out.setChannelLut(lut, c);
		}
		out.setPositionWithoutUpdate(at[0], at[1], at[2]); // where copyLayout put the result
		out.setCalibration(result.getCalibration());
		copyMetadata(out, result);
		return out;
	}

	/**
	 * The start of a new image's title made from {@code imp}: its title without a file
	 * extension, spaces kept. ImageJ's short title cuts "experiment.lif - Series 1" at its first
	 * dot and "Image 1" at its space, so the results of two series of one file, or of "Image 1"
	 * and "Image 2", were titled alike, and selectImage by title took the wrong one.
	 *
	 * @param imp the source image
	 * @return its title, less a trailing extension such as ".tif"
	 */
	static String baseTitle(ImagePlus imp) {
		// an extension has a letter: "dose_0.5" and "ratio 1.25" kept their numbers, and two doses
		// came out titled alike
		return imp.getTitle().replaceFirst("\\.(?=[0-9]{0,4}[A-Za-z])[A-Za-z0-9]{1,5}$", "");
	}

	/**
	 * @param imp   an image
	 * @param slice 1-based index in its stack
	 * @return the label of that slice, or for a single image the one ImageJ keeps for its only
	 *         slice (not the title and Info that {@code getStack()} makes its label), or null
	 */
	static String sliceLabel(ImagePlus imp, int slice) {
		if (imp.getStackSize() > 1) return imp.getStack().getSliceLabel(slice);
		try {
			return imp.getProp("Slice_Label");
		} catch (NoSuchMethodError e) {
			return null; // an ImageJ before 1.53
		}
	}

	/**
	 * Gives a new image made from {@code source} what ImageJ's Duplicate... carries over besides
	 * pixels and calibration: the "Info" text (a file's metadata, Image &gt; Show Info...) and the
	 * image's properties. A result saved without them lost the acquisition's metadata. A result of
	 * one slice keeps its own slice label.
	 *
	 * @param result the new image, changed
	 * @param source the image it was made from, not changed
	 */
	static void copyMetadata(ImagePlus result, ImagePlus source) {
		// read before the Info is set: a single image without a stack makes its label of its title and Info
		String ownLabel = result.getStackSize() == 1 ? result.getStack().getSliceLabel(1) : null;
		Object info = source.getProperty("Info");
		if (info != null) result.setProperty("Info", info);
		try {
			String[] properties = source.getPropertiesAsArray();
			if (properties != null) result.setProperties(properties);
			// a single image's label is this property, which ImageJ shows in the window and saves
			// before its stack's: a single source's label went over the result's own ("cells sum"
			// came back "cells"). One slice keeps its own, as Image > Duplicate of one slice does
			if (result.getStackSize() == 1) result.setProp("Slice_Label", ownLabel);
		} catch (NoSuchMethodError e) {
			// an ImageJ before 1.53 has no such properties
		}
	}

	/**
	 * @return the LUT the image shows now: for a composite, its current channel's, which the
	 *         processor does not always carry (in batch mode it kept the first channel's)
	 */
	static java.awt.image.ColorModel shownLut(ImagePlus imp) {
		return imp.isComposite() ? ((ij.CompositeImage) imp).getChannelLut() : imp.getProcessor().getColorModel();
	}

	/**
	 * Runs work that changes an image's pixels with the image locked, as ImageJ's own commands
	 * lock it, so that a script and a menu command never write the same pixels at once.
	 *
	 * @param imp  the image, or null (the work then says there is none)
	 * @param work what changes it
	 * @throws IllegalArgumentException when another command holds the image, which is left as it is
	 */
	public static void whileLocked(ImagePlus imp, Runnable work) {
		if (imp != null && !imp.lockSilently()) throw new IllegalArgumentException(IjErrors.lockedMessage(imp));
		try {
			work.run();
		} finally {
			if (imp != null) imp.unlock();
		}
	}

	/**
	 * Runs work that reads images with them locked, as {@link #whileLocked} runs work that changes
	 * one: a command changing the pixels meanwhile (a blur started from a macro or another script)
	 * would otherwise give a result made of both states, with no word of it.
	 *
	 * @param <T>   what the work gives
	 * @param image the image read
	 * @param other a second image read (a template), or null, or the same image
	 * @param work  what reads them
	 * @return what the work returns
	 * @throws IllegalArgumentException when another command holds either image; both are left as they are
	 */
	public static <T> T whileReading(ImagePlus image, ImagePlus other, java.util.function.Supplier<T> work) {
		boolean sharedImage = image != null && beginRead(image);
		try {
			if (other == null || other == image) return work.get();
			boolean sharedOther = beginRead(other);
			try {
				return work.get();
			} finally {
				endRead(other, sharedOther);
			}
		} finally {
			if (image != null) endRead(image, sharedImage);
		}
	}

	/**
	 * The images being read by this project's commands, with how many reads of each are under
	 * way. ImageJ's lock is exclusive: one template matched against many images by a parallel
	 * script, or two statistics of one stack at once, were refused as "in use" but for one. So
	 * reads share the lock: the first takes it, the last gives it back, and any command that
	 * would change the image meanwhile is refused, as before.
	 */
	private static final java.util.Map<ImagePlus, int[]> READS = new java.util.IdentityHashMap<>();

	/**
	 * Takes the reads' locks, so that ImageJ's lock, which a thread may take again and again,
	 * names no thread that could go on to change the image while another still reads it.
	 */
	private static final java.util.concurrent.ExecutorService READ_LOCKER = java.util.concurrent.Executors
		.newSingleThreadExecutor(r -> {
			Thread t = new Thread(r, "Fiji CUDA read locks");
			t.setDaemon(true);
			return t;
		});

	/**
	 * @return true when the read shares the lock with other reads; false when this thread
	 *         already held the image, and the read only locked it once more
	 * @throws IllegalArgumentException when a command that changes the image holds it
	 */
	private static boolean beginRead(ImagePlus imp) {
		synchronized (READS) {
			int[] reads = READS.get(imp);
			if (reads != null) {
				reads[0]++;
				return true;
			}
			if (imp.isLocked() && !imp.isLockedByAnotherThread()) {
				imp.lockSilently(); // this thread's own lock, held around the read
				return false;
			}
			// waited for whatever the thread's interrupt flag says (it is set again after): given up
			// on, the lock was still taken, by nobody who would give it back
			java.util.concurrent.Future<Boolean> lock = READ_LOCKER.submit(imp::lockSilently);
			boolean interrupted = false, locked;
			while (true) {
				try {
					locked = lock.get();
					break;
				} catch (InterruptedException e) {
					interrupted = true;
				} catch (java.util.concurrent.ExecutionException e) {
					throw new IllegalStateException(e.getCause());
				}
			}
			if (interrupted) Thread.currentThread().interrupt();
			if (!locked) throw new IllegalArgumentException(IjErrors.lockedMessage(imp));
			READS.put(imp, new int[] {1});
			return true;
		}
	}

	private static void endRead(ImagePlus imp, boolean shared) {
		synchronized (READS) {
			if (!shared) {
				imp.unlock();
				return;
			}
			int[] reads = READS.get(imp);
			if (--reads[0] > 0) return;
			READS.remove(imp);
			imp.unlock(); // on a thread other than the one that locked it: ImageJ then lets it go whole
		}
	}

	/** @return whether the image is held only by reads of this project's commands, which another read may join */
	static boolean heldByReads(ImagePlus imp) {
		synchronized (READS) {
			return READS.containsKey(imp);
		}
	}

	/**
	 * After a change to more than the current plane, which ImageJ's Undo cannot restore: Undo is
	 * reset, and the current processor's snapshot dropped. Reset alone is not enough, because
	 * Edit &gt; Undo with nothing to undo still swaps the current slice with that snapshot, and an
	 * earlier one-slice filter left the slice's old pixels there: Undo would put them back over
	 * the result (ImageJ's own stack filters do, this project's commands do not).
	 *
	 * @param imp the image changed
	 */
	public static void noUndo(ImagePlus imp) {
		ij.Undo.reset();
		ImageProcessor ip = imp.getProcessor();
		if (ip != null) ip.setSnapshotPixels(null);
	}

	/**
	 * Takes the plane's snapshot for Undo before a change of one plane, setting aside the one an
	 * earlier filter left rather than writing over it ({@code snapshot()} copies into the array it
	 * finds). A run refused or canceled before it writes gives it back with
	 * {@code ip.setSnapshotPixels(earlier)}, so that Edit &gt; Undo still takes back that filter.
	 *
	 * @param ip the plane about to change
	 * @return the earlier snapshot, or null
	 * @throws OutOfMemoryError when there is no room for the new copy; the earlier one is then
	 *                          the plane's snapshot again
	 */
	public static Object snapshotKeepingEarlier(ImageProcessor ip) {
		Object earlier = ip.getSnapshotPixels();
		ip.setSnapshotPixels(null);
		try {
			ip.snapshot();
		} catch (OutOfMemoryError e) {
			// the run fails before it writes, with the plane unchanged: Undo must still take back
			// the filter before, whose snapshot was set aside for a copy that could not be made
			ip.setSnapshotPixels(earlier);
			throw e;
		}
		return earlier;
	}

	/** @throws IllegalArgumentException for a virtual stack, whose changes would be lost */
	static void checkNotVirtual(ImageStack stack) {
		if (stack.isVirtual())
			throw new IllegalArgumentException("This is a virtual stack, whose changes would be lost. "
				+ "Convert it to a normal stack with Image>Duplicate first.");
	}

	/**
	 * Gives a result computed plane by plane from {@code source} the source's hyperstack
	 * dimensions (when it has as many planes), its spatial calibration, without the source's
	 * density calibration, which does not apply to the result's values, and its metadata
	 * ({@link #copyMetadata}).
	 *
	 * @param result the new image, changed
	 * @param source the image it was computed from, not changed
	 * @return {@code result}
	 */
	public static ImagePlus likeSource(ImagePlus result, ImagePlus source) {
		if (result.getStackSize() == source.getStackSize()) copyLayout(result, source, 1);
		copyMetadata(result, source);
		ij.measure.Calibration c = source.getCalibration().copy();
		c.disableDensityCalibration();
		result.setCalibration(c);
		return result;
	}

	/**
	 * {@link #likeSource} for a binary 8-bit result of a composite source: a composite in the
	 * source's mode whose channels keep the source's colours, each displayed over 0-255, as the
	 * menu's Local Threshold leaves them (and Image &gt; Type &gt; 8-bit keeps the colours).
	 *
	 * @param result the binary image, one plane per source plane
	 * @param source the image it was made from
	 * @return the result laid out, calibrated and coloured as the source
	 */
	public static ImagePlus binaryLikeSource(ImagePlus result, ImagePlus source) {
		result = likeSource(result, source);
		if (!source.isComposite() || result.getNChannels() != source.getNChannels() || result.getNChannels() < 2)
			return result;
		ij.CompositeImage out = new ij.CompositeImage(result, ((ij.CompositeImage) source).getMode());
		for (int c = 1; c <= out.getNChannels(); c++) {
			ij.process.LUT lut = (ij.process.LUT) ((ij.CompositeImage) source).getChannelLut(c).clone();
			lut.min = 0;
			lut.max = 255;
			out.setChannelLut(lut, c);
		}
		out.setCalibration(result.getCalibration());
		copyMetadata(out, result);
		return out;
	}
}
