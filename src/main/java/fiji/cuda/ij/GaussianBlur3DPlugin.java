package fiji.cuda.ij;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.Fallback;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Progress;
import ij.IJ;
import ij.ImagePlus;
import ij.Macro;
import ij.Undo;
import ij.gui.GenericDialog;
import ij.plugin.PlugIn;
import ij.process.ImageProcessor;

import java.util.List;

/**
 * "GPU Gaussian Blur 3D...": ImageJ's "Gaussian Blur 3D..." (macro keys {@code x},
 * {@code y}, {@code z}) computed by {@link GaussianBlur#blur3D}, one volume per channel and
 * frame of a hyperstack (see {@link ImagePlusPlanes#volumes}). Like ImageJ it refuses
 * composite images whose channels are the whole stack, removes the selection, and has no
 * Undo for stacks; a single plane can be undone.
 */
public class GaussianBlur3DPlugin implements PlugIn {

	static {
		IjBridge.init();
	}

	/** The command's name in the menu (without the dots) and in messages. */
	public static final String COMMAND = "GPU Gaussian Blur 3D";

	/** One volume's blur, as {@link GaussianBlur#blur3D}. */
	@FunctionalInterface
	interface VolumeBlur {
		OpReport blur(Planes volume, double x, double y, double z, ExecutionOptions opts);
	}

	/** What blurs each volume; tests put in one that fails part way through a hyperstack. */
	static VolumeBlur volumeBlur = GaussianBlur::blur3D;

	/** The sigma fields, for messages. */
	static final Field[] SIGMAS = { new Field("X sigma", "x"), new Field("Y sigma", "y"), new Field("Z sigma", "z") };

	/** Why a composite image whose channels are its whole stack is refused, as ImageJ refuses it. */
	public static final String COMPOSITE = "Composite color images are not supported (their channels would be "
		+ "blurred into each other). Use Image>Color>Split Channels first.";

	/** The dialog's sigmas, which a macro's omitted keys take. */
	private static final double DEFAULT_SIGMA = 2;

	/* remembered for the next interactive use only, as ImageJ's Gaussian Blur does (its
	   Gaussian Blur 3D also keeps a macro's values, so that a key left out took whatever an
	   earlier call of the batch had given) */
	private static double lastX = DEFAULT_SIGMA, lastY = DEFAULT_SIGMA, lastZ = DEFAULT_SIGMA;

	@Override
	public void run(String arg) {
		IjErrors.enter();
		ImagePlus imp = IjErrors.currentImage(COMMAND);
		if (imp == null || IjErrors.inUse(COMMAND, imp)) return; // said before the dialog, not after it
		if (imp.isComposite() && imp.getNChannels() == imp.getStackSize()) {
			IjErrors.report(COMMAND, COMPOSITE);
			return;
		}
		String notNumber = IjBridge.notANumber(Macro.getOptions(), SIGMAS);
		if (notNumber != null) {
			IjErrors.report(COMMAND, notNumber);
			return;
		}
		if (IjErrors.noOptionsToRunWith(COMMAND, "x=2 y=2 z=2")) return;
		boolean macro = Macro.getOptions() != null;
		GenericDialog gd = new GenericDialog(COMMAND);
		IjBridge.addExactField(gd, "X sigma:", macro ? DEFAULT_SIGMA : lastX, 1);
		IjBridge.addExactField(gd, "Y sigma:", macro ? DEFAULT_SIGMA : lastY, 1);
		IjBridge.addExactField(gd, "Z sigma:", macro ? DEFAULT_SIGMA : lastZ, 1);
		gd.showDialog();
		if (gd.wasCanceled()) {
			IjErrors.canceled();
			return;
		}
		double[] sigmas = new double[3];
		try {
			for (int i = 0; i < 3; i++)
				sigmas[i] = SIGMAS[i].read(gd, i);
			checkSigmas(sigmas[0], sigmas[1], sigmas[2]);
		} catch (IllegalArgumentException e) {
			IjErrors.report(COMMAND, e);
			return;
		}
		double x = sigmas[0], y = sigmas[1], z = sigmas[2];
		if (!macro) {
			lastX = x;
			lastY = y;
			lastZ = z;
		}
		if (!IjErrors.lock(COMMAND, imp)) return; // another command is working on it
		try {
			blur(imp, x, y, z);
		} catch (RuntimeException | OutOfMemoryError e) {
			IjErrors.report(COMMAND, e); // out of memory too: ImageJ would let the macro go on
		} finally {
			imp.unlock();
		}
	}

	/**
	 * @param x the x sigma given, in pixels
	 * @param y the y sigma given, in pixels
	 * @param z the z sigma given, in slices
	 * @throws IllegalArgumentException naming the first sigma that is not a finite number of at
	 *                                  least 0, by its field and key
	 */
	public static void checkSigmas(double x, double y, double z) {
		double[] sigmas = { x, y, z };
		for (int i = 0; i < 3; i++)
			if (Double.isNaN(sigmas[i]) || Double.isInfinite(sigmas[i]) || sigmas[i] < 0)
				throw SIGMAS[i].refused(sigmas[i] < 0 ? "at least 0" : "a finite number", sigmas[i]);
	}

