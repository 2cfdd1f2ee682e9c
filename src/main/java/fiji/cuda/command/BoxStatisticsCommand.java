package fiji.cuda.command;

import fiji.cuda.ij.BoxStatisticsPlugin;
import fiji.cuda.ij.IjErrors;
import ij.ImagePlus;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

/**
 * Box statistics as a SciJava command: a new 32-bit image of the local mean, variance or
 * standard deviation of every slice over a square window of side 2r+1 (or width x height when
 * both are above 0), clipped at the borders; it has no choice of one slice, which the menu
 * command's {@code stack} gives. No menu path: the menu entry is ImageJ 1's "GPU Box
 * Statistics...", whose result image and progress bar it shares. Bad input cancels with the
 * reason, and so does Esc in ImageJ, which stops it between slices as it stops the menu
 * command. No input is remembered between runs: a stale rectangle would silently replace the
 * radius of a later run that gives none.
 */
@Plugin(type = Command.class, headless = true, visible = false, label = "GPU Box Statistics")
public class BoxStatisticsCommand extends ContextCommand {

	@Parameter
	private ImagePlus image;

	@Parameter(label = "Radius", min = "1", persist = false)
	private int radius = 2;

	@Parameter(label = "Statistic", choices = { "Mean", "Variance", "Standard deviation" }, persist = false)
	private String statistic = "Mean";

	@Parameter(label = "Width", description = "0 for the square of the radius", required = false, persist = false)
	private int width;

	@Parameter(label = "Height", description = "0 for the square of the radius", required = false, persist = false)
	private int height;

	@Parameter(type = ItemIO.OUTPUT)
	private ImagePlus result;

	@Override
	public void run() {
		try {
			Inputs.requireImage(image, "image");
			result = BoxStatisticsPlugin.computeForScript(image, radius, statistic, width, height);
			// Esc in ImageJ stops the menu command's computation, which then gives no image: a script
			// got a null result and no word that it was canceled
			if (result == null) cancel(BoxStatisticsPlugin.COMMAND + ": canceled.");
		} catch (RuntimeException | OutOfMemoryError e) {
			// any failure, out of memory and the unexpected too, as the menu commands take it: a
			// stack trace in the console was all a script's user got
			cancel(IjErrors.line(BoxStatisticsPlugin.COMMAND, e));
		}
	}
}
