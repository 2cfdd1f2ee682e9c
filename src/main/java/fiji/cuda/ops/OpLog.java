package fiji.cuda.ops;

import java.util.function.Consumer;

/**
 * The one place operations write user-facing log lines (such as why the CPU path ran).
 * The layers below the command layer may not use ImageJ's log, so the IJ1 bridge
 * installs a sink that forwards to {@code IJ.log}; the default writes to standard error.
 */
public final class OpLog {

	private static volatile Consumer<String> sink = line -> System.err.println("[Fiji CUDA] " + line);

	private OpLog() {}

	/**
	 * @param s where log lines go from now on, called on the operations' threads (any of them);
	 *          null restores standard error
	 */
	public static void setSink(Consumer<String> s) {
		sink = s != null ? s : line -> System.err.println("[Fiji CUDA] " + line);
	}

	/** @param line one line for the user */
	public static void log(String line) {
		sink.accept(line);
	}
}
