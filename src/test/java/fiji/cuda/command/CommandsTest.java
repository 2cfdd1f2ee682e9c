package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.ExecutionOptions;
import ij.IJ;
import ij.ImagePlus;
import ij.gui.OvalRoi;

import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandInfo;
import org.scijava.command.CommandModule;

/**
 * The SciJava commands in a plain headless context: each must change the image exactly as
 * the facade does on a copy, report bad input as a cancel reason, and add no menu entry.
 */
class CommandsTest extends HeadlessCommands {

	private static ImagePlus noise(String type, int w, int h, int slices, long seed) {
		ImagePlus imp = IJ.createImage("n", type + " black", w, h, slices);
		Random rnd = new Random(seed);
		for (int s = 1; s <= slices; s++)
			for (int i = 0; i < w * h; i++)
				imp.getStack().getProcessor(s).setf(i, (float) (100 + 40 * rnd.nextGaussian()));
		return imp;
	}

	@Test
	void everyCommandCancelsWithoutAnImageItCanUse() throws Exception {
		// SciJava fills an image it cannot convert (an ImgLib2 image, a file name) with an empty
		// ImagePlus: the blurs failed with a NullPointerException, Box Statistics said "radius 0",
		// Integral Image "Stack argument out of range", Align Slices "a single slice"
		Object[][] runs = { { GaussianBlurCommand.class, "GPU Gaussian Blur" },
			{ GaussianBlur3DCommand.class, "GPU Gaussian Blur 3D" }, { BoxStatisticsCommand.class, "GPU Box Statistics" },
			{ IntegralImageCommand.class, "GPU Integral Image" }, { LocalThresholdCommand.class, "GPU Local Threshold" },
			{ TemplateMatchingCommand.class, "GPU Template Matching" },
			{ AlignSlicesCommand.class, "GPU Align Slices" } };
		String why = ": There is no image (image): give an ImageJ 1 image, an ImagePlus; an ImgLib2 image, an "
			+ "ImageProcessor or a file name is not converted to one.";
		for (Object[] r : runs)
			for (Object image : new Object[] { new ImagePlus(), net.imglib2.img.array.ArrayImgs.unsignedBytes(10, 10) }) {
				@SuppressWarnings("unchecked")
				Class<? extends org.scijava.command.Command> c = (Class<? extends org.scijava.command.Command>) r[0];
				CommandModule m = c == TemplateMatchingCommand.class
					? commands.run(c, true, "image", image, "template", noise("8-bit", 3, 3, 1, 9)).get()
					: commands.run(c, true, "image", image).get();
				assertTrue(m.isCanceled(), r[1] + " ran on " + image);
				assertEquals(r[1] + why, m.getCancelReason());
			}
		// and the template, as the image
		ImagePlus image = noise("8-bit", 20, 20, 1, 10);
		CommandModule m = commands.run(TemplateMatchingCommand.class, true, "image", image, "template", new ImagePlus())
			.get();
		assertEquals("GPU Template Matching: There is no image (template): give an ImageJ 1 image, an ImagePlus; an ImgLib2 "
			+ "image, an ImageProcessor or a file name is not converted to one.", m.getCancelReason());
	}

	@Test
	void gaussianBlurCommandEqualsTheFacadeWithTheSelectionsMask() throws Exception {
		ImagePlus imp = noise("16-bit", 40, 30, 3, 1);
		imp.setRoi(new OvalRoi(5, 4, 25, 20));
		Planes expected = ij(imp).copy();
		Region oval = fiji.cuda.ij.ImagePlusPlanes.region(imp.getRoi());
		assertNotNull(oval.mask);
		GaussianBlur.blur2D(expected, 1.7, 1.7, oval, ExecutionOptions.defaults());
		CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", imp, "sigma", 1.7, "stack", true).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertSame(imp, m.getOutput("image"));
		assertSamePlanes(expected, ij(imp));
		assertTrue(imp.changes, "the blurred image is not marked as changed");
	}

