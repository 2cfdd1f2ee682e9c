package fiji.cuda.command;

import java.util.function.Supplier;

import fiji.cuda.ij.ImagePlusPlanes;
import ij.ImagePlus;

/** Checks of the image inputs, which SciJava fills itself before a command runs. */
final class Inputs {

	private Inputs() {}

	/**
	 * @param image an image input
	 * @param key   its name, for the message
	 * @throws IllegalArgumentException when there is no image with pixels: left out, or given as
	 *         something SciJava could not convert to an ImagePlus (an ImgLib2 image, a processor,
	 *         a file name), for which it logs an error and fills in an empty one
	 */
	static void requireImage(ImagePlus image, String key) {
		if (image == null || image.getProcessor() == null)
			throw new IllegalArgumentException("There is no image (" + key + "): give an ImageJ 1 image, an ImagePlus; "
				+ "an ImgLib2 image, an ImageProcessor or a file name is not converted to one.");
	}

	/**
	 * Runs work that reads images with them locked, as the menu commands hold them while they read:
	 * otherwise a command changing the pixels meanwhile (a blur started from a macro or another
	 * script) gives a result made of both states, with no word of it.
	 *
	 * @param image the image read
	 * @param other a second image read (a template), or null, or the same image
	 * @throws IllegalArgumentException when another command holds either image; both are left as they are
	 */
	static <T> T whileReading(ImagePlus image, ImagePlus other, Supplier<T> work) {
		Object[] r = new Object[1];
		ImagePlusPlanes.whileLocked(image, () -> {
			if (other == null || other == image) r[0] = work.get();
			else ImagePlusPlanes.whileLocked(other, () -> r[0] = work.get());
		});
		@SuppressWarnings("unchecked")
		T t = (T) r[0];
		return t;
	}
}
