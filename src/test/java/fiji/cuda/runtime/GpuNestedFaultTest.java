package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import fiji.cuda.HangGuard;
import fiji.cuda.TestImages;
import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import jcuda.driver.CUdeviceptr;

/**
 * A kernel fault in a session opened inside another on the same thread. The reset after a
 * fault takes the write lock, which that thread, still holding the outer session's read lock,
 * could never get: it waited forever, and every other thread's next operation with it. Like
 * {@link GpuFaultTest} it may leave the GPU unusable for the rest of the JVM, so Maven runs
 * each {@code gpu-fault} class in a JVM of its own; on the GPU machine,
 * {@code .device/run test --include-tag gpu-fault --include-classname '.*GpuNestedFaultTest'}.
 */
@Tag("gpu-fault")
class GpuNestedFaultTest {

	@Test
	void aFaultInANestedSessionIsReportedAndResetOnceTheOuterOneEnds() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
		Gpu g = Gpu.get();
		AtomicReference<GpuException> inner = new AtomicReference<>(), refused = new AtomicReference<>();
		GpuException outer = assertTimeoutPreemptively(HangGuard.seconds(60), () -> assertThrows(GpuException.class,
			() -> g.run("Outer test", o -> {
				try {
					g.run("Nested fault test", s -> {
						s.launch(s.function(SelfCheck.MODULE, "runtime_fault"), new int[] { 1 }, new int[] { 1 }, 0,
							(CUdeviceptr) new CUdeviceptr().withByteOffset(0x10)); // unmapped address
						s.sync();
						return null;
					});
				} catch (GpuException e) {
					inner.set(e);
				}
				// the context is broken until the outer session ends: a further session is refused
				try {
					g.run("Refused test", s -> null);
				} catch (GpuException e) {
					refused.set(e);
				}
				return null;
			})), "a fault inside a nested session hung the thread");
		assertTrue(inner.get() != null && inner.get().getMessage().startsWith("Nested fault test: ")
			&& inner.get().getMessage().contains(" (CUDA_ERROR_")
			&& inner.get().getMessage().endsWith("; the GPU is reset once the operation around this one ends"),
			String.valueOf(inner.get()));
		assertTrue(refused.get() != null && refused.get().getMessage().startsWith("Refused test: the GPU failed in "
			+ "Nested fault test"), String.valueOf(refused.get()));
		// the outer session's own wait saw the fault too
		assertTrue(outer.getMessage().startsWith("Outer test: "), outer.getMessage());

		// the reset was done: the next operation works, on a rebuilt context or on the CPU with a reason
		Planes img = TestImages.random(PixelType.FLOAT32, 61, 53, 2, 12);
		Planes cpu = img.copy();
		OpReport r = assertTimeoutPreemptively(HangGuard.seconds(60),
			() -> GaussianBlur.blur2D(img, 2, 2, null, ExecutionOptions.defaults()), "the next operation hung");
		GaussianBlur.blur2D(cpu, 2, 2, null, ExecutionOptions.defaults().withBackend(Backend.CPU));
		assertNull(GpuRuntimeTest.firstDifference(cpu, img));
		System.out.println("After the nested fault the next blur ran on " + r.ranOn()
			+ (r.fallbackReason() != null ? " because " + r.fallbackReason() : ""));
		// naming the operation whose kernel faulted, not the one around it
		if (r.ranOn() == Backend.CPU) assertTrue(r.fallbackReason().contains("restart Fiji")
			&& r.fallbackReason().contains("after it failed in Nested fault test ("), r.fallbackReason());
		else assertEquals(Backend.GPU, r.ranOn());
	}
}
