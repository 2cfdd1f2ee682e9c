package fiji.cuda.runtime;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import jcuda.Pointer;

/**
 * Pinned host memory for an operation that schedules its own copies, on streams of its own, so
 * that uploads, kernels and downloads of successive pieces overlap (see
 * {@link GpuSession#copyAsync(HostBuffer, jcuda.driver.CUdeviceptr, long, jcuda.driver.CUstream)}).
 * Either a view of the session's staging, which stays the session's, or memory of its own from
 * {@link GpuSession#pinned}, freed by {@link #close()}.
 */
public final class HostBuffer implements AutoCloseable {

	private final PinnedBuffer pinned;
	private final long offset;
	private final long size;
	private final boolean owned;
	private boolean closed;

	HostBuffer(PinnedBuffer pinned, long offset, long size, boolean owned) {
		if (offset < 0 || size < 0 || offset + size > pinned.capacity)
			throw new IllegalArgumentException("bytes " + offset + " to " + (offset + size) + " of a pinned buffer of "
				+ pinned.capacity);
		this.pinned = pinned;
		this.offset = offset;
		this.size = size;
		this.owned = owned;
	}

	/** @return the size in bytes */
	public long size() {
		return size;
	}

	/**
	 * @param from  byte offset in this buffer
	 * @param bytes length of the view
	 * @return a view of part of this buffer; closing a view frees nothing
	 */
	public HostBuffer view(long from, long bytes) {
		if (from < 0 || bytes < 0 || from + bytes > size) throw new IllegalArgumentException("a view past the end of the buffer");
		return new HostBuffer(pinned, offset + from, bytes, false);
	}

	/** @return the memory as a byte buffer in the platform's byte order, position 0 */
	public ByteBuffer bytes() {
		ByteBuffer b = pinned.bytes.duplicate();
		b.position((int) offset).limit((int) (offset + size));
		return b.slice().order(ByteOrder.nativeOrder());
	}

	/**
	 * Copies {@code count} elements of each array, one array after the other, into the start of
	 * this buffer, on the host copy threads.
	 *
	 * @param arrays planes of one element type: byte[], short[], int[], long[], float[] or double[]
	 * @param count  elements per array, from each array's start
	 * @throws IllegalArgumentException when they do not fit this buffer
	 * @throws GpuException             when a slice of the copy failed
	 */
	public void fill(Object[] arrays, long count) {
		HostCopy.copy(segments(arrays, count), bytes(), false);
	}

	/**
	 * The reverse of {@link #fill}: the start of this buffer back into the arrays, on the host
	 * copy threads.
	 *
	 * @param arrays planes of one element type, written from their start
	 * @param count  elements per array
	 * @throws IllegalArgumentException when they do not fit this buffer
	 * @throws GpuException             when a slice of the copy failed
	 */
	public void drain(Object[] arrays, long count) {
		HostCopy.copy(segments(arrays, count), bytes(), true);
	}

	/**
	 * As {@link #fill}, but returns at once; the copy threads fill the buffer meanwhile.
	 *
	 * @param arrays planes of one element type, not to be written until the copy is done
	 * @param count  elements per array
	 * @return the copy under way, to {@link Copy#await()} before the buffer is read
	 * @throws IllegalArgumentException when they do not fit this buffer
	 */
	public Copy fillAsync(Object[] arrays, long count) {
		return HostCopy.start(segments(arrays, count), bytes(), false);
	}

	/**
	 * As {@link #drain}, but returns at once; the copy threads write the arrays meanwhile.
	 *
	 * @param arrays planes of one element type, not to be read until the copy is done
	 * @param count  elements per array
	 * @return the copy under way, to {@link Copy#await()} before the arrays are read or the
	 *         buffer is written again
	 * @throws IllegalArgumentException when they do not fit this buffer
	 */
	public Copy drainAsync(Object[] arrays, long count) {
		return HostCopy.start(segments(arrays, count), bytes(), true);
	}

	/** A host copy under way. */
	public interface Copy {
		/**
		 * Returns once the copy is complete, helping with it meanwhile.
		 *
		 * @throws GpuException when a slice of the copy failed
		 */
		void await();

		/** @return whether every slice is done */
		boolean isDone();
	}

	private HostCopy.Segment[] segments(Object[] arrays, long count) {
		if (arrays.length == 0) return new HostCopy.Segment[0];
		long bytes = count * arrays.length * HostCopy.elementSize(arrays[0]);
		if (bytes > size) throw new IllegalArgumentException(bytes + " bytes do not fit a pinned buffer of " + size);
		return HostCopy.segments(arrays, 0, count, 0, count * arrays.length);
	}

	Pointer pointer() {
		return pinned.host.withByteOffset(offset);
	}

	/** Frees the memory if it is this buffer's own; a staging view stays with its session. */
	@Override
	public void close() {
		if (owned && !closed) pinned.free();
		closed = true;
	}
}
