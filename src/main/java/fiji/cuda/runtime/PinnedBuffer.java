package fiji.cuda.runtime;

import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_WRITECOMBINED;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;

/**
 * Page-locked host memory used as a staging area for copies. Copies straight from Java
 * arrays are pageable (5.8 GB/s measured on the H200 machine) and never asynchronous;
 * from pinned memory the DMA runs at about 53 GB/s and overlaps with host work. Each
 * buffer carries an event that marks when the last copy using it has finished.
 */
final class PinnedBuffer {

	/** Pinned bytes allocated and not yet freed, over every buffer: the leak tests read it. */
	private static final java.util.concurrent.atomic.AtomicLong LIVE_BYTES = new java.util.concurrent.atomic.AtomicLong();

	final Pointer host;
	final ByteBuffer bytes;
	final long capacity;
	final CUevent done;
	boolean pending;

	PinnedBuffer(long capacity) {
		this(capacity, false);
	}

	/**
	 * @param writeCombined whether the host writes bypass its caches (no line is read before it
	 *                      is written): for memory the host only fills and the device only reads,
	 *                      since host reads of it are uncached and slow
	 */
	PinnedBuffer(long capacity, boolean writeCombined) {
		// one ByteBuffer views the whole buffer, and a ByteBuffer holds at most 2 GiB - 1: refused
		// before the allocation (fiji.cuda.stagingMiB=2048 and up), or the memory would stay pinned
		if (capacity > Integer.MAX_VALUE)
			throw new IllegalArgumentException("pinned host buffers are limited to 2 GiB - 1 bytes, not " + capacity
				+ " (fiji.cuda.stagingMiB must be below 2048)");
		this.capacity = capacity;
		this.host = new Pointer();
		if (writeCombined) cuMemHostAlloc(host, capacity, CU_MEMHOSTALLOC_WRITECOMBINED);
		else cuMemAllocHost(host, capacity);
		this.done = new CUevent();
		try {
			this.bytes = host.getByteBuffer(0, capacity).order(ByteOrder.nativeOrder());
			cuEventCreate(done, CUevent_flags.CU_EVENT_DISABLE_TIMING);
		} catch (RuntimeException e) {
			cuMemFreeHost(host);
			throw e;
		}
		LIVE_BYTES.addAndGet(capacity);
	}

	/**
	 * No longer counts this buffer, without freeing it: for one whose memory went with a reset
	 * context. Counted on, {@link Gpu#pinnedBytes} stayed 64 MiB too high for every pair lost.
	 * Call it, or {@link #free}, once.
	 */
	void forget() {
		LIVE_BYTES.addAndGet(-capacity);
	}

	/** @return pinned bytes held by buffers not yet freed (for leak tests) */
	static long liveBytes() {
		return LIVE_BYTES.get();
	}

	void free() {
		forget();
		try {
			cuEventDestroy(done);
			cuMemFreeHost(host);
		} catch (CudaException e) {
			// the context may already be gone; the memory went with it
		}
	}
}
