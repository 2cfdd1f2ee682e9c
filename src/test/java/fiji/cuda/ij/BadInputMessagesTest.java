package fiji.cuda.ij;

import static fiji.cuda.ij.LocalThresholdPluginTest.asMacro;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.ImagePlus;
import ij.gui.GenericDialog;
import ij.plugin.PlugIn;

import java.awt.TextField;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every command, run as a macro runs it, given a bad value: one Log line that names the
 * command, the parameter by its dialog label and its macro key, and the value as a person
 * writes it, in the same words for the same problem in every command; the image unchanged and
 * no stack trace. The messages said "Sigma must be a number of at least 0, not -1.0", "The
 * sigmas must be numbers of at least 0, not -1.0" (which one?), "'abc' is not a number
 * (score_threshold)", "'2.5' is not a whole number (x)", and for radius=0 "The radius must be at
 * least 1, not 0" in one command and "... a whole number of at least 1, not 0.0" in the other.
 */
class BadInputMessagesTest {

	@BeforeAll
	static void display() {
		Display.required();
	}

	/**
	 * Runs the command as a macro on a copy of {@code imp}, and checks its Log: exactly
	 * "COMMAND: expected" and nothing of a stack trace, and the image unchanged.
	 */
	private static void refused(String command, PlugIn plugin, ImagePlus imp, String options, String expected) {
		ImagePlus before = imp.duplicate();
		String log = asMacro(plugin, imp, options).trim();
		assertEquals(command + ": " + expected, log, options);
		assertFalse(log.contains("Exception") || log.contains("\tat "), log);
		assertTrue(ImageJReference.samePixels(before, imp), command + " " + options + ": the image was changed");
	}

	private static ImagePlus noise(String type, int slices) {
		return ImageJReference.noise(type, 30, 20, slices, 91);
	}

