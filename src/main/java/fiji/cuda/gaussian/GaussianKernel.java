package fiji.cuda.gaussian;

import fiji.cuda.image.PixelType;
import fiji.cuda.ops.Texts;

/**
 * ImageJ's 1D Gaussian kernel (ij.plugin.filter.GaussianBlur#makeGaussianKernel), bit for
 * bit, in two forms: ImageJ's own one-sided kernel with its running tail sums (which the CPU
 * path uses to repeat ImageJ's arithmetic exactly), and a full symmetric tap array for
 * a plain convolution with edge replication (the GPU path).
 * <p>
 * ImageJ's kernel has {@code kRadius} one-sided weights {@code k[0..kRadius-1]}; the weight of
 * everything beyond {@code k[kRadius-1]} (the "tail") is the last running sum. At an image
 * edge ImageJ multiplies the edge pixel by the running sum of all weights that fall outside
 * the line, tail included. Folding the tail into the two outermost taps gives the same sum
 * with clamped (replicated) indices, which matters when the kernel was clamped to the line
 * length: there ImageJ normalizes by {@code sigma*sqrt(2*pi)} and the tail is not negligible.
 * <p>
 * Unlike ImageJ, which downsamples for sigma above 8.5, callers always use this full kernel.
 * Instances are immutable.
 */
public final class GaussianKernel {

	private final double sigma;
	private final double accuracy;
	private final int lineLength;
	/** ImageJ's kernel[0]: k[0] is the centre weight, k[i] the weight at offset +-i. */
	private final float[] oneSided;
	/** ImageJ's kernel[1]: the sum of all weights beyond offset i (one side only). */
	private final float[] runningSums;
	/** 2*radius+1 weights, tail folded into both ends. */
	private final float[] taps;

	private GaussianKernel(double sigma, double accuracy, int lineLength, float[] oneSided, float[] runningSums) {
		this.sigma = sigma;
		this.accuracy = accuracy;
		this.lineLength = lineLength;
		this.oneSided = oneSided;
		this.runningSums = runningSums;
		int r = oneSided.length - 1;
		taps = new float[2 * r + 1];
		for (int i = 0; i <= r; i++) {
			taps[r + i] = oneSided[i];
			taps[r - i] = oneSided[i];
		}
		float tail = runningSums[r];
		taps[0] += tail;
		taps[2 * r] += tail; // radius() >= 1 always, so these are two distinct taps
	}

	/**
	 * ImageJ's Gaussian Blur picks its kernel's accuracy by pixel type; the same choice keeps
	 * the kernels, and so the results, identical to ImageJ's.
	 *
	 * @param t the image's pixel type
	 * @return ImageJ's accuracy for the type: 0.002 for 8-bit and RGB, 0.0002 otherwise
	 */
	public static double defaultAccuracy(PixelType t) {
		return t == PixelType.UINT8 || t == PixelType.RGB ? 0.002 : 0.0002;
	}

