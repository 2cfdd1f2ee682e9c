package fiji.cuda.command;

import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics;
import fiji.cuda.integral.Window;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.GpuException;
import ij.ImagePlus;
import ij.ImageStack;
import ij.process.FloatProcessor;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

import java.util.Locale;

/**
 * Box statistics as a SciJava command: a new 32-bit image of the local mean, variance or
 * standard deviation over a square window of side 2r+1 (or width x height when both are
 * above 0), clipped at the borders. No menu path; bad input cancels with the reason. No input
 * is remembered between runs: a stale rectangle would silently replace the radius of a later
 * run that gives none.
 */
@Plugin(type = Command.class, headless = true, label = "GPU Box Statistics")
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
			// a negative width or height goes to Window.rectangle, which names it
			Window w = width != 0 || height != 0 ? Window.rectangle(width, height) : Window.square(radius);
			BoxStatistics.Statistic stat = BoxStatistics.Statistic.fromLabel(statistic);
			Planes out = BoxStatistics.compute(ImagePlusPlanes.wrap(image), stat, w, ExecutionOptions.defaults());
			ImageStack s = new ImageStack(out.width(), out.height());
			for (int z = 0; z < out.depth(); z++)
				s.addSlice(image.getStack().getSliceLabel(z + 1),
					new FloatProcessor(out.width(), out.height(), (float[]) out.plane(z)));
			// titled as by the menu command, e.g. "cells standard deviation 5x5"
			result = ImagePlusPlanes.likeSource(new ImagePlus(image.getShortTitle() + " "
				+ stat.label().toLowerCase(Locale.ROOT) + " " + w, s), image);
		} catch (IllegalArgumentException | GpuException e) {
			cancel(e.getMessage());
		}
	}
}
