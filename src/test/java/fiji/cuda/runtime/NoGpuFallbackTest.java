package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpLog;
import fiji.cuda.ops.OpReport;

/** Where no GPU can be used (CI, laptops): the CPU path runs, and says why, once. */
class NoGpuFallbackTest {

	@Test
	void forcedCpuSettingIsHonoured() {
		String old = System.getProperty(GpuSettings.PROPERTY);
		System.setProperty(GpuSettings.PROPERTY, "cpu");
		try {
			assertFalse(Gpu.isAvailable());
			GpuUnavailableException e = assertThrows(GpuUnavailableException.class, Gpu::get);
			assertTrue(e.getMessage().contains("CPU was chosen"), e.getMessage());
			OpReport r = GaussianBlur.blur2D(Planes.wrap(3, 3, new float[9]), 1, 1, null,
				ExecutionOptions.defaults());
			assertEquals(Backend.CPU, r.ranOn());
		} finally {
			if (old == null) System.clearProperty(GpuSettings.PROPERTY);
			else System.setProperty(GpuSettings.PROPERTY, old);
		}
	}

	@Test
	void aMalformedDevicePropertyMeansTheCpuNotAnException() {
		String old = System.getProperty(GpuSettings.PROPERTY);
		System.setProperty(GpuSettings.PROPERTY, "gpu0");
		try {
			assertFalse(Gpu.isAvailable());
			GpuUnavailableException e = assertThrows(GpuUnavailableException.class, Gpu::get);
			assertTrue(e.getMessage().contains("'gpu0'"), e.getMessage());
			assertTrue(String.join("\n", Gpu.describe()).contains("'gpu0'"));
			assertTrue(Gpu.selfCheck().startsWith("Self-check not run: the Java option"), Gpu.selfCheck());
			float[] px = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
			OpReport r = GaussianBlur.blur2D(Planes.wrap(3, 3, px), 1, 1, null, ExecutionOptions.defaults());
			assertEquals(Backend.CPU, r.ranOn());
			assertTrue(r.fallbackReason().contains("'gpu0'"), r.fallbackReason());
		} finally {
			if (old == null) System.clearProperty(GpuSettings.PROPERTY);
			else System.setProperty(GpuSettings.PROPERTY, old);
		}
	}

	@Test
	void gpuInfoSaysWhereTheSettingComesFromAndThatTheSelfCheckDidNotRun() {
		// GPU Info said "Setting: cpu (fiji.cuda.device)", naming a Java option also when the
		// choice was made in GPU Info, and "Self-check failed" when the CPU was chosen, as if
		// the GPU were broken
		String old = System.getProperty(GpuSettings.PROPERTY), choice = GpuSettings.deviceChoice();
		try {
			System.clearProperty(GpuSettings.PROPERTY);
			GpuSettings.setDeviceChoice("cpu");
			assertEquals("Setting: CPU only (chosen in GPU Info)", Gpu.describe().get(0));
			assertEquals("Self-check not run: the CPU was chosen in GPU Info (Use: CPU only)", Gpu.selfCheck());
			GpuSettings.setDeviceChoice("1");
			assertEquals("Setting: GPU 1 (chosen in GPU Info)", GpuAccess.describe().get(0));
			System.setProperty(GpuSettings.PROPERTY, "auto");
			assertEquals("Setting: Automatic (Java option -Dfiji.cuda.device=auto, which overrides the choice in GPU Info)",
				GpuAccess.describe().get(0));
			if (!Gpu.isAvailable()) assertTrue(Gpu.selfCheck().startsWith("Self-check not run: "), Gpu.selfCheck());
		} finally {
			GpuSettings.setDeviceChoice(choice);
			if (old == null) System.clearProperty(GpuSettings.PROPERTY);
			else System.setProperty(GpuSettings.PROPERTY, old);
		}
	}

	@Test
	void withoutAGpuAutoRunsOnTheCpuAndLogsOneLine() {
		assumeFalse(Gpu.isAvailable(), "a GPU is present");
		fiji.cuda.TestFallbackLog.forget(GaussianBlur.NAME);
		List<String> lines = new ArrayList<>();
		OpLog.setSink(lines::add);
		String why = null;
		try {
			for (int i = 0; i < 3; i++) {
				OpReport r = GaussianBlur.blur2D(Planes.wrap(5, 4, new short[20]), 1, 1, null,
					ExecutionOptions.defaults());
				assertEquals(Backend.CPU, r.ranOn());
				assertNotNull(r.fallbackReason());
				why = r.fallbackReason();
			}
		} finally {
			OpLog.setSink(null);
		}
		assertEquals(List.of("Gaussian Blur ran on the CPU: " + why), lines);
	}

	@Test
	void withoutAGpuForcingItIsAClearError() {
		assumeFalse(Gpu.isAvailable(), "a GPU is present");
		float[] px = { 1, 2, 3, 4 };
		GpuException e = assertThrows(GpuException.class, () -> GaussianBlur.blur2D(Planes.wrap(2, 2, px), 1, 1, null,
			ExecutionOptions.defaults().withBackend(Backend.GPU)));
		assertFalse(e.getMessage().isEmpty());
		assertEquals(1f, px[0]); // unchanged
		assertEquals(4f, px[3]);
	}

	@Test
	void everyShortageOfGpuMemoryIsOneKindOfReasonWhateverItsSize() {
		// the fallback line is logged once per operation and kind: a kind with the size in it gave
		// a batch of images of mixed sizes one line per size class
		GpuUnavailableException small = BufferPool.outOfMemory("Gaussian Blur", 64L << 20, null);
		GpuUnavailableException large = BufferPool.outOfMemory("Gaussian Blur", 1L << 32, null);
		assertTrue(small.getMessage().startsWith("Gaussian Blur: a block of 67 MB of GPU memory did not fit"), small.getMessage());
		assertTrue(large.getMessage().startsWith("Gaussian Blur: a block of 4295 MB of GPU memory did not fit"), large.getMessage());
		assertEquals(GpuUnavailableException.OUT_OF_MEMORY, small.kind());
		assertEquals(small.kind(), large.kind());
		assertEquals("no CUDA device found", new GpuUnavailableException("no CUDA device found").kind());
	}

