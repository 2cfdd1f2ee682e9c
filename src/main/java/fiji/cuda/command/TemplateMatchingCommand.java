package fiji.cuda.command;

import fiji.cuda.ij.IjErrors;
import fiji.cuda.ij.TemplateMatchingPlugin;
import ij.ImagePlus;
import ij.measure.ResultsTable;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

/**
 * Template matching as a SciJava command, for scripts, headless runs and other SciJava tools.
 * It has no menu path: the menu entry is ImageJ 1's "GPU Template Matching...", whose
 * parameters and table it shares. It changes no image and shows nothing: the detections come
 * back as a table, and the score map as an image when asked for. Bad input cancels the
 * command with the reason instead of throwing. No setting is remembered between runs: as in
 * the menu command's macros, one left out takes its default (a stale {@code flip}, angle list
 * or {@code stack} would silently add detections to a later run that never asked for them).
 */
@Plugin(type = Command.class, headless = true, visible = false, label = "GPU Template Matching")
public class TemplateMatchingCommand extends ContextCommand {

	@Parameter(label = "Image", description = "the image searched; a selection bounds the search")
	private ImagePlus image;

	@Parameter(label = "Template", description = "one template per slice; a selection bounds and masks it")
	private ImagePlus template;

	@Parameter(label = "Score threshold", min = "-1", max = "1", persist = false)
	private double scoreThreshold = 0.5;

	@Parameter(label = "Max objects", min = "1", persist = false)
	private int maxObjects = 10;

	@Parameter(label = "NMS (maximal overlap)", min = "0", max = "1", persist = false)
	private double nms = 0.3;

	@Parameter(label = "Angles (degrees)", description = "counter-clockwise, as displayed; e.g. 0 90 180 270",
		required = false, persist = false)
	private String angles = "0";

	@Parameter(label = "Flip", description = "also mirrored templates", required = false, persist = false)
	private boolean flip;

	@Parameter(label = "Stack", description = "every slice, else the current one", required = false, persist = false)
	private boolean stack;

	@Parameter(label = "Score map", required = false, persist = false)
	private boolean scoreMap;

	@Parameter(label = "Same size score map", required = false, persist = false)
	private boolean sameSize;

	@Parameter(type = ItemIO.OUTPUT)
	private ResultsTable results;

	@Parameter(type = ItemIO.OUTPUT, required = false)
	private ImagePlus scoreMapImage;

	@Override
	public void run() {
		try {
			Inputs.requireImage(image, "image");
			Inputs.requireImage(template, "template");
			TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.runForScript(image, template, settings());
			results = out.table;
			scoreMapImage = out.scoreMap;
		} catch (RuntimeException | OutOfMemoryError e) {
			// any failure, out of memory and the unexpected too, as the menu commands take it: a
			// stack trace in the console was all a script's user got
			cancel(IjErrors.line(TemplateMatchingPlugin.COMMAND, e));
		}
	}

	private TemplateMatchingPlugin.Settings settings() {
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.threshold = scoreThreshold;
		s.maxObjects = maxObjects;
		s.nms = nms;
		s.angles = TemplateMatchingPlugin.parseAngles(angles);
		s.flip = flip;
		s.stack = stack;
		s.scoreMap = scoreMap;
		s.sameSize = sameSize;
		return s;
	}
}
