package fiji.cuda.ncc;


import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.CpuParallel;
import fiji.cuda.ops.Progress;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuSession;
import fiji.cuda.runtime.HostBuffer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;

/**
 * The GPU path of {@link AlignSlices}, on {@code kernels/align_slices.cu}: in one session each
 * slice goes to the device once; its search area is cut there and matched by the
 * template-matching kernels, the peak is chosen on the host from the small score map exactly
 * as on the CPU path ({@link AlignSlices.Search}), and the slice is translated on the device,
 * bit for bit as {@link AlignSlices#translate}, and brought back into its own array.
 * <p>
 * A slice is written only after its translation is complete on the host side, so a failure
 * leaves every slice either translated or untouched, and the CPU path can carry on from the
 * first slice not done.
 */
final class AlignSlicesGpu {

	static final String MODULE = "align_slices";
	private static final int THREADS = 256;
	/** Slices bigger than a staging chunk come back through a scratch array (see the class comment). */
	private static final long DIRECT_DOWNLOAD_BYTES = 16L << 20;

	/** Slices per group forced by tests (0: as many as one staging chunk holds; -1: one slice at a time). */
	static int groupSlicesForTest;

	/**
	 * When set (by the benchmark), nanoseconds in the grouped path: of the calling thread waiting
	 * for a staging half, filling it, queueing the upload and match, waiting for the maps,
	 * choosing the shifts, queueing the translation and download, waiting for the download and
	 * copying it out; then of the device cutting and matching, and translating.
	 */
	static long[] phaseNanos;
	private static final int PICK_THREADS = Runtime.getRuntime().availableProcessors();

	private AlignSlicesGpu() {}

	/**
	 * Aligns slices {@code order[from..]} in place, recording each slice's shift in {@code done}
	 * as soon as the slice is written.
	 *
	 * @param fixed the landmark cut from the reference (unused in "previous slice" mode)
	 * @return the index in {@code order} reached: its length, or less when canceled
	 */
	static int align(Gpu gpu, Planes stack, AlignSlices.Settings s, Planes fixed, int[] order, int from,
		AlignSlices.Shift[] done, AlignSlices.Interpolation interp, Progress progress)
	{
		PixelType type = stack.type();
		int w = stack.width(), h = stack.height();
		long n = (long) w * h;
		int bpp = type.bytesPerPixel();
		Region landmark = s.landmark();
		long areaMax = (long) Math.min(w, landmark.width + 2 * s.margin) * Math.min(h, landmark.height + 2 * s.margin);
		String suffix = type.kernelSuffix();
		return gpu.run(AlignSlices.NAME, g -> {
			if (groupSlicesForTest >= 0 && !s.previous && type.isInteger() && 2 * n * bpp <= g.stagingBytes())
				return alignInGroups(g, stack, s, fixed, order, from, done, interp, progress);
			try (DeviceBuffer slice = g.alloc(n * bpp); DeviceBuffer out = g.alloc(n * bpp);
				DeviceBuffer area = g.alloc(areaMax * bpp); DeviceBuffer px = g.alloc(8L * w);
				DeviceBuffer wx = g.alloc(32L * w); DeviceBuffer py = g.alloc(8L * h); DeviceBuffer wy = g.alloc(32L * h))
			{
				Object scratch = n * bpp > DIRECT_DOWNLOAD_BYTES ? type.newPlane((int) n) : null;
				int k = from;
				for (; k < order.length && !progress.isCanceled(); k++) {
					int z = order[k];
					AlignSlices.Shift neighbour = null;
					Planes template = fixed;
					if (s.previous) {
						neighbour = done[z < s.reference ? z + 1 : z - 1];
						template = TemplateMatching.crop(stack, neighbour.plane, landmark);
					}
					g.upload(stack.plane(z), 0, n, slice.ptr());
					AlignSlices.Search search = new AlignSlices.Search(w, h, landmark, s, neighbour);
					AlignSlices.Shift shift;
					if (!AlignSlices.usable(template)) {
						shift = search.keep(z);
					} else {
						Region a = search.area;
						g.launch(g.function(MODULE, "align_crop_" + suffix), grid(a.width, a.height), new int[] { THREADS }, 0,
							area, slice, w, a.x, a.y, a.width, a.height);
						shift = search.pick(z, TemplateMatchingGpu.matchOnDevice(g, type, a.width, a.height, area, template));
					}
					translate(g, suffix, slice, out, w, h, shift.dx, shift.dy, interp, px, wx, py, wy);
					if (scratch == null) {
						g.download(out.ptr(), stack.plane(z), 0, n);
					} else {
						g.download(out.ptr(), scratch, 0, n);
						System.arraycopy(scratch, 0, stack.plane(z), 0, (int) n);
					}
					done[z] = shift;
					progress.update((k + 1) / (double) order.length);
				}
				return k;
			}
		});
	}

