package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class GpuInfoPluginTest {

	@Test
	void offersEveryDeviceListed() {
		assertArrayEquals(new String[] { "Automatic", "CPU only", "GPU 0", "GPU 1" },
			GpuInfoPlugin.choices(2, "auto"));
	}

	@Test
	void withoutDevicesStillOffersGpu0AndTheStoredOne() {
		assertArrayEquals(new String[] { "Automatic", "CPU only", "GPU 0" }, GpuInfoPlugin.choices(0, "cpu"));
		assertEquals(5, GpuInfoPlugin.choices(0, "2").length);
	}

	@Test
	void aGpuThatDoesNotExistIsRefusedAndAStoredHugeIndexIsCapped() {
		// "use=[GPU 2147483647]" was stored, and the next GPU Info failed making a dialog of
		// 2^31 choices
		String before = IjBridge.storedDeviceChoice();
		try {
			assertFalse(GpuInfoPlugin.apply("GPU 2147483647"));
			assertFalse(GpuInfoPlugin.apply("GPU 99"));
			assertEquals(before, IjBridge.storedDeviceChoice());
		} finally {
			IjBridge.storeDeviceChoice(before);
		}
		assertEquals(GpuInfoPlugin.MAX_OFFERED + 3, GpuInfoPlugin.choices(1, "2147483647").length);
	}

	@Test
	void theMessageForAMissingGpuNamesOnlyDevicesThatExist() {
		// with no device it said "this machine has 0 CUDA devices (GPU 0)."
		assertEquals("there is no GPU 1; this machine has 0 CUDA devices.", GpuInfoPlugin.noSuchGpu("GPU 1", 0));
		assertEquals("there is no GPU 1; this machine has 1 CUDA device (GPU 0).", GpuInfoPlugin.noSuchGpu("GPU 1", 1));
		assertEquals("there is no GPU 5; this machine has 2 CUDA devices (GPU 0 to GPU 1).",
			GpuInfoPlugin.noSuchGpu("GPU 5", 2));
	}

	@Test
	void labelsAndSettingsRoundTrip() {
		for (String s : new String[] { "auto", "cpu", "0", "3" })
			assertEquals(s, GpuInfoPlugin.setting(GpuInfoPlugin.label(s)));
		assertEquals("Automatic", GpuInfoPlugin.label(null));
		assertThrows(IllegalArgumentException.class, () -> GpuInfoPlugin.setting("Quantum"));
	}
}
