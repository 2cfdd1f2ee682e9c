package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

class GpuInfoPluginTest {

	@Test
	void offersEveryDeviceListed() {
		List<String> lines = List.of("Setting: auto (fiji.cuda.device)", "Driver: CUDA 13.0",
			"GPU 0: NVIDIA H200, compute capability 9.0, 139.8 GiB, 132 SMs",
			"GPU 1: NVIDIA H200, compute capability 9.0, 139.8 GiB, 132 SMs",
			"Operations run on: GPU 0 (NVIDIA H200), 139.0 of 139.8 GiB free");
		assertArrayEquals(new String[] { "Automatic", "CPU only", "GPU 0", "GPU 1" },
			GpuInfoPlugin.choices(lines, "auto"));
	}

	@Test
	void withoutDevicesStillOffersGpu0AndTheStoredOne() {
		List<String> lines = List.of("CUDA: no CUDA driver found");
		assertArrayEquals(new String[] { "Automatic", "CPU only", "GPU 0" }, GpuInfoPlugin.choices(lines, "cpu"));
		assertEquals(5, GpuInfoPlugin.choices(lines, "2").length);
	}

	@Test
	void labelsAndSettingsRoundTrip() {
		for (String s : new String[] { "auto", "cpu", "0", "3" })
			assertEquals(s, GpuInfoPlugin.setting(GpuInfoPlugin.label(s)));
		assertEquals("Automatic", GpuInfoPlugin.label(null));
		assertThrows(IllegalArgumentException.class, () -> GpuInfoPlugin.setting("Quantum"));
	}
}