	@Test
	void scaledSigmaIsInPixelsOnAnImageWithoutUnitsAsInTheMenuCommand() throws Exception {
		// the command divided by the pixel width although the unit was "pixel"
		ImagePlus imp = noise("32-bit", 30, 20, 1, 3);
		imp.getCalibration().pixelWidth = 2;
		imp.getCalibration().pixelHeight = 4;
		Planes expected = ij(imp).copy();
		GaussianBlur.blur2D(expected, 1.5, 1.5, null, ExecutionOptions.defaults());
		CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", imp, "sigma", 1.5, "scaled", true).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertSamePlanes(expected, ij(imp));

		ImagePlus um = noise("32-bit", 30, 20, 1, 3);
		um.getCalibration().pixelWidth = 2;
		um.getCalibration().pixelHeight = 4;
		um.getCalibration().setUnit("um");
		Planes inUnits = ij(um).copy();
		GaussianBlur.blur2D(inUnits, 0.75, 0.375, null, ExecutionOptions.defaults());
		commands.run(GaussianBlurCommand.class, true, "image", um, "sigma", 1.5, "scaled", true).get();
		assertSamePlanes(inUnits, ij(um));
	}

	@Test
	void gaussianBlurCommandWithoutStackDoesTheCurrentSliceOnly() throws Exception {
		ImagePlus imp = noise("8-bit", 20, 20, 3, 2);
		imp.setSlice(2);
		Planes before = ij(imp).copy();
		Planes expected = ij(imp).copy();
		GaussianBlur.blur2D(expected.range(1, 2), 2, 2, null, ExecutionOptions.defaults());
		CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", imp, "sigma", 2.0, "stack", false).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertSamePlanes(expected, ij(imp));
		assertArrayEquals((byte[]) before.plane(0), (byte[]) ij(imp).plane(0));
	}

