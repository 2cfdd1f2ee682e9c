package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.runtime.GpuSettings;
import ij.Macro;
import ij.macro.Interpreter;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

public class GpuInfoPluginTest { // public: a test macro call()s into it

	/** Called from a test macro: runs GPU Info with these options, as run("GPU Info...", options) would. */
	public static String runWith(String options) throws InterruptedException {
		// ImageJ hands options only to threads named as its macro threads are
		Thread t = new Thread(() -> new GpuInfoPlugin().run(""), "Run$_gpu info variable test");
		Macro.setOptions(t, options);
		try {
			t.start();
			t.join(60_000);
		} finally {
			Macro.setOptions(t, null);
		}
		return "";
	}

	@Test
	void aMacroVariableNamesTheChoiceAsInImageJsDialogs() throws Exception {
		// "use=&choice" was read as the choice "&choice" and refused, where every GenericDialog
		// (and every other command here) takes the variable's value
		String before = IjBridge.storedDeviceChoice();
		PrintStream out = System.out;
		ByteArrayOutputStream b = new ByteArrayOutputStream();
		System.setOut(new PrintStream(b, true, StandardCharsets.UTF_8));
		try {
			IjBridge.storeDeviceChoice("auto");
			new Interpreter().run("choice = 'CPU only';\ncall('" + getClass().getName() + ".runWith', 'use=&choice');\n");
			assertEquals("cpu", IjBridge.storedDeviceChoice(), b.toString(StandardCharsets.UTF_8));
		} finally {
			System.setOut(out);
			IjBridge.storeDeviceChoice(before);
		}
	}

	@Test
	void theStoredGpuOfferedWhileItIsNotFoundCanBeKept() {
		// the dialog offers the stored GPU when it is not found (unplugged, driver missing); OK on
		// the dialog as it came was an error "There is no GPU 2", and with a GPU found a stored
		// one beyond it was reported as the one operations will use
		String before = IjBridge.storedDeviceChoice(), property = System.getProperty(GpuSettings.PROPERTY);
		System.clearProperty(GpuSettings.PROPERTY);
		try {
			IjBridge.storeDeviceChoice("2");
			assertTrue(GpuInfoPlugin.apply("GPU 2"));
			assertEquals("2", IjBridge.storedDeviceChoice());
			assertEquals("GPU 2 is stored, but it is not found now: operations run on the CPU until it is.",
				GpuInfoPlugin.outcome("GPU 2", 1));
			assertEquals("operations will use: GPU 2", GpuInfoPlugin.outcome("GPU 2", 3));
		} finally {
			if (property != null) System.setProperty(GpuSettings.PROPERTY, property);
			IjBridge.storeDeviceChoice(before);
		}
	}

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
		assertEquals("There is no GPU 1 (use=[GPU 1]); this machine has no CUDA device.", GpuInfoPlugin.noSuchGpu("GPU 1", 0));
		assertEquals("There is no GPU 1 (use=[GPU 1]); this machine has 1 CUDA device (GPU 0).",
			GpuInfoPlugin.noSuchGpu("GPU 1", 1));
		assertEquals("There is no GPU 5 (use=[GPU 5]); this machine has 2 CUDA devices (GPU 0 to GPU 1).",
			GpuInfoPlugin.noSuchGpu("GPU 5", 2));
	}

	@Test
	void labelsAndSettingsRoundTrip() {
		for (String s : new String[] { "auto", "cpu", "0", "3" })
			assertEquals(s, GpuInfoPlugin.setting(GpuInfoPlugin.label(s)));
		assertEquals("Automatic", GpuInfoPlugin.label(null));
		assertThrows(IllegalArgumentException.class, () -> GpuInfoPlugin.setting("Quantum"));
	}

	/** Runs GPU Info as a macro does, with the given options; returns its Log lines (stdout without an ImageJ window). */
	private static String runAsMacro(String options) throws InterruptedException {
		PrintStream out = System.out;
		ByteArrayOutputStream b = new ByteArrayOutputStream();
		System.setOut(new PrintStream(b, true, StandardCharsets.UTF_8));
		Thread t = new Thread(() -> new GpuInfoPlugin().run(""), "Run$_gpu info test");
		ij.Macro.setOptions(t, options);
		try {
			t.start();
			t.join(60_000);
		} finally {
			ij.Macro.setOptions(t, null);
			System.setOut(out);
		}
		return b.toString(StandardCharsets.UTF_8);
	}

	@Test
	void aChoiceThatTheJavaOptionOverridesIsNotReportedAsInEffect() throws Exception {
		// with -Dfiji.cuda.device=cpu, use=Automatic printed "operations will use: Automatic"
		// although every operation went on running on the CPU
		String before = IjBridge.storedDeviceChoice(), property = System.getProperty(GpuSettings.PROPERTY);
		System.setProperty(GpuSettings.PROPERTY, "cpu");
		try {
			String log = runAsMacro("use=Automatic");
			assertFalse(log.contains("operations will use: Automatic"), log);
			assertTrue(log.contains("GPU Info: Automatic is stored, but the Java option -Dfiji.cuda.device=cpu overrides it"),
				log);
			assertEquals("auto", IjBridge.storedDeviceChoice());
			// the same choice as the option: nothing to warn about
			log = runAsMacro("use=[CPU only]");
			assertTrue(log.contains("GPU Info: operations will use: CPU only"), log);
			// without its brackets it read as "CPU", refused as no choice at all
			IjBridge.storeDeviceChoice("auto");
			log = runAsMacro("use=CPU only");
			assertTrue(log.contains("GPU Info: Use must be in brackets when it has spaces: use=[CPU only], not use=CPU only"),
				log);
			assertEquals("auto", IjBridge.storedDeviceChoice());
		} finally {
			if (property == null) System.clearProperty(GpuSettings.PROPERTY);
			else System.setProperty(GpuSettings.PROPERTY, property);
			IjBridge.storeDeviceChoice(before);
		}
	}

	@Test
	void aGpuChosenWhileNoneIsFoundIsNotReportedAsInEffect() {
		// use=[GPU 0] on a machine without a CUDA device printed "operations will use: GPU 0",
		// and every operation went on running on the CPU
		String property = System.getProperty(GpuSettings.PROPERTY);
		System.clearProperty(GpuSettings.PROPERTY);
		try {
			assertEquals("GPU 0 is stored, but no CUDA device is found now: operations run on the CPU until it is.",
				GpuInfoPlugin.outcome("GPU 0", 0));
			assertEquals("operations will use: GPU 0", GpuInfoPlugin.outcome("GPU 0", 1));
			assertEquals("operations will use: CPU only", GpuInfoPlugin.outcome("CPU only", 0));
			assertEquals("operations will use: Automatic", GpuInfoPlugin.outcome("Automatic", 0));
		} finally {
			if (property != null) System.setProperty(GpuSettings.PROPERTY, property);
		}
	}
}
