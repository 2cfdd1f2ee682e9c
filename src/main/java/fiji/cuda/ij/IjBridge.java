package fiji.cuda.ij;

import fiji.cuda.ops.OpLog;
import fiji.cuda.runtime.GpuSettings;
import ij.IJ;
import ij.Macro;
import ij.Prefs;
import ij.macro.Interpreter;
import ij.util.Tools;

/**
 * One-time wiring of the operation layer into ImageJ 1: operation log lines (such as why
 * the CPU path ran) go to ImageJ's Log window, and the device chosen in "GPU Info..." is
 * restored from ImageJ's preferences. Every plug-in class of this package calls
 * {@link #init()} when it is loaded.
 */
public final class IjBridge {

	/** The ImageJ preference key (saved in IJ_Prefs.txt) holding the device choice. */
	public static final String PREF_DEVICE = "fiji.cuda.device";

	private static boolean done;

	private IjBridge() {}

	/** Installs the log sink and applies the stored device choice; later calls do nothing. */
	public static synchronized void init() {
		if (done) return;
		done = true;
		OpLog.setSink(IJ::log);
		String stored = Prefs.get(PREF_DEVICE, "auto");
		try {
			GpuSettings.setDeviceChoice(stored);
		} catch (IllegalArgumentException e) {
			// a hand-edited preference must not stop the plug-ins from loading
			IJ.log("Fiji CUDA: ignoring the stored device choice '" + stored + "'; using automatic.");
		}
	}

	/**
	 * Stores a device choice for this and later sessions and applies it now.
	 *
	 * @param choice "auto", "cpu" or a GPU index
	 * @throws IllegalArgumentException for anything else
	 */
	public static void storeDeviceChoice(String choice) {
		GpuSettings.setDeviceChoice(choice);
		Prefs.set(PREF_DEVICE, choice);
	}

	/** @return the stored device choice, "auto" when none */
	public static String storedDeviceChoice() {
		return Prefs.get(PREF_DEVICE, "auto");
	}

	/**
	 * A macro value for a numeric field that is neither a number nor a macro variable (given
	 * as {@code name} or {@code &name}) makes
	 * GenericDialog open a modal "Macro Error" box, which hangs a batch run; the commands check
	 * their numeric keys with this first and report the value instead.
	 *
	 * @param options the macro options, or null when no macro runs
	 * @param keys    the numeric fields' keys
	 * @return null, or a message naming the first bad key and its value
	 */
	static String notANumber(String options, String... keys) {
		if (options == null) return null;
		for (String k : keys) {
			String v = Macro.getValue(options, k, null);
			if (v == null || !Double.isNaN(Tools.parseDouble(v, Double.NaN))) continue;
			// as GenericDialog.getNextNumber, untrimmed: "0x..." is hexadecimal, and "&name" (the
			// documented way to pass a variable, e.g. "sigma=&s") names a variable
			if (v.startsWith("0x")) continue;
			String name = v.startsWith("&") ? v.substring(1) : v;
			Interpreter in = Interpreter.getInstance();
			if (in != null && !name.isEmpty() && !name.equalsIgnoreCase("NaN") && !Double.isNaN(in.getVariable2(name)))
				continue;
			return k + " must be a number, not '" + v + "'.";
		}
		return null;
	}
}