	/**
	 * Fixed-reference alignment of 8 and 16-bit slices, a group at a time, as a pipeline in
	 * which three groups are in flight: while group t goes up (host copy into pinned staging,
	 * then DMA on a stream of its own), group t-1 is matched and translated, and group t-2 comes
	 * back down (DMA on a third stream, then the host copy into its arrays). The bus carries
	 * both directions at once, and the host copies overlap the DMA.
	 * <p>
	 * Within a group the search areas are cut into one column of areas, one above the other,
	 * and matched in one launch. That computes rows whose window straddles two areas, which are
	 * thrown away (about three quarters for a 128² landmark and a margin of 20), but one launch
	 * with many blocks replaces a dozen small ones per slice that kept most of the GPU idle. The
	 * scores of the rows kept are those of each area alone: the correlation sums are exact
	 * integers, and the window sums come from four corners of the tables, in which whatever
	 * lies above a window cancels. The maps come back, the shifts are chosen on the host exactly
	 * as on the CPU path, and one launch translates the group.
	 * <p>
	 * Groups are written back in order and each slice's shift is recorded only once its group
	 * is written, so a failure or a cancel leaves a prefix of {@code order} aligned and the rest
	 * untouched.
	 */
	private static int alignInGroups(GpuSession g, Planes stack, AlignSlices.Settings s, Planes fixed, int[] order,
		int from, AlignSlices.Shift[] done, AlignSlices.Interpolation interp, Progress progress)
	{
		PixelType type = stack.type();
		String suffix = type.kernelSuffix();
		int w = stack.width(), h = stack.height();
		long n = (long) w * h, sliceBytes = n * type.bytesPerPixel();
		long half = g.stagingBytes() / 2;
		int group = (int) Math.min(256, half / sliceBytes);
		if (groupSlicesForTest > 0) group = Math.min(group, groupSlicesForTest);
		group = Math.max(1, Math.min(group, order.length - from));
		AlignSlices.Search search = new AlignSlices.Search(w, h, s.landmark(), s, null);
		Region a = search.area;
		boolean cubic = interp == AlignSlices.Interpolation.BICUBIC;
		long axisDoubles = cubic ? 5L * (w + h) : 0; // per slice: x positions, x weights, y positions, y weights
		long movesBytes = MOVE_BYTES * group, paramBytes = movesBytes + 8 * axisDoubles * group;
		long areaBytes = (long) a.width * a.height * type.bytesPerPixel();
		long groupBytes = sliceBytes * group;
		int mw = TemplateMatching.validSize(a.width, fixed.width()), mh = TemplateMatching.validSize(a.height, fixed.height());
		int[] grid = grid(w, h);
		try (DeviceBuffer slices = g.alloc(3 * groupBytes); DeviceBuffer outs = g.alloc(2 * groupBytes);
			DeviceBuffer areas = g.alloc(areaBytes * group); DeviceBuffer params = g.alloc(paramBytes);
			TemplateMatchingGpu.AreaMatcher matcher = new TemplateMatchingGpu.AreaMatcher(g, type, a.width,
				a.height * group, areas, fixed);
			HostBuffer hostMaps = g.pinned(2 * 4 * matcher.mapSize); HostBuffer hostParams = g.pinned(2 * paramBytes))
		{
			HostBuffer up = g.stagingBuffer(0), down = g.stagingBuffer(1);
			int groups = (order.length - from + group - 1) / group;
			Object[][] planes = new Object[groups][];
			AlignSlices.Shift[][] shifts = new AlignSlices.Shift[groups][];
			HostBuffer.Copy[] fills = new HostBuffer.Copy[groups], drains = new HostBuffer.Copy[groups];
			int[] written = { 0, from }; // groups written back, and the index in order reached
			try {
				CUstream compute = g.stream(), upStream = g.sideStream(), downStream = g.sideStream();
				CUevent uploaded = g.event(), translated = g.event();
				CUevent[] upFree = { g.event(), g.event() }, outFree = { g.event(), g.event() },
					mapsIn = { g.event(), g.event() }, sliceFree = { g.event(), g.event(), g.event() };
				long[] ph = phaseNanos;
				// benchmark only: device time of each group's cut + match + maps, and of its translation
				// (a pair per parity for each, read once the group's maps or slices are back)
				CUevent[] mark = null;
				if (ph != null) {
					mark = new CUevent[8];
					for (int i = 0; i < mark.length; i++)
						mark[i] = g.timingEvent();
				}
				int started = 0; // groups whose host copy into staging has begun
				if (groups > 0 && !progress.isCanceled()) {
					planes[0] = groupPlanes(stack, order, from, group);
					fills[0] = up.view(0, half).fillAsync(planes[0], n);
					started = 1;
				}
				for (int t = 0; t < started + 2; t++) {
					long t0 = System.nanoTime(), tw = t0, tf = t0;
					// group t goes up, is cut and matched, and its maps come back; group t+1 starts filling
					if (t < started) {
						int count = planes[t].length;
						fills[t].await();
						fills[t] = null;
						tw = System.nanoTime();
						CUdeviceptr slot = slices.at((t % 3) * groupBytes);
						if (t >= 3) g.await(upStream, sliceFree[t % 3]);
						g.copyAsync(up.view((t & 1) * half, half), slot, count * sliceBytes, upStream);
						g.record(upFree[t & 1], upStream);
						g.record(uploaded, upStream);
						g.await(compute, uploaded);
						if (mark != null) g.record(mark[2 * (t & 1)], compute);
						g.launch(g.function(MODULE, "align_crop_group_" + suffix), cropGrid(a.width, a.height, count),
							new int[] { THREADS }, 0, areas, slot, w, h, a.x, a.y, a.width, a.height);
						matcher.match(); // areas past count hold an earlier group's: matched, not read
						// area i's map: its mh rows starting at row i * a.height of the column's map
						long rows = (long) (count - 1) * a.height + mh;
						g.copyAsync(matcher.map(), hostMaps.view((t & 1) * 4 * matcher.mapSize, 4 * matcher.mapSize),
							4 * rows * mw, compute);
						g.record(mapsIn[t & 1], compute);
						if (mark != null) g.record(mark[2 * (t & 1) + 1], compute);
						tf = System.nanoTime();
						int next = t + 1;
						if (next < groups && !progress.isCanceled()) {
							if (next >= 2) g.sync(upFree[next & 1]); // group t-1's upload has left that half
							planes[next] = groupPlanes(stack, order, from + next * group, group);
							fills[next] = up.view((next & 1) * half, half).fillAsync(planes[next], n);
							started++;
						}
					}
					long t1 = System.nanoTime(), tm = t1, ts = t1;
					// group t-1: shifts from its maps, translation, and the DMA down once group t-3 is out
					int p = t - 1;
					if (p >= 0 && p < started) {
						int count = planes[p].length, first = from + p * group;
						g.sync(mapsIn[p & 1]);
						tm = System.nanoTime();
						if (mark != null) ph[8] += (long) (1e6 * g.elapsedMillis(mark[2 * (p & 1)], mark[2 * (p & 1) + 1]));
						java.nio.FloatBuffer column = hostMaps.view((p & 1) * 4 * matcher.mapSize, 4 * matcher.mapSize)
							.bytes().asFloatBuffer();
						HostBuffer hp = hostParams.view((p & 1) * paramBytes, paramBytes);
						shifts[p] = pickShifts(search, order, first, count, column, a.height, mw, mh, w, h, cubic, hp,
							movesBytes, axisDoubles);
						ts = System.nanoTime();
						g.copyAsync(hp, params.ptr(), paramBytes, compute);
						if (p >= 2) {
							writeBack(p - 2, drains, planes, shifts, order, done, written, progress);
							g.await(compute, outFree[p & 1]);
						}
						if (mark != null) g.record(mark[4 + 2 * (p & 1)], compute);
						CUdeviceptr out = outs.at((p & 1) * groupBytes);
						g.launch(g.function(MODULE, "align_translate_group_" + suffix),
							new int[] { grid[0], grid[1], count }, new int[] { THREADS }, 0, out,
							slices.at((p % 3) * groupBytes), w, h, params, params.at(movesBytes), axisDoubles);
						g.record(sliceFree[p % 3], compute);
						g.record(translated, compute);
						if (mark != null) g.record(mark[5 + 2 * (p & 1)], compute);
						g.await(downStream, translated);
						g.copyAsync(out, down.view((p & 1) * half, half), count * sliceBytes, downStream);
						g.record(outFree[p & 1], downStream);
					}
					long t2 = System.nanoTime(), td = t2;
					// group t-2 has come down: the copy threads move it into its arrays
					int q = t - 2;
					if (q >= 0 && q < started) {
						g.sync(outFree[q & 1]);
						td = System.nanoTime();
						if (mark != null) ph[9] += (long) (1e6 * g.elapsedMillis(mark[4 + 2 * (q & 1)], mark[5 + 2 * (q & 1)]));
						drains[q] = down.view((q & 1) * half, half).drainAsync(planes[q], n);
					}
					if (ph != null) {
						long t3 = System.nanoTime();
						ph[0] += tw - t0;
						ph[1] += tf - tw;
						ph[2] += t1 - tf;
						ph[3] += tm - t1;
						ph[4] += ts - tm;
						ph[5] += t2 - ts;
						ph[6] += td - t2;
						ph[7] += t3 - td;
					}
				}
				while (written[0] < started)
					writeBack(written[0], drains, planes, shifts, order, done, written, progress);
				return written[1];
			} finally {
				// nothing in flight may touch the buffers once they go back: the host copies finish,
				// the slices that came down are kept (and recorded), then the streams drain
				for (HostBuffer.Copy c : fills)
					if (c != null) awaitQuietly(c);
				for (int q = written[0]; q < groups && drains[q] != null; q++)
					if (awaitQuietly(drains[q])) writeBack(q, drains, planes, shifts, order, done, written, Progress.NONE);
				g.drain();
			}
		}
	}

