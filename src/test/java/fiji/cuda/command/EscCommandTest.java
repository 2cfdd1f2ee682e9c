package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.ij.RecordingBar;
import ij.IJ;
import ij.ImagePlus;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandModule;

/**
 * The SciJava command that shares its menu command's progress bar, and so its Esc: Box
 * Statistics. Esc after the first slice gave a null result and no word of a cancel.
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
}
