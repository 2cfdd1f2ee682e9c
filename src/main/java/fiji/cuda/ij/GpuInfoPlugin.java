package fiji.cuda.ij;

import fiji.cuda.ops.Texts;
import fiji.cuda.runtime.GpuAccess;
import fiji.cuda.runtime.GpuSettings;
import ij.IJ;
import ij.Macro;
import ij.gui.GenericDialog;
import ij.plugin.PlugIn;

import java.util.ArrayList;
import java.util.List;

/**
 * "GPU Info...": lists the CUDA devices and the driver, runs the self-check, and lets the
 * user choose where operations run ("Use:", macro key {@code use}). The choice is kept in
 * ImageJ's preferences and restored by {@link IjBridge#init()}; the system property
 * {@code fiji.cuda.device} still overrides it. In batch mode or from a macro the lines go to
 * the Log instead of a dialog.
 */
public class GpuInfoPlugin implements PlugIn {

	static {
		IjBridge.init();
	}

	/** The command's name in the menu (without the dots) and in messages. */
	public static final String COMMAND = "GPU Info";

	static final String AUTOMATIC = "Automatic";
	static final String CPU_ONLY = "CPU only";
	static final String GPU_PREFIX = "GPU ";
	/** The "Use:" field, for messages. */
	static final Field USE = new Field("Use", "use");
	private static final String CHOICES = "Automatic, [CPU only] or a GPU such as [GPU 0]";

	/** The highest GPU index the dialog offers beyond the devices found. */
	static final int MAX_OFFERED = 15;

	/**
	 * What GPU Info shows, for a script: the devices, the driver, where operations run and why,
	 * and the self-check's result. Loading this class first applies the device chosen in GPU
	 * Info, as the menu command does.
	 *
	 * @return one line per item, as the Log shows them in batch mode
	 */
	public static List<String> lines() {
		List<String> lines = new ArrayList<>(GpuAccess.describe());
		lines.add(GpuAccess.selfCheck());
		return lines;
	}

	@Override
	public void run(String arg) {
		IjErrors.enter();
		List<String> lines = lines();
		String[] choices = choices(GpuAccess.deviceCount(), IjBridge.storedDeviceChoice());
		String current = label(IjBridge.storedDeviceChoice());
		String unbracketed = USE.unbracketedChoice(Macro.getOptions(), choices);
		if (unbracketed != null) {
			IjErrors.report(COMMAND, unbracketed);
			return;
		}
		if (IjErrors.mustNotBlock()) {
			for (String line : lines)
				IJ.log(line);
			// read the key ourselves: GenericDialog answers an unknown choice with a
			// macro error dialog, which would hang a batch run
			String options = Macro.getOptions();
			if (options == null) return;
			// "use=&choice" names a macro variable, as in every GenericDialog
			String picked = IjBridge.macroValue(options, USE.key, current);
			if (apply(picked)) IJ.log(COMMAND + ": " + outcome(picked, GpuAccess.deviceCount()));
			return;
		}
		GenericDialog gd = new GenericDialog(COMMAND);
		gd.addMessage(String.join("\n", lines));
		gd.addChoice("Use:", choices, current);
		gd.showDialog();
		if (gd.wasCanceled()) {
			IjErrors.canceled();
			return;
		}
		String picked = gd.getNextChoice();
		// the Log, not a second dialog: the choice is stored, only not in effect until restart
		int devices = GpuAccess.deviceCount();
		if (apply(picked) && (overriddenBy(picked) != null || absent(picked, devices)))
			IJ.log(COMMAND + ": " + outcome(picked, devices));
	}

	/**
	 * @param picked  a stored choice, as labelled in the dialog
	 * @param devices the CUDA devices found now
	 * @return what it means now: the device operations will use, or that the Java option
	 *         {@code -Dfiji.cuda.device}, which wins over the stored choice, overrides it
	 */
	static String outcome(String picked, int devices) {
		String property = overriddenBy(picked);
		if (property != null)
			return picked + " is stored, but the Java option -D" + GpuSettings.PROPERTY + "=" + property
				+ " overrides it while ImageJ runs with that option.";
		if (absent(picked, devices))
			return picked + " is stored, but " + (devices == 0 ? "no CUDA device is found" : "it is not found") + " now: "
				+ "operations run on the CPU until it is.";
		return "operations will use: " + picked;
	}

