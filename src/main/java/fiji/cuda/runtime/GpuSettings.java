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
