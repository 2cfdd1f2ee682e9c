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
	void boxStatisticsTakesRadius2WhenLeftOutWhateverTheDialogLastHad() throws Exception {
		Display.required();
		// the dialog's remembered radius is for the next dialog only: a macro without radius= must
		// get 2 (a 5x5 window) in every session. A mutation test found that offering the macro the
		// dialog's last radius passed every test
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 1, 76);
		// as after the dialog was used with radius 7
		assertEquals(imp.getTitle() + " mean 5x5", titleAfterDialog(BoxStatisticsPlugin.class, "lastRadius", 7.0,
			new BoxStatisticsPlugin(), imp, "statistic=Mean"), "the dialog's last radius");
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
	void localThresholdTakesSauvolaRadius15AndDefaultParametersWhateverTheDialogLastHad() throws Exception {
		Display.required();
		// the dialog's remembered method, radius and parameters are for the next dialog only: a macro
		// that leaves them out must threshold as Sauvola over radius 15 with k and R at their
		// defaults in every session. A mutation test found that offering the macro the dialog's last
		// parameter_1 passed every test
		ImagePlus b = ImageJReference.noise("8-bit", 40, 30, 1, 77);
		Planes expected = LocalThreshold.threshold(ImagePlusPlanes.wrap(b).copy(), Method.SAUVOLA, 15, 0, 0, true,
			ExecutionOptions.defaults().withBackend(Backend.CPU));
		String[] names = { "lastMethod", "lastRadius", "lastP1", "lastP2" };
		Object[] dialog = { "Mean", 3.0, 20.0, 0.3 }, before = new Object[names.length];
		java.lang.reflect.Field[] fields = new java.lang.reflect.Field[names.length];
		for (int i = 0; i < names.length; i++) {
			fields[i] = LocalThresholdPlugin.class.getDeclaredField(names[i]);
			fields[i].setAccessible(true);
			before[i] = fields[i].get(null);
		}
		for (int i = 0; i < names.length; i++) {
			// each remembered value alone, as after a dialog that changed only it
			fields[i].set(null, dialog[i]);
			try {
				ImagePlus c = b.duplicate();
				String log = asMacro(new LocalThresholdPlugin(), c, "white");
				assertFalse(log.contains("GPU Local Threshold:"), log);
				assertArrayEquals((byte[]) expected.plane(0), (byte[]) c.getProcessor().getPixels(),
					"the dialog's last " + names[i] + " " + dialog[i] + " was taken");
			} finally {
				fields[i].set(null, before[i]);
			}
		}
	}

	@Test
	void localThresholdWithoutWhiteThresholdsBlackObjects() {
		Display.required();
		// white is a flag: left out, the objects are black (k of -0.2 for Niblack, the threshold's
		// other side for Mean), whatever the dialog's checkbox last had. A mutation test found that a
		// macro without white thresholding as with it passed every test
		for (Method m : new Method[] { Method.MEAN, Method.NIBLACK }) {
			ImagePlus imp = ImageJReference.noise("8-bit", 40, 30, 1, 80);
			Planes black = LocalThreshold.threshold(ImagePlusPlanes.wrap(imp).copy(), m, 3, 0, 0, false,
				ExecutionOptions.defaults().withBackend(Backend.CPU));
			Planes white = LocalThreshold.threshold(ImagePlusPlanes.wrap(imp).copy(), m, 3, 0, 0, true,
				ExecutionOptions.defaults().withBackend(Backend.CPU));
			assertFalse(java.util.Arrays.equals((byte[]) black.plane(0), (byte[]) white.plane(0)), m + ": the test image");
			String log = asMacro(new LocalThresholdPlugin(), imp, "method=" + m.label() + " radius=3 parameter_1=0 parameter_2=0");
			assertFalse(log.contains("GPU Local Threshold:"), log);
			assertArrayEquals((byte[]) black.plane(0), (byte[]) imp.getProcessor().getPixels(), m + " without white");
		}
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
	void gaussianBlur3DTakesSigma2ForAnAxisLeftOutWhateverTheDialogLastHad() throws Exception {
		Display.required();
		// the dialog's remembered sigmas are for the next dialog only: a macro that leaves out x=
		// or y= must blur that axis with sigma 2 in every session, as one without z= does. A
		// mutation test found that offering the macro the dialog's last y passed every test
		String[] names = { "lastX", "lastY", "lastZ" }, given = { "y=1 z=1", "x=1 z=1", "x=1 y=1" };
		double[][] sigmas = { { 2, 1, 1 }, { 1, 2, 1 }, { 1, 1, 2 } };
		for (int i = 0; i < 3; i++) {
			java.lang.reflect.Field last = GaussianBlur3DPlugin.class.getDeclaredField(names[i]);
			last.setAccessible(true);
			Object before = last.get(null);
			last.set(null, 5.0); // as after the dialog was used with that sigma 5
			try {
				ImagePlus imp = ImageJReference.noise("16-bit", 20, 16, 8, 81), expected = imp.duplicate();
				GaussianBlur3DPlugin.blur(expected, sigmas[i][0], sigmas[i][1], sigmas[i][2]);
				String log = asMacro(new GaussianBlur3DPlugin(), imp, given[i]);
				assertFalse(log.contains("GPU Gaussian Blur 3D:"), log);
				for (int z = 1; z <= 8; z++)
					assertArrayEquals((short[]) expected.getStack().getPixels(z), (short[]) imp.getStack().getPixels(z),
						given[i] + ", slice " + z + ": the dialog's last " + names[i] + " was taken");
			} finally {
				last.set(null, before);
			}
		}
	}

	@Test
	void integralImageTakesTheSumWhenTheTableIsLeftOutWhateverTheDialogLastHad() throws Exception {
		Display.required();
		// as for Box Statistics' radius: the dialog's last table is for the next dialog only. A
		// mutation test found that offering the macro the dialog's last table passed every test
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 1, 82);
		// as after the dialog was used with Both
		assertEquals(imp.getTitle() + " sum table", titleAfterDialog(IntegralImagePlugin.class, "lastTable", "Both",
			new IntegralImagePlugin(), imp, "stack"), "the dialog's last table");
	}

	@Test
	void aMacroLeavesTheValuesTheNextDialogOffers() throws Exception {
		Display.required();
		// the dialogs offer what the user last chose in them; a macro's values are its own, as
		// ImageJ's Gaussian Blur keeps them apart (ImageJ's Gaussian Blur 3D keeps a macro's, and
		// its dialog after a batch offers the batch's last sigmas). A mutation test found that a
		// macro setting the remembered sigmas of either blur passed every test
		String[] names = { "lastX", "lastY", "lastZ" };
		java.lang.reflect.Field[] fields = new java.lang.reflect.Field[3];
		Object[] before = new Object[3];
		for (int i = 0; i < 3; i++) {
			fields[i] = GaussianBlur3DPlugin.class.getDeclaredField(names[i]);
			fields[i].setAccessible(true);
			before[i] = fields[i].get(null);
		}
		String log = asMacro(new GaussianBlur3DPlugin(), ImageJReference.noise("16-bit", 20, 16, 4, 83), "x=0.5 y=0.75 z=3");
		assertFalse(log.contains("GPU Gaussian Blur 3D:"), log);
		for (int i = 0; i < 3; i++)
			assertEquals(before[i], fields[i].get(null), "Gaussian Blur 3D's " + names[i] + " after a macro");
		java.lang.reflect.Field sigma = GaussianBlurPlugin.class.getDeclaredField("lastSigma");
		sigma.setAccessible(true);
		Object sigmaBefore = sigma.get(null);
		log = asMacro(arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), "GPU Gaussian Blur...", arg),
			ImageJReference.noise("32-bit", 30, 20, 1, 84), "sigma=4.5");
		assertFalse(log.contains("GPU Gaussian Blur:"), log);
		assertEquals(sigmaBefore, sigma.get(null), "Gaussian Blur's lastSigma after a macro");
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
	/**
	 * @return the title of the image {@code command} makes of {@code imp} from a macro's
	 *         {@code options} while the static {@code field} of {@code cls}, what its dialog last
	 *         had, holds {@code value}; the field is put back after
	 */
	private static String titleAfterDialog(Class<?> cls, String field, Object value, PlugIn command, ImagePlus imp, String options)
		throws ReflectiveOperationException
	{
		java.lang.reflect.Field last = cls.getDeclaredField(field);
		last.setAccessible(true);
		Object before = last.get(null);
		last.set(null, value);
		try {
			ImagePlus got = result(command, imp, options);
			got.close();
			return got.getTitle();
		} finally {
			last.set(null, before);
		}
	}

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
