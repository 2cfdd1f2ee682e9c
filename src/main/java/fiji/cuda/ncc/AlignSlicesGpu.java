package fiji.cuda.ncc;

import java.util.Arrays;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.CpuParallel;
import fiji.cuda.ops.Progress;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuSession;
import jcuda.driver.CUdeviceptr;

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
	 * When set (by the benchmark), nanoseconds of the grouped path spent in: upload, cut and
	 * match with the maps brought back, choosing the shifts, translation with the slices
	 * brought back.
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
			if (groupSlicesForTest >= 0 && !s.previous && type.isInteger() && n * bpp <= DIRECT_DOWNLOAD_BYTES
				&& (groupSlicesForTest > 0 || 2 * n * bpp <= g.stagingBytes()))
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
	 * Fixed-reference alignment of 8 and 16-bit slices, a group at a time: the slices of a
	 * group go up in one copy; their search areas are cut into one column of areas, one above
	 * the other, and matched in one launch; the map rows of each area come back in one copy,
	 * the shifts are chosen on the host, and the translated slices come back in one copy.
	 * <p>
	 * Matching the column at once computes rows whose window straddles two areas, which are
	 * thrown away (about three quarters for a 128² landmark and a margin of 20), but one launch
	 * with many blocks replaces a dozen small ones per slice that kept most of the GPU idle. The
	 * scores of the rows kept are those of each area alone: the correlation sums are exact
	 * integers, and the window sums come from four corners of the tables, in which whatever
	 * lies above a window cancels. A group fits one staging chunk, so its slices are all
	 * written or none.
	 */
	private static int alignInGroups(GpuSession g, Planes stack, AlignSlices.Settings s, Planes fixed, int[] order,
		int from, AlignSlices.Shift[] done, AlignSlices.Interpolation interp, Progress progress)
	{
		PixelType type = stack.type();
		String suffix = type.kernelSuffix();
		int w = stack.width(), h = stack.height();
		long n = (long) w * h, sliceBytes = n * type.bytesPerPixel();
		// small slices: at most 256 areas in the column, which keeps its tables small
		int group = groupSlicesForTest > 0 ? groupSlicesForTest : (int) Math.min(256, g.stagingBytes() / sliceBytes);
		group = Math.max(1, Math.min(group, order.length - from));
		AlignSlices.Search search = new AlignSlices.Search(w, h, s.landmark(), s, null);
		Region a = search.area;
		long axisDoubles = 5L * (w + h); // per slice: x positions, x weights, y positions, y weights
		long areaBytes = (long) a.width * a.height * type.bytesPerPixel();
		int mw = TemplateMatching.validSize(a.width, fixed.width()), mh = TemplateMatching.validSize(a.height, fixed.height());
		try (DeviceBuffer slices = g.alloc(sliceBytes * group); DeviceBuffer outs = g.alloc(sliceBytes * group);
			DeviceBuffer areas = g.alloc(areaBytes * group); DeviceBuffer axes = g.alloc(8 * axisDoubles * group);
			TemplateMatchingGpu.AreaMatcher matcher = new TemplateMatchingGpu.AreaMatcher(g, type, a.width,
				a.height * group, areas, fixed);
			DeviceBuffer maps = g.alloc(4 * matcher.mapSize))
		{
			float[] column = new float[(int) matcher.mapSize];
			double[] packed = new double[(int) (axisDoubles * group)];
			int k = from;
			while (k < order.length && !progress.isCanceled()) {
				int count = Math.min(group, order.length - k);
				Object[] planes = new Object[count];
				for (int i = 0; i < count; i++)
					planes[i] = stack.plane(order[k + i]);
				long t0 = System.nanoTime();
				g.uploadAll(planes, n, slices.ptr());
				if (phaseNanos != null) g.sync();
				long t1 = System.nanoTime();
				for (int i = 0; i < count; i++)
					g.launch(g.function(MODULE, "align_crop_" + suffix), grid(a.width, a.height), new int[] { THREADS }, 0,
						areas.at(i * areaBytes), slices.at(i * sliceBytes), w, a.x, a.y, a.width, a.height);
				matcher.match(maps.ptr()); // areas past count hold the last group's: matched, not read
				// area i's map: its mh rows starting at row i * a.height of the column's map
				long rows = (long) (count - 1) * a.height + mh;
				g.download(maps.ptr(), column, 0, rows * mw);
				long t2 = System.nanoTime();
				AlignSlices.Shift[] shifts = new AlignSlices.Shift[count];
				final int k0 = k;
				// each slice's peak, fit and translation weights on its own thread
				CpuParallel.forRange(0, count, PICK_THREADS, 100L * (mh * mw + 5L * (w + h)), (i0, i1) -> {
					for (int i = i0; i < i1; i++) {
						int first = i * a.height * mw;
						shifts[i] = search.pick(order[k0 + i], Arrays.copyOfRange(column, first, first + mh * mw));
						AlignSlices.Shift sh = shifts[i];
						if (sh.dx == (int) sh.dx && sh.dy == (int) sh.dy) continue;
						AlignSlices.Axis ax = new AlignSlices.Axis(w, sh.dx), ay = new AlignSlices.Axis(h, sh.dy);
						int at = (int) (i * axisDoubles);
						System.arraycopy(ax.pos, 0, packed, at, w);
						System.arraycopy(ax.weights, 0, packed, at + w, 4 * w);
						System.arraycopy(ay.pos, 0, packed, at + 5 * w, h);
						System.arraycopy(ay.weights, 0, packed, at + 5 * w + h, 4 * h);
					}
				});
				boolean fractional = false;
				for (AlignSlices.Shift sh : shifts)
					fractional |= sh.dx != (int) sh.dx || sh.dy != (int) sh.dy;
				long t3 = System.nanoTime();
				if (fractional) g.upload(packed, 0, axisDoubles * count, axes.ptr());
				for (int i = 0; i < count; i++) {
					long at = 8 * i * axisDoubles;
					launchTranslate(g, suffix, outs.at(i * sliceBytes), slices.at(i * sliceBytes), w, h, shifts[i].dx,
						shifts[i].dy, interp, axes.at(at), axes.at(at + 8L * w), axes.at(at + 40L * w),
						axes.at(at + 40L * w + 8L * h));
				}
				g.downloadAll(outs.ptr(), planes, n);
				long[] ph = phaseNanos;
				if (ph != null) {
					ph[0] += t1 - t0;
					ph[1] += t2 - t1;
					ph[2] += t3 - t2;
					ph[3] += System.nanoTime() - t3;
				}
				for (int i = 0; i < count; i++)
					done[order[k + i]] = shifts[i];
				k += count;
				progress.update(k / (double) order.length);
			}
			return k;
		}
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
