package fiji.cuda.ncc;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.IntegralImage;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuSession;
import fiji.cuda.runtime.GpuUnavailableException;
import jcuda.driver.CUdeviceptr;

/**
 * The GPU path of {@link TemplateMatching}, on the kernels of {@code kernels/template_matching.cu}.
 * The image's tables (Σ I, Σ I²) are built on the device by {@link IntegralImage#buildOnDevice}
 * and stay there; each kernel computes the numerator Σ I·T and normalizes in the same pass, or,
 * where the template's rows are split over several blocks to fill the device (a map of few
 * tiles), in a finishing kernel after it.
 * For 8-bit images the tables are 32-bit wrap-around tables
 * ({@link IntegralImage#buildWrap32OnDevice}) whenever every template has at most
 * {@link IntegralImage#WRAP32_MAX_PIXELS} pixels.
 * <p>
 * Which kernel runs:
 * <ul>
 * <li><b>tensor cores</b> (imma): an 8-bit template without a mask against an 8-bit image, on
 * sm_80 and newer when its tile fits shared memory, alone or as a bank; the fused kernels, up to {@link #IMMA_FUSED_MAX_PIXELS}
 * pixels, sum the windows themselves and read no tables;</li>
 * <li><b>direct</b>: the template in constant memory, when it is small (up to {@value #DIRECT_MAX_WORDS} words);</li>
 * <li><b>stream</b>: the template streamed through shared memory in chunks, for any size;</li>
 * <li><b>bank</b>: several templates of one size against one image tile, one launch;</li>
 * <li><b>masked</b>: with a template mask, and for 32-bit images holding NaN or infinity (whose
 * tables are NaN beyond the first such pixel, so windows are summed directly instead).</li>
 * </ul>
 * Every path gives the CPU path's scores to within 1e-4, with the same flat-window, clamping
 * and NaN rules. The launch geometry mirrors that file's launch table; keep them in step.
 */
final class TemplateMatchingGpu {

	static final String MODULE = "template_matching";

	private static final int THREADS_X = 32, THREADS_Y = 8, TILE_W = 128, TILE_H = 32;
	private static final int CONST_WORDS = 16000, T8_MAX_CHUNK_QUADS = 16384, MASK_THREADS = 128;
	/**
	 * AUTO takes the direct kernel up to this many words (2 KiB): the constant cache serves
	 * them as broadcasts. Bigger templates thrash it (H200, u8 4096², map kernel: T=32 1.55 ms
	 * direct against 0.63 streamed, T=64 10.1 against 1.8), while small ones run 3-8% faster direct.
	 */
	private static final int DIRECT_MAX_WORDS = 512;
	private static final int INFO_BYTES = 32, FINISH_THREADS = 256;

	/** Numerator modes of the kernel file: exact dp4a, exact 32×32→64, float. */
	enum Mode {
		T8("t8"), T16("t16"), TF("tf");

		final String suffix;

		Mode(String suffix) {
			this.suffix = suffix;
		}
	}

	/** For tests: forces the single-template kernel (AUTO: direct up to {@link #DIRECT_MAX_WORDS} words). */
	enum Path { AUTO, DIRECT, STREAM, IMMA }

	/**
	 * For tests and the benchmark: AUTO leaves 8-bit pairs on the dp4a kernels instead of the
	 * tensor cores, which it takes wherever they can run (sm_80 and newer, w*h &lt;= 33025). On the
	 * H200 the tensor cores were 1.6 to 3.0 times faster at every template size measured.
	 */
	static volatile boolean immaOffForTest;
	/** For tests: the tensor-core sums through ncc_finish_u8_t8 even where the fused kernel fits. */
	static volatile boolean immaUnfusedForTest;
	/** For tests: 8x8 and 16x16 templates through the general fused kernel instead of their own. */
	static volatile boolean immafSmallOffForTest;
	/** Launches of ncc_immaf8_u8_t8 and ncc_immaf16_u8_t8 prepared so far, for tests that must know they ran. */
	static final java.util.concurrent.atomic.AtomicInteger immafSmallLaunches = new java.util.concurrent.atomic.AtomicInteger();
	/** Tensor-core launches prepared so far, for tests that must know the path was taken. */
	static final java.util.concurrent.atomic.AtomicInteger immaLaunches = new java.util.concurrent.atomic.AtomicInteger();
	/** NCC_IMMA_*: template columns per K step, outputs per block side, threads, exact size limit. */
	private static final int IMMA_JC = 24, IMMA_TILE = 64, IMMA_THREADS = 128, IMMA_MAX_PIXELS = 33025;
	/** NCC_IMMAFS_SIT_PITCH: ints per row of the sums of products of ncc_immaf8/16_*. */
	private static final int IMMAFS_SIT_PITCH = 72;
	/**
	 * The largest template the fused kernel takes. Its window sums grow with the template and its
	 * shared memory cuts the blocks per SM: on the H200 (4096², u8) it took 0.76 ms against 0.97
	 * through the tables at 64², but 4.4 against 2.4 at 128².
	 */
	private static final int IMMA_FUSED_MAX_PIXELS = 64 * 64;

	static volatile Path pathForTest = Path.AUTO;
	/** For tests: chunk sizes (template rows, quads) instead of the plan; 0 for the plan. */
	static volatile int chunkRowsForTest, chunkQuadsForTest;
	/** For tests: split the template rows into this many parts (blockIdx.z); 0 for the rule. */
	static volatile int splitsForTest;

	/**
	 * The direct kernels read the template from one {@code __constant__} array per context:
	 * writing it, launching and waiting happen under this lock, so concurrent callers cannot
	 * overwrite a template that a running kernel still reads.
	 */
	private static final Object CONSTANT_TEMPLATE = new Object();
	/**
	 * For tests: called on the launching thread between a direct launch's copy into constant
	 * memory and its kernel, with the lock held, so that a test can hold the stream there and
	 * show that no other caller's template reaches the kernel meanwhile.
	 */
	static volatile java.util.function.Consumer<GpuSession> afterConstantCopyForTest;

	private TemplateMatchingGpu() {}

	/**
	 * The tallest image the map kernels take: their grids have a block row per TILE_H map rows,
	 * and a grid is at most 65535 blocks high.
	 */
	static final int MAX_ROWS = 65535 * TILE_H;

