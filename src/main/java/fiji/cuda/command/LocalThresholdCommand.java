package fiji.cuda.command;

import fiji.cuda.ij.IjErrors;
import fiji.cuda.ij.LocalThresholdPlugin;
import ij.ImagePlus;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

/**
 * Local threshold as a SciJava command, with Auto Local Threshold's parameters (0 = the
 * method's default) over a square window of side 2r+1: a new 8-bit binary image of every
 * slice. No menu path (the menu entry is "GPU Local Threshold..."); bad input cancels. No
 * input is remembered between runs: a Niblack k left from an earlier run would otherwise
 * become a later Sauvola run's k.
 */
@Plugin(type = Command.class, headless = true, visible = false, label = "GPU Local Threshold")
public class LocalThresholdCommand extends ContextCommand {

	@Parameter
	private ImagePlus image;

	@Parameter(label = "Method", choices = { "Mean", "Niblack", "Sauvola", "Phansalkar" }, persist = false)
	private String method = "Sauvola";

	@Parameter(label = "Radius", min = "1", persist = false)
	private int radius = 15;

	@Parameter(label = "Parameter 1", description = "0 for the method's default", required = false, persist = false)
	private double parameter1;

	@Parameter(label = "Parameter 2", description = "0 for the method's default", required = false, persist = false)
	private double parameter2;

	@Parameter(label = "White objects on black background", required = false, persist = false)
	private boolean white = true;

	@Parameter(type = ItemIO.OUTPUT)
	private ImagePlus result;

	@Override
	public void run() {
		try {
			Inputs.requireImage(image, "image");
			result = LocalThresholdPlugin.thresholdForScript(image, method, radius, parameter1, parameter2, white);
		} catch (RuntimeException | OutOfMemoryError e) {
			// any failure, out of memory and the unexpected too, as the menu commands take it: a
			// stack trace in the console was all a script's user got
			cancel(IjErrors.line(LocalThresholdPlugin.COMMAND, e));
		}
	}
}