	/**
	 * Blurs every volume of an image in place, with progress on ImageJ's bar and Esc checked
	 * between volumes (a canceled run leaves whole volumes blurred and the rest unchanged).
	 *
	 * @param imp the image
	 * @param x   x sigma in pixels
	 * @param y   y sigma in pixels
	 * @param z   z sigma in slices
	 * @return the number of volumes blurred
	 * @throws PartlyDoneException when a volume after the first fails, saying how many are blurred
	 */
	static int blur(ImagePlus imp, double x, double y, double z) {
		try {
			return blurShown(imp, x, y, z);
		} finally {
			IJ.showProgress(1.0); // also after a failure, which would leave the bar standing part way
		}
	}

	private static int blurShown(ImagePlus imp, double x, double y, double z) {
		if (x == 0 && y == 0 && z == 0) {
			imp.deleteRoi(); // ImageJ changes no pixel either, but drops the selection first
			return 0;
		}
		// refuses a virtual stack; the selection goes once a volume is written (changed): one that
		// fails or is stopped before keeps it
		List<Planes> volumes = ImagePlusPlanes.volumes(imp);
		boolean single = imp.getStackSize() == 1;
		ImageProcessor ip = imp.getProcessor();
		// a stack's Undo is reset only once a volume is written (changed): one that fails or is
		// stopped before leaves a one-slice filter run before undoable
		Object earlier = single ? ImagePlusPlanes.snapshotKeepingEarlier(ip) : null;
		long t0 = System.currentTimeMillis();
		int m = volumes.size(), done = 0;
		IJ.resetEscape();
		for (int i = 0; i < m; i++) {
			if (IJ.escapePressed()) break;
			final int k = i;
			Progress p = new Progress() {
				@Override
				public void update(double fraction) {
					IJ.showProgress((k + Math.max(0, Math.min(1, fraction))) / m);
				}

				@Override
				public boolean isCanceled() {
					return IJ.escapePressed();
				}
			};
			OpReport r;
			try {
				r = volumeBlur.blur(volumes.get(i), x, y, z, IjBridge.options().withProgress(p));
			} catch (RuntimeException | Error e) {
				RuntimeException said;
				try {
					said = inVolume(e, i, m);
				} catch (RuntimeException | Error unchanged) {
					if (single) ip.setSnapshotPixels(earlier); // Undo still takes back the filter before
					throw unchanged;
				}
				changed(imp, single);
				throw said;
			}
			GaussianBlurPlugin.hintWhereImageJIsFaster(COMMAND, "Gaussian Blur 3D...", r, x, y, z);
			if (r.canceled()) break;
			done++;
			IJ.showProgress((double) done / m);
		}
		if (done < m) IJ.log(COMMAND + ": canceled after " + done + " of " + m + " volumes");
		if (done > 0) changed(imp, single);
		else if (single) ip.setSnapshotPixels(earlier);
		IJ.showStatus(COMMAND + ": " + (System.currentTimeMillis() - t0) + " ms");
		return done;
	}

	/**
	 * What a failure while blurring volume {@code i} of {@code m} must say, for this command and
	 * the SciJava one: which volumes hold the result, and whether volume {@code i} was written.
	 * Volume {@code i} may be part blurred after a GPU failure (thrown only once planes were
	 * written; any other falls back to the CPU path) and after a {@link PartlyDoneException}:
	 * it was reported as unchanged. Any other failure left it unchanged.
	 *
	 * @param e the failure
	 * @param i the volume that failed, 0-based
	 * @param m the number of volumes
	 * @return the exception to throw, which changed the image (the caller marks it so)
	 * @throws RuntimeException or Error: {@code e} itself, when it changed nothing at all
	 */
	public static RuntimeException inVolume(Throwable e, int i, int m) {
		if (e instanceof fiji.cuda.runtime.GpuException) {
			// the operation counts the planes of one volume; say which volume of the hyperstack
			if (m == 1) return (RuntimeException) e;
			return new fiji.cuda.runtime.GpuException(e.getMessage() + " (volume " + (i + 1) + " of " + m
				+ (i == 0 ? "" : i == 1 ? "; volume 1 is blurred" : "; volumes 1-" + i + " are blurred") + ")", e);
		}
		if (e instanceof PartlyDoneException) {
			PartlyDoneException p = (PartlyDoneException) e;
			if (m == 1) return p;
			return new PartlyDoneException(GaussianBlur.NAME_3D, p.getCause(), (i == 0 ? ""
				: i == 1 ? "volume 1 holds the result; " : "volumes 1-" + i + " hold the result; ") + "in volume "
				+ (i + 1) + " of " + m + ", " + p.done() + (i + 1 < m ? "; the later ones are unchanged" : ""));
		}
		if (i == 0) {
			if (e instanceof Error) throw (Error) e;
			throw (RuntimeException) e;
		}
		// out of memory on volume 3 of 8, say: the user must hear that two are blurred
		return new PartlyDoneException(GaussianBlur.NAME_3D, e, Fallback.prefixDone(i, m, "volumes"));
	}

	/**
	 * Shows what was blurred, and asks to save it on closing; Undo cannot restore a stack. The
	 * selection goes, as ImageJ's blur takes no notice of it.
	 */
	private static void changed(ImagePlus imp, boolean single) {
		imp.deleteRoi();
		if (single) Undo.setup(Undo.FILTER, imp);
		else ImagePlusPlanes.noUndo(imp);
		imp.changes = true;
		imp.updateAndDraw();
	}
}