	/** @throws GpuUnavailableException for taller images, which the CPU path then matches on AUTO */
	static void checkRows(int height) {
		if (height > MAX_ROWS)
			throw new GpuUnavailableException("images taller than " + MAX_ROWS + " rows are past the GPU kernels' grids");
	}

	/** Same contract as {@link TemplateMatchingCpu#match}; the input is already validated. */
	static float[] match(Gpu gpu, Planes image, int plane, Planes template, int templatePlane, byte[] mask,
		boolean sameSize)
	{
		Planes t = Planes.wrap(template.width(), template.height(), template.plane(templatePlane));
		float[] valid = matchBank(gpu, image, plane, Collections.singletonList(t), Collections.singletonList(mask))[0];
		return sameSize ? TemplateMatching.toSameSize(valid, image.width(), image.height(), t.width(), t.height())
			: valid;
	}

	/**
	 * "Valid" score maps of several templates (plane 0 of each) against one image plane, in one
	 * session: the image and its tables go to the device once. Templates of one size and type
	 * without masks share one bank launch.
	 *
	 * @param masks one per template, each null or template-sized
	 * @return one map per template, in order
	 */
	static float[][] matchBank(Gpu gpu, Planes image, int plane, List<Planes> templates, List<byte[]> masks) {
		checkRows(image.height());
		return gpu.run(TemplateMatching.NAME, s -> {
			try (Device d = new Device(s, image, plane, needsTables(masks), largest(templates))) {
				float[][] maps = new float[templates.size()][];
				if (d.finite && bankable(d, templates, masks)) {
					try (Launch l = d.prepareBank(templates)) {
						l.run();
						int size = (int) l.mapSize;
						// while the kernels run: the maps' zeroing and page faults, on every core
						Object[] made = fiji.cuda.ops.CpuParallel.newArrays(maps.length,
							Runtime.getRuntime().availableProcessors(), 4L * size, i -> new float[size]);
						for (int i = 0; i < maps.length; i++)
							maps[i] = (float[]) made[i];
						s.downloadAll(l.out.ptr(), maps, size);
					}
				} else {
					for (int i = 0; i < maps.length; i++)
						try (Launch l = d.prepare(templates.get(i), masks.get(i))) {
							l.run();
							maps[i] = new float[(int) l.mapSize];
							s.download(l.out.ptr(), maps[i], 0, l.mapSize);
						}
				}
				return maps;
			}
		});
	}

	/** The peaks of one score map found on the device, or the map itself when there were too many. */
	static final class PeakList {
		/** y·mapWidth + x of each peak, ascending; null when {@link #map} is given instead. */
		final int[] index;
		/** 9 scores around each peak (see {@link Peaks#fromPeaks}). */
		final float[] patches;
		/** The whole map, when the peaks did not fit the list; else null. */
		final float[] map;

		PeakList(int[] index, float[] patches, float[] map) {
			this.index = index;
			this.patches = patches;
			this.map = map;
		}
	}

	/** Peaks listed per map on the device; a map with more goes back whole. */
	static final int PEAK_CAPACITY = 1 << 16;

	/**
	 * Like {@link #matchBank}, but the maps stay on the device: only each map's peaks at or
	 * above {@code threshold} (Peaks.localMaxima's rule) and the scores around them come back.
	 */
	static PeakList[] peaksBank(Gpu gpu, Planes image, int plane, List<Planes> templates, List<byte[]> masks,
		double threshold)
	{
		checkRows(image.height());
		return gpu.run(TemplateMatching.NAME, s -> {
			try (Device d = new Device(s, image, plane, needsTables(masks), largest(templates));
				DeviceBuffer count = s.alloc(4); DeviceBuffer list = s.alloc(4L * PEAK_CAPACITY))
			{
				PeakList[] found = new PeakList[templates.size()];
				if (d.finite && bankable(d, templates, masks)) {
					try (Launch l = d.prepareBank(templates)) {
						l.run();
						for (int i = 0; i < found.length; i++)
							found[i] = peaks(s, l, i, templates.get(i), d, threshold, count, list);
					}
				} else {
					for (int i = 0; i < found.length; i++)
						try (Launch l = d.prepare(templates.get(i), masks.get(i))) {
							l.run();
							found[i] = peaks(s, l, 0, templates.get(i), d, threshold, count, list);
						}
				}
				return found;
			}
		});
	}

	private static PeakList peaks(GpuSession s, Launch l, int i, Planes t, Device d, double threshold,
		DeviceBuffer count, DeviceBuffer list)
	{
		int mw = d.iw - t.width() + 1, mh = d.ih - t.height() + 1;
		jcuda.driver.CUdeviceptr map = l.out.at(4L * i * l.mapSize);
		s.zero(count.ptr(), 4);
		s.launch(s.function(MODULE, "ncc_peaks"), new int[] { ceil(mw, 256), Math.min(mh, 65535) }, new int[] { 256 }, 0,
			map, mw, mh, Peaks.asScore(threshold), count, list, PEAK_CAPACITY);
		int[] n = new int[1];
		s.download(count.ptr(), n, 0, 1);
		if (n[0] > PEAK_CAPACITY) {
			float[] all = new float[(int) l.mapSize];
			s.download(map, all, 0, l.mapSize);
			return new PeakList(null, null, all);
		}
		int[] index = new int[n[0]];
		float[] patches = new float[9 * n[0]];
		if (n[0] > 0) {
			s.download(list.ptr(), index, 0, n[0]);
			Arrays.sort(index);
			s.upload(index, 0, n[0], list.ptr()); // sorted, so the patches come back in the same order
			try (DeviceBuffer p = s.alloc(36L * n[0])) {
				s.launch(s.function(MODULE, "ncc_peak_patches"), new int[] { ceil(n[0], 256) }, new int[] { 256 }, 0, map,
					mw, mh, list, n[0], p);
				s.download(p.ptr(), patches, 0, 9L * n[0]);
			}
		}
		return new PeakList(index, patches, null);
	}

