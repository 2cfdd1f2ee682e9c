package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
		NoJCudaTest.runOnTheCpu(fiji.cuda.TestClassPath.get(), "CUDA_VISIBLE_DEVICES=", "no CUDA device found");
	}
}
