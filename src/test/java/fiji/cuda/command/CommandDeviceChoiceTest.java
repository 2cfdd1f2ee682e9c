package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.GpuSettings;
import ij.IJ;
import ij.ImagePlus;
import ij.Prefs;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.scijava.Context;
import org.scijava.command.CommandModule;
import org.scijava.command.CommandService;

/**
 * A script in Fiji that calls a blur command, or the operation on an image wrapped by
 * ImagePlusPlanes as the README shows, before any menu command must still honour the device
 * chosen in "GPU Info..." (kept in ImageJ's preferences), and say in ImageJ's Log why the CPU
 * ran. Both ignored the stored choice until a menu command of the plug-in had been used in
 * the session. Each case runs in a JVM of its own, as the choice is read once.
 */
class CommandDeviceChoiceTest {

	/** Stores "cpu" as GPU Info does, runs the blur named by args[0], prints the choice in effect. */
	public static void main(String[] args) throws Exception {
		Prefs.set("fiji.cuda.device", "cpu"); // what IjBridge.storeDeviceChoice keeps in IJ_Prefs.txt
		Context context = new Context(CommandService.class);
		try {
			ImagePlus imp = IJ.createImage("n", "32-bit ramp", 16, 12, 3);
			if (args[0].equals("script")) {
				// the README's script: the operation on the image's planes, no command at all
				GaussianBlur.blur2D(ImagePlusPlanes.wrap(imp), 2, 2, ImagePlusPlanes.region(imp.getRoi()),
					ExecutionOptions.defaults());
				System.out.println("canceled=false");
			} else {
				CommandModule m = args[0].equals("3d")
					? context.service(CommandService.class).run(GaussianBlur3DCommand.class, true, "image", imp).get()
					: context.service(CommandService.class).run(GaussianBlurCommand.class, true, "image", imp).get();
				System.out.println("canceled=" + m.isCanceled());
			}
			System.out.println("choice=" + GpuSettings.deviceChoice());
		} finally {
			context.dispose();
		}
		System.exit(0);
	}

	private static String run(String which) throws Exception {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		Process p = new ProcessBuilder(java, "-Djava.awt.headless=true",
			"-Djava.util.prefs.userRoot=" + System.getProperty("java.util.prefs.userRoot", "target/prefs"), "-cp",
			fiji.cuda.TestClassPath.get(), CommandDeviceChoiceTest.class.getName(), which).redirectErrorStream(true)
				.start();
		assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the JVM did not finish");
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertEquals(0, p.exitValue(), out);
		return out;
	}

	@Test
	void bothBlurCommandsAndTheReadmesScriptUseTheDeviceStoredByGpuInfo() throws Exception {
		for (String which : new String[] { "2d", "3d", "script" }) {
			String out = run(which);
			assertTrue(out.contains("canceled=false"), out);
			assertTrue(out.contains("choice=cpu"), which + ": " + out);
			// through IJ.log (standard output without an ImageJ window), not the stderr default
			assertTrue(out.lines().anyMatch(l -> l.startsWith("Gaussian Blur") && l.contains("ran on the CPU: ")),
				which + ": " + out);
		}
	}
}