	/**
	 * The "valid" map of one template (plane 0, no mask) against a plane already on the device,
	 * inside the caller's session (slice alignment matches in a search area it cut there).
	 *
	 * @param plane w×h pixels of {@code type} on the device; not modified, not closed
	 */
	static float[] matchOnDevice(GpuSession s, PixelType type, int w, int h, DeviceBuffer plane, Planes template) {
		try (Device d = new Device(s, type, w, h, plane, false, true, pixels(template), null);
			Launch l = d.prepare(template, null))
		{
			l.run();
			float[] map = new float[(int) l.mapSize];
			s.download(l.out.ptr(), map, 0, l.mapSize);
			return map;
		}
	}

	/**
	 * One template matched again and again against a search area that the caller refills on
	 * the device (Align Slices with a fixed reference): the template is prepared once, and each
	 * match rebuilds the area's tables and leaves its map on the device. Integer pixels only: a
	 * float area's path depends on whether it holds NaN, which each refill may change.
	 */
	static final class AreaMatcher implements AutoCloseable {
		private final Device d;
		private final Launch l;
		/** Scores per map. */
		final long mapSize;

		/**
		 * @param area        w×h pixels of {@code type} on the device, refilled by the caller before each match
		 * @param rowsPerArea the height of each of the areas stacked in {@code area}, whose maps alone are
		 *                    read (the rows of the map that straddle two areas may be left unscored); 0
		 *                    when every row of the map is read
		 */
		AreaMatcher(GpuSession s, PixelType type, int w, int h, int rowsPerArea, DeviceBuffer area, Planes template) {
			if (!type.isInteger()) throw new IllegalArgumentException("AreaMatcher takes 8 or 16-bit areas, not " + type);
			d = new Device(s, type, w, h, area, false, true, pixels(template), null);
			if (rowsPerArea > 0) {
				d.rowPeriod = rowsPerArea;
				d.rowKeep = TemplateMatching.validSize(rowsPerArea, template.height());
			}
			try {
				l = d.prepare(template, null);
			} catch (RuntimeException e) {
				d.close();
				throw e;
			}
			mapSize = l.mapSize;
		}

		/** Queues the match of the area as it will be then, into {@link #map()}. */
		void match() {
			d.buildTables();
			l.run();
		}

		/** @return the "valid" map of the last match, until the next one is queued */
		CUdeviceptr map() {
			return l.out.ptr();
		}

		@Override
		public void close() {
			try {
				l.close();
			} finally {
				d.close();
			}
		}
	}

	/**
	 * For the benchmark: device time of the full normalized maps (table build, numerators and
	 * normalization; no transfers), with everything uploaded beforehand.
	 *
	 * @return the median of {@code reps} runs in milliseconds
	 */
	static double deviceMillis(Gpu gpu, Planes image, List<Planes> templates, int reps) {
		List<byte[]> masks = Collections.nCopies(templates.size(), null);
		return gpu.run(TemplateMatching.NAME + " benchmark", s -> {
			try (Device d = new Device(s, image, 0, true, largest(templates))) {
				List<Launch> ls = new ArrayList<>();
				try {
					if (bankable(d, templates, masks)) ls.add(d.prepareBank(templates));
					else for (Planes t : templates)
						ls.add(d.prepare(t, null));
					double[] t = new double[reps];
					boolean tables = ls.stream().anyMatch(l -> l.usesTables);
					for (int r = 0; r < reps; r++)
						t[r] = s.timeMillis(() -> {
							if (tables) d.buildTables();
							for (Launch l : ls)
								l.run();
						});
					Arrays.sort(t);
					return t[reps / 2];
				} finally {
					for (Launch l : ls)
						l.close();
				}
			}
		});
	}

	/**
	 * For the benchmark: the device's measured multiply-add rates, from the probes at the end of
	 * the kernel file.
	 *
	 * @return {int8 multiply-adds per second by dp4a, FP32 FMAs per second}
	 */
	static double[] peakRates(Gpu gpu) {
		return gpu.run(TemplateMatching.NAME + " benchmark", s -> {
			int blocks = s.device().multiprocessors * 16, steps = 4096;
			double ops = (double) blocks * 256 * 8 * steps;
			try (DeviceBuffer o = s.alloc(4)) {
				double[] r = new double[2];
				for (int k = 0; k < 2; k++) {
					boolean dp = k == 0;
					Runnable run = () -> s.launch(s.function(MODULE, dp ? "ncc_peak_dp4a" : "ncc_peak_fma"),
						new int[] { blocks }, new int[] { 256 }, 0, dp ? new Object[] { o, 0x01010101, steps }
							: new Object[] { o, 0.999f, 0.5f, steps });
					run.run();
					double[] t = new double[5];
					for (int i = 0; i < t.length; i++)
						t[i] = s.timeMillis(run);
					Arrays.sort(t);
					r[k] = (dp ? 4 : 1) * ops / (t[2] * 1e-3);
				}
				return r;
			}
		});
	}

	private static boolean needsTables(List<byte[]> masks) {
		for (byte[] m : masks)
			if (m == null) return true;
		return false;
	}

	/**
	 * Magnitudes within which the float products of the table-reading kernels keep their
	 * digits: beyond about 1e19 they overflowed to infinity (scores of ±1 or NaN), below about
	 * 1e-19 they sank into float's subnormal range (scores of 0), where the CPU path, in double,
	 * scored 1 at the match. Data outside them is scored by the masked kernels, in double.
	 */
	static final double FLOAT_PRODUCTS_ABOVE = 1e-15, FLOAT_PRODUCTS_BELOW = 1e15;

	/**
	 * The tables' last elements are the sums over the whole plane: finite exactly when every
	 * pixel is, and the sum of squares bounds every pixel's magnitude.
	 *
	 * @return whether the float kernels can score the plane: every pixel finite, none above
	 *         {@link #FLOAT_PRODUCTS_BELOW}, and the pixels' root mean square, unless 0, not
	 *         below {@link #FLOAT_PRODUCTS_ABOVE}
	 */
	private static boolean tablesFinite(GpuSession s, DeviceBuffer sum, DeviceBuffer sq, long n) {
		double[] last = new double[2];
		s.download(sum.at(8 * (n - 1)), last, 0, 1);
		s.download(sq.at(8 * (n - 1)), last, 1, 1);
		return Double.isFinite(last[0]) && Double.isFinite(last[1]) && floatProductsFit(last[1], n);
	}

