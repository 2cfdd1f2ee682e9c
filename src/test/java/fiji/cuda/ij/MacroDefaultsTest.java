package fiji.cuda.ij;

import static fiji.cuda.ij.LocalThresholdPluginTest.asMacro;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import fiji.cuda.image.Planes;
import fiji.cuda.integral.LocalThreshold;
import fiji.cuda.integral.LocalThreshold.Method;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import ij.ImagePlus;
import ij.WindowManager;
import ij.plugin.PlugIn;

import org.junit.jupiter.api.Test;

/**
 * A key that a macro leaves out takes the command's default, whatever an earlier call chose:
 * in a batch, the same {@code run(...)} line must do the same to every image. The dialog's
 * remembered values (kept, as ImageJ's filters keep them, for the next interactive use) were
 * also set by macro calls, so the second image of a batch got the first call's settings.
 */
class MacroDefaultsTest {

	@Test
	void boxStatisticsTakesRadius2AndMeanWhenLeftOut() {
		Display.required();
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 1, 71);
		ImagePlus first = result(new BoxStatisticsPlugin(), imp, "radius=9 statistic=Variance");
		assertEquals(imp.getTitle() + " variance 19x19", first.getTitle());
		first.close();
		// both keys left out (width=0 is the default too, to give the macro options)
		ImagePlus later = result(new BoxStatisticsPlugin(), imp, "width=0");
		assertEquals(imp.getTitle() + " mean 5x5", later.getTitle(), "the first call's radius and statistic");
		later.close();
	}

	@Test
	void integralImageTakesTheSumWhenTheTableIsLeftOut() {
		Display.required();
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 1, 72);
		result(new IntegralImagePlugin(), imp, "table=Both").close();
		ImagePlus later = result(new IntegralImagePlugin(), imp, "stack");
		assertEquals(imp.getTitle() + " sum table", later.getTitle(), "the first call's table");
		later.close();
	}

	@Test
	void localThresholdTakesSauvolaRadius15WhenLeftOut() {
		Display.required();
		ImagePlus a = ImageJReference.noise("8-bit", 40, 30, 1, 73), b = a.duplicate();
		Planes expected = LocalThreshold.threshold(ImagePlusPlanes.wrap(a).copy(), Method.SAUVOLA, 15, 0, 0, true,
			ExecutionOptions.defaults().withBackend(Backend.CPU));
		String log = asMacro(new LocalThresholdPlugin(), a, "method=Mean radius=3 parameter_1=20 parameter_2=0 white");
		assertFalse(log.contains("GPU Local Threshold:"), log);
		log = asMacro(new LocalThresholdPlugin(), b, "white");
		assertFalse(log.contains("GPU Local Threshold:"), log);
		assertArrayEquals((byte[]) expected.plane(0), (byte[]) b.getProcessor().getPixels(),
			"not Sauvola over radius 15: the first call's method, radius and parameter");
	}

	@Test
	void gaussianBlur3DTakesSigma2ForAnAxisLeftOut() {
		Display.required();
		ImagePlus a = ImageJReference.noise("16-bit", 20, 16, 8, 74), b = a.duplicate(), expected = a.duplicate();
		GaussianBlur3DPlugin.blur(expected, 1, 1, 2);
		String log = asMacro(new GaussianBlur3DPlugin(), a, "x=1 y=1 z=5");
		assertFalse(log.contains("GPU Gaussian Blur 3D:"), log);
		log = asMacro(new GaussianBlur3DPlugin(), b, "x=1 y=1");
		assertFalse(log.contains("GPU Gaussian Blur 3D:"), log);
		for (int z = 1; z <= 8; z++)
			assertArrayEquals((short[]) expected.getStack().getPixels(z), (short[]) b.getStack().getPixels(z),
				"slice " + z + ": not z=2, the first call's z sigma");
	}

	@Test
	void gaussianBlurTakesSigma2WhenLeftOutWhateverTheDialogLastHad() throws Exception {
		Display.required();
		// the dialog's last sigma (and ImageJ's Gaussian Blur's) made a macro without sigma= blur
		// differently from one session to the next
		ImagePlus imp = ImageJReference.noise("32-bit", 30, 20, 1, 75), expected = imp.duplicate();
		ImageJReference.blur2D(expected.getProcessor(), 2, 2);
		java.lang.reflect.Field last = GaussianBlurPlugin.class.getDeclaredField("lastSigma");
		last.setAccessible(true);
		last.set(null, 5.0); // as after the dialog was used with sigma 5
		try {
			String log = asMacro(arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(),
				"GPU Gaussian Blur...", arg), imp, "scaled");
			assertFalse(log.contains("GPU Gaussian Blur:"), log);
		} finally {
			last.set(null, 2.0);
		}
		ImageJReference.assertClose(expected, imp, "sigma left out");
	}

	/** @return the image the command made from {@code imp} with these macro options */
	private static ImagePlus result(PlugIn command, ImagePlus imp, String options) {
		ImagePlus[] shown = new ImagePlus[1];
		String log = asMacro(arg -> {
			command.run(arg);
			shown[0] = WindowManager.getCurrentImage();
		}, imp, options);
		assertFalse(log.contains("GPU "), log);
		assertNotNull(shown[0], "no result image");
		return shown[0];
	}
}
