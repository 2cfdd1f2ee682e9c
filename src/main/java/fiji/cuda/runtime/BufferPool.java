package fiji.cuda.runtime;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;

import jcuda.CudaException;
import jcuda.driver.CUdeviceptr;

/**
 * A caching allocator for device memory. cuMemAlloc and cuMemFree synchronize the whole
 * device and cost tens of microseconds, more than a blur kernel; operations that run
 * thousands of times (batch jobs, stacks) would spend most of their time there. Blocks are
 * rounded up to size classes and kept on free lists after {@link DeviceBuffer#close()}.
 * <p>
 * The cache is bounded: beyond {@code maxCachedBytes} released blocks are freed at once, so
 * the pool never holds more idle memory than that. When an allocation fails for lack of
 * memory, the cache is emptied and the allocation retried, then retried at the exact size, before
 * giving up with a {@link GpuUnavailableException}, which makes the operation fall back to the CPU.
 */
final class BufferPool {

	private final long maxCachedBytes;
	private final TreeMap<Long, ArrayDeque<CUdeviceptr>> free = new TreeMap<>();
	private long cachedBytes;
	private long inUseBytes;

	BufferPool(long maxCachedBytes) {
		this.maxCachedBytes = maxCachedBytes;
	}

	/**
	 * Size classes: powers of two up to 1 MiB, then multiples of 1/8 of the power of two below
	 * the request, so that a large block is at most 12.5% bigger than asked for (a step of 1/8 of
	 * the power above cost up to 25%, 1 GB more for a 4.3 GB volume). A class is its own class.
	 */
	static long sizeClass(long bytes) {
		long b = Math.max(bytes, 256);
		if (b <= (1 << 20)) return Long.highestOneBit(b - 1) << 1;
		long step = Long.highestOneBit(b - 1) >> 3;
		return (b + step - 1) / step * step;
	}

	/** @return {@code bytes} rounded up to the driver's 256-byte alignment: the least block that serves the request */
	static long exactSize(long bytes) {
		return (Math.max(bytes, 1) + 255) / 256 * 256;
	}

	DeviceBuffer allocate(long bytes, String op, GpuSession owner) {
		long cls = sizeClass(bytes);
		synchronized (this) {
			ArrayDeque<CUdeviceptr> q = free.get(cls);
			if (q != null && !q.isEmpty()) {
				CUdeviceptr p = q.pop();
				cachedBytes -= cls;
				inUseBytes += cls;
				return new DeviceBuffer(this, owner, p, cls, bytes);
			}
		}
		CUdeviceptr p = new CUdeviceptr();
		try {
			cuMemAlloc(p, cls);
		} catch (CudaException e) {
			if (!isOutOfMemory(e)) throw e;
			trim();
			try {
				cuMemAlloc(p, cls);
			} catch (CudaException e2) {
				if (!isOutOfMemory(e2)) throw e2;
				// the class's rounding alone may be what does not fit: the exact size is tried
				// last, and such a block is freed when closed rather than cached
				long exact = exactSize(bytes);
				if (exact >= cls) throw outOfMemory(op, bytes, e2);
				try {
					cuMemAlloc(p, exact);
				} catch (CudaException e3) {
					if (!isOutOfMemory(e3)) throw e3;
					throw outOfMemory(op, bytes, e3);
				}
				cls = exact;
			}
		}
		synchronized (this) {
			inUseBytes += cls;
		}
		return new DeviceBuffer(this, owner, p, cls, bytes);
	}

	/** @return the reason to fall back when {@code bytes} more could not be allocated for {@code op} */
	static GpuUnavailableException outOfMemory(String op, long bytes, Throwable cause) {
		return GpuUnavailableException.outOfMemory(op + ": " + tooLittle(bytes, freeNow()), cause);
	}

	/**
	 * @param block the bytes asked for
	 * @param free  the bytes the driver reports free, or -1 when unknown
	 * @return why the block was refused, in megabytes (it said "needs 512 MB more GPU memory than is
	 *         free", which was the block's size, not what was missing, and "needs 0 MB" for a small one)
	 */
	static String tooLittle(long block, long free) {
		return "a block of " + megabytes(block) + " of GPU memory did not fit"
			+ (free >= 0 ? " in the " + megabytes(free) + " free" : "");
	}

	/** @return bytes as a person reads them: "0.3 MB", "512 MB", "12.5 GB" */
	static String megabytes(long bytes) {
		double mb = bytes / 1e6;
		if (mb >= 10_000) return String.format(java.util.Locale.ROOT, "%.1f GB", mb / 1000);
		if (mb >= 10) return String.format(java.util.Locale.ROOT, "%.0f MB", mb);
		return String.format(java.util.Locale.ROOT, "%.1f MB", mb);
	}

	/** @return the device memory free now, or -1 when the driver does not say */
	private static long freeNow() {
		try {
			long[] free = new long[1], total = new long[1];
			jcuda.driver.JCudaDriver.cuMemGetInfo(free, total);
			return free[0];
		} catch (RuntimeException | LinkageError e) {
			// no driver library (tests without a GPU) or no context: the message goes without it
			return -1;
		}
	}

	static boolean isOutOfMemory(CudaException e) {
		return String.valueOf(e.getMessage()).contains("CUDA_ERROR_OUT_OF_MEMORY");
	}

	void release(DeviceBuffer b) {
		long cls = b.capacity();
		boolean keep;
		synchronized (this) {
			inUseBytes -= cls;
			keep = cls == sizeClass(cls) && cachedBytes + cls <= maxCachedBytes;
			if (keep) {
				free.computeIfAbsent(cls, k -> new ArrayDeque<>()).push(b.rawPtr());
				cachedBytes += cls;
			}
		}
		if (!keep) freeQuietly(b.rawPtr());
	}

	/** Frees every cached block. The context must be current. */
	void trim() {
		ArrayDeque<CUdeviceptr> all = new ArrayDeque<>();
		synchronized (this) {
			for (Map.Entry<Long, ArrayDeque<CUdeviceptr>> e : free.entrySet())
				all.addAll(e.getValue());
			free.clear();
			cachedBytes = 0;
		}
		for (CUdeviceptr p : all)
			freeQuietly(p);
	}

	/** Forgets every block without freeing: used after a context reset, which already freed them. */
	synchronized void abandon() {
		free.clear();
		cachedBytes = 0;
		inUseBytes = 0;
	}

	synchronized long inUseBytes() {
		return inUseBytes;
	}

	synchronized long cachedBytes() {
		return cachedBytes;
	}

	private static void freeQuietly(CUdeviceptr p) {
		try {
			cuMemFree(p);
		} catch (CudaException e) {
			// a block that cannot be freed is lost to the context; nothing better to do here
		}
	}
}