	/** @return whether values whose squares sum to {@code squares} over {@code n} fit the float kernels */
	static boolean floatProductsFit(double squares, long n) {
		return squares == 0 || Math.sqrt(squares) <= FLOAT_PRODUCTS_BELOW
			&& Math.sqrt(squares / n) >= FLOAT_PRODUCTS_ABOVE;
	}

	/** @return whether a template's pixels, less their mean, fit the float kernels (integer templates always do) */
	static boolean floatProductsFit(TemplateMatchingCpu.Prepared p, PixelType type) {
		return type.isInteger() || floatProductsFit(p.centredSquares, p.n);
	}

	/** Several templates of one size and type, no masks, whose tile with overfetch fits shared memory. */
	private static boolean bankable(Device d, List<Planes> templates, List<byte[]> masks) {
		if (templates.size() < 2) return false;
		Planes t0 = templates.get(0);
		for (int i = 0; i < templates.size(); i++) {
			Planes t = templates.get(i);
			if (masks.get(i) != null || t.width() != t0.width() || t.height() != t0.height() || t.type() != t0.type())
				return false;
			if (!t.type().isInteger() && !floatProductsFit(
				new TemplateMatchingCpu.Prepared(t.plane(0), t.type(), t.width(), t.height(), null, d.iw), t.type()))
				return false;
		}
		Mode m = mode(d.type, t0.type());
		boolean t8 = m == Mode.T8;
		return stageBytes(t8, t0.height(), quads(t8, t0.width())) <= d.s.device().maxSharedPerBlockOptin
			&& bankFitsOneArray(templates.size(), t0.width(), t0.height(), t8);
	}

	/**
	 * Whether a bank's templates, laid out for the device one after the other, fit one Java
	 * array. Tens of thousands of large templates would not (a NegativeArraySizeException rather
	 * than a result); they are then matched one launch per template instead.
	 */
	static boolean bankFitsOneArray(int templates, int tw, int th, boolean t8) {
		long words = (long) th * 4 * quads(t8, tw); // prepareBank
		long fragments = (long) th * ((tw + IMMA_JC - 1) / IMMA_JC) * 64; // immaBank
		return templates * Math.max(words, fragments) <= Integer.MAX_VALUE - 8;
	}

	/**
	 * One kernel launch, ready: its output and template buffers allocated and filled. A direct
	 * launch also carries the words it copies into constant memory under the lock.
	 */
	private static final class Launch implements AutoCloseable {
		final GpuSession s;
		final DeviceBuffer out;
		final long mapSize;
		final List<DeviceBuffer> owned = new ArrayList<>();
		String kernel;
		int[] grid, block;
		int shared;
		Object[] args;
		DeviceBuffer constantWords;
		/** Split launches: the partial numerators to zero first, and the normalization after. */
		DeviceBuffer part;
		String finishKernel;
		Object[] finishArgs;

		Launch(GpuSession s, long maps, long mapSize) {
			this.s = s;
			this.mapSize = mapSize;
			this.out = own(s.alloc(4L * maps * mapSize));
		}

		DeviceBuffer own(DeviceBuffer b) {
			owned.add(b);
			return b;
		}

		/** Whether part must be zeroed before the launch (split launches add into it). */
		boolean zeroPart = true;
		/** Whether the launch reads the image's tables (the fused tensor-core kernel does not). */
		boolean usesTables = true;

		void run() {
			if (constantWords == null) {
				enqueue();
				return;
			}
			synchronized (CONSTANT_TEMPLATE) {
				s.copyToConstant(MODULE, "c_ncc_tpl", constantWords.ptr(), constantWords.size());
				java.util.function.Consumer<GpuSession> hook = afterConstantCopyForTest;
				if (hook != null) hook.accept(s);
				enqueue();
				s.sync();
			}
		}

		private void enqueue() {
			if (part != null && zeroPart) s.zero(part.ptr(), part.size());
			s.launch(s.function(MODULE, kernel), grid, block, shared, args);
			if (finishKernel != null) {
				long n = mapSize;
				int blocks = (int) Math.min((n + FINISH_THREADS - 1) / FINISH_THREADS, 65535L * 16);
				s.launch(s.function(MODULE, finishKernel), new int[] { blocks }, new int[] { FINISH_THREADS }, 0,
					finishArgs);
			}
		}

		/**
		 * Waits for the launch first: its buffers go back to the pool for other streams. They are
		 * closed also when the wait fails: a buffer closed while its session is busy goes back
		 * only when the session ends, so this is safe, and otherwise it would be lost to the pool.
		 */
		@Override
		public void close() {
			try {
				s.sync();
			} finally {
				for (DeviceBuffer b : owned)
					b.close();
			}
		}
	}

	/**
	 * For tests: int64 tables for 8-bit images too, instead of the 32-bit wrap-around tables
	 * that AUTO takes wherever every template has at most {@link IntegralImage#WRAP32_MAX_PIXELS}
	 * pixels. Both give the same scores, bit for bit.
	 */
	static volatile boolean wideTablesForTest;
	/** Devices prepared with 32-bit wrap-around tables so far, for tests that must know they were used. */
	static final java.util.concurrent.atomic.AtomicInteger wrap32Tables = new java.util.concurrent.atomic.AtomicInteger();

	/** The pixels of the largest template: what the image's tables must answer. */
	private static long largest(List<Planes> templates) {
		long m = 0;
		for (Planes t : templates)
			m = Math.max(m, pixels(t));
		return m;
	}

	private static long pixels(Planes t) {
		return (long) t.width() * t.height();
	}

	/** One image plane on the device with its tables, and the launches against it. */
	private static final class Device implements AutoCloseable {
		final GpuSession s;
		final PixelType type;
		final DeviceBuffer img, sum, sq;
		final boolean ownsImage, tables;
		/**
		 * Whether the tables are 32-bit wrap-around tables (8-bit images whose templates all have
		 * at most {@link IntegralImage#WRAP32_MAX_PIXELS} pixels): half the bytes to build and to
		 * read, the same window sums. The kernels that read them are the {@code u8w} entry points.
		 */
		final boolean wrap32;
		/** The pixels of the largest template these tables may serve. */
		final long templatePixels;
		boolean finite;
		final int iw, ih;
		/** The table builds' scratch, kept so that building again does not wait for the stream. */
		private final IntegralImage.DeviceScratch scratch;
		/**
		 * A column of stacked search areas: only map rows y with y % rowPeriod &lt; rowKeep are read,
		 * so the numerators skip tiles with none (0: every row is read).
		 */
		int rowPeriod, rowKeep;

