package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A driver without a device to use (a machine whose GPU is hidden or taken away, here through
 * CUDA_VISIBLE_DEVICES): the operations run on the CPU and say why. Needs a working driver,
 * hence the tag; the device is hidden from a child JVM only.
 */
@Tag("gpu")
class NoDeviceTest {

	@Test
	void withADriverButNoDeviceOperationsRunOnTheCpuAndSayWhy() throws Exception {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		ProcessBuilder pb = new ProcessBuilder(java, "-cp", classPath(), NoJCudaTest.class.getName())
			.redirectErrorStream(true);
		pb.environment().put("CUDA_VISIBLE_DEVICES", "");
		Process p = pb.start();
		assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the JVM did not finish");
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertEquals(0, p.exitValue(), out);
		assertTrue(out.contains("ran=CPU changed=true"), out);
		assertTrue(out.contains("why=no CUDA device found"), out);
		assertTrue(out.contains("available=false"), out);
		assertTrue(out.contains("selfcheck=Self-check failed"), out);
	}

	/** The JVM's class path, and the entries a launcher's own class loader added (the JUnit console's --class-path). */
	static String classPath() throws Exception {
		StringBuilder cp = new StringBuilder(System.getProperty("java.class.path"));
		ClassLoader cl = NoDeviceTest.class.getClassLoader();
		if (cl instanceof java.net.URLClassLoader)
			for (java.net.URL u : ((java.net.URLClassLoader) cl).getURLs())
				cp.append(File.pathSeparator).append(new File(u.toURI()).getPath());
		return cp.toString();
	}
}
