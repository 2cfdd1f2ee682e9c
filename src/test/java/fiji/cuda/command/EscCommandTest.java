package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.ij.RecordingBar;
import ij.IJ;
import ij.ImagePlus;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandModule;

/**
 * Canceling a SciJava command. Box Statistics shares its menu command's progress bar, and so
 * its Esc: Esc after the first slice gave a null result and no word of a cancel. SciJava itself
 * cancels a run by interrupting its thread: Gaussian Blur then stopped between planes and said
 * nothing of the planes it had changed.
 */
class EscCommandTest extends HeadlessCommands {

	@Test
	void escCancelsBoxStatisticsWithAReasonInsteadOfANullResult() throws Exception {
		ImagePlus imp = IJ.createImage("cells", "32-bit ramp", 40, 30, 3);
		CommandModule m;
		// on the CPU, slice by slice: a GPU does these three planes in one batch, before any Esc
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try (RecordingBar bar = RecordingBar.escAfter(1)) {
			m = commands.run(BoxStatisticsCommand.class, true, "image", imp, "radius", 2).get();
			assertTrue(bar.cleared(), "bar: " + bar.shown);
		} finally {
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
		assertTrue(m.isCanceled(), "ran to a null result");
		assertEquals("GPU Box Statistics: canceled.", m.getCancelReason());
		assertNull(m.getOutput("result"));
	}

	@Test
	void anInterruptedGaussianBlurSaysTheImageIsUnchanged() throws Exception {
		ImagePlus imp = IJ.createImage("cells", "16-bit ramp", 40, 30, 3);
		short[] before = ((short[]) imp.getStack().getPixels(1)).clone();
		org.scijava.module.ModuleService modules = context.service(org.scijava.module.ModuleService.class);
		org.scijava.module.Module m = modules.createModule(commands.getCommand(GaussianBlurCommand.class));
		m.setInput("image", imp);
		m.setInput("sigma", 2.0);
		m.setInput("stack", true);
		// on the CPU, which stops at an interrupt; a GPU blurs these planes before looking
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		Thread.currentThread().interrupt(); // as SciJava's cancel of the run's future, in this thread
		try {
			m.run();
		} finally {
			Thread.interrupted();
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
		CommandModule cm = (CommandModule) m;
		assertTrue(cm.isCanceled(), "ran as if complete");
		assertEquals("GPU Gaussian Blur: canceled; the image is unchanged.", cm.getCancelReason());
		assertArrayEquals(before, (short[]) imp.getStack().getPixels(1));
		assertFalse(imp.changes, "marked changed");
		assertEquals("GPU Gaussian Blur: canceled; slices 1-2 of 3 hold the result and the later ones are unchanged.",
			InPlace.canceled("GPU Gaussian Blur", 2, 3));
		assertEquals("GPU Gaussian Blur: canceled; slice 1 of 3 holds the result and the later ones are unchanged.",
			InPlace.canceled("GPU Gaussian Blur", 1, 3));
	}
}