	/**
	 * Computes the kernel as ImageJ's {@code makeGaussianKernel(sigma, accuracy, lineLength)}
	 * does, with the same mix of float and double arithmetic, so that the weights are
	 * bit-identical to ImageJ's.
	 *
	 * @param sigma      standard deviation in pixels, &gt; 0
	 * @param accuracy   ImageJ's kernel accuracy, between 0 and 1 exclusive
	 * @param lineLength the length of the lines blurred (image width, height or depth)
	 * @return the kernel ImageJ would use
	 * @throws IllegalArgumentException for a sigma that is not a positive finite number, an
	 *         accuracy outside (0, 1), or a line length below 1
	 */
	public static GaussianKernel imagej(double sigma, double accuracy, int lineLength) {
		if (!(sigma > 0) || Double.isInfinite(sigma))
			throw new IllegalArgumentException("Gaussian sigma must be a positive finite number, not " + Texts.number(sigma) + ".");
		if (!(accuracy > 0 && accuracy < 1))
			throw new IllegalArgumentException("Gaussian kernel accuracy must be between 0 and 1, not " + Texts.number(accuracy) + ".");
		if (lineLength < 1)
			throw new IllegalArgumentException("Line length must be at least 1, not " + lineLength + ".");

		// Short lines still get at least 50 weights, else the clamped kernel's sum is poor.
		int maxRadius = Math.max(lineLength, 50);
		// The kernel radius can exceed int for absurd sigmas; the clamp below keeps it at maxRadius.
		double wanted = Math.ceil(sigma * Math.sqrt(-2 * Math.log(accuracy))) + 1;
		int kRadius = wanted >= maxRadius ? maxRadius : (int) wanted;
		float[] k = new float[kRadius];
		for (int i = 0; i < kRadius; i++)
			k[i] = (float) Math.exp(-0.5 * i * i / sigma / sigma);

		boolean clamped = kRadius >= maxRadius;
		if (!clamped && kRadius > 3) {
			// Replace the outer weights by a parabola reaching 0 at kRadius, with the smallest
			// slope that still touches the Gaussian, so the cut-off leaves no step.
			double sqrtSlope = Double.MAX_VALUE;
			int r = kRadius;
			while (r > kRadius / 2) {
				r--;
				double a = Math.sqrt(k[r]) / (kRadius - r);
				if (a < sqrtSlope) sqrtSlope = a;
				else break;
			}
			for (int j = r + 2; j < kRadius; j++) {
				int d = kRadius - j;
				k[j] = (float) (d * d * sqrtSlope * sqrtSlope);
			}
		}

		// A clamped kernel is normalized as the untruncated Gaussian; its missing weight ends
		// up in the running sums, and hence on the edge pixels.
		double sum;
		if (clamped) {
			sum = sigma * Math.sqrt(2 * Math.PI);
		} else {
			sum = k[0];
			for (int i = 1; i < kRadius; i++)
				sum += 2 * k[i];
		}

		float[] sums = new float[kRadius];
		double rest = 0.5 + 0.5 * k[0] / sum;
		for (int i = 0; i < kRadius; i++) {
			double v = k[i] / sum;
			k[i] = (float) v;
			rest -= v;
			sums[i] = (float) rest;
		}
		return new GaussianKernel(sigma, accuracy, lineLength, k, sums);
	}

	/** @return the standard deviation this kernel was made for */
	public double sigma() {
		return sigma;
	}

	/** @return the accuracy this kernel was made with */
	public double accuracy() {
		return accuracy;
	}

	/** @return the line length this kernel was made for */
	public int lineLength() {
		return lineLength;
	}

	/** @return the largest offset with a weight: taps().length == 2*radius()+1 */
	public int radius() {
		return oneSided.length - 1;
	}

	/**
	 * @return a copy of the 2*radius()+1 weights, centre at index radius(); ImageJ's tail
	 *         weight is added to the first and last tap, so with edge replication the
	 *         convolution equals ImageJ's
	 */
	public float[] taps() {
		return taps.clone();
	}

	/** @return a copy of ImageJ's one-sided kernel (its kernel[0]), length radius()+1 */
	public float[] oneSided() {
		return oneSided.clone();
	}

	/**
	 * @return a copy of ImageJ's running sums (its kernel[1]): element i is the weight of
	 *         all offsets beyond i on one side, including those outside the kernel
	 */
	public float[] runningSums() {
		return runningSums.clone();
	}

	/** The one-sided weights without a copy, for the CPU path's inner loops. */
	float[] oneSidedArray() {
		return oneSided;
	}

	/** The running sums without a copy, for the CPU path's inner loops. */
	float[] runningSumsArray() {
		return runningSums;
	}

	@Override
	public String toString() {
		return "GaussianKernel[sigma=" + sigma + ", accuracy=" + accuracy + ", radius=" + radius() + "]";
	}
}
