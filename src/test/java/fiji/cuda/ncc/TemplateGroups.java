package fiji.cuda.ncc;

/** Test access to how {@link TemplateMatching#detect} splits a bank, for tests in other packages. */
public final class TemplateGroups {

	private TemplateGroups() {}

	/**
	 * Makes {@link TemplateMatching#detect} close a group of templates once their score maps
	 * reach {@code bytes} (1: one template per group), instead of 256 MB.
	 */
	public static void limitBytes(long bytes) {
		TemplateMatching.groupBytesForTest = bytes;
	}

	/** Restores the 256 MB groups. */
	public static void clear() {
		TemplateMatching.groupBytesForTest = 0;
	}
}
