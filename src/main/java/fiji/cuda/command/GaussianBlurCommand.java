package fiji.cuda.command;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.ij.GaussianBlurPlugin;
import fiji.cuda.ij.IjBridge;
import fiji.cuda.ij.IjErrors;
import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.ops.OpReport;
import ij.ImagePlus;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

/**
 * Gaussian blur as a SciJava command, for scripts, headless runs and other SciJava tools.
 * It has no menu path: the menu entry is ImageJ 1's "GPU Gaussian Blur...". Bad input
 * cancels the command with the reason instead of throwing. No input is remembered between
 * runs (SciJava would otherwise fill one left out from an earlier run, or session): a run that
 * leaves out {@code scaled} and {@code stack} blurs every slice in pixels, whatever an earlier
 * run asked for.
 */
@Plugin(type = Command.class, headless = true, visible = false, label = "GPU Gaussian Blur")
public class GaussianBlurCommand extends ContextCommand {

	@Parameter(type = ItemIO.BOTH)
	private ImagePlus image;

	// no "min": a widget offering 0 would offer a value the blur refuses (0 skips an axis only in 3D)
	@Parameter(label = "Sigma (Radius)", description = "standard deviation, greater than 0", persist = false)
	private double sigma = 2;

	// not persisted: a stale "true" would blur a later image in microns 1/pixelWidth times wider
	@Parameter(label = "Scaled units", description = "sigma in calibrated units", required = false, persist = false)
	private boolean scaled;

	// not persisted: a stale "false" would blur one slice of every later stack (the menu asks each time)
	@Parameter(label = "Whole stack", description = "all slices, else the current one", required = false, persist = false)
	private boolean stack = true;

	@Override
	public void run() {
		try {
			Inputs.requireImage(image, "image");
			double[] s = GaussianBlurPlugin.sigmasInPixels(image.getCalibration(), sigma, scaled);
			// one plane wrapped alone: a virtual stack of one slice loses no change, and the menu blurs it
			boolean whole = stack && image.getStackSize() > 1;
			OpReport[] r = new OpReport[1];
			InPlace.changeIf(image, !whole, () -> (r[0] = GaussianBlur.blur2D(whole ? ImagePlusPlanes.wrap(image)
				: ImagePlusPlanes.wrap(image.getProcessor()), s[0], s[1], ImagePlusPlanes.selection(image),
				IjBridge.options())).planesDone() > 0);
			// SciJava cancels a run by interrupting it, which stops the CPU path between planes
			if (r[0].canceled())
				cancel(InPlace.canceled(GaussianBlurPlugin.COMMAND, r[0].planesDone(), whole ? image.getStackSize() : 1));
		} catch (RuntimeException | OutOfMemoryError e) {
			// any failure, out of memory and the unexpected too, as the menu commands take it: a
			// stack trace in the console was all a script's user got
			cancel(IjErrors.line(GaussianBlurPlugin.COMMAND, e));
		}
	}
}
