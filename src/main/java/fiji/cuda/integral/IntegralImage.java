package fiji.cuda.integral;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.Fallback;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Progress;
import fiji.cuda.ops.Texts;
import fiji.cuda.runtime.GpuAccess;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuException;

import java.util.ArrayList;
import java.util.List;

/**
 * Summed-area tables (integral images) of 8, 16 and 32-bit planes: Σ I and Σ I² in one
 * build, as {@link SummedAreaTable}s. The same call runs on the GPU, with the build chosen by
 * {@link SatBuild}, or on the CPU (the fallback and the test oracle), which ignores the build
 * choice. For 8 and 16-bit planes both paths give the same exact tables.
 */
public final class IntegralImage {

	/**
	 * The operation's name in its error messages and Log lines, and in its menu entry,
	 * "GPU Integral Image...".
	 */
	public static final String NAME = "Integral Image";

	private IntegralImage() {}

	/**
	 * Enqueues the fastest build of both tables of one device plane, for the GPU paths of other
	 * operations (template matching's denominators) that keep the tables on the device. The
	 * launches are asynchronous on the session's stream; scratch memory goes back to the pool.
	 *
	 * @param s     the caller's session
	 * @param type  8, 16 or 32-bit
	 * @param w     width
	 * @param h     height
	 * @param in    the plane on the device
	 * @param sum   w·h int64 (8/16-bit) or double (32-bit) table of Σ I
	 * @param sq    the same for Σ I²
	 */
	public static void buildOnDevice(fiji.cuda.runtime.GpuSession s, PixelType type, int w, int h,
		jcuda.driver.CUdeviceptr in, jcuda.driver.CUdeviceptr sum, jcuda.driver.CUdeviceptr sq)
	{
		IntegralImageGpu.launch(s, IntegralImageGpu.fastest(w, h), type, w, h, in, sum, sq);
	}

	/**
	 * As {@link #buildOnDevice(fiji.cuda.runtime.GpuSession, PixelType, int, int, jcuda.driver.CUdeviceptr,
	 * jcuda.driver.CUdeviceptr, jcuda.driver.CUdeviceptr)}, with the build's scratch memory kept in
	 * {@code scratch} from one call to the next. Without it every build waits for the session's
	 * stream before its scratch goes back to the pool; with it the call returns at once, so a
	 * caller that builds tables again and again (a pipeline) keeps its stream full.
	 *
	 * @param s       the caller's session, on the calling thread
	 * @param type    8, 16 or 32-bit
	 * @param w       width in pixels
	 * @param h       height in pixels
	 * @param in      the plane on the device
	 * @param sum     w·h int64 (8/16-bit) or double (32-bit) table of Σ I
	 * @param sq      the same for Σ I²
	 * @param scratch the build's scratch memory, of the same session; grown when too small
	 */
	public static void buildOnDevice(fiji.cuda.runtime.GpuSession s, PixelType type, int w, int h,
		jcuda.driver.CUdeviceptr in, jcuda.driver.CUdeviceptr sum, jcuda.driver.CUdeviceptr sq, DeviceScratch scratch)
	{
		IntegralImageGpu.launch(s, IntegralImageGpu.fastest(w, h), type, w, h, in, sum, sq, scratch);
	}

	/**
	 * The largest window whose 8-bit sums, Σ I and Σ I², both stay below 2³² (n·255² &lt; 2³²):
	 * the windows that {@linkplain #buildWrap32OnDevice 32-bit wrap-around tables} answer exactly.
	 */
	public static final int WRAP32_MAX_PIXELS = 66051;

	/**
	 * Whether box sums of windows of up to {@code windowPixels} pixels of a {@code type} plane
	 * come out exact from {@linkplain #buildWrap32OnDevice 32-bit wrap-around tables}: 8-bit
	 * planes and windows of at most {@link #WRAP32_MAX_PIXELS} pixels.
	 *
	 * @param type         the plane's pixel type
	 * @param windowPixels the largest window that will be queried, in pixels
	 * @return true when every such box sum comes out exact
	 */
	public static boolean wrap32Exact(PixelType type, long windowPixels) {
		return type == PixelType.UINT8 && windowPixels <= WRAP32_MAX_PIXELS;
	}