		/** Uploads plane {@code plane} of {@code image}. */
		Device(GpuSession s, Planes image, int plane, boolean tables, long templatePixels) {
			this(s, image.type(), image.width(), image.height(), s.alloc((long) image.planeSize()
				* image.type().bytesPerPixel()), true, tables, templatePixels, image.plane(plane));
		}

		/**
		 * @param img            the plane on the device
		 * @param owns           whether closing this closes {@code img}
		 * @param templatePixels the pixels of the largest template to be matched against it
		 * @param plane          the plane's pixels to upload into {@code img} first, or null when it holds them
		 */
		Device(GpuSession s, PixelType type, int iw, int ih, DeviceBuffer img, boolean owns, boolean tables,
			long templatePixels, Object plane)
		{
			this.s = s;
			this.type = type;
			this.tables = tables;
			this.templatePixels = templatePixels;
			this.wrap32 = tables && IntegralImage.wrap32Exact(type, templatePixels) && !wideTablesForTest;
			if (wrap32) wrap32Tables.incrementAndGet();
			this.iw = iw;
			this.ih = ih;
			this.img = img;
			this.ownsImage = owns;
			this.scratch = new IntegralImage.DeviceScratch(s);
			long n = (long) iw * ih;
			DeviceBuffer a = null, b = null;
			try {
				long bytes = !tables ? 8 : wrap32 ? 4 * n : 8 * n;
				a = s.alloc(bytes);
				b = s.alloc(bytes);
			} catch (RuntimeException e) {
				if (owns) img.close();
				if (a != null) a.close();
				throw e;
			}
			sum = a;
			sq = b;
			try {
				if (plane != null) s.upload(plane, 0, n, img.ptr());
				buildTables();
				finite = !tables || type != PixelType.FLOAT32 || tablesFinite(s, sum, sq, n);
			} catch (RuntimeException e) {
				close();
				throw e;
			}
		}

		void buildTables() {
			if (!tables) return;
			if (wrap32) IntegralImage.buildWrap32OnDevice(s, iw, ih, img.ptr(), sum.ptr(), sq.ptr(), scratch);
			else IntegralImage.buildOnDevice(s, type, iw, ih, img.ptr(), sum.ptr(), sq.ptr(), scratch);
		}

		/**
		 * The image part of the names of the kernels that read the tables: {@code u8w} for
		 * wrap-around tables. A template larger than the tables were built for is a bug here,
		 * since 32-bit sums of its windows could wrap.
		 */
		String tableSuffix(Planes t) {
			if (pixels(t) > templatePixels)
				throw new IllegalStateException("tables built for templates of " + templatePixels + " pixels, not " + pixels(t));
			return wrap32 ? "u8w" : imageSuffix(type);
		}

		@Override
		public void close() {
			try {
				scratch.close(); // waits for the stream
			} finally {
				// when that wait fails too (the buffers then go back once the session ends)
				if (ownsImage) img.close();
				sum.close();
				sq.close();
			}
		}

		Launch prepare(Planes t, byte[] mask) {
			int tw = t.width(), th = t.height();
			TemplateMatchingCpu.Prepared p = new TemplateMatchingCpu.Prepared(t.plane(0), t.type(), tw, th, mask, iw);
			Launch l = new Launch(s, 1, (long) (iw - tw + 1) * (ih - th + 1));
			try {
				Mode m = mode(type, t.type());
				if (mask != null || !finite || !floatProductsFit(p, t.type())) masked(l, p, m, t.type().isInteger());
				else plain(l, p, m, t);
				return l;
			} catch (RuntimeException e) {
				l.close();
				throw e;
			}
		}

		private void plain(Launch l, TemplateMatchingCpu.Prepared p, Mode m, Planes t) {
			boolean t8 = m == Mode.T8;
			int tq = quads(t8, t.width());
			Path path = pathForTest;
			if (t8 && immaWanted(path) && immaFits(t.width(), t.height())) {
				imma(l, p, t);
				return;
			}
			int[] words = words(p, m, t);
			boolean direct = words.length <= CONST_WORDS
				&& (path == Path.DIRECT || (path == Path.AUTO && words.length <= DIRECT_MAX_WORDS));
			int th = t.height(), gx = ceil(iw - t.width() + 1, TILE_W), gy = ceil(ih - th + 1, TILE_H);
			int splitRows = splitRows(th, wantedTiles(gx, gy, TILE_H), s.device().multiprocessors);
			int[] plan = plan(t8, !direct, t.width(), splitRows, s.device().maxSharedPerBlockOptin / 2);
			if (chunkRowsForTest > 0) {
				plan[0] = Math.min(chunkRowsForTest, splitRows);
				plan[1] = Math.min(chunkQuadsForTest, tq);
				plan[2] = (int) need(t8, !direct, plan[0], plan[1]);
			}
			DeviceBuffer w = l.own(s.alloc(4L * words.length));
			s.upload(words, 0, words.length, w.ptr());
			String name = tableSuffix(t) + "_" + m.suffix;
			l.kernel = (direct ? "ncc_direct_" : "ncc_stream_") + name;
			l.grid = new int[] { gx, gy, ceil(th, splitRows) };
			l.block = new int[] { THREADS_X, THREADS_Y };
			l.shared = plan[2];
			byte[] info = info(p, m, tq).array();
			Object part = new CUdeviceptr(); // null: one pass, normalized in place
			if (splitRows < th) {
				l.part = l.own(s.alloc(8 * l.mapSize));
				part = l.part;
				l.finishKernel = "ncc_finish_" + name;
				l.finishArgs = new Object[] { l.out, l.part, img, sum, sq, iw, ih, info };
			}
			if (direct) {
				l.constantWords = w;
				l.args = new Object[] { l.out, img, sum, sq, iw, ih, plan[0], plan[1], info, splitRows, part, rowPeriod,
					rowKeep };
			} else {
				l.args = new Object[] { l.out, img, sum, sq, iw, ih, plan[0], plan[1], info, w, splitRows, part,
					rowPeriod, rowKeep };
			}
		}

		private boolean immaWanted(Path path) {
			return path == Path.IMMA || path == Path.AUTO && !immaOffForTest;
		}

