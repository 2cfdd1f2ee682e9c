package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import ij.ImagePlus;
import ij.ImageStack;
import ij.plugin.filter.GaussianBlur;
import ij.process.ByteProcessor;
import ij.process.ColorProcessor;
import ij.process.ImageProcessor;

import java.util.Random;

/** Test images and ImageJ's own Gaussian blur, computed in this JVM, to compare against. */
final class ImageJReference {

	/** Edit &gt; Undo on {@code imp}, made the current image for the call as a window would be. */
	static void undo(ImagePlus imp) {
		ij.WindowManager.setTempCurrentImage(imp);
		try {
			ij.Undo.undo();
		} finally {
			ij.WindowManager.setTempCurrentImage(null);
		}
	}

	private ImageJReference() {}

	/** @return a stack of seeded noise of the given type: "8-bit", "16-bit", "32-bit" or "RGB" */
	static ImagePlus noise(String type, int w, int h, int slices, long seed) {
		Random rnd = new Random(seed);
		ImageStack stack = new ImageStack(w, h);
		for (int s = 0; s < slices; s++) {
			ImageProcessor ip;
			switch (type) {
				case "8-bit": ip = new ByteProcessor(w, h); break;
				case "16-bit": ip = new ij.process.ShortProcessor(w, h); break;
				case "32-bit": ip = new ij.process.FloatProcessor(w, h); break;
				case "RGB": ip = new ColorProcessor(w, h); break;
				default: throw new IllegalArgumentException(type);
			}
			for (int i = 0; i < w * h; i++) {
				// a ramp plus noise, so that edges and interior both matter
				double v = (i % w) * 2 + rnd.nextGaussian() * 30 + 60;
				switch (type) {
					case "8-bit": ip.set(i, clamp(v, 255)); break;
					case "16-bit": ip.set(i, clamp(v * 150, 65535)); break;
					case "32-bit": ip.setf(i, (float) (v * 0.37 - 20)); break;
					default: ip.set(i, (clamp(v, 255) << 16) | (clamp(255 - v, 255) << 8) | clamp(rnd.nextInt(256), 255));
				}
			}
			stack.addSlice("s" + (s + 1), ip);
		}
		return new ImagePlus(type + " noise", stack);
	}

	private static int clamp(double v, int max) {
		return (int) Math.max(0, Math.min(max, Math.round(v)));
	}

	/** ImageJ's "Gaussian Blur..." on one processor, inside its roi (with ImageJ's accuracy). */
	static void blur2D(ImageProcessor ip, double sigmaX, double sigmaY) {
		double acc = ip instanceof ByteProcessor || ip instanceof ColorProcessor ? 0.002 : 0.0002;
		new GaussianBlur().blurGaussian(ip, sigmaX, sigmaY, acc);
	}

	/** ImageJ's "Gaussian Blur..." with "stack": every slice. */
	static void blur2DStack(ImagePlus imp, double sigma) {
		for (int i = 1; i <= imp.getStackSize(); i++)
			blur2D(imp.getStack().getProcessor(i), sigma, sigma);
	}

	/**
	 * Compares two images pixel by pixel: integer types (RGB per channel) within 1, as the
	 * rounding of equal sums may differ in the last bit; float within 1e-3 + 1e-4 relative.
	 */
	static void assertClose(ImagePlus expected, ImagePlus actual, String what) {
		assertEquals(expected.getBitDepth(), actual.getBitDepth(), what + ": type");
		assertEquals(expected.getStackSize(), actual.getStackSize(), what + ": slices");
		assertEquals(expected.getWidth(), actual.getWidth(), what + ": width");
		assertEquals(expected.getHeight(), actual.getHeight(), what + ": height");
		for (int s = 1; s <= expected.getStackSize(); s++) {
			ImageProcessor e = expected.getStack().getProcessor(s), a = actual.getStack().getProcessor(s);
			int w = e.getWidth();
			for (int i = 0; i < w * e.getHeight(); i++) {
				if (e instanceof ColorProcessor) {
					int pe = e.get(i), pa = a.get(i);
					for (int shift = 0; shift <= 16; shift += 8)
						if (Math.abs(((pe >> shift) & 255) - ((pa >> shift) & 255)) > 1)
							fail(String.format("%s: slice %d pixel (%d,%d): expected %06x, got %06x", what, s, i % w, i / w,
								pe & 0xffffff, pa & 0xffffff));
				} else {
					double ve = e.getf(i), va = a.getf(i);
					double tol = e instanceof ij.process.FloatProcessor ? 1e-3 + 1e-4 * Math.abs(ve) : 1;
					if (!(Math.abs(ve - va) <= tol))
						fail(String.format("%s: slice %d pixel (%d,%d): expected %s, got %s", what, s, i % w, i / w, ve, va));
				}
			}
		}
	}

	/** @return true when the two images hold exactly the same pixels */
	static boolean samePixels(ImagePlus a, ImagePlus b) {
		if (a.getStackSize() != b.getStackSize()) return false;
		for (int s = 1; s <= a.getStackSize(); s++) {
			ImageProcessor pa = a.getStack().getProcessor(s), pb = b.getStack().getProcessor(s);
			for (int i = 0; i < pa.getPixelCount(); i++)
				if (pa.get(i) != pb.get(i)) return false; // get() is the raw bits, float included
		}
		return true;
	}
}
