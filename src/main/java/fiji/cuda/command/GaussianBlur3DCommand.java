package fiji.cuda.command;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.Planes;
import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.runtime.GpuException;
import ij.ImagePlus;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

/**
 * 3D Gaussian blur as a SciJava command, one volume per channel and frame like ImageJ's
 * "Gaussian Blur 3D...". No menu path (the menu entry is "GPU Gaussian Blur 3D..."). Every
 * sigma 0 leaves the image unchanged, as there. Bad input cancels the command with the
 * reason. No input is remembered between runs.
 */
@Plugin(type = Command.class, headless = true, label = "GPU Gaussian Blur 3D")
public class GaussianBlur3DCommand extends ContextCommand {

	@Parameter(type = ItemIO.BOTH)
	private ImagePlus image;

	@Parameter(label = "X sigma", min = "0", persist = false)
	private double x = 2;

	@Parameter(label = "Y sigma", min = "0", persist = false)
	private double y = 2;

	@Parameter(label = "Z sigma", min = "0", persist = false)
	private double z = 2;

	@Override
	public void run() {
		if (image.isComposite() && image.getNChannels() == image.getStackSize()) {
			cancel("Composite color images are not supported: their channels would be blurred into each other.");
			return;
		}
		if (x == 0 && y == 0 && z == 0) return; // as ImageJ and the menu command: nothing to blur, nothing changes
		try {
			InPlace.change(image, image.getStackSize() == 1, () -> {
				for (Planes volume : ImagePlusPlanes.volumes(image))
					GaussianBlur.blur3D(volume, x, y, z, ExecutionOptions.defaults());
			});
		} catch (IllegalArgumentException | GpuException | PartlyDoneException e) {
			cancel(e.getMessage());
		}
	}
}
