package fiji.cuda.runtime;

/**
 * The user's choice of device: {@code "auto"} (the first usable GPU), {@code "cpu"} (never use
 * the GPU), or a device index such as {@code "0"}. Read first from the system property
 * {@code fiji.cuda.device}, then from what the IJ1 bridge stored with {@link #setDeviceChoice}.
 */
public final class GpuSettings {

	/** The system property that overrides the stored choice. */
	public static final String PROPERTY = "fiji.cuda.device";

	private static volatile String choice = "auto";

	private GpuSettings() {}

	/** @return "auto", "cpu" or a device index */
	public static String deviceChoice() {
		String p = System.getProperty(PROPERTY);
		return normalize(p != null ? p : choice);
	}

	/**
	 * @param c "auto", "cpu" or a device index
	 * @throws IllegalArgumentException for anything else
	 */
	public static void setDeviceChoice(String c) {
		choice = normalize(c);
	}

	/**
	 * @return the line "Setting: ..." of GPU Info: the choice in the words of its "Use:" field, and
	 *         where it comes from (a Java option overrides GPU Info); never throws
	 */
	static String describe() {
		String p = System.getProperty(PROPERTY);
		String c;
		try {
			c = deviceChoice();
		} catch (IllegalArgumentException e) {
			return "Setting: " + badProperty();
		}
		String label = c.equals("auto") ? "Automatic" : c.equals("cpu") ? "CPU only" : "GPU " + c;
		return "Setting: " + label + (p != null ? " (Java option -D" + PROPERTY + "=" + p + ", which overrides the choice "
			+ "in GPU Info)" : " (chosen in GPU Info)");
	}

	/** @return why a malformed Java option is not used, and what to do */
	static String badProperty() {
		return "the Java option -D" + PROPERTY + "='" + System.getProperty(PROPERTY) + "' is none of auto, cpu or a GPU "
			+ "number (0, 1, ...); correct or remove it";
	}

	private static String normalize(String c) {
		String s = c == null ? "auto" : c.trim().toLowerCase();
		if (s.isEmpty()) return "auto";
		if (s.equals("auto") || s.equals("cpu")) return s;
		try {
			if (Integer.parseInt(s) >= 0) return s;
		} catch (NumberFormatException e) {
			// fall through to the error below
		}
		throw new IllegalArgumentException("Device must be 'auto', 'cpu' or a GPU index, not '" + c + "'.");
	}
}