	private static PlugIn blur2D() {
		return arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), "GPU Gaussian Blur...", arg);
	}

	@Test
	void gaussianBlur() {
		String c = GaussianBlurPlugin.COMMAND;
		refused(c, blur2D(), noise("8-bit", 1), "sigma=-1", "Sigma (Radius) must be at least 0, not sigma=-1.");
		refused(c, blur2D(), noise("8-bit", 1), "sigma=-0.0000123456789",
			"Sigma (Radius) must be at least 0, not sigma=-0.0000123456789.");
		refused(c, blur2D(), noise("16-bit", 1), "sigma=abc", "Sigma (Radius) must be a number, not sigma=abc.");
		refused(c, blur2D(), noise("32-bit", 1), "sigma=Infinity", "Sigma (Radius) must be a finite number, not sigma=infinity.");
		// the key as the macro wrote it: ImageJ's old "radius" (2.5 sigma), which is read as sigma
		refused(c, blur2D(), noise("8-bit", 1), "radius=-5", "Sigma (Radius) must be at least 0, not radius=-5.");
		refused(c, blur2D(), noise("8-bit", 1), "radius=five", "Sigma (Radius) must be a number, not radius=five.");
	}

	@Test
	void gaussianBlur3DNamesTheSigmaThatIsWrong() {
		String c = GaussianBlur3DPlugin.COMMAND;
		refused(c, new GaussianBlur3DPlugin(), noise("8-bit", 4), "x=1 y=1 z=-2", "Z sigma must be at least 0, not z=-2.");
		refused(c, new GaussianBlur3DPlugin(), noise("8-bit", 4), "x=1 y=abc z=1", "Y sigma must be a number, not y=abc.");
	}

	@Test
	void boxStatistics() {
		String c = BoxStatisticsPlugin.COMMAND;
		refused(c, new BoxStatisticsPlugin(), noise("8-bit", 1), "radius=0 statistic=Mean",
			"Radius must be a whole number of at least 1, not radius=0.");
		refused(c, new BoxStatisticsPlugin(), noise("8-bit", 1), "radius=2.5 statistic=Mean",
			"Radius must be a whole number of at least 1, not radius=2.5.");
		refused(c, new BoxStatisticsPlugin(), noise("8-bit", 1), "radius=2 statistic=Median",
			"Statistic must be Mean, Variance or [Standard deviation], not statistic=Median.");
		refused(c, new BoxStatisticsPlugin(), noise("8-bit", 1), "radius=2 width=-1 height=3",
			"Width and height must both be whole numbers of at least 1 (or both 0 for the square of the radius), "
				+ "not width=-1 height=3.");
		refused(c, new BoxStatisticsPlugin(), noise("RGB", 1), "radius=2",
			"RGB images are not supported. Convert to 8-bit (Image>Type>8-bit) or split the channels "
				+ "(Image>Color>Split Channels) first.");
	}

	@Test
	void localThresholdSaysWhatBoxStatisticsSaysOfTheSameRadius() {
		String c = LocalThresholdPlugin.COMMAND;
		refused(c, new LocalThresholdPlugin(), noise("8-bit", 1), "method=Mean radius=0",
			"Radius must be a whole number of at least 1, not radius=0.");
		// it showed -2147483648, the radius cut to an int, not the one given
		refused(c, new LocalThresholdPlugin(), noise("8-bit", 1), "method=Mean radius=-1e12",
			"Radius must be a whole number of at least 1, not radius=-1000000000000.");
		// it thresholded over radius 2, the fraction cut off (as Box Statistics refuses it)
		refused(c, new LocalThresholdPlugin(), noise("8-bit", 1), "method=Mean radius=2.5",
			"Radius must be a whole number of at least 1, not radius=2.5.");
		// a 16 or 32-bit stack becomes 8-bit as a whole: without stack every slice was thresholded
		refused(c, new LocalThresholdPlugin(), noise("16-bit", 3), "method=Mean radius=3",
			"A 16-bit stack becomes 8-bit as a whole: check 'Stack' (the macro flag stack) to threshold every slice.");
		refused(c, new LocalThresholdPlugin(), noise("8-bit", 1), "method=Otsu radius=3",
			"Method must be Mean, Niblack, Sauvola or Phansalkar, not method=Otsu.");
		refused(c, new LocalThresholdPlugin(), noise("16-bit", 1), "method=Niblack radius=3 parameter_2=Infinity",
			"Parameter 2 must be a finite number, not parameter_2=infinity.");
		refused(c, new LocalThresholdPlugin(), noise("RGB", 1), "method=Mean radius=3",
			"RGB images are not supported. Convert to 8-bit (Image>Type>8-bit) or split the channels "
				+ "(Image>Color>Split Channels) first.");
	}

	@Test
	void integralImage() {
		refused(IntegralImagePlugin.COMMAND, new IntegralImagePlugin(), noise("8-bit", 1), "table=Sums",
			"Table must be Sum, [Sum of squares] or Both, not table=Sums.");
	}

	@Test
	void templateMatching() {
		ImagePlus image = noise("8-bit", 1), template = ImageJReference.noise("8-bit", 6, 5, 1, 92);
		ImagePlus rgb = ImageJReference.noise("RGB", 6, 5, 1, 93);
		image.setTitle("cells.tif");
		template.setTitle("cell.tif");
		rgb.setTitle("rgb cell.tif");
		image.show();
		template.show();
		rgb.show();
		try {
			String c = TemplateMatchingPlugin.COMMAND, with = "image=cells.tif template=cell.tif ";
			TemplateMatchingPlugin p = new TemplateMatchingPlugin();
			refused(c, p, image, with + "score_threshold=50",
				"Score threshold must be between -1 and 1, not score_threshold=50.");
			refused(c, p, image, with + "score_threshold=abc", "Score threshold must be a number, not score_threshold=abc.");
			// it said "not -2147483648", the value cut to an int
			refused(c, p, image, with + "max_objects=-1e12", "Max objects must be a whole number of at least 1, not max_objects=-1000000000000.");
			refused(c, p, image, with + "nms=2", "NMS (maximal overlap) must be between 0 and 1, not nms=2.");
			// ImageJ reads an unbracketed value up to the first space: only 0 was matched, silently
			refused(c, p, image, with + "angles=0 90 -90 stack",
				"Several angles must be in brackets: angles=[0 90 -90], not angles=0 90 -90 (only the first would be read).");
			refused(c, p, image, with + "angles=[0 ninety]",
				"Angles (degrees) must be numbers separated by spaces, not angles=[0 ninety] ('ninety' is not a number).");
			// it said "RGB images are not supported" of the 8-bit image
			refused(c, p, image, "image=cells.tif template=[rgb cell.tif]", "The template \"rgb cell.tif\" is RGB, which is "
				+ "not supported. Convert to 8-bit (Image>Type>8-bit) or split the channels (Image>Color>Split Channels) first.");
		} finally {
			for (ImagePlus i : new ImagePlus[] { image, template, rgb }) {
				i.changes = false;
				i.close();
			}
		}
	}

	@Test
	void alignSlices() {
		String c = AlignSlicesPlugin.COMMAND, landmark = " x=5 y=5 width=10 height=8";
		AlignSlicesPlugin p = new AlignSlicesPlugin();
		refused(c, p, noise("8-bit", 3), "reference=0" + landmark,
			"Reference slice must be a slice of the stack, 1 to 3, not reference=0.");
		refused(c, p, noise("8-bit", 3), "margin=-1" + landmark, "Margin must be at least 0 (pixels), not margin=-1.");
		refused(c, p, noise("8-bit", 3), "margin=2.5" + landmark, "Margin must be a whole number, not margin=2.5.");
		// it said "Margin must be a whole number, not margin=1e10."
		refused(c, p, noise("8-bit", 3), "margin=1e10" + landmark,
			"Margin must be a whole number from -2147483647 to 2147483647, not margin=1e10.");
		refused(c, p, noise("8-bit", 3), "x=abc y=5 width=10 height=8", "X must be a whole number, not x=abc.");
		refused(c, p, noise("8-bit", 3), "interpolation=Nearest" + landmark,
			"Interpolation must be Bilinear or Bicubic, not interpolation=Nearest.");
		refused(c, p, noise("RGB", 3), landmark.trim(), "RGB images are not supported. Convert to 8-bit (Image>Type>8-bit), "
			+ "or split the channels (Image>Color>Split Channels) and align one of them.");
	}

	@Test
	void gpuInfo() {
		String before = IjBridge.storedDeviceChoice();
		try {
			for (String[] c : new String[][] { { "use=Quantum", "Use must be Automatic, [CPU only] or a GPU such as [GPU 0], "
				+ "not use=Quantum." }, { "use=[GPU -1]", "Use must be Automatic, [CPU only] or a GPU such as [GPU 0], "
					+ "not use=[GPU -1]." } }) {
				String log = asMacro(new GpuInfoPlugin(), noise("8-bit", 1), c[0]);
				// after the device lines; it said "Device must be 'auto', 'cpu' or a GPU index, not '-1'"
				assertTrue(log.contains("\n" + GpuInfoPlugin.COMMAND + ": " + c[1] + "\n"), log);
			}
			assertEquals(before, IjBridge.storedDeviceChoice());
		} finally {
			IjBridge.storeDeviceChoice(before);
		}
	}

	@Test
	void aDialogFieldThatHoldsNoNumberIsNamed() {
		// the dialogs said "Please enter numbers." or "The radius, width and height must be numbers."
		GenericDialog gd = new GenericDialog("test");
		gd.addNumericField("Score_threshold:", 0.5, 2);
		gd.addNumericField("Max_objects:", 10, 0);
		((TextField) gd.getNumericFields().get(1)).setText(" ten ");
		Field threshold = new Field("Score threshold", "score_threshold"), max = new Field("Max objects", "max_objects");
		assertEquals(0.5, threshold.read(gd, 0));
		IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
			() -> max.read(gd, 1));
		assertEquals("Max objects must be a number, not max_objects=ten.", e.getMessage());
		gd.dispose();
	}
}