	/**
	 * @return whether the choice names a GPU that is not found now (it stays offered: a GPU
	 *         unplugged, a driver missing)
	 */
	private static boolean absent(String picked, int devices) {
		if (!picked.startsWith(GPU_PREFIX)) return false;
		String index = setting(picked);
		return index.length() > 3 || Integer.parseInt(index) >= devices;
	}

	/** @return the Java option's value when it is set and differs from the choice, else null */
	private static String overriddenBy(String picked) {
		String property = System.getProperty(GpuSettings.PROPERTY);
		if (property == null || property.trim().equalsIgnoreCase(setting(picked))) return null;
		return property;
	}

	static boolean apply(String picked) {
		try {
			String setting = setting(picked);
			// "GPU -1", "GPU x": refused as here, not in the words of the setting underneath
			if (!setting.matches("auto|cpu|\\d+")) throw USE.refused(CHOICES, picked);
			int devices = GpuAccess.deviceCount();
			// the stored GPU is offered while it is not found, so OK on the dialog as it came must
			// keep it rather than be an error
			boolean kept = setting.equals(IjBridge.storedDeviceChoice().trim().toLowerCase());
			if (setting.matches("\\d+") && !kept
				&& (setting.length() > 3 || Integer.parseInt(setting) >= Math.max(1, devices)))
				throw new IllegalArgumentException(noSuchGpu(picked, devices));
			IjBridge.storeDeviceChoice(setting);
			return true;
		} catch (IllegalArgumentException e) {
			IjErrors.report(COMMAND, e);
			return false;
		}
	}

	/** @return the message for a GPU index beyond the devices found */
	static String noSuchGpu(String picked, int devices) {
		// without devices there is no range of GPUs to name
		String range = devices == 0 ? "" : " (GPU 0" + (devices > 1 ? " to GPU " + (devices - 1) : "") + ")";
		return "There is no " + picked + " (" + Texts.option(USE.key, picked) + "); this machine has "
			+ (devices == 0 ? "no CUDA device" : devices + " CUDA device" + (devices == 1 ? "" : "s")) + range + ".";
	}

	/**
	 * @param devices the number of CUDA devices found
	 * @param stored  the stored setting, whose device is offered even when not seen now
	 * @return Automatic, CPU only, then GPU n for each device found (at least GPU 0)
	 */
	static String[] choices(int devices, String stored) {
		int max = Math.max(0, devices - 1);
		try {
			// offered even when not seen now (an unplugged GPU), within reason: an index stored by
			// an older version could be anything
			max = Math.max(max, Math.min(Integer.parseInt(stored), MAX_OFFERED));
		} catch (NumberFormatException e) {
			// "auto" or "cpu"
		}
		String[] c = new String[max + 3];
		c[0] = AUTOMATIC;
		c[1] = CPU_ONLY;
		for (int i = 0; i <= max; i++)
			c[i + 2] = GPU_PREFIX + i;
		return c;
	}

	/** @return the dialog's label for a setting ("auto", "cpu", "0"...) */
	static String label(String setting) {
		String s = setting == null ? "auto" : setting.trim().toLowerCase();
		if (s.equals("cpu")) return CPU_ONLY;
		if (s.matches("\\d+")) return GPU_PREFIX + s;
		return AUTOMATIC;
	}

	/** @return the setting for a dialog label (the reverse of {@link #label}) */
	static String setting(String label) {
		if (CPU_ONLY.equals(label)) return "cpu";
		if (label != null && label.startsWith(GPU_PREFIX)) return label.substring(GPU_PREFIX.length()).trim();
		if (AUTOMATIC.equals(label)) return "auto";
		throw USE.refused(CHOICES, String.valueOf(label));
	}
}