	/** @return the planes of the group starting at {@code order[first]} */
	private static Object[] groupPlanes(Planes stack, int[] order, int first, int group) {
		Object[] planes = new Object[Math.min(group, order.length - first)];
		for (int i = 0; i < planes.length; i++)
			planes[i] = stack.plane(order[first + i]);
		return planes;
	}

	/**
	 * Waits for group q's copy into its arrays and records its shifts: groups are recorded in
	 * order, so that the slices recorded are always a prefix of {@code order}.
	 */
	private static void writeBack(int q, HostBuffer.Copy[] drains, Object[][] planes, AlignSlices.Shift[][] shifts,
		int[] order, AlignSlices.Shift[] done, int[] written, Progress progress)
	{
		drains[q].await();
		drains[q] = null;
		for (int i = 0; i < planes[q].length; i++)
			done[order[written[1] + i]] = shifts[q][i];
		written[1] += planes[q].length;
		written[0] = q + 1;
		planes[q] = null;
		progress.update(written[1] / (double) order.length);
	}

	private static boolean awaitQuietly(HostBuffer.Copy c) {
		try {
			c.await();
			return true;
		} catch (RuntimeException e) {
			return false;
		}
	}

	/** Bytes of one AlignMove in kernels/align_slices.cu: int mode, ix, iy, pad; double dx, dy. */
	static final int MOVE_BYTES = 32;

