package fiji.cuda.command;

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
}
