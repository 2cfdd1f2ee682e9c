package fiji.cuda.ncc;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Progress;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuSession;

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

	/** Enqueues AlignSlices.translate of {@code src} into {@code dst}, with the CPU path's positions and weights. */
	static void translate(GpuSession g, String suffix, DeviceBuffer src, DeviceBuffer dst, int w, int h, double dx,
		double dy, AlignSlices.Interpolation interp, DeviceBuffer px, DeviceBuffer wx, DeviceBuffer py, DeviceBuffer wy)
	{
		int mode, ix = 0, iy = 0;
		if (dx == (int) dx && dy == (int) dy) {
			mode = 0;
			ix = (int) dx;
			iy = (int) dy;
		} else {
			mode = interp == AlignSlices.Interpolation.BICUBIC ? 2 : 1;
			AlignSlices.Axis ax = new AlignSlices.Axis(w, dx), ay = new AlignSlices.Axis(h, dy);
			g.upload(ax.pos, 0, w, px.ptr());
			g.upload(ax.weights, 0, 4L * w, wx.ptr());
			g.upload(ay.pos, 0, h, py.ptr());
			g.upload(ay.weights, 0, 4L * h, wy.ptr());
		}
		g.launch(g.function(MODULE, "align_translate_" + suffix), grid(w, h), new int[] { THREADS }, 0, dst, src, w, h,
			mode, ix, iy, px, wx, py, wy);
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
