package fiji.cuda.runtime;

/**
 * What the driver reports about one CUDA device, read once at discovery.
 */
public final class DeviceInfo {

	/** Device ordinal as CUDA numbers it. */
	public final int index;
	/** Marketing name, e.g. "NVIDIA H200". */
	public final String name;
	/** Compute capability, major part. */
	public final int ccMajor;
	/** Compute capability, minor part. */
	public final int ccMinor;
	/** Total device memory in bytes. */
	public final long totalMemory;
	/** Number of streaming multiprocessors. */
	public final int multiprocessors;
	/** Opt-in maximum of dynamic shared memory per block, in bytes. */
	public final int maxSharedPerBlockOptin;

	DeviceInfo(int index, String name, int ccMajor, int ccMinor, long totalMemory, int multiprocessors,
		int maxSharedPerBlockOptin)
	{
		this.index = index;
		this.name = name;
		this.ccMajor = ccMajor;
		this.ccMinor = ccMinor;
		this.totalMemory = totalMemory;
		this.multiprocessors = multiprocessors;
		this.maxSharedPerBlockOptin = maxSharedPerBlockOptin;
	}

	/** @return compute capability as major*10+minor, e.g. 90 */
	public int computeCapability() {
		return ccMajor * 10 + ccMinor;
	}

	@Override
	public String toString() {
		return String.format(java.util.Locale.ROOT,
			"GPU %d: %s, compute capability %d.%d, %.1f GiB, %d SMs", index, name, ccMajor, ccMinor,
			totalMemory / (double) (1L << 30), multiprocessors);
	}
}
