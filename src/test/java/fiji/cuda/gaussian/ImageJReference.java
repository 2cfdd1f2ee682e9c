package fiji.cuda.gaussian;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import ij.ImagePlus;
import ij.ImageStack;
import ij.gui.Roi;
import ij.plugin.GaussianBlur3D;
import ij.plugin.filter.GaussianBlur;
import ij.process.ByteProcessor;
import ij.process.ColorProcessor;
import ij.process.FloatProcessor;
import ij.process.ImageProcessor;
import ij.process.ShortProcessor;

import java.awt.Rectangle;

/** Runs ImageJ's own Gaussian blurs on {@link Planes}, in place, as the oracle for the tests. */
final class ImageJReference {

	private ImageJReference() {}

	/** @return an ImageJ processor sharing the plane array */
	static ImageProcessor processor(PixelType t, int w, int h, Object pixels) {
		switch (t) {
			case UINT8: return new ByteProcessor(w, h, (byte[]) pixels);
			case UINT16: return new ShortProcessor(w, h, (short[]) pixels, null);
			case FLOAT32: return new FloatProcessor(w, h, (float[]) pixels);
			default: return new ColorProcessor(w, h, (int[]) pixels);
		}
	}

	/**
	 * Blurs every plane as Process&gt;Filters&gt;Gaussian Blur does with a selection: the
	 * selection set, a snapshot, ImageJ's blurGaussian with its default accuracy, then
	 * (for non-rectangular selections) the pixels outside the mask reset, as
	 * PlugInFilterRunner does.
	 *
	 * @param roi a selection, or null for the whole image
	 */
	static void blur2D(Planes image, double sx, double sy, Roi roi) {
		double acc = GaussianKernel.defaultAccuracy(image.type());
		for (int z = 0; z < image.depth(); z++) {
			ImageProcessor ip = processor(image.type(), image.width(), image.height(), image.plane(z));
			if (roi != null) ip.setRoi(roi);
			ip.snapshot();
			new GaussianBlur().blurGaussian(ip, sx, sy, acc);
			if (ip.getMask() != null) ip.reset(ip.getMask());
		}
	}

	/**
	 * @return the selection as a region: its bounds and mask as they are, possibly reaching
	 *         outside the image, so that the facade's clipping is tested too
	 */
	static Region region(Roi roi) {
		Rectangle r = roi.getBounds();
		ImageProcessor mask = roi.getMask();
		return new Region(r.x, r.y, r.width, r.height, mask == null ? null : ((byte[]) mask.getPixels()).clone());
	}

	/** Blurs the planes as a plain (non-hyper) stack with Process&gt;Filters&gt;Gaussian Blur 3D. */
	static void blur3D(Planes volume, double sx, double sy, double sz) {
		ImageStack stack = new ImageStack(volume.width(), volume.height());
		for (int z = 0; z < volume.depth(); z++)
			stack.addSlice("", volume.plane(z));
		GaussianBlur3D.blur(new ImagePlus("reference", stack), sx, sy, sz);
	}
}
