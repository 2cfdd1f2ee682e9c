package fiji.cuda.gaussian;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Progress;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuException;
import fiji.cuda.runtime.GpuSession;
import fiji.cuda.runtime.GpuUnavailableException;

/**
 * The GPU path of {@link GaussianBlur}, on the kernels of {@code kernels/gaussian_blur.cu}.
 * <p>
 * Planes travel in their own pixel type (a quarter of the float traffic for 8-bit) and are
 * converted on the device. Radii up to the last of {@link GaussianBlurKernels#RMAX_LIST} take the
 * fused XY kernel, which reads and writes each plane once; larger radii take the separable
 * row and column kernels through a float intermediate. The z pass of 3D blurs is its own
 * kernel. A plane is written back to its Java array only after all of its kernels have run.
 */
final class GaussianBlurGpu {

	/** Bytes of planes moved per batch in 2D: two staging chunks, a few hundred MB of device memory at most. */
	private static final long BATCH_BYTES = 64L << 20;

	private GaussianBlurGpu() {}

	/**
	 * Blurs planes [from, to) in place.
	 *
	 * @return the first plane not done: {@code to}, or earlier when canceled
	 * @throws GaussianBlur.PartialGpuFailure when an error, the GPU's or another, strikes after
	 *                                        some planes, or part of one, were written
	 * @throws GpuException                   when it strikes before any plane was written
	 */
	static int blur2D(Gpu gpu, Planes image, int from, int to, GaussianKernel kx, GaussianKernel ky, Region rect,
		Progress progress)
	{
		checkGrid(rect.height, 1);
		final int[] done = { from }, partly = { -1 };
		try {
			return gpu.run(GaussianBlur.NAME, s -> {
				PixelType t = image.type();
				long planeBytes = (long) image.planeSize() * t.bytesPerPixel();
				boolean whole = rect.isAll(image.width(), image.height());
				// Whole planes travel in batches, so a stack of small planes moves in a few large
				// copies; a selection moves plane by plane and only the rows it covers come back.
				int batch = whole ? (int) Math.max(1, Math.min(to - from, BATCH_BYTES / planeBytes)) : 1;
				try (GaussianBlurKernels k = new GaussianBlurKernels(s, t, image.width(), image.height(), kx, ky);
					DeviceBuffer src = s.alloc(planeBytes * batch); DeviceBuffer dst = s.alloc(planeBytes * batch);
					DeviceBuffer tmp = k.needsTemp() ? s.alloc(4L * image.planeSize()) : null)
				{
					boolean copyFirst = t == PixelType.RGB || !whole;
					long first = (long) rect.y * image.width();
					long count = (long) rect.height * image.width();
					for (int z = from; z < to; z += batch) {
						if (progress.isCanceled()) return z;
						int n = Math.min(batch, to - z);
						Object[] planes = new Object[n];
						for (int i = 0; i < n; i++)
							planes[i] = image.plane(z + i);
						s.uploadAll(planes, image.planeSize(), src.ptr());
						if (copyFirst) s.copy(src.ptr(), dst.ptr(), planeBytes * n);
						for (int i = 0; i < n; i++)
							k.blurXY(src.at(i * planeBytes), dst.at(i * planeBytes), tmp, rect);
						try {
							if (whole) s.downloadAll(dst.ptr(), planes, image.planeSize());
							else s.download(dst.at(first * t.bytesPerPixel()), planes[0], first, count);
						} catch (RuntimeException | Error e) {
							long perPlane = whole ? image.planeSize() : count;
							done[0] = z + (int) (s.downloaded() / perPlane);
							if (s.downloadTouched() > (done[0] - z) * perPlane) partly[0] = done[0];
							throw e;
						}
						done[0] = z + n;
						progress.update((z + n - from) / (double) (to - from));
					}
					return to;
				}
			});
		} catch (GpuException e) {
			// every plane came back before the error was reported (at the session's end, for a
			// fault of another thread's work on the device): they hold the result
			if (done[0] == to && partly[0] < 0) return to;
			if (done[0] > from || partly[0] >= 0) throw new GaussianBlur.PartialGpuFailure(done[0], partly[0], e);
			throw e;
		} catch (RuntimeException | Error e) {
			// not the GPU's (Java's memory, or the progress listener), after planes were written:
			// which ones must be known all the same, and the mask's outside put back on them
			if (done[0] > from || partly[0] >= 0) throw new GaussianBlur.PartialGpuFailure(done[0], partly[0], e);
			throw e;
		}
	}

