package fiji.cuda.runtime;

/** Test access to the runtime's fault hooks, for tests in other packages. */
public final class FaultInjection {

	private FaultInjection() {}

	/** The next download on the GPU fails when it reaches staging chunk {@code k} (0 = the first). */
	public static void failNextDownloadAtChunk(int k) {
		GpuSession.failDownloadAtChunk = k;
	}

	/**
	 * The download after the next {@code downloads} ones (on any session) fails when it reaches
	 * staging chunk {@code k}.
	 */
	public static void failDownloadAfter(int downloads, int k) {
		GpuSession.failDownloadSkip = downloads;
		GpuSession.failDownloadAtChunk = k;
	}

	/** The wait for a session's stream ({@code GpuSession.sync()}) after the next {@code syncs} ones reports a non-sticky CUDA error, once. */
	public static void failSyncAfter(int syncs) {
		GpuSession.failSyncAfter = syncs;
	}

	/** The next session's last wait for its streams reports a non-sticky CUDA error, once. */
	public static void failNextFinish() {
		GpuSession.failFinishes.set(1);
	}

	/** The next {@code n} last waits for a session's streams (its own and its retries) report a non-sticky CUDA error. */
	public static void failNextFinishes(int n) {
		GpuSession.failFinishes.set(n);
	}

	/** The next session's end, after its streams drained, throws {@code e}, once. */
	public static void failNextEndWith(Error e) {
		GpuSession.failEndWith = e;
	}

	/** @return the bytes of one staging chunk */
	public static long stagingChunkBytes() {
		return Long.getLong("fiji.cuda.stagingMiB", 32) << 20;
	}

	/** Withdraws a hook that did not fire. */
	public static void clear() {
		GpuSession.failDownloadAtChunk = -1;
		GpuSession.failDownloadSkip = 0;
		GpuSession.failFinishes.set(0);
		GpuSession.failSyncAfter = -1;
		GpuSession.failEndWith = null;
	}
}
