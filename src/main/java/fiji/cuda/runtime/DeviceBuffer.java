package fiji.cuda.runtime;

import jcuda.driver.CUdeviceptr;

/**
 * A block of device memory from the {@link BufferPool}. Closing it returns the block to
 * the pool (it is not freed), so allocate in try-with-resources and never use a buffer
 * after closing it.
 */
public final class DeviceBuffer implements AutoCloseable {

	private final BufferPool pool;
	private final CUdeviceptr ptr;
	private final long capacity;
	private final long size;
	private boolean closed;

	DeviceBuffer(BufferPool pool, CUdeviceptr ptr, long capacity, long size) {
		this.pool = pool;
		this.ptr = ptr;
		this.capacity = capacity;
		this.size = size;
	}

	/** @return the device address; valid until {@link #close()} */
	public CUdeviceptr ptr() {
		if (closed) throw new IllegalStateException("device buffer used after close");
		return ptr;
	}

	/** @return the address {@code bytes} past the start */
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

	@Override
	public void close() {
		if (closed) return;
		closed = true;
		pool.release(this);
	}
}
