package fiji.cuda.ncc;


import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
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
 * template-matching kernels, the peak is chosen from the small score map exactly as on the
 * CPU path ({@link AlignSlices.Search}; on the host slice by slice, on the device for a group),
 * and the slice is translated on the device, bit for bit as {@link AlignSlices#translate}, and
 * brought back into its own array.
 * <p>
 * A slice is written only after its translation is complete on the host side, so a failure
 * leaves every slice either translated or untouched, and the CPU path can carry on from the
 * first slice not done.
 */
final class AlignSlicesGpu {

	static final String MODULE = "align_slices";
	private static final int THREADS = 256;
	/** Slices per group forced by tests (0: as many as one staging chunk holds; -1: one slice at a time). */
	static int groupSlicesForTest;

	/**
	 * When set (by the benchmark), nanoseconds in the grouped path: of the calling thread waiting
	 * for a group's copy into staging, queueing its upload and starting the next group's copy
	 * into staging, queueing its match, picks and translation, waiting for the copy out of the group three
	 * back, queueing the download of the group before, waiting for the download of the group
	 * two back, and starting its copy out; then (ph[8], ph[9]) of the device cutting, matching
	 * and picking, and translating.
	 */
	static long[] phaseNanos;

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
		int m = AlignSlices.Search.margin(s, w, h);
		int areaRows = (int) Math.min(h, landmark.height + 2L * m);
		long areaMax = Math.min(w, landmark.width + 2L * m) * areaRows;
		// the map kernels' grids have a block row per few map rows: a taller search area (a
		// narrow, very tall stack) is aligned on the CPU rather than failing to launch
		if (areaRows > TemplateMatchingGpu.MAX_ROWS)
			throw new fiji.cuda.runtime.GpuUnavailableException("search areas taller than " + TemplateMatchingGpu.MAX_ROWS
				+ " rows are past the GPU kernels' grids");
		String suffix = type.kernelSuffix();
		return gpu.run(AlignSlices.NAME, g -> {
			if (groupSlicesForTest >= 0 && !s.previous && type.isInteger() && 2 * n * bpp <= g.stagingBytes())
				return alignInGroups(g, stack, s, fixed, order, from, done, interp, progress);
			try (DeviceBuffer slice = g.alloc(n * bpp); DeviceBuffer out = g.alloc(n * bpp);
				DeviceBuffer area = g.alloc(areaMax * bpp); DeviceBuffer px = g.alloc(8L * w);
				DeviceBuffer wx = g.alloc(32L * w); DeviceBuffer py = g.alloc(8L * h); DeviceBuffer wy = g.alloc(32L * h))
			{
				// in a catch of this statement the buffers would already be back in the pool: a
				// failure must first let the work queued before it finish, or another thread could
				// take them while it still writes there
				try {
					Object scratch = n * bpp > g.stagingBytes() ? type.newPlane((int) n) : null;
					int k = from;
					for (; k < order.length && !progress.isCanceled(); k++) {
						int z = order[k];
						AlignSlices.Shift neighbour = null;
						Planes template = fixed;
						if (s.previous) {
							neighbour = AlignSlices.lastMatched(done, z, s.reference);
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
				} catch (RuntimeException e) {
					try {
						g.drain();
					} catch (RuntimeException ignored) {
						// a context that cannot drain is reset by Gpu.run, which frees the pool
					}
					throw e;
				}
			}
		});
	}

	/**
	 * Fixed-reference alignment of 8 and 16-bit slices, a group at a time, as a pipeline: while
	 * group t goes up (host copy into pinned staging, then DMA on a stream of its own) and is
	 * matched and translated, group t-1 comes back down (DMA on a third stream) and group t-2
	 * is copied into its arrays. The bus carries both directions at once, the host copies
	 * overlap the DMA, and the device never waits for the host: the shifts are chosen on the
	 * device, and a group's download is queued only after the next group's work, so that the
	 * host's wait for a free staging half does not hold the device back.
	 * <p>
	 * Within a group the search areas are cut into one column of areas, one above the other,
	 * and matched in one launch. The rows whose window straddles two areas are not read, and
	 * the tensor-core numerator skips the tiles that hold only such rows; one launch with many
	 * blocks replaces a dozen small ones per slice that kept most of the GPU idle. The scores
	 * of the rows kept are those of each area alone: the correlation sums are exact integers,
	 * and the window sums come from four corners of the tables, in which whatever lies above a
	 * window cancels. {@code align_pick_group} then chooses each slice's shift from its map
	 * exactly as {@link AlignSlices.Search#pick} does on the CPU path (same order of double
	 * operations), and one launch translates the group with those shifts.
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
		AlignSlices.Search search = new AlignSlices.Search(w, h, s.landmark(), s, null);
		Region a = search.area;
		int group = groupSlices(half, sliceBytes, a.height, order.length - from);
		boolean cubic = interp == AlignSlices.Interpolation.BICUBIC;
		long axisDoubles = cubic ? 5L * (w + h) : 0; // per slice: x positions, x weights, y positions, y weights
		long picksBytes = PICK_BYTES * group; // per group: its moves, then its scores
		long areaBytes = (long) a.width * a.height * type.bytesPerPixel();
		long groupBytes = sliceBytes * group;
		int mw = TemplateMatching.validSize(a.width, fixed.width()), mh = TemplateMatching.validSize(a.height, fixed.height());
		byte[] searchStruct = searchStruct(search, mw, mh, a.height, cubic, axisDoubles, w, h);
		int[] grid = grid(w, h);
		try (DeviceBuffer slices = g.alloc(3 * groupBytes); DeviceBuffer outs = g.alloc(2 * groupBytes);
			DeviceBuffer areas = g.alloc(areaBytes * group); DeviceBuffer picks = g.alloc(2 * picksBytes);
			DeviceBuffer axes = g.alloc(Math.max(8, 8 * axisDoubles * group));
			TemplateMatchingGpu.AreaMatcher matcher = new TemplateMatchingGpu.AreaMatcher(g, type, a.width,
				a.height * group, a.height, areas, fixed);
			HostBuffer hostPicks = g.pinned(2 * picksBytes))
		{
			HostBuffer up = g.stagingBuffer(0), down = g.stagingBuffer(1);
			int groups = (order.length - from + group - 1) / group;
			Object[][] planes = new Object[groups][];
			AlignSlices.Shift[][] shifts = new AlignSlices.Shift[groups][];
			HostBuffer.Copy[] fills = new HostBuffer.Copy[groups], drains = new HostBuffer.Copy[groups];
			int[] written = { 0, from }; // groups written back, and the index in order reached
			try {
				CUstream compute = g.stream(), upStream = g.sideStream(), downStream = g.sideStream();
				CUevent uploaded = g.event();
				CUevent[] upFree = { g.event(), g.event() }, outFree = { g.event(), g.event() },
					translated = { g.event(), g.event() }, sliceFree = { g.event(), g.event(), g.event() };
				long[] ph = phaseNanos;
				// benchmark only: per group, events before its cut, after its picks and after its
				// translation, in four sets, read two groups later once the group is back
				CUevent[] mark = null;
				if (ph != null) {
					mark = new CUevent[12];
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
					long t0 = System.nanoTime(), t1 = t0, t2 = t0, t3 = t0;
					// group t: up, cut, matched, its shifts picked and translated; group t+1 starts filling
					if (t < started) {
						int count = planes[t].length, par = t & 1, m = 3 * (t & 3);
						fills[t].await();
						fills[t] = null;
						t1 = System.nanoTime();
						CUdeviceptr slot = slices.at((t % 3) * groupBytes), moves = picks.at(par * picksBytes);
						if (t >= 3) g.await(upStream, sliceFree[t % 3]);
						g.copyAsync(up.view(par * half, half), slot, count * sliceBytes, upStream);
						g.record(upFree[par], upStream);
						g.record(uploaded, upStream);
						// The copy threads start on group t+1 before this thread queues group t's launches,
						// so that the queueing (a few hundred microseconds a group) overlaps the copy.
						int next = t + 1;
						if (next < groups && !progress.isCanceled()) {
							if (next >= 2) g.sync(upFree[next & 1]); // group t-1's upload has left that half
							planes[next] = groupPlanes(stack, order, from + next * group, group);
							fills[next] = up.view((next & 1) * half, half).fillAsync(planes[next], n);
							started++;
						}
						t2 = System.nanoTime();
						g.await(compute, uploaded);
						if (mark != null) g.record(mark[m], compute);
						g.launch(g.function(MODULE, "align_crop_group_" + suffix), cropGrid(a.width, a.height, count),
							new int[] { THREADS }, 0, areas, slot, w, h, a.x, a.y, a.width, a.height);
						matcher.match(); // areas past count hold an earlier group's: matched, not read
						if (t >= 2) g.await(compute, outFree[par]); // group t-2's slices and picks are down
						g.launch(g.function(MODULE, "align_pick_group"), new int[] { count }, new int[] { PICK_THREADS },
							0, moves, picks.at(par * picksBytes + MOVE_BYTES * group), axes, matcher.map(), searchStruct);
						if (mark != null) g.record(mark[m + 1], compute);
						g.launch(g.function(MODULE, "align_translate_group_" + suffix),
							new int[] { grid[0], grid[1], count }, new int[] { THREADS }, 0, outs.at(par * groupBytes), slot,
							w, h, moves, axes, axisDoubles);
						g.record(sliceFree[t % 3], compute);
						g.record(translated[par], compute);
						if (mark != null) g.record(mark[m + 2], compute);
						t3 = System.nanoTime();
					}
					// group t-1 goes down once group t-3 is out of the down half it takes: queued after
					// group t, so that the device has group t to work on while the host waits
					long t4 = System.nanoTime(), t5 = t4;
					int p = t - 1;
					if (p >= 0 && p < started) {
						int par = p & 1;
						if (p >= 2) writeBack(p - 2, drains, planes, shifts, order, done, written, progress);
						t5 = System.nanoTime();
						g.await(downStream, translated[par]);
						g.copyAsync(outs.at(par * groupBytes), down.view(par * half, half), planes[p].length * sliceBytes,
							downStream);
						g.copyAsync(picks.at(par * picksBytes), hostPicks.view(par * picksBytes, picksBytes), picksBytes,
							downStream);
						g.record(outFree[par], downStream);
					}
					// group t-2 has come down: its shifts are read, and the copy threads move it into its arrays
					long t6 = System.nanoTime(), t7 = t6;
					int q = t - 2;
					if (q >= 0 && q < started) {
						g.sync(outFree[q & 1]);
						t7 = System.nanoTime();
						if (mark != null) {
							int m = 3 * (q & 3);
							ph[8] += (long) (1e6 * g.elapsedMillis(mark[m], mark[m + 1]));
							ph[9] += (long) (1e6 * g.elapsedMillis(mark[m + 1], mark[m + 2]));
						}
						shifts[q] = readShifts(hostPicks.view((q & 1) * picksBytes, picksBytes), order, from + q * group,
							planes[q].length, group);
						drains[q] = down.view((q & 1) * half, half).drainAsync(planes[q], n);
					}
					if (ph != null) {
						long t8 = System.nanoTime();
						ph[0] += t1 - t0;
						ph[1] += t2 - t1;
						ph[2] += t3 - t2;
						ph[3] += t5 - t4;
						ph[4] += t6 - t5;
						ph[5] += t7 - t6;
						ph[6] += t8 - t7;
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

	/**
	 * Slices per group of the grouped path: as many as half a staging buffer holds, at most 256,
	 * and no more than the slices left. Their search areas are matched as one column, which
	 * must stay within the map kernels' grid ({@link TemplateMatchingGpu#MAX_ROWS} rows): the
	 * areas of a narrow, tall stack would exceed it long before the staging is full.
	 *
	 * @param half       bytes of half a staging buffer
	 * @param sliceBytes bytes of one slice, at most {@code half}
	 * @param areaRows   the height of one search area
	 * @param left       slices still to align, at least 1
	 * @return the group size, at least 1
	 */
	static int groupSlices(long half, long sliceBytes, int areaRows, int left) {
		long group = Math.min(256, half / sliceBytes);
		group = Math.min(group, TemplateMatchingGpu.MAX_ROWS / Math.max(1, areaRows));
		if (groupSlicesForTest > 0) group = Math.min(group, groupSlicesForTest);
		return (int) Math.max(1, Math.min(group, left));
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
	/** Bytes per slice that align_pick_group writes: its AlignMove, and its score. */
	private static final int PICK_BYTES = MOVE_BYTES + 8;
	private static final int PICK_THREADS = 256;
	/** Bytes of AlignSearch in kernels/align_slices.cu. */
	private static final int SEARCH_BYTES = 88;

	/** The AlignSearch of align_pick_group: the search every slice of the group shares. */
	private static byte[] searchStruct(AlignSlices.Search search, int mw, int mh, int mapRows, boolean cubic,
		long axisDoubles, int w, int h)
	{
		java.nio.ByteBuffer b = GpuSession.struct(SEARCH_BYTES);
		b.putDouble(0, AlignSlices.PERFECT).putDouble(8, search.keepDx).putDouble(16, search.keepDy);
		b.putLong(24, axisDoubles);
		int[] ints = { mw, mh, mapRows, search.ex - search.area.x, search.ey - search.area.y, search.landmark.x,
			search.landmark.y, search.area.x, search.area.y, search.settings.subpixel ? 1 : 0, cubic ? 1 : 0, w, h };
		for (int i = 0; i < ints.length; i++)
			b.putInt(32 + 4 * i, ints[i]);
		return b.array();
	}

	/** @return the shifts that align_pick_group chose for a group of {@code count} slices, from its moves and scores */
	private static AlignSlices.Shift[] readShifts(HostBuffer picks, int[] order, int first, int count, int group) {
		java.nio.ByteBuffer b = picks.bytes();
		AlignSlices.Shift[] shifts = new AlignSlices.Shift[count];
		for (int i = 0; i < count; i++)
			shifts[i] = new AlignSlices.Shift(order[first + i], b.getDouble(i * MOVE_BYTES + 16),
				b.getDouble(i * MOVE_BYTES + 24), b.getDouble(group * MOVE_BYTES + 8 * i));
		return shifts;
	}

	/**
	 * For tests: align_pick_group over the given maps of {@code search}, which lie
	 * {@code mapRows} rows apart on the device (the rows between them hold NaN).
	 *
	 * @param axes receives, per map, the bicubic axes the kernel wrote (5 (w + h) doubles; read
	 *             only for fractional shifts when {@code cubic})
	 * @return the shifts chosen, as the grouped path records them
	 */
	static AlignSlices.Shift[] pickOnDevice(Gpu gpu, AlignSlices.Search search, float[][] maps, int mapRows,
		boolean cubic, int w, int h, double[][] axes)
	{
		int mw = TemplateMatching.validSize(search.area.width, search.landmark.width);
		int mh = TemplateMatching.validSize(search.area.height, search.landmark.height);
		int count = maps.length, stride = mapRows * mw;
		long axisDoubles = cubic ? 5L * (w + h) : 0;
		float[] column = new float[count * stride];
		java.util.Arrays.fill(column, Float.NaN);
		for (int i = 0; i < count; i++)
			System.arraycopy(maps[i], 0, column, i * stride, mw * mh);
		return gpu.run(AlignSlices.NAME, g -> {
			try (DeviceBuffer d_maps = g.alloc(4L * column.length); DeviceBuffer picks = g.alloc(PICK_BYTES * count);
				DeviceBuffer d_axes = g.alloc(Math.max(8, 8 * axisDoubles * count)))
			{
				g.upload(column, 0, column.length, d_maps.ptr());
				g.launch(g.function(MODULE, "align_pick_group"), new int[] { count }, new int[] { PICK_THREADS }, 0, picks,
					picks.at(MOVE_BYTES * count), d_axes, d_maps, searchStruct(search, mw, mh, mapRows, cubic,
						axisDoubles, w, h));
				try (HostBuffer host = g.pinned(PICK_BYTES * count)) {
					g.copyAsync(picks.ptr(), host, PICK_BYTES * count, g.stream());
					g.sync();
					for (int i = 0; i < count && cubic; i++) {
						axes[i] = new double[(int) axisDoubles];
						g.download(d_axes.at(8 * axisDoubles * i), axes[i], 0, axisDoubles);
					}
					int[] order = new int[count];
					for (int i = 0; i < count; i++)
						order[i] = i;
					return readShifts(host, order, 0, count, count);
				}
			}
		});
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
