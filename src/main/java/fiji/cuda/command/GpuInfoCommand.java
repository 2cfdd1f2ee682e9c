package fiji.cuda.command;

import fiji.cuda.ij.GpuInfoPlugin;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

/**
 * GPU Info as a SciJava command: what the menu's "GPU Info..." lists, as text, so that a
 * headless script can say which device its operations will run on, and why not the GPU when
 * they fall back. It only reports. Choosing the device stays with the menu command (its "Use:"
 * field, kept in ImageJ's preferences) and the Java option {@code -Dfiji.cuda.device}, which
 * outlast one script. No menu path: the menu entry is ImageJ 1's "GPU Info...".
 */
@Plugin(type = Command.class, headless = true, visible = false, label = "GPU Info")
public class GpuInfoCommand extends ContextCommand {

	/** The devices, the driver, where operations run and why, and the self-check: one line each. */
	@Parameter(type = ItemIO.OUTPUT)
	private String info;

	@Override
	public void run() {
		// describe and the self-check never throw: a missing driver or device is a line of the text
		info = String.join("\n", GpuInfoPlugin.lines());
	}
}
