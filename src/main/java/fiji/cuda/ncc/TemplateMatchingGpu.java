package fiji.cuda.ncc;

import fiji.cuda.image.Planes;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuUnavailableException;

/**
 * The GPU path of {@link TemplateMatching}. Its kernels ({@code kernels/wip/template_matching.cu})
 * pass their standalone check on the H200 but have no host side yet, so this reports the GPU
 * unavailable and the facade takes the CPU path (with one log line on AUTO). Connected, this
 * method must return the same map as {@link TemplateMatchingCpu#match} to within 1e-4, with the
 * same flat-window and clamping rules.
 */
final class TemplateMatchingGpu {

	private TemplateMatchingGpu() {}

	/**
	 * Same contract as {@link TemplateMatchingCpu#match}; the input is already validated.
	 *
	 * @throws GpuUnavailableException always, for now
	 */
	static float[] match(Gpu gpu, Planes image, int plane, Planes template, int templatePlane, byte[] mask,
		boolean sameSize)
	{
		throw new GpuUnavailableException("GPU template matching is not connected yet");
	}
}
