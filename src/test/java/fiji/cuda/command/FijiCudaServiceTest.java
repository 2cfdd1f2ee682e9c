package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A context with every service, as Fiji starts one, applies the device stored by GPU Info
 * before any menu command has loaded: the ImgLib2 API ignored it.
 */
class FijiCudaServiceTest {

	/** In a JVM of its own: stores "CPU only", starts a context, builds a table, prints what ran. */
	public static void main(String[] args) {
		// "late": the context starts before ImageJ has read its preferences, which hold "CPU only"
		boolean late = args.length > 0 && args[0].equals("late");
		if (!late) ij.Prefs.set(fiji.cuda.ij.IjBridge.PREF_DEVICE, "cpu");
		org.scijava.Context context = new org.scijava.Context();
		try {
			if (late) {
				System.out.println("early=" + fiji.cuda.runtime.GpuSettings.deviceChoice());
				ij.Prefs.set(fiji.cuda.ij.IjBridge.PREF_DEVICE, "cpu");
				fiji.cuda.ij.IjBridge.init(); // what the first menu command's class does
			}
			System.out.println("choice=" + fiji.cuda.runtime.GpuSettings.deviceChoice());
		} finally {
			context.dispose();
		}
		System.exit(0);
	}

	@Test
	void aContextAppliesTheStoredDeviceChoice() throws Exception {
		assertTrue(run().contains("choice=cpu"));
		// started before ImageJ's preferences were read, it must not keep the menu commands from
		// reading them: the first would have taken "auto" for good
		String late = run("late");
		assertTrue(late.contains("early=auto") && late.contains("choice=cpu"), late);
	}

	private static String run(String... args) throws Exception {
		String exe = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(exe, "-Djava.awt.headless=true", "-cp",
			fiji.cuda.TestClassPath.get(), FijiCudaServiceTest.class.getName()));
		cmd.addAll(java.util.List.of(args));
		Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
		assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the JVM did not finish");
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertEquals(0, p.exitValue(), out);
		return out;
	}
}