		/**
		 * @return the tiles of a gx x gy grid of tiles {@code rows} high that hold a row that is
		 *         read (see rowPeriod), as the kernels' rowsWanted decides it
		 */
		private long wantedTiles(int gx, int gy, int rows) {
			if (rowPeriod <= 0) return (long) gx * gy;
			long n = 0;
			for (int by = 0; by < gy; by++)
				if (rowsWanted(by * rows, rows, rowPeriod, rowKeep)) n++;
			return n * gx;
		}

		/** The tensor-core numerator needs sm_80, exact int32 sums and its tile in shared memory. */
		private boolean immaFits(int tw, int th) {
			return s.device().computeCapability() >= 80 && (long) tw * th <= IMMA_MAX_PIXELS
				&& immaSharedBytes(tw, th) <= s.device().maxSharedPerBlockOptin;
		}

		/**
		 * u8 pair on the tensor cores: ncc_immaf8_u8_t8 or ncc_immaf16_u8_t8 for an 8x8 or 16x16
		 * template (the same scores, bit for bit, from kernels with the size compiled in: at 16x16
		 * 0.07 against 0.14 ms at 4096² on the H200), else ncc_immaf_u8_t8 (window sums from its
		 * staged tile, scores written directly) up to {@link #IMMA_FUSED_MAX_PIXELS}, else the
		 * sums of products into part and ncc_finish_u8_t8 over the tables.
		 */
		private void imma(Launch l, TemplateMatchingCpu.Prepared p, Planes t) {
			immaLaunches.incrementAndGet();
			int tw = t.width(), th = t.height();
			int[] frag = immaFragments((byte[]) t.plane(0), tw, th);
			DeviceBuffer b = l.own(s.alloc(4L * frag.length));
			s.upload(frag, 0, frag.length, b.ptr());
			byte[] info = info(p, Mode.T8, quads(true, tw)).array();
			l.grid = new int[] { ceil(iw - tw + 1, IMMA_TILE), ceil(ih - th + 1, IMMA_TILE) };
			l.block = new int[] { IMMA_THREADS };
			if (immafSmall(tw, th) && !immaUnfusedForTest) {
				immafSmallLaunches.incrementAndGet();
				l.kernel = "ncc_immaf" + tw + "_u8_t8";
				l.shared = (int) immafSmallSharedBytes(tw);
				l.args = new Object[] { l.out, img, iw, ih, b, info };
				l.usesTables = false;
				return;
			}
			long fused = immaFusedSharedBytes(tw, th);
			if ((long) tw * th <= IMMA_FUSED_MAX_PIXELS && fused <= s.device().maxSharedPerBlockOptin
				&& !immaUnfusedForTest) {
				l.kernel = "ncc_immaf_u8_t8";
				l.shared = (int) fused;
				l.args = new Object[] { l.out, img, iw, ih, b, info };
				l.usesTables = false;
				return;
			}
			int split = splitRows(th, wantedTiles(l.grid[0], l.grid[1], IMMA_TILE), s.device().multiprocessors);
			l.grid = new int[] { l.grid[0], l.grid[1], ceil(th, split) };
			l.part = l.own(s.alloc(8 * l.mapSize));
			// one split writes every wanted sum; more add into zeros (the unwanted rows are never read)
			l.zeroPart = l.grid[2] > 1;
			l.kernel = "ncc_imma_u8_t8";
			l.shared = (int) immaSharedBytes(tw, split);
			l.args = new Object[] { l.part, img, iw, ih, b, tw, th, split, rowPeriod, rowKeep };
			l.finishKernel = "ncc_finish_" + tableSuffix(t) + "_t8";
			l.finishArgs = new Object[] { l.out, l.part, img, sum, sq, iw, ih, info };
		}

		/** Masks, 32-bit images with non-finite pixels, and 32-bit data beyond the float products' range: every window summed directly. */
		private void masked(Launch l, TemplateMatchingCpu.Prepared p, Mode m, boolean intTemplate) {
			boolean exact = m != Mode.TF && intTemplate;
			int[] off = new int[2 * p.n];
			for (int k = 0; k < p.n; k++) {
				off[2 * k] = p.offsets[k] % iw;
				off[2 * k + 1] = p.offsets[k] / iw;
			}
			ByteBuffer info = GpuSession.struct(INFO_BYTES);
			info.putInt(0, p.width).putInt(4, p.height).putInt(8, 0).putInt(12, p.n);
			info.putLong(16, exact ? p.sumT : 0).putDouble(24, exact ? p.exactVariance : p.flat ? 0 : p.centredSquares);
			DeviceBuffer d_off = l.own(s.alloc(4L * off.length)), d_tv = l.own(s.alloc(8L * p.n));
			s.upload(off, 0, off.length, d_off.ptr());
			if (exact) {
				int[] tv = new int[p.n];
				for (int k = 0; k < p.n; k++)
					tv[k] = (int) p.ints[k];
				s.upload(tv, 0, tv.length, d_tv.ptr());
			} else {
				s.upload(p.centred, 0, p.n, d_tv.ptr());
			}
			l.kernel = "ncc_masked_" + imageSuffix(type) + (exact ? "_ti" : "_tf");
			l.grid = new int[] { ceil(iw - p.width + 1, MASK_THREADS), Math.min(ih - p.height + 1, 65535) };
			l.block = new int[] { MASK_THREADS };
			l.args = new Object[] { l.out, img, iw, ih, info.array(), d_off, d_tv };
		}

