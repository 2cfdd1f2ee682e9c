package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.ij.ImagePlusPlanes;
import ij.IJ;
import ij.ImagePlus;

import org.junit.jupiter.api.Test;
import org.scijava.command.Command;
import org.scijava.command.CommandModule;

/**
 * A SciJava command given a bad value cancels with the menu command's message, naming the
 * command: the reasons read "Gaussian Blur: X sigma must be 0 (that axis is not blurred) or
 * more, not -1.0" of the 2D command's one sigma, "The radius must be at least 1, not 0." without
 * the command, and "Composite color images are not supported: ..." without what to do. Running
 * out of Java memory cancels too, with how much Java may use: it was a stack trace in the console.
 */
class CancelReasonsTest extends HeadlessCommands {

	/** Runs the command; it must cancel with exactly {@code reason} and leave the image unchanged. */
	private static void cancels(Class<? extends Command> c, ImagePlus imp, String reason, Object... inputs) throws Exception {
		Object before = ImagePlusPlanes.read(imp).copy().plane(0);
		CommandModule m = commands.run(c, true, inputs(new Object[] { "image", imp }, inputs)).get();
		assertTrue(m.isCanceled(), c.getSimpleName() + " ran");
		assertEquals(reason, m.getCancelReason());
		assertArrayEquals((byte[]) before, (byte[]) imp.getStack().getPixels(1), c.getSimpleName() + " changed the image");
	}

	private static ImagePlus image(int slices) {
		return IJ.createImage("cells", "8-bit ramp", 30, 20, slices);
	}

	@Test
	void eachCommandNamesItselfTheFieldTheKeyAndTheValue() throws Exception {
		cancels(GaussianBlurCommand.class, image(1),
			"GPU Gaussian Blur: Sigma (Radius) must be a finite number greater than 0, not sigma=-1.", "sigma", -1.0);
		cancels(GaussianBlurCommand.class, image(1),
			"GPU Gaussian Blur: Sigma (Radius) must be a finite number greater than 0, not sigma=0.", "sigma", 0.0);
		ImagePlus negative = image(1);
		negative.getCalibration().setUnit("mm");
		negative.getCalibration().pixelHeight = -2;
		cancels(GaussianBlurCommand.class, negative, "GPU Gaussian Blur: Sigma in mm (\"Scaled Units\") needs a pixel width "
			+ "and height above 0; this image's pixel height is -2 (Image>Properties...).", "sigma", 2.0, "scaled", true);
		cancels(GaussianBlur3DCommand.class, image(3), "GPU Gaussian Blur 3D: Y sigma must be at least 0, not y=-2.", "x",
			1.0, "y", -2.0, "z", 1.0);
		cancels(BoxStatisticsCommand.class, image(1),
			"GPU Box Statistics: Radius must be a whole number of at least 1, not radius=0.", "radius", 0);
		cancels(BoxStatisticsCommand.class, image(1), "GPU Box Statistics: Width and height must both be whole numbers of "
			+ "at least 1 (or both 0 for the square of the radius), not width=-5 height=0.", "width", -5);
		cancels(BoxStatisticsCommand.class, image(1),
			"GPU Box Statistics: Statistic must be Mean, Variance or [Standard deviation], not statistic=Median.", "statistic",
			"Median");
		cancels(LocalThresholdCommand.class, image(1),
			"GPU Local Threshold: Radius must be a whole number of at least 1, not radius=-3.", "radius", -3);
		cancels(LocalThresholdCommand.class, image(1),
			"GPU Local Threshold: Method must be Mean, Niblack, Sauvola or Phansalkar, not method=Otsu.", "method", "Otsu");
		cancels(TemplateMatchingCommand.class, image(1),
			"GPU Template Matching: Score threshold must be between -1 and 1, not score_threshold=50.", "template", image(1),
			"scoreThreshold", 50.0);
		// it said "at least 1" where the menu command says "a whole number of at least 1"
		cancels(TemplateMatchingCommand.class, image(1),
			"GPU Template Matching: Max objects must be a whole number of at least 1, not max_objects=0.", "template",
			image(1), "maxObjects", 0);
		cancels(AlignSlicesCommand.class, image(3),
			"GPU Align Slices: Reference slice must be a slice of the stack, 1 to 3, not reference=7.", "x", 2, "y", 2, "width",
			8, "height", 8, "reference", 7);
	}

	@Test
	void aCompositeTheBlur3DRefusesIsRefusedInTheMenuCommandsWords() throws Exception {
		ImagePlus composite = IJ.createImage("c", "8-bit composite-mode ramp", 20, 10, 3, 1, 1);
		cancels(GaussianBlur3DCommand.class, composite, "GPU Gaussian Blur 3D: Composite color images are not supported "
			+ "(their channels would be blurred into each other). Use Image>Color>Split Channels first.");
	}

	@Test
	void runningOutOfMemoryCancelsWithWhatToDoInsteadOfAStackTrace() throws Exception {
		GaussianBlur3DCommand.VolumeBlur saved = GaussianBlur3DCommand.volumeBlur;
		GaussianBlur3DCommand.volumeBlur = (v, x, y, z) -> {
			throw new OutOfMemoryError("Java heap space");
		};
		try {
			ImagePlus imp = image(4);
			CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", imp).get();
			assertTrue(m.isCanceled());
			assertTrue(m.getCancelReason().startsWith("GPU Gaussian Blur 3D: out of memory: the "), m.getCancelReason());
			assertTrue(m.getCancelReason().endsWith("Give ImageJ more (Edit>Options>Memory & Threads, or java -Xmx) or "
				+ "process smaller images."), m.getCancelReason());
		} finally {
			GaussianBlur3DCommand.volumeBlur = saved;
		}
	}
}
