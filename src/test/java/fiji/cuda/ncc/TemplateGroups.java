package fiji.cuda.ncc;

/** Test access to how {@link TemplateMatching#detect} splits a bank and a map, for tests in other packages. */
public final class TemplateGroups {

	private TemplateGroups() {}

	/**
	 * Makes {@link TemplateMatching#detect} close a group of templates once their score maps
	 * reach {@code bytes} (1: one template per group), instead of 256 MB.
	 */
	public static void limitBytes(long bytes) {
		TemplateMatching.groupBytesForTest = bytes;
	}

	/**
	 * Makes the CPU compute a score map in bands of rows of about {@code work} pixel products
	 * per thread, each followed by a progress update and a look at the cancel, instead of 2^27.
	 */
	public static void limitBandWork(long work) {
		TemplateMatchingCpu.bandWorkForTest = work;
	}

	/** Restores the 256 MB groups and the CPU's bands. */
	public static void clear() {
		TemplateMatching.groupBytesForTest = 0;
		TemplateMatchingCpu.bandWorkForTest = 0;
	}
}