	/**
	 * Enqueues the build of both tables of an 8-bit device plane as 32-bit wrap-around tables
	 * (WRAP32 in {@code kernels/integral_image.cu}): every entry is the true sum modulo 2³², so
	 * the tables are not the plane's tables, but any box sum taken from them in 32-bit unsigned
	 * arithmetic is exact for windows of at most {@link #WRAP32_MAX_PIXELS} pixels. Internal to
	 * the GPU paths that only ever query such windows (template matching's denominators), which
	 * read them at half the traffic of the int64 tables. Asynchronous, like
	 * {@link #buildOnDevice(fiji.cuda.runtime.GpuSession, PixelType, int, int, jcuda.driver.CUdeviceptr,
	 * jcuda.driver.CUdeviceptr, jcuda.driver.CUdeviceptr, DeviceScratch)}.
	 *
	 * @param s       the caller's session, on the calling thread
	 * @param w       width in pixels
	 * @param h       height in pixels
	 * @param in      the 8-bit plane on the device
	 * @param sum     w·h uint32 table of Σ I modulo 2³²
	 * @param sq      the same for Σ I²
	 * @param scratch the build's scratch memory, of the same session; grown when too small
	 */
	public static void buildWrap32OnDevice(fiji.cuda.runtime.GpuSession s, int w, int h, jcuda.driver.CUdeviceptr in,
		jcuda.driver.CUdeviceptr sum, jcuda.driver.CUdeviceptr sq, DeviceScratch scratch)
	{
		IntegralImageGpu.launchWrap32(s, w, h, in, sum, sq, scratch);
	}

	/**
	 * Scratch memory of the device builds (look-back flags and carries, transposes), kept across
	 * builds. Closing it waits for the session's stream, then returns the memory to the pool.
	 */
	public static final class DeviceScratch implements AutoCloseable {
		private final fiji.cuda.runtime.GpuSession s;
		private final fiji.cuda.runtime.DeviceBuffer[] buffers = new fiji.cuda.runtime.DeviceBuffer[4];

		/** @param s the session whose stream the builds run on */
		public DeviceScratch(fiji.cuda.runtime.GpuSession s) {
			this.s = s;
		}

		/** @return scratch buffer {@code i} of at least {@code bytes}, reallocated (after a wait) when too small */
		fiji.cuda.runtime.DeviceBuffer get(int i, long bytes) {
			if (buffers[i] != null && buffers[i].size() >= bytes) return buffers[i];
			if (buffers[i] != null) {
				s.sync(); // a build still queued may use it
				buffers[i].close();
				buffers[i] = null;
			}
			buffers[i] = s.alloc(bytes);
			return buffers[i];
		}

		@Override
		public void close() {
			try {
				s.sync();
			} finally {
				for (int i = 0; i < buffers.length; i++)
					if (buffers[i] != null) buffers[i].close();
			}
		}
	}

	/**
	 * Builds the tables of one plane.
	 *
	 * @param image the planes (not modified)
	 * @param plane 0-based plane index
	 * @param build the GPU build, or null / AUTO for the fastest
	 * @param opts  backend and CPU threads
	 * @return the tables
	 * @throws IllegalArgumentException for no image, RGB, or a plane index out of range
	 * @throws GpuException only when the GPU was forced and failed
	 */
	public static SummedAreaTable build(Planes image, int plane, SatBuild build, ExecutionOptions opts) {
		checkImage(NAME, image);
		opts = ExecutionOptions.orDefaults(opts);
		if (plane < 0 || plane >= image.depth())
			throw new IllegalArgumentException(NAME + ": there is no plane " + plane + " (the image has " + image.depth()
				+ (image.depth() == 1 ? " plane)." : " planes)."));
		if (opts.backend() != Backend.CPU) {
			try {
				return IntegralImageGpu.build(GpuAccess.get(), image, plane, build == null ? SatBuild.AUTO : build);
			} catch (GpuException e) {
				Fallback.reason(NAME, opts, e);
			}
		}
		return IntegralImageCpu.build(image, plane, opts.threads());
	}

