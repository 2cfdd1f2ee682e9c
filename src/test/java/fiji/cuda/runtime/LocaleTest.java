package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;

import org.junit.jupiter.api.Test;

import fiji.cuda.ncc.AlignSlices;
import fiji.cuda.ncc.Detection;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.OpReport;

/**
 * What the plug-in writes for people to read (the Log, GPU Info, the status bar) has points
 * for decimals whatever Java's locale, as ImageJ writes its numbers: under a German or French
 * locale these lines had commas, mixed with points in one line, and Arabic digits in Egypt.
 */
class LocaleTest {

	@Test
	void numbersAreWrittenWithPointsInEveryLocale() {
		Locale before = Locale.getDefault();
		try {
			for (Locale l : new Locale[] { Locale.GERMANY, Locale.FRANCE, new Locale("ar", "EG") }) {
				Locale.setDefault(l);
				assertEquals("GPU 0: NVIDIA H200, compute capability 9.0, 139.7 GiB, 132 SMs",
					new DeviceInfo(0, "NVIDIA H200", 9, 0, 150_000_000_000L, 132, 232448).toString(), l.toString());
				assertEquals("slice 2: (-3.935, 0.686) score 0.9982", new AlignSlices.Shift(1, -3.935, 0.686, 0.9982).toString(),
					l.toString());
				assertEquals("template 0 angle 22.5 at (10,20) 16x16 score 0.8730",
					new Detection(10, 20, 16, 16, 0.873, 0, 22.5, false, 0, 18, 28).toString(), l.toString());
				assertEquals("ran on the CPU in 67.360 ms", new OpReport(Backend.CPU, null, false, 67_360_000L).toString(),
					l.toString());
			}
		} finally {
			Locale.setDefault(before);
		}
	}
}
