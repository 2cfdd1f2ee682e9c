package fiji.cuda.gaussian;

import fiji.cuda.image.PixelType;

/**
 * ImageJ's 1D Gaussian kernel (ij.plugin.filter.GaussianBlur#makeGaussianKernel), as a
 * full symmetric tap array for both the CPU and the GPU paths.
 * TODO(helper): implement.
 */
public final class GaussianKernel {

	private GaussianKernel() {}

	/** @return ImageJ's accuracy for the type: 0.002 for 8-bit and RGB, 0.0002 otherwise */
	public static double defaultAccuracy(PixelType t) {
		return t == PixelType.UINT8 || t == PixelType.RGB ? 0.002 : 0.0002;
	}

	/**
	 * @param sigma      standard deviation in pixels, &gt; 0
	 * @param accuracy   ImageJ's kernel accuracy
	 * @param lineLength the length of the lines blurred (image width, height or depth)
	 * @return the kernel ImageJ would use
	 */
	public static GaussianKernel imagej(double sigma, double accuracy, int lineLength) {
		throw new UnsupportedOperationException("TODO");
	}

	/** @return the largest offset with a weight: taps().length == 2*radius()+1 */
	public int radius() {
		throw new UnsupportedOperationException("TODO");
	}

	/** @return the 2*radius()+1 weights, centre at index radius() */
	public float[] taps() {
		throw new UnsupportedOperationException("TODO");
	}
}
