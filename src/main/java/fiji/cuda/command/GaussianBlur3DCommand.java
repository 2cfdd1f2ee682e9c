package fiji.cuda.command;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.ij.GaussianBlur3DPlugin;
import fiji.cuda.ij.IjBridge;
import fiji.cuda.ij.IjErrors;
import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.PartlyDoneException;
import ij.ImagePlus;
import java.util.List;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

/**
 * 3D Gaussian blur as a SciJava command, one volume per channel and frame like ImageJ's
 * "Gaussian Blur 3D...". No menu path (the menu entry is "GPU Gaussian Blur 3D..."). As
 * there, the selection is removed and every sigma 0 leaves the pixels unchanged. Bad input
 * cancels the command with the reason. No input is remembered between runs.
 */
@Plugin(type = Command.class, headless = true, visible = false, label = "GPU Gaussian Blur 3D")
public class GaussianBlur3DCommand extends ContextCommand {

	@Parameter(type = ItemIO.BOTH)
	private ImagePlus image;

	@Parameter(label = "X sigma", min = "0", persist = false)
	private double x = 2;

	@Parameter(label = "Y sigma", min = "0", persist = false)
	private double y = 2;

	@Parameter(label = "Z sigma", min = "0", persist = false)
	private double z = 2;

	/** One volume's blur; tests put in one that fails part way through a hyperstack. */
	interface VolumeBlur {
		void blur(Planes volume, double x, double y, double z);
	}

	static VolumeBlur volumeBlur = (v, sx, sy, sz) -> GaussianBlur.blur3D(v, sx, sy, sz, IjBridge.options());

	@Override
	public void run() {
		try {
			Inputs.requireImage(image, "image");
			if (image.isComposite() && image.getNChannels() == image.getStackSize())
				throw new IllegalArgumentException(GaussianBlur3DPlugin.COMPOSITE); // the menu command's words
			GaussianBlur3DPlugin.checkSigmas(x, y, z);
			// as ImageJ and the menu command: nothing to blur, no pixel changes, yet the selection goes
			if (x == 0 && y == 0 && z == 0) ImagePlusPlanes.whileLocked(image, image::deleteRoi);
			else InPlace.change(image, image.getStackSize() == 1, () -> blurVolumes(image, x, y, z));
		} catch (RuntimeException | OutOfMemoryError e) {
			// any failure, out of memory and the unexpected too, as the menu commands take it: a
			// stack trace in the console was all a script's user got
			cancel(IjErrors.line(GaussianBlur3DPlugin.COMMAND, e));
		}
	}

	/**
	 * Blurs each channel and frame's volume in turn.
	 *
	 * @throws PartlyDoneException when a volume fails after planes were written: the user must
	 *                             hear which volumes are blurred, in the menu command's words
	 * @throws fiji.cuda.runtime.GpuException when the GPU failed while writing a volume back, its
	 *                             message naming that volume and those blurred before it
	 */
	private static void blurVolumes(ImagePlus image, double x, double y, double z) {
		List<Planes> volumes = ImagePlusPlanes.volumes(image);
		for (int i = 0; i < volumes.size(); i++) {
			try {
				volumeBlur.blur(volumes.get(i), x, y, z);
			} catch (RuntimeException | Error e) {
				// out of memory on a later volume was an Error that reached no handler, and a volume
				// left part blurred was said to be unchanged
				RuntimeException said = GaussianBlur3DPlugin.inVolume(e, i, volumes.size());
				image.deleteRoi(); // reached only when part of the image is blurred
				throw said;
			}
		}
		// as ImageJ and the menu command: the blur takes no notice of the selection, which would
		// otherwise suggest that only its inside was blurred; a refused virtual stack, or a blur that
		// fails before it writes, keeps it
		image.deleteRoi();
	}
}
