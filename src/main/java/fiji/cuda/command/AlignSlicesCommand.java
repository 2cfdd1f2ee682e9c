package fiji.cuda.command;

import fiji.cuda.ij.AlignSlicesPlugin;
import fiji.cuda.ij.IjBridge;
import fiji.cuda.ij.IjErrors;
import fiji.cuda.ncc.AlignSlices;
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
 * The landmark is x, y, width and height together, or none of them (or all 0) for the
 * bounds of the image's area selection; some of them alone are refused, as in the menu
 * command's macros. Bad input
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

	/**
	 * What a landmark input left out holds: SciJava fills a boxed input left out with 0, which
	 * cannot be told from a landmark at the image's edge (width and height without x and y
	 * aligned to the corner without a word).
	 */
	static final int NOT_GIVEN = Integer.MIN_VALUE;

	@Parameter(label = "Landmark x", description = "left out: see width", required = false, persist = false)
	private int x = NOT_GIVEN;

	@Parameter(label = "Landmark y", description = "left out: see width", required = false, persist = false)
	private int y = NOT_GIVEN;

	@Parameter(label = "Landmark width", description = "left out with x, y and height (or all 0): the selection's bounds",
		required = false, persist = false)
	private int width = NOT_GIVEN;

	@Parameter(label = "Landmark height", description = "left out with x, y and width (or all 0): the selection's bounds",
		required = false, persist = false)
	private int height = NOT_GIVEN;

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
			// before the landmark: a script asked for one on an image that none could align
			AlignSlicesPlugin.checkImage(image);
			AlignSlices.Settings s = settings();
			// as the menu command: Undo is reset, or it would put back an earlier filter's snapshot
			InPlace.change(image, false, () -> shifts = AlignSlicesPlugin.run(image, s, IjBridge.options()).table);
		} catch (RuntimeException | OutOfMemoryError e) {
			// any failure, out of memory and the unexpected too, as the menu commands take it: a
			// stack trace in the console was all a script's user got
			cancel(IjErrors.line(AlignSlicesPlugin.COMMAND, e));
		}
	}

	private AlignSlices.Settings settings() {
		AlignSlices.Settings s = new AlignSlices.Settings();
		// the menu command's rule: all four, or none (or all four 0); some alone, 0 or not, are
		// refused: x=0 y=0 alone aligned to the selection where a corner was meant, without a word
		Rectangle r = AlignSlicesPlugin.landmark(image, given(x), given(y), given(width), given(height));
		s.landmark(r.x, r.y, r.width, r.height);
		s.reference = reference - 1;
		s.margin = margin;
		// as the menu command: a misspelt name is refused, not taken for Bilinear
		s.interpolation = AlignSlicesPlugin.interpolation(interpolation);
		s.subpixel = subpixel;
		s.previous = previous;
		return s;
	}

	private static Integer given(int v) {
		return v == NOT_GIVEN ? null : v;
	}
}