	/**
	 * Chooses the shifts of one group from its column of maps, exactly as the CPU path does, and
	 * packs their moves (and, for bicubic, their axes) for align_translate_group.
	 */
	private static AlignSlices.Shift[] pickShifts(AlignSlices.Search search, int[] order, int first, int count,
		java.nio.FloatBuffer column, int areaHeight, int mw, int mh, int w, int h, boolean cubic, HostBuffer params,
		long movesBytes, long axisDoubles)
	{
		AlignSlices.Shift[] shifts = new AlignSlices.Shift[count];
		java.nio.ByteBuffer moves = params.bytes();
		java.nio.DoubleBuffer axes = params.view(movesBytes, params.size() - movesBytes).bytes().asDoubleBuffer();
		// a peak search is a few microseconds: threads only pay off for the bicubic axes
		CpuParallel.forRange(0, count, PICK_THREADS, (long) mh * mw + (cubic ? 40L * (w + h) : 0), (i0, i1) -> {
			for (int i = i0; i < i1; i++) {
				float[] map = new float[mh * mw];
				column.duplicate().position(i * areaHeight * mw).get(map);
				AlignSlices.Shift sh = search.pick(order[first + i], map);
				shifts[i] = sh;
				boolean whole = sh.dx == (int) sh.dx && sh.dy == (int) sh.dy;
				int mode = whole ? 0 : cubic ? 2 : 1, at = i * MOVE_BYTES;
				moves.putInt(at, mode);
				moves.putInt(at + 4, whole ? (int) sh.dx : 0);
				moves.putInt(at + 8, whole ? (int) sh.dy : 0);
				moves.putInt(at + 12, 0);
				moves.putDouble(at + 16, sh.dx);
				moves.putDouble(at + 24, sh.dy);
				if (mode != 2) continue;
				AlignSlices.Axis ax = new AlignSlices.Axis(w, sh.dx), ay = new AlignSlices.Axis(h, sh.dy);
				java.nio.DoubleBuffer d = axes.duplicate();
				d.position((int) (i * axisDoubles));
				d.put(ax.pos).put(ax.weights).put(ay.pos).put(ay.weights);
			}
		});
		return shifts;
	}

