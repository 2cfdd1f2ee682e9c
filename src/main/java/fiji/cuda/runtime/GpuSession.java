package fiji.cuda.runtime;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * One operation's use of the GPU, on one calling thread: its own stream (so that callers on
 * different threads overlap instead of serializing on the default stream), two pinned
 * staging buffers for double-buffered copies, and the device pool. Obtained only through
 * {@link Gpu#run}, which makes the context current and closes the session.
 */
public final class GpuSession {

	private final Gpu gpu;
	private final String op;
	private final CUstream stream;
	private final PinnedBuffer[] staging;
	private final java.util.List<CUstream> sideStreams = new java.util.ArrayList<>();
	private final java.util.List<CUevent> events = new java.util.ArrayList<>();
	private long delivered, touched;

	/**
	 * Tests only: the next download fails as the driver would when it reaches this chunk
	 * (0 = the first), once; -1 for never. Set through the tests' {@code FaultInjection}.
	 */
	static volatile int failDownloadAtChunk = -1;
	/** Tests only: downloads that {@link #failDownloadAtChunk} lets through before it applies. */
	static volatile int failDownloadSkip;

	/**
	 * Tests only: how many of the next waits for a session's streams at its end report a
	 * non-sticky error, as the driver reports an earlier asynchronous failure. Set through
	 * {@code FaultInjection}.
	 */
	static final java.util.concurrent.atomic.AtomicInteger failFinishes = new java.util.concurrent.atomic.AtomicInteger();

	/**
	 * Tests only: {@link #sync()} calls let through before one reports a non-sticky error, once,
	 * as the driver reports an earlier asynchronous failure; -1 for never. Set through {@code FaultInjection}.
	 */
	static volatile int failSyncAfter = -1;

	/**
	 * Tests only: thrown once by the next {@link #end()}, as Java's memory running out while the
	 * session's buffers go back. Set through {@code FaultInjection}.
	 */
	static volatile Error failEndWith;

	/** Set once {@link Gpu#run} has drained and given back the streams: nothing of this session is queued. */
	private boolean ended;
	private final java.util.List<DeviceBuffer> closedWhileBusy = new java.util.ArrayList<>();

	GpuSession(Gpu gpu, String op, CUstream stream, PinnedBuffer[] staging) {
		this.gpu = gpu;
		this.op = op;
		this.stream = stream;
		this.staging = staging;
	}

	// ---------------------------------------------------------------------------------------
	// Pipelines: operations that overlap the uploads, kernels and downloads of successive
	// pieces schedule the copies themselves, on streams of their own, ordered by events.
	// ---------------------------------------------------------------------------------------

	/**
	 * @return another stream for this session, drained when the session ends (copies on it
	 *         run beside the kernels on {@link #stream()})
	 */
	public CUstream sideStream() {
		CUstream s = gpu.borrowStream();
		sideStreams.add(s);
		return s;
	}

	/** @return an event for ordering streams, destroyed when the session ends */
	public CUevent event() {
		return newEvent(CUevent_flags.CU_EVENT_DISABLE_TIMING);
	}

	/** @return an event that can also be timed ({@link #elapsedMillis}), destroyed when the session ends */
	public CUevent timingEvent() {
		return newEvent(0);
	}

	private CUevent newEvent(int flags) {
		CUevent e = new CUevent();
		cuEventCreate(e, flags);
		events.add(e);
		return e;
	}

	/**
	 * Waits for {@code to} to be reached, then measures on the device's clock.
	 *
	 * @param from a {@link #timingEvent()} recorded first
	 * @param to   a {@link #timingEvent()} recorded after it
	 * @return device milliseconds between the two events (about 0.5 µs resolution)
	 */
	public float elapsedMillis(CUevent from, CUevent to) {
		cuEventSynchronize(to);
		float[] ms = new float[1];
		cuEventElapsedTime(ms, from, to);
		return ms[0];
	}

	/**
	 * Marks the point the work queued so far on {@code s} must reach; recording again moves it.
	 *
	 * @param e an event of this session ({@link #event()} or {@link #timingEvent()})
	 * @param s this session's stream or one of its {@link #sideStream()}s
	 */
	public void record(CUevent e, CUstream s) {
		cuEventRecord(e, s);
	}

	/**
	 * Makes the work queued on {@code s} from now on wait for the last {@link #record} of
	 * {@code e}, on the device: the calling thread does not wait.
	 *
	 * @param s the stream that must wait
	 * @param e the event it waits for
	 */
	public void await(CUstream s, CUevent e) {
		cuStreamWaitEvent(s, e, 0);
	}

	/**
	 * Blocks the calling thread until the last {@link #record} of {@code e} has been reached.
	 *
	 * @param e an event of this session
	 */
	public void sync(CUevent e) {
		cuEventSynchronize(e);
	}

	/**
	 * @param i 0 or 1
	 * @return staging buffer i as a {@link HostBuffer}, for a pipeline; while one is in use,
	 *         this session's {@link #upload} and {@link #download} must not be called
	 */
	public HostBuffer stagingBuffer(int i) {
		// an earlier upload may still be reading it (a template queued just before the pipeline)
		if (staging[i].pending) cuEventSynchronize(staging[i].done);
		staging[i].pending = false;
		return new HostBuffer(staging[i], 0, staging[i].capacity, false);
	}

	/**
	 * @param bytes size
	 * @return pinned host memory of the caller's own; close it (try-with-resources)
	 */
	public HostBuffer pinned(long bytes) {
		return pinned(bytes, false);
	}

	/**
	 * @param bytes         size
	 * @param writeCombined write-combined memory: host writes skip the caches, for data the host
	 *                      only writes and the device only reads (host reads of it are very slow)
	 * @return pinned host memory of the caller's own; close it (try-with-resources)
	 */
	public HostBuffer pinned(long bytes, boolean writeCombined) {
		return new HostBuffer(new PinnedBuffer(Math.max(1, bytes), writeCombined), 0, bytes, true);
	}

	/**
	 * Queues a copy of the first {@code bytes} of {@code src} to the device on stream
	 * {@code s}, and returns at once: {@code src} must not be written until an event recorded
	 * after the copy has been reached.
	 *
	 * @param src   pinned host memory
	 * @param dst   device destination, at least {@code bytes} long
	 * @param bytes how many bytes, at most {@code src.size()}
	 * @param s     this session's stream or one of its side streams
	 * @throws IllegalArgumentException when {@code bytes} exceeds {@code src}
	 */
	public void copyAsync(HostBuffer src, CUdeviceptr dst, long bytes, CUstream s) {
		if (bytes > src.size()) throw new IllegalArgumentException(bytes + " bytes from a pinned buffer of " + src.size());
		cuMemcpyHtoDAsync(dst, src.pointer(), bytes, s);
	}

	/**
	 * Queues a copy of {@code bytes} from the device into the start of {@code dst} on stream
	 * {@code s}, and returns at once: {@code dst} holds the data only once an event recorded
	 * after the copy has been reached.
	 *
	 * @param src   device source, at least {@code bytes} long
	 * @param dst   pinned host memory
	 * @param bytes how many bytes, at most {@code dst.size()}
	 * @param s     this session's stream or one of its side streams
	 * @throws IllegalArgumentException when {@code bytes} exceeds {@code dst}
	 */
	public void copyAsync(CUdeviceptr src, HostBuffer dst, long bytes, CUstream s) {
		if (bytes > dst.size()) throw new IllegalArgumentException(bytes + " bytes into a pinned buffer of " + dst.size());
		cuMemcpyDtoHAsync(dst.pointer(), src, bytes, s);
	}

	/** Waits for every stream of this session, for a pipeline's clean-up before its buffers go back. */
	public void drain() {
		cuStreamSynchronize(stream);
		for (CUstream s : sideStreams)
			cuStreamSynchronize(s);
	}

	/** @return the device this session runs on */
	public DeviceInfo device() {
		return gpu.info();
	}

	/**
	 * @return the size of each staging chunk: a copy of at most this many bytes from the device
	 *         writes nothing into its arrays unless all of it arrived
	 */
	public long stagingBytes() {
		return staging[0].capacity;
	}

	/** @return the session's stream */
	public CUstream stream() {
		return stream;
	}

	/**
	 * @param bytes size in bytes
	 * @return pooled device memory; close it (try-with-resources)
	 * @throws GpuUnavailableException when the device has too little free memory
	 */
	public DeviceBuffer alloc(long bytes) {
		return gpu.pool().allocate(bytes, op, this);
	}

	/**
	 * @param module kernel family, e.g. "gaussian_blur" (kernels/gaussian_blur.cu)
	 * @param name   extern "C" kernel name
	 * @return the cached function handle
	 */
	public CUfunction function(String module, String name) {
		return gpu.function(module, name);
	}

	/**
	 * Launches a kernel on this session's stream.
	 *
	 * @param f      the kernel
	 * @param grid   grid size, 1 to 3 values (missing ones are 1)
	 * @param block  block size, 1 to 3 values
	 * @param shared dynamic shared memory in bytes
	 * @param args   kernel arguments in order: {@link DeviceBuffer}, {@link CUdeviceptr}, Integer, Long, Float,
	 *               Double, a float[] for a struct of floats passed by value, or a byte[] for any struct
	 *               passed by value (its bytes in the device's little-endian layout, see {@link #struct})
	 */
	public void launch(CUfunction f, int[] grid, int[] block, int shared, Object... args) {
		Pointer[] ps = new Pointer[args.length];
		for (int i = 0; i < args.length; i++)
			ps[i] = param(args[i]);
		cuLaunchKernel(f, dim(grid, 0), dim(grid, 1), dim(grid, 2), dim(block, 0), dim(block, 1), dim(block, 2),
			shared, stream, Pointer.to(ps), null);
	}

	private static int dim(int[] d, int i) {
		return i < d.length ? d[i] : 1;
	}

	private static Pointer param(Object a) {
		if (a instanceof DeviceBuffer) return Pointer.to(((DeviceBuffer) a).ptr());
		if (a instanceof CUdeviceptr) return Pointer.to((CUdeviceptr) a);
		if (a instanceof Integer) return Pointer.to(new int[] { (Integer) a });
		if (a instanceof Long) return Pointer.to(new long[] { (Long) a });
		if (a instanceof Float) return Pointer.to(new float[] { (Float) a });
		if (a instanceof Double) return Pointer.to(new double[] { (Double) a });
		if (a instanceof float[]) return Pointer.to((float[]) a);
		if (a instanceof byte[]) return Pointer.to((byte[]) a);
		throw new IllegalArgumentException("unsupported kernel argument " + a);
	}

	/**
	 * Copies elements of a Java array to the device through pinned staging, in chunks: the
	 * multithreaded fill of one staging buffer overlaps the DMA of the other.
	 *
	 * @param array byte[], short[], float[], int[], long[] or double[]
	 * @param first first element
	 * @param count number of elements
	 * @param dst   device destination (byte address of element {@code first})
	 */
	public void upload(Object array, long first, long count, CUdeviceptr dst) {
		transfer(new Object[] { array }, first, count, dst, true);
	}

	/**
	 * Copies several equally long arrays (the planes of a stack) to consecutive device memory,
	 * packing them into the staging chunks so that small planes cost no more than one big one.
	 *
	 * @param arrays the planes, all of one element type
	 * @param count  elements per plane
	 * @param dst    device destination of plane 0; plane i follows at i*count elements
	 */
	public void uploadAll(Object[] arrays, long count, CUdeviceptr dst) {
		transfer(arrays, 0, count, dst, true);
	}

	/**
	 * Copies device memory back into a Java array through pinned staging, double-buffered.
	 * Nothing is written to the array before the first chunk has arrived, so an earlier
	 * asynchronous failure surfaces before the array is touched.
	 *
	 * @param src   device source (byte address of element {@code first})
	 * @param array destination array
	 * @param first first element
	 * @param count number of elements
	 */
	public void download(CUdeviceptr src, Object array, long first, long count) {
		transfer(new Object[] { array }, first, count, src, false);
	}

	/**
	 * The reverse of {@link #uploadAll}: consecutive device planes into several arrays.
	 *
	 * @param src    device source of plane 0
	 * @param arrays the destination planes
	 * @param count  elements per plane
	 */
	public void downloadAll(CUdeviceptr src, Object[] arrays, long count) {
		transfer(arrays, 0, count, src, false);
	}

	/**
	 * How far the latest {@link #download} or {@link #downloadAll} got, for a caller that must
	 * not redo planes it has already written when that download fails part way. Elements are
	 * counted over the arrays in order, from {@code first}.
	 *
	 * @return the elements written with the device's data
	 * @see #downloadTouched()
	 */
	public long downloaded() {
		return delivered;
	}

	/**
	 * @return the elements that may have been written by the latest download: those past it
	 *         are untouched. It exceeds {@link #downloaded()} only when a download failed while
	 *         writing into the arrays.
	 */
	public long downloadTouched() {
		return touched;
	}

	/**
	 * Moves elements [first, first+count) of every array, taken one after the other, between
	 * the host and the device range starting at {@code dev}, chunk by chunk through the two
	 * staging buffers. Uploads fill chunk k while chunk k-1 is in flight; downloads empty
	 * chunk k while chunk k+1 is in flight.
	 */
	private void transfer(Object[] arrays, long first, long count, CUdeviceptr dev, boolean up) {
		int es = HostCopy.elementSize(arrays[0]);
		long chunk = staging[0].capacity / es;
		// Chunks end on array boundaries where arrays fit in one, so that a download that fails
		// between chunks leaves whole planes written and whole planes untouched.
		if (count > 0 && count <= chunk) chunk -= chunk % count;
		long total = count * arrays.length;
		if (!up) delivered = touched = 0;
		int chunks = (int) ((total + chunk - 1) / chunk);
		int failAt = -1;
		if (!up && failDownloadAtChunk >= 0) {
			if (failDownloadSkip > 0) failDownloadSkip--;
			else failAt = failDownloadAtChunk;
		}
		if (!up)
			for (int k = 0; k < Math.min(2, chunks); k++)
				startDownload(dev, k, chunk, total, es);
		for (int k = 0; k < chunks; k++) {
			PinnedBuffer b = staging[k & 1];
			long from = k * chunk, n = Math.min(chunk, total - from);
			if (up) {
				if (b.pending) cuEventSynchronize(b.done);
				hostSide(arrays, first, count, from, n, b, false);
				cuMemcpyHtoDAsync((CUdeviceptr) dev.withByteOffset(from * es), b.host, n * es, stream);
				cuEventRecord(b.done, stream);
				b.pending = true;
			} else {
				if (k == failAt) {
					failDownloadAtChunk = -1;
					throw new jcuda.CudaException("CUDA_ERROR_UNKNOWN (injected by a test)");
				}
				cuEventSynchronize(b.done);
				b.pending = false;
				touched = from + n;
				hostSide(arrays, first, count, from, n, b, true);
				delivered = from + n;
				if (k + 2 < chunks) startDownload(dev, k + 2, chunk, total, es);
			}
		}
	}

	/** Copies elements [from, from+n) of the concatenated arrays to or from staging buffer b. */
	private static void hostSide(Object[] arrays, long first, long count, long from, long n, PinnedBuffer b,
		boolean toArray)
	{
		HostCopy.copy(HostCopy.segments(arrays, first, count, from, n), b.bytes, toArray);
	}

	private void startDownload(CUdeviceptr src, int k, long chunk, long total, int es) {
		PinnedBuffer b = staging[k & 1];
		long n = Math.min(chunk, total - k * chunk);
		cuMemcpyDtoHAsync(b.host, (CUdeviceptr) src.withByteOffset(k * chunk * es), n * es, stream);
		cuEventRecord(b.done, stream);
		b.pending = true;
	}

	/**
	 * @param capacity the struct's size in bytes (sizeof on the device, padding included)
	 * @return a little-endian buffer to fill field by field (with absolute puts at the fields'
	 *         offsets) and pass to {@link #launch} as {@code array()}
	 */
	public static java.nio.ByteBuffer struct(int capacity) {
		return java.nio.ByteBuffer.allocate(capacity).order(java.nio.ByteOrder.LITTLE_ENDIAN);
	}

	/**
	 * Copies device memory into a module's {@code __constant__} variable, on this session's
	 * stream (so it is ordered with the uploads before it and the launches after it). Constant
	 * memory is one copy per module, shared by every stream: the caller must make sure that no
	 * launch of another session that reads it can run meanwhile (hold a lock over the copy, the
	 * launches and {@link #sync()}).
	 *
	 * @param module kernel family
	 * @param name   the {@code __constant__} variable
	 * @param src    device source
	 * @param bytes  how many bytes, at most the variable's size
	 */
	public void copyToConstant(String module, String name, CUdeviceptr src, long bytes) {
		CUdeviceptr p = new CUdeviceptr();
		long size = gpu.global(module, name, p)[0];
		if (bytes > size) throw new IllegalArgumentException(name + " holds " + size + " bytes, not " + bytes);
		cuMemcpyDtoDAsync(p, src, bytes, stream);
	}

	/** @return device memory the driver reports free now, in bytes (the pool's idle blocks not included) */
	public long freeMemory() {
		long[] free = new long[1], total = new long[1];
		cuMemGetInfo(free, total);
		return free[0];
	}

	/**
	 * Sets {@code bytes} of device memory to zero on this session's stream (flags, tickets),
	 * ordered with the launches around it; returns at once.
	 *
	 * @param dst   the device memory
	 * @param bytes how many bytes
	 */
	public void zero(CUdeviceptr dst, long bytes) {
		cuMemsetD8Async(dst, (byte) 0, bytes, stream);
	}

	/**
	 * Queues a device-to-device copy on this session's stream, ordered with the launches
	 * around it; returns at once.
	 *
	 * @param src   device source
	 * @param dst   device destination, not overlapping {@code src}
	 * @param bytes how many bytes
	 */
	public void copy(CUdeviceptr src, CUdeviceptr dst, long bytes) {
		cuMemcpyDtoDAsync(dst, src, bytes, stream);
	}

	/**
	 * Times work queued on this session's stream with CUDA events, for benchmarks. The stream is
	 * held for {@link #HOLD_NANOS} ahead of the start event, so that the work is queued before
	 * the device reaches it and the host's time between launches is not counted.
	 *
	 * @param work enqueues the work (launches or copies on {@link #stream()}) within the hold
	 * @return elapsed device time in milliseconds
	 */
	public float timeMillis(Runnable work) {
		CUevent start = new CUevent(), end = new CUevent();
		cuEventCreate(start, 0);
		cuEventCreate(end, 0);
		try {
			launch(function(SelfCheck.MODULE, "runtime_hold"), new int[] { 1 }, new int[] { 1 }, 0, HOLD_NANOS);
			cuEventRecord(start, stream);
			work.run();
			cuEventRecord(end, stream);
			cuEventSynchronize(end);
			float[] ms = new float[1];
			cuEventElapsedTime(ms, start, end);
			return ms[0];
		} finally {
			cuEventDestroy(start);
			cuEventDestroy(end);
		}
	}

	/** How long {@link #timeMillis} holds the stream before its start event: 0.5 ms. */
	public static final long HOLD_NANOS = 500_000L;

	/** Waits until everything queued on this session's stream has finished. */
	public void sync() {
		if (failSyncAfter >= 0 && failSyncAfter-- == 0)
			throw new jcuda.CudaException("CUDA_ERROR_INVALID_VALUE (injected by a test)");
		cuStreamSynchronize(stream);
	}

	/** @return the operation name this session was opened for, for messages */
	public String op() {
		return op;
	}

	PinnedBuffer[] staging() {
		return staging;
	}

	void finish() {
		if (failFinishes.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
			throw new jcuda.CudaException("CUDA_ERROR_INVALID_VALUE (injected by a test)");
		}
		drain();
		for (PinnedBuffer b : staging)
			b.pending = false;
	}

	/**
	 * For {@link DeviceBuffer#close()}: keeps a closed buffer out of the pool while work this
	 * session queued may still touch it, until {@link #end()}. Closing waits for nothing, so a
	 * pipeline that closes a buffer while its copies run is not slowed down.
	 *
	 * @return true when the buffer was kept; false when it may go back to the pool now
	 */
	boolean keepWhileBusy(DeviceBuffer b) {
		if (ended || idle()) return false;
		closedWhileBusy.add(b);
		return true;
	}

	/** @return whether every stream of this session has finished all it was given */
	private boolean idle() {
		try {
			cuStreamQuery(stream);
			for (CUstream s : sideStreams)
				cuStreamQuery(s);
			return true;
		} catch (jcuda.CudaException e) {
			return false; // CUDA_ERROR_NOT_READY, or a failure that Gpu.run deals with when the session ends
		}
	}

	/**
	 * Marks the session drained for good (its streams are about to serve other sessions) and
	 * gives the buffers closed while it was busy back to the pool.
	 */
	void end() {
		Error injected = failEndWith;
		if (injected != null) {
			failEndWith = null;
			throw injected;
		}
		ended = true;
		for (DeviceBuffer b : closedWhileBusy)
			b.release();
		closedWhileBusy.clear();
	}

	/** After {@link #finish()}: hands the side streams back to the device's pool and destroys the events. */
	void release(java.util.function.Consumer<CUstream> giveBack) {
		for (CUstream s : sideStreams)
			giveBack.accept(s);
		sideStreams.clear();
		for (CUevent e : events)
			cuEventDestroy(e);
		events.clear();
	}
}