		/**
		 * 8-bit bank on the tensor cores: one staged tile per block for all templates; 8x8 and
		 * 16x16 banks through ncc_immaf8/16_bank_u8_t8 (the same scores as ncc_immaf_bank_u8_t8,
		 * which also shares one set of window sums), others through ncc_immaf_bank_u8_t8.
		 */
		private Launch immaBank(List<Planes> templates) {
			immaLaunches.incrementAndGet();
			Planes t0 = templates.get(0);
			int tw = t0.width(), th = t0.height(), nt = templates.size(), tq = quads(true, tw);
			int per = th * ((tw + IMMA_JC - 1) / IMMA_JC) * 64;
			int[] frag = new int[nt * per];
			ByteBuffer info = GpuSession.struct(INFO_BYTES * nt);
			for (int i = 0; i < nt; i++) {
				Planes t = templates.get(i);
				TemplateMatchingCpu.Prepared p = new TemplateMatchingCpu.Prepared(t.plane(0), t.type(), tw, th, null, iw);
				System.arraycopy(immaFragments((byte[]) t.plane(0), tw, th), 0, frag, i * per, per);
				info.put(info(p, Mode.T8, tq).array());
			}
			Launch l = new Launch(s, nt, (long) (iw - tw + 1) * (ih - th + 1));
			try {
				DeviceBuffer b = l.own(s.alloc(4L * frag.length)), d_info = l.own(s.alloc(INFO_BYTES * nt));
				s.upload(frag, 0, frag.length, b.ptr());
				s.upload(info.array(), 0, INFO_BYTES * nt, d_info.ptr());
				int gx = ceil(iw - tw + 1, IMMA_TILE), gy = ceil(ih - th + 1, IMMA_TILE);
				// spread the templates over blockIdx.z only when the map alone has too few blocks
				long blocks = (long) gx * gy;
				int z = (int) Math.max(1, Math.min(nt, (2L * s.device().multiprocessors + blocks - 1) / blocks));
				boolean small = immafSmall(tw, th);
				if (small) immafSmallLaunches.incrementAndGet();
				l.kernel = small ? "ncc_immaf" + tw + "_bank_u8_t8" : "ncc_immaf_bank_u8_t8";
				l.grid = new int[] { gx, gy, z };
				l.block = new int[] { IMMA_THREADS };
				l.shared = (int) (small ? immafSmallSharedBytes(tw) : immaBankSharedBytes(tw, th));
				l.args = new Object[] { l.out, img, iw, ih, nt, d_info, b };
				l.usesTables = false;
				return l;
			} catch (RuntimeException e) {
				l.close();
				throw e;
			}
		}

		/** All templates share one size, type and mode; one launch writes every map. */
		Launch prepareBank(List<Planes> templates) {
			Planes t0 = templates.get(0);
			int tw = t0.width(), th = t0.height(), nt = templates.size();
			Mode m = mode(type, t0.type());
			boolean t8 = m == Mode.T8;
			int tq = quads(t8, tw);
			Path path = pathForTest;
			if (t8 && immaWanted(path) && immaFits(tw, th)
				&& immaBankSharedBytes(tw, th) <= s.device().maxSharedPerBlockOptin)
				return immaBank(templates);
			int per = th * 4 * tq;
			int[] words = new int[nt * per];
			ByteBuffer info = GpuSession.struct(INFO_BYTES * nt);
			for (int i = 0; i < nt; i++) {
				Planes t = templates.get(i);
				TemplateMatchingCpu.Prepared p = new TemplateMatchingCpu.Prepared(t.plane(0), t.type(), tw, th, null, iw);
				System.arraycopy(words(p, m, t), 0, words, i * per, per);
				info.put(info(p, m, tq).array());
			}
			Launch l = new Launch(s, nt, (long) (iw - tw + 1) * (ih - th + 1));
			try {
				DeviceBuffer w = l.own(s.alloc(4L * words.length)), d_info = l.own(s.alloc(INFO_BYTES * nt));
				s.upload(words, 0, words.length, w.ptr());
				s.upload(info.array(), 0, INFO_BYTES * nt, d_info.ptr());
				l.kernel = "ncc_bank_" + tableSuffix(t0) + "_" + m.suffix;
				l.grid = new int[] { ceil(iw - tw + 1, TILE_W), ceil(ih - th + 1, TILE_H), Math.min(nt, 65535) };
				l.block = new int[] { THREADS_X, THREADS_Y };
				l.shared = (int) stageBytes(t8, th, tq);
				l.args = new Object[] { l.out, img, sum, sq, iw, ih, nt, d_info, w };
				return l;
			} catch (RuntimeException e) {
				l.close();
				throw e;
			}
		}
	}

	// ---- the host rules of kernels/template_matching.cu -------------------------------------

	/**
	 * rowsWanted in template_matching.cu: whether rows [y0, y0 + rows) hold one with
	 * {@code y % period < keep}. The first such row at or after y0 is y0 itself or the start of
	 * the next period.
	 */
	static boolean rowsWanted(int y0, int rows, int period, int keep) {
		int k = y0 % period;
		return k < keep || period - k < rows;
	}

	/**
	 * Template rows per split: all of them (one pass) when the map has enough tiles for two
	 * blocks per multiprocessor; else the rows are shared out over blockIdx.z so that a big
	 * template on a small image (slice alignment: a 41x41 map of a 128x128 landmark is two tiles)
	 * still fills the device.
	 */
	static int splitRows(int h, long tiles, int multiprocessors) {
		int splits = splitsForTest > 0 ? splitsForTest
			: tiles >= 2L * multiprocessors ? 1 : (int) Math.min(h, (2L * multiprocessors + tiles - 1) / tiles);
		return ceil(h, Math.max(1, Math.min(h, splits)));
	}

	static Mode mode(PixelType image, PixelType template) {
		if (image == PixelType.FLOAT32 || template == PixelType.FLOAT32) return Mode.TF;
		return image == PixelType.UINT8 && template == PixelType.UINT8 ? Mode.T8 : Mode.T16;
	}

	/** NCC_TQ: quads (4 columns) per template row; t8 holds 3 extra shifted columns. */
	static int quads(boolean t8, int w) {
		return t8 ? (w + 6) / 4 : (w + 3) / 4;
	}

	private static long stageBytes(boolean t8, int chunkRows, int chunkQuads) {
		long cols = TILE_W + 4L * chunkQuads + 4;
		long pitch = (cols * (t8 ? 1 : 4) + 15) / 16 * 16;
		return (TILE_H + chunkRows - 1) * pitch;
	}