	/**
	 * Builds the tables of every plane, checking for cancellation between planes. All of them
	 * are held at once (16 bytes a pixel); {@link #buildEach} needs one plane's at a time.
	 *
	 * @param image the planes (not modified)
	 * @param build the GPU build, or null / AUTO for the fastest
	 * @param opts  backend, CPU threads and progress; null for the defaults
	 * @return one table pair per plane, in order; fewer when the progress reports cancellation
	 * @throws IllegalArgumentException for no image or RGB
	 * @throws GpuException only when the GPU was forced and failed
	 */
	public static List<SummedAreaTable> buildAll(Planes image, SatBuild build, ExecutionOptions opts) {
		List<SummedAreaTable> out = new ArrayList<>(image == null ? 0 : image.depth());
		buildEach(image, build, opts, (t, z) -> out.add(t));
		return out;
	}

	/**
	 * As {@link #buildAll}, handing each plane's tables over as soon as they are built, so that
	 * a caller who converts them needs the 16 bytes a pixel of only one plane at a time.
	 *
	 * @param image the planes (not modified)
	 * @param build the GPU build, or null / AUTO for the fastest
	 * @param opts  backend, CPU threads and progress; null for the defaults
	 * @param each  receives the tables and the plane's index, in order, on the calling thread
	 * @return the planes built: all of them, or fewer when the progress reports cancellation
	 * @throws IllegalArgumentException for no image, RGB, or no {@code each}
	 * @throws GpuException only when the GPU was forced and failed
	 */
	public static int buildEach(Planes image, SatBuild build, ExecutionOptions opts,
		java.util.function.ObjIntConsumer<SummedAreaTable> each)
	{
		checkImage(NAME, image);
		// before the first plane's tables: none was a NullPointerException once they were built
		if (each == null) throw new IllegalArgumentException(NAME + ": there is nothing to receive the tables.");
		opts = ExecutionOptions.orDefaults(opts);
		boolean gpu = opts.backend() != Backend.CPU;
		for (int z = 0; z < image.depth(); z++) {
			if (opts.progress().isCanceled()) return z;
			SummedAreaTable t = null;
			if (gpu) {
				try {
					t = IntegralImageGpu.build(GpuAccess.get(), image, z, build == null ? SatBuild.AUTO : build);
				} catch (GpuException e) {
					Fallback.reason(NAME, opts, e);
					gpu = false; // the remaining planes go to the CPU without asking again
				}
			}
			if (t == null) t = IntegralImageCpu.build(image, z, opts.threads());
			each.accept(t, z);
			opts.progress().update((z + 1) / (double) image.depth());
		}
		return image.depth();
	}

	/** Rejects what no operation of this package accepts, naming the operation. */
	static void checkImage(String op, Planes image) {
		if (image == null) throw new IllegalArgumentException(op + ": there is no image.");
		if (image.depth() == 0) throw new IllegalArgumentException(op + ": the image has no slices.");
		if (image.type() == PixelType.RGB)
			throw new IllegalArgumentException(op + ": " + Texts.RGB);
	}

	/**
	 * Rejects an output that is not of {@code type} and the image's size and depth, that holds one
	 * array as two of its planes, or that shares planes with the input other than all of them at
	 * their own index (in place), naming the operation.
	 */
	static void checkOutput(String op, Planes image, Planes out, PixelType type, String typeName) {
		if (out == null || out.type() != type || out.width() != image.width() || out.height() != image.height()
			|| out.depth() != image.depth())
			throw new IllegalArgumentException(op + ": the output must be " + typeName + " image of " + image.width() + "x"
				+ image.height() + "x" + image.depth() + " pixels" + (out == null ? "." : ", not " + out + "."));
		// first: in place, an input that repeats an array is an output that does, and said so
		// better than as an output plane that is another input plane
		out.checkOwnArrays(op, "output planes");
		// Planes are written one after another, each from its own input plane's tables: an output
		// plane that is another index's input plane was written before that plane was read. In
		// place is the input's own planes, every one at its own index.
		java.util.Map<Object, Integer> at = new java.util.IdentityHashMap<>();
		for (int z = 0; z < image.depth(); z++)
			at.putIfAbsent(image.plane(z), z);
		int shared = 0;
		for (int z = 0; z < out.depth(); z++) {
			Integer k = at.get(out.plane(z));
			if (k == null) continue;
			if (k != z || image.plane(z) != out.plane(z))
				throw new IllegalArgumentException(op + ": output plane " + (z + 1) + " is input plane " + (k + 1)
					+ "; the output must be planes of its own, or the input's planes in their own order (in place).");
			shared++;
		}
		if (shared != 0 && shared != out.depth())
			throw new IllegalArgumentException(op + ": " + shared + " of the output's " + out.depth() + " planes are the "
				+ "input's; the output must be planes of its own, or all of the input's planes (in place).");
	}