	/** The tallest rectangle and the deepest volume the kernels' grids take (65535 blocks high). */
	static final int MAX_ROWS = 65535 * 64, MAX_DEPTH = 65535 * 8;

	/** @throws GpuUnavailableException beyond them, so that AUTO blurs on the CPU instead */
	static void checkGrid(int rows, int depth) {
		if (rows > MAX_ROWS)
			throw new GpuUnavailableException("images taller than " + MAX_ROWS + " rows are past the GPU kernels' grids");
		if (depth > MAX_DEPTH)
			throw new GpuUnavailableException("stacks deeper than " + MAX_DEPTH + " slices are past the GPU kernels' grids");
	}

	/**
	 * Blurs a volume in x, y (rounded to the pixel type, as ImageJ) and then z. The planes are
	 * written back only when the whole volume is done.
	 *
	 * @throws GpuUnavailableException when the volume does not fit in free device memory
	 * @throws GaussianBlur.PartialGpuFailure when a GPU error strikes while the planes are
	 *                                        written back
	 */
	static void blur3D(Gpu gpu, Planes volume, GaussianKernel kx, GaussianKernel ky, GaussianKernel kz) {
		checkGrid(volume.height(), volume.depth());
		// touched[1] is 1 once the whole volume is written back
		final long[] touched = { 0, 0 };
		try {
			blur3D(gpu, volume, kx, ky, kz, touched);
		} catch (GpuException e) {
			// written back before the error was reported (at the session's end, for a fault of
			// another thread's work): the volume holds the result, and a CPU run would blur it twice
			if (touched[1] == 1) return;
			// the z pass needs every original plane, so a volume written in part cannot be redone
			if (touched[0] > 0)
				throw new GaussianBlur.PartialGpuFailure(0, (int) ((touched[0] - 1) / volume.planeSize()), e);
			throw e;
		} catch (RuntimeException | Error e) {
			// not the GPU's, while the volume was written back: it holds neither the input nor the result
			if (touched[0] > 0)
				throw new fiji.cuda.ops.PartlyDoneException(GaussianBlur.NAME_3D, e, GaussianBlurCpu.VOLUME_PART_BLURRED);
			throw e;
		}
	}

	private static void blur3D(Gpu gpu, Planes volume, GaussianKernel kx, GaussianKernel ky, GaussianKernel kz,
		long[] touched)
	{
		gpu.run(GaussianBlur.NAME_3D, s -> {
			PixelType t = volume.type();
			int w = volume.width(), h = volume.height(), d = volume.depth();
			long planeBytes = (long) volume.planeSize() * t.bytesPerPixel();
			boolean xy = kx != null || ky != null;
			try (GaussianBlurKernels k = new GaussianBlurKernels(s, t, w, h, kx, ky);
				DeviceBuffer a = s.alloc(planeBytes * d); DeviceBuffer b = s.alloc(planeBytes * d);
				DeviceBuffer tmp = xy && k.needsTemp() ? s.alloc(4L * volume.planeSize()) : null)
			{
				Object[] planes = new Object[d];
				for (int z = 0; z < d; z++)
					planes[z] = volume.plane(z);
				s.uploadAll(planes, volume.planeSize(), a.ptr());
				DeviceBuffer cur = a, other = b;
				if (xy) {
					if (t == PixelType.RGB) s.copy(a.ptr(), b.ptr(), planeBytes * d);
					Region all = Region.all(w, h);
					for (int z = 0; z < d; z++)
						k.blurXY(a.at(z * planeBytes), b.at(z * planeBytes), tmp, all);
					cur = b;
					other = a;
				}
				if (kz != null) {
					if (t == PixelType.RGB) s.copy(cur.ptr(), other.ptr(), planeBytes * d);
					k.blurZ(cur.ptr(), other.ptr(), d, kz);
					DeviceBuffer x = cur;
					cur = other;
					other = x;
				}
				try {
					s.downloadAll(cur.ptr(), planes, volume.planeSize());
				} catch (RuntimeException | Error e) {
					touched[0] = s.downloadTouched(); // Java's memory too, in the host copies
					throw e;
				}
				touched[1] = 1;
				return null;
			}
		});
	}
}
