package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;

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
		NoJCudaTest.runOnTheCpu(classPath(), "CUDA_VISIBLE_DEVICES=", "no CUDA device found");
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
