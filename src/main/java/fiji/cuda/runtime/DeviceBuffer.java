package fiji.cuda.runtime;

import jcuda.driver.CUdeviceptr;

/**
 * A block of device memory from the {@link BufferPool}. Closing it returns the block to
 * the pool (it is not freed), so allocate in try-with-resources and never use a buffer
 * after closing it.
 * <p>
 * The pool serves every session, each on streams of its own, so a block may go back only once
 * nothing queued by the session that took it can still read or write it. Closed while that
 * session's streams are idle (as after a download), it goes back at once; closed while they
 * are busy, it goes back when the session ends. Otherwise a failure in a try-with-resources
 * block, which closes the buffers before {@link Gpu#run} drains the stream, would hand a
 * block that a queued upload or kernel still writes to another thread's operation.
 */
public final class DeviceBuffer implements AutoCloseable {

	private final BufferPool pool;
	/** The session that took the block, whose queued work must end before it goes back; or null. */
	private final GpuSession owner;
	private final CUdeviceptr ptr;
	private final long capacity;
	private final long size;
	private boolean closed;

	DeviceBuffer(BufferPool pool, GpuSession owner, CUdeviceptr ptr, long capacity, long size) {
		this.pool = pool;
		this.owner = owner;
		this.ptr = ptr;
		this.capacity = capacity;
		this.size = size;
	}

	/**
	 * @return the device address; valid until {@link #close()}
	 * @throws IllegalStateException after {@link #close()}
	 */
	public CUdeviceptr ptr() {
		if (closed) throw new IllegalStateException("device buffer used after close");
		return ptr;
	}

	/**
	 * @param bytes offset from the start, in bytes; not checked against {@link #size()}
	 * @return the address {@code bytes} past the start; valid until {@link #close()}
	 * @throws IllegalStateException after {@link #close()}
	 */
	public CUdeviceptr at(long bytes) {
		return (CUdeviceptr) ptr().withByteOffset(bytes);
	}

	/** @return the bytes requested */
	public long size() {
		return size;
	}

	long capacity() {
		return capacity;
	}

	CUdeviceptr rawPtr() {
		return ptr;
	}

	/** Returns the block to the pool, or has its session do so once its queued work is done; never waits. */
	@Override
	public void close() {
		if (closed) return;
		closed = true;
		if (owner == null || !owner.keepWhileBusy(this)) release();
	}

	void release() {
		pool.release(this);
	}
}