	/**
	 * nccPlan: the whole template in one chunk when it fits the budget, else the most rows with
	 * every quad, else one row and the most quads. Every chunk holds at least one row and one
	 * quad: the kernels advance by whole chunks, and a chunk of 0 rows never ends.
	 *
	 * @return {chunk rows, chunk quads, dynamic shared bytes}
	 */
	static int[] plan(boolean t8, boolean streamed, int w, int h, long budget) {
		int tq = quads(t8, w);
		int cq = tq, ch = h;
		if (t8) {
			// a u8 row wider than the dp4a limit (w > 65533) is cut into chunks of quads first:
			// 16384 / cq would otherwise be 0 rows
			cq = Math.min(cq, T8_MAX_CHUNK_QUADS);
			if ((long) ch * cq > T8_MAX_CHUNK_QUADS) ch = T8_MAX_CHUNK_QUADS / cq;
		}
		while (ch > 1 && need(t8, streamed, ch, cq) > budget)
			ch--;
		while (cq > 1 && need(t8, streamed, ch, cq) > budget)
			cq--;
		if (need(t8, streamed, ch, cq) > budget)
			throw new GpuUnavailableException("this GPU has too little shared memory for template matching");
		return new int[] { ch, cq, (int) need(t8, streamed, ch, cq) };
	}

	private static long need(boolean t8, boolean streamed, int ch, int cq) {
		return stageBytes(t8, ch, cq) + (streamed ? 16L * ch * cq : 0);
	}

	/** The template's words in the layout of its mode (see the kernel file's header). */
	static int[] words(TemplateMatchingCpu.Prepared p, Mode m, Planes t) {
		int w = t.width(), h = t.height(), tq = quads(m == Mode.T8, w), pitch = 4 * tq;
		int[] words = new int[h * pitch];
		Object px = t.plane(0);
		for (int y = 0; y < h; y++) {
			if (m == Mode.T8) {
				byte[] b = (byte[]) px;
				for (int k = 0; k < 4; k++)
					for (int q = 0; q < tq; q++) {
						int word = 0;
						for (int j = 0; j < 4; j++) {
							int c = 4 * q + j - k;
							if (c >= 0 && c < w) word |= (b[y * w + c] & 0xff) << (8 * j);
						}
						words[y * pitch + k * tq + q] = word;
					}
			} else if (m == Mode.T16) {
				for (int x = 0; x < w; x++)
					words[y * pitch + x] = (int) TemplateMatchingCpu.value(px, t.type(), y * w + x);
			} else {
				// Prepared (no mask) holds T − mean in row-major order
				for (int x = 0; x < w; x++)
					words[y * pitch + x] = Float.floatToRawIntBits((float) p.centred[y * w + x]);
			}
		}
		return words;
	}

	/** NCC_IMMA_SMEM_BYTES: staged rows times a pitch of at least 64 + 24 chunks, 16 mod 128 bytes. */
	static long immaSharedBytes(int tw, int th) {
		int chunks = (tw + IMMA_JC - 1) / IMMA_JC;
		long pitch = (IMMA_TILE + IMMA_JC * chunks + 111) / 128 * 128 + 16;
		return pitch * (IMMA_TILE + th - 1L);
	}

	/** NCC_IMMA_VP: the pitch of the column sums, odd. */
	private static long immaColumnPitch(int tw) {
		return (IMMA_TILE + tw - 1) | 1;
	}

	/** NCC_IMMAF_SMEM_BYTES: the staged tile, column sums [2][32][VP] and window sums [2][64][36], int. */
	static long immaFusedSharedBytes(int tw, int th) {
		return immaSharedBytes(tw, th) + 4L * 2 * 32 * immaColumnPitch(tw) + 4L * 2 * IMMA_TILE * 36;
	}

	/** Whether a template size has kernels of its own, ncc_immaf&lt;w&gt;_u8_t8 and their bank form. */
	private static boolean immafSmall(int tw, int th) {
		return tw == th && (tw == 8 || tw == 16) && !immafSmallOffForTest;
	}

	/** NCC_IMMAFS_SMEM_BYTES(t): the staged tile and the sums of products [64][IMMAFS_SIT_PITCH], int. */
	static long immafSmallSharedBytes(int t) {
		return immaSharedBytes(t, t) + 4L * IMMA_TILE * IMMAFS_SIT_PITCH;
	}

	/** NCC_IMMAF_BANK_SMEM_BYTES: the staged tile, column sums [2][32][VP] and window sums [2][64][68], int. */
	static long immaBankSharedBytes(int tw, int th) {
		return immaSharedBytes(tw, th) + 4L * 2 * 32 * immaColumnPitch(tw) + 4L * 2 * IMMA_TILE * 68;
	}

	/**
	 * The B fragments of ncc_imma_u8_t8 (layout in template_matching.cu): for template row r, K
	 * step c and lane L = 4g + t, two words whose byte q is T(24c + k - g, r), k = 4t + q in the
	 * first word and 12 + 4t + q in the second (the PTX layout of B), inside the step's 24
	 * columns and the template, else 0.
	 */
	static int[] immaFragments(byte[] tpl, int tw, int th) {
		int chunks = (tw + IMMA_JC - 1) / IMMA_JC;
		int[] f = new int[th * chunks * 64];
		for (int r = 0; r < th; r++)
			for (int c = 0; c < chunks; c++)
				for (int lane = 0; lane < 32; lane++) {
					int g = lane >> 2, t = lane & 3, at = ((r * chunks + c) * 32 + lane) * 2;
					for (int q = 0; q < 8; q++) {
						int d = (q < 4 ? 4 * t + q : 12 + 4 * t + q) - g, j = IMMA_JC * c + d;
						if (d >= 0 && d < IMMA_JC && j < tw) f[at + (q >> 2)] |= (tpl[r * tw + j] & 0xff) << (8 * (q & 3));
					}
				}
		return f;
	}

	/** NccTplInfo: int w, h, tq, n; long sumT; double varT (0 marks a flat template). */
	static ByteBuffer info(TemplateMatchingCpu.Prepared p, Mode m, int tq) {
		ByteBuffer b = GpuSession.struct(INFO_BYTES);
		b.putInt(0, p.width).putInt(4, p.height).putInt(8, tq).putInt(12, p.n);
		if (m == Mode.TF) b.putLong(16, 0).putDouble(24, p.flat ? 0 : p.centredSquares);
		else b.putLong(16, p.sumT).putDouble(24, p.exactVariance);
		return b;
	}

	private static String imageSuffix(PixelType t) {
		if (t.kernelSuffix() == null)
			throw new IllegalArgumentException(TemplateMatching.NAME + ": RGB is not supported");
		return t.kernelSuffix();
	}

	private static int ceil(long a, int b) {
		return (int) ((a + b - 1) / b);
	}
}
