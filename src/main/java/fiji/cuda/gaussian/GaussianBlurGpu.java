package fiji.cuda.gaussian;

import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Progress;
import fiji.cuda.runtime.Gpu;

/** The GPU path. TODO(lead): implement. */
final class GaussianBlurGpu {

	private GaussianBlurGpu() {}

	static int blur2D(Gpu gpu, Planes image, int from, int to, GaussianKernel kx, GaussianKernel ky, Region rect,
		Progress progress)
	{
		throw new fiji.cuda.runtime.GpuUnavailableException("GPU path not written yet");
	}

	static void blur3D(Gpu gpu, Planes volume, GaussianKernel kx, GaussianKernel ky, GaussianKernel kz) {
		throw new fiji.cuda.runtime.GpuUnavailableException("GPU path not written yet");
	}
}
