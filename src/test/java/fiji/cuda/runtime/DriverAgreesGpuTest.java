package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import jcuda.CudaException;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.JCudaDriver;

/**
 * The runtime's view of the device against the driver's own, asked through JCuda directly. The
 * other GPU tests skip themselves when {@link Gpu#isAvailable()} is false, so a runtime that
 * wrongly takes a supported device for unusable (a compute capability misread as too old) would
 * pass them all on the GPU machine: this one skips only when the driver itself has no device for
 * the shipped kernels.
 */
@Tag("gpu")
class DriverAgreesGpuTest {

	@Test
	void aDeviceTheDriverReportsSupportedIsUsedWithTheDriversComputeCapability() {
		int[] version = new int[1], count = new int[1];
		try {
			JCudaDriver.setExceptionsEnabled(true);
			JCudaDriver.cuInit(0);
			JCudaDriver.cuDriverGetVersion(version);
			JCudaDriver.cuDeviceGetCount(count);
		} catch (LinkageError | CudaException e) {
			assumeTrue(false, "no CUDA driver or device: " + Gpu.firstLine(e.toString()));
		}
		assumeTrue(version[0] >= Gpu.REQUIRED_DRIVER, "the driver supports CUDA " + Gpu.versionText(version[0]));
		// "auto" takes the first device the shipped kernels support, as Gpu.open does
		int chosen = -1, major = 0, minor = 0;
		for (int i = 0; i < count[0] && chosen < 0; i++) {
			CUdevice dev = new CUdevice();
			JCudaDriver.cuDeviceGet(dev, i);
			int[] ma = new int[1], mi = new int[1];
			JCudaDriver.cuDeviceGetAttribute(ma, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
			JCudaDriver.cuDeviceGetAttribute(mi, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
			if (ma[0] * 10 + mi[0] >= Gpu.MIN_COMPUTE_CAPABILITY) {
				chosen = i;
				major = ma[0];
				minor = mi[0];
			}
		}
		assumeTrue(chosen >= 0, count[0] + " CUDA devices, none of compute capability 7.5 or newer");

		int index = chosen;
		String old = System.getProperty(GpuSettings.PROPERTY);
		try {
			System.setProperty(GpuSettings.PROPERTY, "auto");
			assertTrue(Gpu.isAvailable(), () -> "the driver reports device " + index + " usable, but: " + reason());
			DeviceInfo info = Gpu.get().info();
			assertEquals(index, info.index);
			assertEquals(major, info.ccMajor);
			assertEquals(minor, info.ccMinor);
			assertEquals(major * 10 + minor, info.computeCapability());
		} finally {
			if (old == null) System.clearProperty(GpuSettings.PROPERTY);
			else System.setProperty(GpuSettings.PROPERTY, old);
		}
	}

	private static String reason() {
		try {
			Gpu.get();
			return "it is available now";
		} catch (GpuException e) {
			return e.getMessage();
		}
	}
}