	@Test
	void gaussianBlurCommandDoesNotRememberStackOrScaledFromAnEarlierRun() throws Exception {
		// SciJava persisted them: after one run with stack=false and scaled=true, every later run
		// that left them out blurred only the current slice, with sigma divided by the pixel size
		ImagePlus first = noise("32-bit", 20, 16, 2, 6);
		first.getCalibration().setUnit("um");
		first.getCalibration().pixelWidth = first.getCalibration().pixelHeight = 0.5;
		CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", first, "sigma", 1.0, "stack", false,
			"scaled", true).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		ImagePlus imp = noise("32-bit", 20, 16, 3, 7);
		imp.getCalibration().setUnit("um");
		imp.getCalibration().pixelWidth = imp.getCalibration().pixelHeight = 0.5;
		Planes expected = ij(imp).copy();
		GaussianBlur.blur2D(expected, 1.0, 1.0, null, ExecutionOptions.defaults());
		m = commands.run(GaussianBlurCommand.class, true, "image", imp, "sigma", 1.0).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertSamePlanes(expected, ij(imp));
	}

	@Test
	void gaussianBlur3DCommandEqualsTheFacadePerVolume() throws Exception {
		ImagePlus imp = noise("32-bit", 24, 18, 2 * 4, 3);
		imp.setDimensions(2, 4, 1);
		imp.setOpenAsHyperStack(true);
		ImagePlus copy = imp.duplicate();
		for (Planes v : fiji.cuda.ij.ImagePlusPlanes.volumes(copy))
			GaussianBlur.blur3D(v, 1, 2, 1.5, ExecutionOptions.defaults());
		CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", imp, "x", 1.0, "y", 2.0, "z", 1.5)
			.get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertSamePlanes(ij(copy), ij(imp));
		assertTrue(imp.changes, "the blurred image is not marked as changed");
	}

	@Test
	void blur3DFailingOnALaterVolumeSaysWhichVolumesAreBlurred() throws Exception {
		ImagePlus imp = noise("16-bit", 12, 10, 2 * 3, 7);
		imp.setDimensions(2, 3, 1);
		imp.setOpenAsHyperStack(true);
		ImagePlus copy = imp.duplicate();
		List<Planes> expected = fiji.cuda.ij.ImagePlusPlanes.volumes(copy);
		GaussianBlur.blur3D(expected.get(0), 1, 1, 1, ExecutionOptions.defaults());
		// once a volume is blurred the selection goes, as after a run that ended (the blur took no
		// notice of it). A mutation test found that keeping it after a later volume failed passed every test
		imp.setRoi(new OvalRoi(2, 2, 6, 5));
		GaussianBlur3DCommand.VolumeBlur saved = GaussianBlur3DCommand.volumeBlur;
		int[] calls = { 0 };
		GaussianBlur3DCommand.volumeBlur = (v, x, y, z) -> {
			if (calls[0]++ == 1) throw new IllegalStateException("out of memory, say");
			saved.blur(v, x, y, z);
		};
		try {
			CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", imp, "x", 1.0, "y", 1.0, "z", 1.0)
				.get();
			assertTrue(m.isCanceled());
			assertTrue(m.getCancelReason().contains("volume 1 of 2 holds the result"), m.getCancelReason());
		} finally {
			GaussianBlur3DCommand.volumeBlur = saved;
		}
		assertSamePlanes(ij(copy), ij(imp));
		assertTrue(imp.changes, "the blurred volume is not marked as changed");
		assertEquals(null, imp.getRoi(), "the selection of a part-blurred image");
	}

	@Test
	void badInputCancelsWithTheReasonAndChangesNothing() throws Exception {
		ImagePlus imp = noise("8-bit", 10, 10, 1, 4);
		Planes before = ij(imp).copy();
		CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", imp, "sigma", -1.0).get();
		assertTrue(m.isCanceled());
		assertNotNull(m.getCancelReason());
		assertTrue(m.getCancelReason().contains("sigma"), m.getCancelReason());
		assertSamePlanes(before, ij(imp));
		assertFalse(imp.changes);
	}

	@Test
	void blur3DWithEverySigmaZeroChangesNothingAsImageJ() throws Exception {
		fiji.cuda.ij.Display.required(); // IJ.run of ImageJ's own commands needs their menus, so a display
		// ImageJ's Gaussian Blur 3D and the menu command leave the image as it is; the command cancelled
		ImagePlus imp = noise("16-bit", 12, 10, 4, 6);
		Planes before = ij(imp).copy();
		CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", imp, "x", 0.0, "y", 0.0, "z", 0.0)
			.get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertSamePlanes(before, ij(imp));
		assertFalse(imp.changes);
		ImagePlus ref = imp.duplicate();
		IJ.run(ref, "Gaussian Blur 3D...", "x=0 y=0 z=0");
		assertSamePlanes(ij(ref), ij(imp));
	}

	@Test
	void blur3DRemovesTheSelectionAsImageJ() throws Exception {
		fiji.cuda.ij.Display.required(); // IJ.run of ImageJ's own commands needs their menus, so a display
		// the command kept it, so a Measure or filter run next on the blurred stack took only the
		// selection, where after ImageJ's Gaussian Blur 3D and the menu command it takes the image
		for (double sigma : new double[] { 1, 0 }) {
			ImagePlus imp = noise("8-bit", 20, 16, 3, 13), ref = imp.duplicate();
			imp.setRoi(new ij.gui.Roi(3, 2, 8, 6));
			ref.setRoi(new ij.gui.Roi(3, 2, 8, 6));
			IJ.run(ref, "Gaussian Blur 3D...", "x=" + sigma + " y=" + sigma + " z=" + sigma);
			assertEquals(null, ref.getRoi(), "ImageJ keeps the selection after all");
			CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", imp, "x", sigma, "y", sigma, "z",
				sigma).get();
			assertFalse(m.isCanceled(), m.getCancelReason());
			assertEquals(null, imp.getRoi(), "sigma " + sigma);
		}
	}

	@Test
	void anInPlaceCommandOnASingleImageCanBeUndoneAsTheMenuCommands() throws Exception {
		fiji.cuda.ij.Display.required(); // IJ.run of ImageJ's own commands needs their menus, so a display
		// Edit>Undo after the command did nothing, or swapped in a snapshot left by an earlier filter
		Object[][] runs = { { GaussianBlurCommand.class, new Object[] { "sigma", 2.0 } },
			{ GaussianBlur3DCommand.class, new Object[] { "x", 1.0, "y", 1.0, "z", 1.0 } } };
		for (Object[] r : runs) {
			@SuppressWarnings("unchecked")
			Class<? extends org.scijava.command.Command> c = (Class<? extends org.scijava.command.Command>) r[0];
			ImagePlus single = noise("16-bit", 16, 12, 1, 11);
			Object[] in = inputs(new Object[] { "image", single }, (Object[]) r[1]);
			ij.WindowManager.setTempCurrentImage(single);
			try {
				IJ.run(single, "Add...", "value=9");
				Planes before = ij(single).copy();
				assertFalse(commands.run(c, true, in).get().isCanceled());
				assertFalse(java.util.Arrays.equals((short[]) before.plane(0), (short[]) ij(single).plane(0)));
				ij.Undo.undo();
				assertSamePlanes(before, ij(single));
			} finally {
				ij.WindowManager.setTempCurrentImage(null);
			}
		}
	}

	@Test
	void aRefusedStackRunLeavesEditUndoAbleToUndoAnEarlierFilter() throws Exception {
		fiji.cuda.ij.Display.required(); // IJ.run of ImageJ's own commands needs their menus, so a display
		// the stack commands reset Undo before their input was checked: after a refused run, Undo
		// no longer took back a one-slice filter run just before, which the menu commands leave to it
		Object[][] runs = { { GaussianBlurCommand.class, new Object[] { "sigma", 2.0 } },
			{ AlignSlicesCommand.class, new Object[] { "x", 2, "y", 2, "width", 8, "height", 8, "reference", 7 } } };
		for (Object[] r : runs) {
			@SuppressWarnings("unchecked")
			Class<? extends org.scijava.command.Command> c = (Class<? extends org.scijava.command.Command>) r[0];
			ImagePlus imp = noise("8-bit", 20, 16, 3, 12);
			imp.setSlice(3);
			Object[] in = inputs(new Object[] { "image", imp }, (Object[]) r[1]);
			ij.WindowManager.setTempCurrentImage(imp);
			try {
				byte[] before = ((byte[]) imp.getStack().getPixels(3)).clone();
				IJ.run(imp, "Add...", "value=9 slice");
				imp.setRoi(new ij.gui.Roi(40, 40, 5, 5)); // outside the image: the blur refuses it
				CommandModule m = commands.run(c, true, in).get();
				assertTrue(m.isCanceled(), c.getSimpleName() + " ran");
				imp.deleteRoi();
				ij.Undo.undo();
				assertArrayEquals(before, (byte[]) imp.getStack().getPixels(3), c.getSimpleName() + ": Edit>Undo");
			} finally {
				ij.WindowManager.setTempCurrentImage(null);
			}
		}
	}

	@Test
	void aRefusedOrCanceledSingleImageRunLeavesEditUndoAbleToUndoAnEarlierFilter() throws Exception {
		fiji.cuda.ij.Display.required(); // IJ.run of ImageJ's own commands needs their menus, so a display
		// the command took the image's snapshot before its input was checked: after a refused run,
		// Edit>Undo put back the pixels as they were, not as before the filter run just before
		for (boolean interrupted : new boolean[] { false, true }) {
			ImagePlus imp = noise("8-bit", 20, 16, 1, 13);
			ij.WindowManager.setTempCurrentImage(imp);
			try {
				byte[] before = ((byte[]) imp.getProcessor().getPixels()).clone();
				IJ.run(imp, "Add...", "value=9");
				byte[] added = ((byte[]) imp.getProcessor().getPixels()).clone();
				if (!interrupted) imp.setRoi(new ij.gui.Roi(40, 40, 5, 5)); // outside the image: the blur refuses it
				org.scijava.module.Module m = context.service(org.scijava.module.ModuleService.class)
					.createModule(commands.getCommand(GaussianBlurCommand.class));
				m.setInput("image", imp);
				m.setInput("sigma", 2.0);
				fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu"); // which stops at an interrupt
				if (interrupted) Thread.currentThread().interrupt();
				try {
					m.run();
				} finally {
					Thread.interrupted();
					fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
				}
				assertTrue(((CommandModule) m).isCanceled(), "ran");
				assertArrayEquals(added, (byte[]) imp.getProcessor().getPixels(), "the image changed");
				imp.deleteRoi();
				ij.Undo.undo();
				assertArrayEquals(before, (byte[]) imp.getProcessor().getPixels(), "Edit>Undo, interrupted " + interrupted);
			} finally {
				ij.WindowManager.setTempCurrentImage(null);
			}
		}
	}

	@Test
	void theBlurOffersNoSigmaItRefuses() throws Exception {
		Object min = commands.getCommand(GaussianBlurCommand.class).getInput("sigma").getMinimumValue();
		assertTrue(min == null || ((Number) min).doubleValue() > 0, "sigma's minimum is " + min);
		ImagePlus imp = noise("16-bit", 9, 7, 1, 5);
		Planes before = ij(imp).copy();
		CommandModule m = commands.run(GaussianBlurCommand.class, true, "image", imp, "sigma", 0.0).get();
		assertTrue(m.isCanceled());
		assertTrue(m.getCancelReason().contains("greater than 0"), m.getCancelReason());
		assertSamePlanes(before, ij(imp));
	}

	@Test
	void noCommandRemembersAnInputBetweenRuns() {
		// SciJava fills an input a run leaves out from the last run, across sessions too: a stale
		// Niblack k became a later Sauvola run's k, a stale flip added mirrored detections
		for (Class<? extends org.scijava.command.Command> c : java.util.List.of(GaussianBlurCommand.class,
			GaussianBlur3DCommand.class, IntegralImageCommand.class, BoxStatisticsCommand.class, LocalThresholdCommand.class,
			TemplateMatchingCommand.class, AlignSlicesCommand.class))
			for (org.scijava.module.ModuleItem<?> item : commands.getCommand(c.getName()).inputs())
				if (item.getType().isPrimitive() || item.getType() == String.class) // the settings; not the image or context
					assertFalse(item.isPersisted(), c.getSimpleName() + "." + item.getName() + " is remembered between runs");
	}

	@Test
	void anImageLockedByAnotherCommandIsLeftAloneWithAReason() throws Exception {
		// the in-place commands wrote pixels that a menu command was still working on
		ImagePlus imp = noise("8-bit", 20, 20, 3, 9);
		Thread other = new Thread(imp::lock);
		other.start();
		other.join();
		Planes before = ij(imp).copy();
		ImagePlus free = noise("8-bit", 5, 5, 1, 3);
		Object[][] runs = { { GaussianBlurCommand.class, new Object[] { "image", imp, "sigma", 2.0 } },
			{ GaussianBlur3DCommand.class, new Object[] { "image", imp, "x", 1.0, "y", 1.0, "z", 1.0 } },
			{ AlignSlicesCommand.class, new Object[] { "image", imp, "x", 2, "y", 2, "width", 8, "height", 8, "margin", 2 } },
			// the commands that only read it gave a result made of the pixels before and after
			{ BoxStatisticsCommand.class, new Object[] { "image", imp, "radius", 1, "statistic", "Mean" } },
			{ LocalThresholdCommand.class, new Object[] { "image", imp, "method", "Mean", "radius", 2 } },
			{ IntegralImageCommand.class, new Object[] { "image", imp } },
			{ TemplateMatchingCommand.class, new Object[] { "image", imp, "template", free } },
			{ TemplateMatchingCommand.class, new Object[] { "image", free, "template", imp } } };
		for (Object[] r : runs) {
			@SuppressWarnings("unchecked")
			Class<? extends org.scijava.command.Command> c = (Class<? extends org.scijava.command.Command>) r[0];
			CommandModule m = commands.run(c, true, (Object[]) r[1]).get();
			assertTrue(m.isCanceled(), c.getSimpleName());
			assertTrue(m.getCancelReason().contains("is in use by another command"), m.getCancelReason());
			assertSamePlanes(before, ij(imp));
		}
	}

	@Test
	void everyCommandIsHiddenFromFijisSearchBar() {
		// Fiji's search bar lists the visible commands: "GPU Gaussian Blur" stood beside the menu's
		// "GPU Gaussian Blur...", with another dialog and other defaults
		int found = 0;
		for (CommandInfo info : commands.getCommands())
			if (info.getClassName().startsWith("fiji.cuda.")) {
				found++;
				assertFalse(info.isVisible(), info.getClassName() + " is visible");
			}
		assertEquals(8, found, "the project's commands");
	}

	@Test
	void gpuInfoGivesAScriptWhatTheMenuCommandLists() throws Exception {
		// a headless script could not ask which device its operations would run on: GPU Info was
		// a menu command alone
		CommandModule m = commands.run(GpuInfoCommand.class, true).get();
		assertFalse(m.isCanceled(), m::getCancelReason);
		String info = (String) m.getOutput("info");
		// the same lines as the menu command's, but for the numbers that change from call to call on a
		// GPU (the free memory, the self-check's time)
		assertEquals(String.join("\n", fiji.cuda.ij.GpuInfoPlugin.lines()).replaceAll("[0-9.]+", "#"),
			info.replaceAll("[0-9.]+", "#"));
		assertTrue(info.startsWith("Setting: "), info);
		assertTrue(info.contains("\nOperations run on: "), info);
		assertTrue(info.contains("elf-check"), info);
	}

	@Test
	void commandsAddNoMenuEntries() {
		for (Class<?> c : new Class<?>[] { GaussianBlurCommand.class, GaussianBlur3DCommand.class, GpuInfoCommand.class }) {
			CommandInfo info = commands.getCommand(c.getName());
			assertNotNull(info, c + " is not discovered (annotation index missing?)");
			assertTrue(info.getMenuPath() == null || info.getMenuPath().isEmpty(), c + " has a menu path");
		}
	}

	private static Planes ij(ImagePlus imp) {
		return fiji.cuda.ij.ImagePlusPlanes.wrap(imp);
	}

	private static void assertSamePlanes(Planes expected, Planes actual) {
		assertEquals(expected.depth(), actual.depth());
		for (int z = 0; z < expected.depth(); z++) {
			Object e = expected.plane(z), a = actual.plane(z);
			if (e instanceof byte[]) assertArrayEquals((byte[]) e, (byte[]) a, "plane " + z);
			else if (e instanceof short[]) assertArrayEquals((short[]) e, (short[]) a, "plane " + z);
			else if (e instanceof float[]) assertArrayEquals((float[]) e, (float[]) a, "plane " + z);
			else assertArrayEquals((int[]) e, (int[]) a, "plane " + z);
		}
	}

	@Test
	void blur3DFailingBeforeItWroteKeepsTheSelection() throws Exception {
		// the selection was removed before the first volume, and stayed removed when its blur
		// failed with the image unchanged
		GaussianBlur3DCommand.VolumeBlur saved = GaussianBlur3DCommand.volumeBlur;
		GaussianBlur3DCommand.volumeBlur = (v, x, y, z) -> {
			throw new OutOfMemoryError("Java heap space");
		};
		try {
			for (int slices : new int[] { 1, 3 }) {
				ImagePlus imp = noise("8-bit", 20, 16, slices, 14);
				Planes before = ij(imp).copy();
				imp.setRoi(new OvalRoi(2, 3, 9, 7));
				CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", imp, "x", 1.0, "y", 1.0, "z", 1.0)
					.get();
				assertTrue(m.isCanceled(), "ran");
				assertSamePlanes(before, ij(imp));
				assertFalse(imp.changes, "marked changed");
				assertTrue(imp.getRoi() instanceof OvalRoi && imp.getRoi().getBounds().equals(new java.awt.Rectangle(2, 3, 9, 7)),
					"the selection is gone, " + slices + " slices");
			}
		} finally {
			GaussianBlur3DCommand.volumeBlur = saved;
		}
	}

	@Test
	void aBlurGivenOnlyTheImageTakesSigma2OnEverySlice() throws Exception {
		// the documented default, as the menu command's; a mutation test found that a default of 2.5 passed every test
		assertGivenOnlyTheImage(GaussianBlurCommand.class, noise("16-bit", 24, 18, 2, 15),
			p -> GaussianBlur.blur2D(p, 2, 2, null, ExecutionOptions.defaults()));
	}

	@Test
	void aBlur3DGivenOnlyTheImageTakesSigma2OnEachAxis() throws Exception {
		// the documented defaults, as the menu command's; a mutation test found that a default x or z
		// sigma of 1 passed every test
		assertGivenOnlyTheImage(GaussianBlur3DCommand.class, noise("32-bit", 20, 16, 6, 16),
			p -> GaussianBlur.blur3D(p, 2, 2, 2, ExecutionOptions.defaults()));
	}

	/** The in-place command given only the image leaves what {@code expected} makes of a copy. */
	private void assertGivenOnlyTheImage(Class<? extends org.scijava.command.Command> command, ImagePlus imp,
		java.util.function.Consumer<Planes> expected) throws Exception {
		Planes want = ij(imp).copy();
		expected.accept(want);
		CommandModule m = commands.run(command, true, "image", imp).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertSamePlanes(want, ij(imp));
	}

	@Test
	void blur3DAlongZAloneBlursTheStack() throws Exception {
		// x and y 0 with z above 0 blur across the slices only; a mutation test found that taking
		// x = y = 0 for "nothing to blur" (the image left as it was) passed every test
		ImagePlus imp = noise("32-bit", 20, 16, 6, 17);
		Planes before = ij(imp).copy(), expected = ij(imp).copy();
		GaussianBlur.blur3D(expected, 0, 0, 1.5, ExecutionOptions.defaults());
		CommandModule m = commands.run(GaussianBlur3DCommand.class, true, "image", imp, "x", 0.0, "y", 0.0, "z", 1.5)
			.get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertFalse(java.util.Arrays.equals((float[]) before.plane(2), (float[]) ij(imp).plane(2)), "slice 3 unchanged");
		assertSamePlanes(expected, ij(imp));
		assertTrue(imp.changes, "the blurred image is not marked as changed");
	}

	@Test
	void aOnePlaneRunThatFailedAfterWritingCanBeUndone() throws Exception {
		fiji.cuda.ij.Display.required(); // Edit>Undo as the user runs it, with a display, as the other Undo tests
		// the plane written before a GPU failure can be undone, as after a run that ended. A mutation
		// test found that resetting Undo there instead passed every test
		ImagePlus single = noise("16-bit", 16, 12, 1, 18);
		Planes before = ij(single).copy();
		GaussianBlur3DCommand.VolumeBlur saved = GaussianBlur3DCommand.volumeBlur;
		GaussianBlur3DCommand.volumeBlur = (v, x, y, z) -> {
			((short[]) v.plane(0))[0] = 7; // a pixel written, as the GPU path does before such a failure
			throw new fiji.cuda.runtime.GpuException("Gaussian Blur 3D: the GPU failed after writing plane 1 of 1");
		};
		ij.WindowManager.setTempCurrentImage(single);
		try {
			assertTrue(commands.run(GaussianBlur3DCommand.class, true, "image", single).get().isCanceled(), "ran");
			assertEquals(7, ((short[]) ij(single).plane(0))[0], "the pixel written");
			ij.Undo.undo();
			assertSamePlanes(before, ij(single));
		} finally {
			GaussianBlur3DCommand.volumeBlur = saved;
			ij.WindowManager.setTempCurrentImage(null);
		}
	}
}