	@Test
	void theReasonsSayWhoChoseTheCpuAndWhatToDoWithABadJavaOption() {
		String old = System.getProperty(GpuSettings.PROPERTY);
		try {
			// it said "the CPU was chosen in GPU Info" also when the Java option had chosen it
			System.setProperty(GpuSettings.PROPERTY, "cpu");
			assertEquals("the CPU was chosen by the Java option -Dfiji.cuda.device=cpu",
				assertThrows(GpuUnavailableException.class, Gpu::get).getMessage());
			System.clearProperty(GpuSettings.PROPERTY);
			String choice = GpuSettings.deviceChoice();
			GpuSettings.setDeviceChoice("cpu");
			try {
				assertEquals("the CPU was chosen in GPU Info (Use: CPU only)",
					assertThrows(GpuUnavailableException.class, Gpu::get).getMessage());
			} finally {
				GpuSettings.setDeviceChoice(choice);
			}
			// it said "the setting fiji.cuda.device='gpu0' is not 'auto', 'cpu' or a GPU index"
			System.setProperty(GpuSettings.PROPERTY, "gpu0");
			assertEquals("the Java option -Dfiji.cuda.device='gpu0' is none of auto, cpu or a GPU number (0, 1, ...); "
				+ "correct or remove it", assertThrows(GpuUnavailableException.class, Gpu::get).getMessage());
		} finally {
			if (old == null) System.clearProperty(GpuSettings.PROPERTY);
			else System.setProperty(GpuSettings.PROPERTY, old);
		}
	}

	@Test
	void aCudaErrorIsExplainedInPlainWordsWithItsNameKeptForABugReport() {
		// it said "Gaussian Blur: CUDA_ERROR_ILLEGAL_ADDRESS (the GPU context was reset)"
		assertEquals("Gaussian Blur: a computation on the GPU failed (CUDA_ERROR_ILLEGAL_ADDRESS); the GPU was reset",
			Gpu.failure("Gaussian Blur", "CUDA_ERROR_ILLEGAL_ADDRESS", true));
		assertEquals("Template Matching: the GPU took too long, and the display driver stopped it "
			+ "(CUDA_ERROR_LAUNCH_TIMEOUT); the GPU was reset", Gpu.failure("Template Matching", "CUDA_ERROR_LAUNCH_TIMEOUT", true));
		assertEquals("Box Statistics: the GPU reported an error (CUDA_ERROR_INVALID_VALUE)",
			Gpu.failure("Box Statistics", "CUDA_ERROR_INVALID_VALUE", false));
	}

	@Test
	void anUncorrectableMemoryErrorResetsTheGpu() {
		// the context that saw it keeps reporting it: it was kept, and every later operation failed
		assertTrue(Gpu.isSticky("CUDA_ERROR_ECC_UNCORRECTABLE"));
		assertEquals("Align Slices: the GPU reported a memory error (CUDA_ERROR_ECC_UNCORRECTABLE); the GPU was reset",
			Gpu.failure("Align Slices", "CUDA_ERROR_ECC_UNCORRECTABLE", true));
	}

	@Test
	void runningOutOfGpuMemorySaysHowMuchWasAskedForAndHowMuchIsFree() {
		// it said "needs 512 MB more GPU memory than is free" of a 512 MB block, and "needs 0 MB" of a small one
		assertEquals("a block of 537 MB of GPU memory did not fit in the 300 MB free",
			BufferPool.tooLittle(512L << 20, 300_000_000L));
		assertEquals("a block of 0.3 MB of GPU memory did not fit in the 0.1 MB free", BufferPool.tooLittle(300_000, 100_000));
		assertEquals("a block of 12.5 GB of GPU memory did not fit", BufferPool.tooLittle(12_500_000_000L, -1));
	}

	@Test
	void settingRejectsNonsense() {
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> GpuSettings.setDeviceChoice("fastest"));
		assertTrue(e.getMessage().contains("fastest"));
	}

	@Test
	void theNvidiaReleaseIsReadFromTheDriversVersionText() {
		assertEquals("580.159.04", Gpu.releaseIn("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Mar  5 "
			+ "2026\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"));
		assertEquals("580.65.06", Gpu.releaseIn("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  "
			+ "Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Jul 22 2025\n"));
		assertEquals("575.51", Gpu.releaseIn("NVRM version: NVIDIA UNIX Kernel Module for aarch64  575.51\n"));
		assertEquals(null, Gpu.releaseIn("no such text"));
	}

	@Test
	void aModuleThatDoesNotLoadForWantOfMemoryIsNotBlamedOnTheDriver() {
		// every failed load said "the shipped kernels do not load ... with this driver", a full
		// device included, which sent the user to update a driver that was fine
		String full = Gpu.moduleLoadFailure("NVIDIA H200", "gaussian_blur",
			new jcuda.CudaException("CUDA_ERROR_OUT_OF_MEMORY"));
		assertTrue(full.startsWith("the GPU memory of NVIDIA H200 is too full to load the gaussian_blur kernels"), full);
		String old = Gpu.moduleLoadFailure("NVIDIA H200", "gaussian_blur",
			new jcuda.CudaException("CUDA_ERROR_NO_BINARY_FOR_GPU"));
		assertTrue(old.startsWith("the shipped kernels do not load on NVIDIA H200 with this driver"), old);
	}
}