	private static int[] cropGrid(int aw, int ah, int slices) {
		return new int[] { (aw + THREADS - 1) / THREADS, Math.min(ah, 65535), slices };
	}

	/** Enqueues AlignSlices.translate of {@code src} into {@code dst}, with the CPU path's positions and weights. */
	static void translate(GpuSession g, String suffix, DeviceBuffer src, DeviceBuffer dst, int w, int h, double dx,
		double dy, AlignSlices.Interpolation interp, DeviceBuffer px, DeviceBuffer wx, DeviceBuffer py, DeviceBuffer wy)
	{
		if (dx != (int) dx || dy != (int) dy) {
			AlignSlices.Axis ax = new AlignSlices.Axis(w, dx), ay = new AlignSlices.Axis(h, dy);
			g.upload(ax.pos, 0, w, px.ptr());
			g.upload(ax.weights, 0, 4L * w, wx.ptr());
			g.upload(ay.pos, 0, h, py.ptr());
			g.upload(ay.weights, 0, 4L * h, wy.ptr());
		}
		launchTranslate(g, suffix, dst.ptr(), src.ptr(), w, h, dx, dy, interp, px.ptr(), wx.ptr(), py.ptr(), wy.ptr());
	}

	/**
	 * Launches align_translate: a whole-pixel shift copies, a fractional one interpolates with
	 * the positions and weights of {@link AlignSlices.Axis}, already on the device at px, wx, py, wy.
	 */
	private static void launchTranslate(GpuSession g, String suffix, CUdeviceptr dst, CUdeviceptr src, int w, int h,
		double dx, double dy, AlignSlices.Interpolation interp, CUdeviceptr px, CUdeviceptr wx, CUdeviceptr py,
		CUdeviceptr wy)
	{
		boolean whole = dx == (int) dx && dy == (int) dy;
		int mode = whole ? 0 : interp == AlignSlices.Interpolation.BICUBIC ? 2 : 1;
		g.launch(g.function(MODULE, "align_translate_" + suffix), grid(w, h), new int[] { THREADS }, 0, dst, src, w, h,
			mode, whole ? (int) dx : 0, whole ? (int) dy : 0, px, wx, py, wy);
	}

	/** {@link AlignSlices#translate} of one plane on the GPU, in place (for the tests). */
	static void translate(Gpu gpu, Planes planes, int plane, double dx, double dy, AlignSlices.Interpolation interp) {
		int w = planes.width(), h = planes.height();
		long bytes = (long) w * h * planes.type().bytesPerPixel();
		gpu.run(AlignSlices.NAME, g -> {
			try (DeviceBuffer src = g.alloc(bytes); DeviceBuffer dst = g.alloc(bytes); DeviceBuffer px = g.alloc(8L * w);
				DeviceBuffer wx = g.alloc(32L * w); DeviceBuffer py = g.alloc(8L * h); DeviceBuffer wy = g.alloc(32L * h))
			{
				g.upload(planes.plane(plane), 0, (long) w * h, src.ptr());
				translate(g, planes.type().kernelSuffix(), src, dst, w, h, dx, dy, interp, px, wx, py, wy);
				g.download(dst.ptr(), planes.plane(plane), 0, (long) w * h);
				return null;
			}
		});
	}

	private static int[] grid(int w, int h) {
		return new int[] { (w + THREADS - 1) / THREADS, Math.min(h, 65535) };
	}
}
