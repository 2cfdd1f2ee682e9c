package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
	void labelsAndSettingsRoundTrip() {
		for (String s : new String[] { "auto", "cpu", "0", "3" })
			assertEquals(s, GpuInfoPlugin.setting(GpuInfoPlugin.label(s)));
		assertEquals("Automatic", GpuInfoPlugin.label(null));
		assertThrows(IllegalArgumentException.class, () -> GpuInfoPlugin.setting("Quantum"));
	}
}
