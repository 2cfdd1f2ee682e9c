package fiji.cuda.gaussian;

import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.ExecutionOptions;

/** The multithreaded CPU path. TODO(helper): implement. */
final class GaussianBlurCpu {

	private GaussianBlurCpu() {}

	static int blur2D(Planes image, int from, int to, GaussianKernel kx, GaussianKernel ky, Region rect,
		ExecutionOptions opts)
	{
		throw new UnsupportedOperationException("TODO");
	}

	static void blur3D(Planes volume, GaussianKernel kx, GaussianKernel ky, GaussianKernel kz, ExecutionOptions opts) {
		throw new UnsupportedOperationException("TODO");
	}
}
