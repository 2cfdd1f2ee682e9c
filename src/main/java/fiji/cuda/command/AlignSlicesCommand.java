package fiji.cuda.command;

import fiji.cuda.ij.AlignSlicesPlugin;
import fiji.cuda.ij.IjBridge;
import fiji.cuda.ij.IjErrors;
import fiji.cuda.ncc.AlignSlices;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.runtime.GpuException;
import ij.ImagePlus;
import ij.measure.ResultsTable;

import java.awt.Rectangle;

import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

/**
 * Slice alignment as a SciJava command, for scripts, headless runs and other SciJava tools.
 * It has no menu path: the menu entry is ImageJ 1's "GPU Align Slices...", whose parameters
 * and table it shares. The stack is aligned in place and the shifts come back as a table.
 * A width and height of 0 (the default) take the landmark from the image's area selection;
 * with only one of them 0 the landmark has no area and is refused. Bad input
 * cancels the command with the reason instead of throwing, with the image unchanged. No
 * setting is remembered between runs: as in the menu command's macros, one left out takes its
 * default (a stale rectangle would silently align to the wrong feature, a stale reference to
 * another slice of a later stack, or refuse a shorter one, and a stale "previous" would
 * change how every later stack is aligned).
 */
@Plugin(type = Command.class, headless = true, visible = false, label = "GPU Align Slices")
public class AlignSlicesCommand extends ContextCommand {

	@Parameter(type = ItemIO.BOTH)
	private ImagePlus image;

	@Parameter(label = "Reference slice", min = "1", persist = false)
	private int reference = 1;

	@Parameter(label = "Landmark x", required = false, persist = false)
	private int x;

	@Parameter(label = "Landmark y", required = false, persist = false)
	private int y;

	@Parameter(label = "Landmark width", description = "0 (with height 0): the selection's bounds", required = false,
		persist = false)
	private int width;

	@Parameter(label = "Landmark height", description = "0 (with width 0): the selection's bounds", required = false,
		persist = false)
	private int height;

	@Parameter(label = "Margin (pixels)", min = "0", persist = false)
	private int margin = 20;

	@Parameter(label = "Interpolation", choices = {"Bilinear", "Bicubic"}, persist = false)
	private String interpolation = "Bilinear";

	@Parameter(label = "Subpixel shifts", required = false, persist = false)
	private boolean subpixel = true;

	@Parameter(label = "Previous slice", description = "compare each slice with its aligned neighbour",
		required = false, persist = false)
	private boolean previous;

	@Parameter(type = ItemIO.OUTPUT)
	private ResultsTable shifts;

	@Override
	public void run() {
		try {
			Inputs.requireImage(image, "image");
			AlignSlices.Settings s = new AlignSlices.Settings();
			// as the menu command: x and y without a size were dropped for the selection's bounds
			if (width == 0 && height == 0 && (x != 0 || y != 0))
				throw new IllegalArgumentException("The landmark needs x, y, width and height together; x=" + x + " y=" + y
					+ " was given without width and height (leave all four out to use the selection).");
			if (width == 0 && height == 0 && image != null && image.getRoi() != null && image.getRoi().isArea()) {
				Rectangle r = image.getRoi().getBounds();
				s.landmark(r.x, r.y, r.width, r.height);
			} else if (width == 0 && height == 0) {
				// "the landmark has zero area (0x0)" answered a script that gave none
				throw new IllegalArgumentException("Please give the landmark (x, y, width and height) or put a rectangle "
					+ "selection on the image (a line or a point is no landmark).");
			} else {
				s.landmark(x, y, width, height);
			}
			s.reference = reference - 1;
			s.margin = margin;
			// as the menu command: a misspelt name is refused, not taken for Bilinear
			s.interpolation = AlignSlicesPlugin.interpolation(interpolation);
			s.subpixel = subpixel;
			s.previous = previous;
			// as the menu command: Undo is reset, or it would put back an earlier filter's snapshot
			InPlace.change(image, false, () -> shifts = AlignSlicesPlugin.run(image, s, IjBridge.options()).table);
		} catch (IllegalArgumentException | GpuException | PartlyDoneException | OutOfMemoryError e) {
			// out of memory too: a stack trace in the console was all a script's user got
			cancel(IjErrors.line(fiji.cuda.ij.AlignSlicesPlugin.COMMAND, e));
		}
	}
}