	/** The GPU half of {@link #byPlane}: planes [0, n) in order. */
	@FunctionalInterface
	interface GpuPlanes {
		/**
		 * @return the planes done (fewer when canceled)
		 * @throws IntegralImageGpu.PartialFailure after writing some planes; the rest go to the CPU
		 */
		int run(Gpu gpu);
	}

	/** The CPU half of {@link #byPlane}: one plane. */
	@FunctionalInterface
	interface CpuPlane {
		/**
		 * @param z        the plane
		 * @param progress the progress within the plane (0 to 1), which may also cancel it
		 * @return false when canceled within the plane, which is then left as it was (a plane of
		 *         a new result: unfinished, to be dropped with the rest)
		 */
		boolean run(int z, Progress progress);
	}

	/**
	 * Runs an operation over planes [0, n): on the GPU first unless the CPU is asked for, then on
	 * the CPU for every plane the GPU did not write (all of them, or those after a failure part
	 * way), one at a time with progress and cancellation between planes, and within a plane
	 * where {@code cpuPlane} offers them. The planes flagged in {@code cpuOnly} (may be null)
	 * are always made by {@code cpuPlane}: the GPU's result for them is replaced.
	 *
	 * @param t0      System.nanoTime() when the operation started
	 * @param inPlace whether the planes written are the input's own: a failure after some of them
	 *                is then a {@link PartlyDoneException} saying which hold the result
	 * @return which backend ran, why not the GPU, and whether it was canceled
	 * @throws GpuException only when the GPU was forced and failed
	 */
	static OpReport byPlane(String op, int n, ExecutionOptions opts, GpuPlanes gpu, CpuPlane cpuPlane,
		boolean[] cpuOnly, boolean inPlace, long t0)
	{
		int done = 0;
		Backend ran = Backend.CPU;
		String why = null;
		if (opts.backend() != Backend.CPU) {
			try {
				done = gpu.run(GpuAccess.get());
				ran = Backend.GPU;
			} catch (IntegralImageGpu.WrittenThenFailed e) {
				Throwable cause = e.getCause();
				if (!inPlace) {
					// a new result, which the caller drops
					if (cause instanceof Error) throw (Error) cause;
					throw (RuntimeException) cause;
				}
				// the flagged planes the GPU wrote are made again, as after a whole run
				if (cpuOnly != null)
					for (int z = 0; z < e.done; z++)
						if (cpuOnly[z]) cpuPlane.run(z, Progress.NONE);
				throw new PartlyDoneException(op, cause, Fallback.prefixDone(e.done, n, "planes"));
			} catch (GpuException e) {
				if (e instanceof IntegralImageGpu.PartialFailure) {
					done = ((IntegralImageGpu.PartialFailure) e).done;
					why = Fallback.reasonAfterPart(op, opts, e, Fallback.prefixDone(done, n, "planes"));
				} else {
					why = Fallback.reason(op, opts, e);
				}
			}
			if (cpuOnly != null)
				for (int z = 0; z < done; z++)
					if (cpuOnly[z]) cpuPlane.run(z, Progress.NONE);
		}
		try {
			while (done < n && !opts.progress().isCanceled()) {
				// a plane of seconds on the CPU (a slide scan) kept the bar still and Esc unheard
				if (!cpuPlane.run(done, opts.progress().part(done / (double) n, 1.0 / n))) break;
				done++;
				opts.progress().update(done / (double) n);
			}
		} catch (RuntimeException | Error e) {
			// a plane is written only once everything its tables need is allocated (and an in-place
			// plane read from a copy when its tables are built in bands), so each is done or
			// untouched; the caller's image must not be left part changed without a word
			if (!inPlace || done == 0) throw e;
			throw new PartlyDoneException(op, e, Fallback.prefixDone(done, n, "planes"));
		}
		return new OpReport(ran, why, done < n, System.nanoTime() - t0);
	}

}
