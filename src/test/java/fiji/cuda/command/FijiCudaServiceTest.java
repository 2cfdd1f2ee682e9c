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
		ij.Prefs.set(fiji.cuda.ij.IjBridge.PREF_DEVICE, "cpu");
		org.scijava.Context context = new org.scijava.Context();
		try {
			System.out.println("choice=" + fiji.cuda.runtime.GpuSettings.deviceChoice());
		} finally {
			context.dispose();
		}
		System.exit(0);
	}

	@Test
	void aContextAppliesTheStoredDeviceChoice() throws Exception {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		Process p = new ProcessBuilder(java, "-Djava.awt.headless=true", "-cp", fiji.cuda.TestClassPath.get(),
			FijiCudaServiceTest.class.getName()).redirectErrorStream(true).start();
		assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the JVM did not finish");
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertEquals(0, p.exitValue(), out);
		assertTrue(out.contains("choice=cpu"), out);
	}
}
