package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import fiji.cuda.TestImages;
import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import jcuda.driver.CUdeviceptr;

/**
 * A kernel fault, injected on purpose. It may leave the GPU unusable for the rest of the JVM
 * (CUDA does not promise in-process recovery), so it has its own tag and runs in its own JVM:
 * {@code .device/run test --include-tag gpu-fault}.
 */
@Tag("gpu-fault")
class GpuFaultTest {

	@Test
	void afterAKernelFaultOperationsStillGiveCorrectResults() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
		Gpu g = Gpu.get();
		GpuException e = assertThrows(GpuException.class, () -> g.run("Fault test", s -> {
			s.launch(s.function(SelfCheck.MODULE, "runtime_fault"), new int[] { 1 }, new int[] { 1 }, 0,
				(CUdeviceptr) new CUdeviceptr().withByteOffset(0x10)); // unmapped address
			s.sync();
			return null;
		}));
		// plain words first, the CUDA error in parentheses for a bug report
		assertTrue(e.getMessage().startsWith("Fault test: ") && e.getMessage().contains(" (CUDA_ERROR_"), e.getMessage());
		// not inside another session: the reset was done at once, and the message says so
		assertTrue(e.getMessage().endsWith("; the GPU was reset"), e.getMessage());
		// and the reset context is no longer current on this thread, where a script's next driver
		// call would go to it
		jcuda.driver.CUcontext now = new jcuda.driver.CUcontext();
		jcuda.driver.JCudaDriver.cuCtxGetCurrent(now);
		assertEquals(new jcuda.driver.CUcontext(), now, "the reset context is still current");

		// the next operation works: on a rebuilt GPU context, or on the CPU with a reason
		Planes img = TestImages.random(PixelType.FLOAT32, 97, 89, 2, 11);
		Planes cpu = img.copy();
		OpReport r = GaussianBlur.blur2D(img, 2, 2, null, ExecutionOptions.defaults());
		GaussianBlur.blur2D(cpu, 2, 2, null, ExecutionOptions.defaults().withBackend(Backend.CPU));
		assertNull(GpuRuntimeTest.firstDifference(cpu, img));
		System.out.println("After the fault the next blur ran on " + r.ranOn()
			+ (r.fallbackReason() != null ? " because " + r.fallbackReason() : ""));
		if (r.ranOn() == Backend.CPU) {
			assertTrue(r.fallbackReason().contains("restart Fiji"), r.fallbackReason());
			// forcing the GPU now is a clear error, not a hang or a crash
			GpuException forced = assertThrows(GpuException.class, () -> GaussianBlur.blur2D(img.copy(), 2, 2, null,
				ExecutionOptions.defaults().withBackend(Backend.GPU)));
			assertTrue(forced.getMessage().contains("Fault test"), forced.getMessage());
		} else {
			assertEquals(Backend.GPU, r.ranOn());
		}
	}
}
