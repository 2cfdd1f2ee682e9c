package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ij.IJ;
import ij.ImagePlus;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The folder macros' check before {@code open()}: only a classic TIFF that ImageJ's decoder
 * cannot read is refused (its {@code open()} would throw and end the macro); every other file
 * is left to {@code open()}, which reads by content, not by name.
 */
class TiffFilesTest {

	@Test
	void onlyATiffImageJCannotReadIsRefused(@TempDir Path dir) throws Exception {
		ImagePlus imp = IJ.createImage("x", "8-bit ramp", 30, 20, 2);
		Path tif = dir.resolve("good.tif");
		IJ.saveAsTiff(imp, tif.toString());
		assertEquals("true", TiffFiles.readable(tif.toString()));
		Path cut = Files.write(dir.resolve("cut.tif"), Arrays.copyOf(Files.readAllBytes(tif), 100));
		assertEquals("false", TiffFiles.readable(cut.toString()));
		Path headerOnly = Files.write(dir.resolve("header.tif"), new byte[] { 'M', 'M', 0, 42, 0, 0, 0, 8 });
		assertEquals("false", TiffFiles.readable(headerOnly.toString()));
		// a PNG named .tif opens (ImageJ reads by content): it must not be skipped
		Path png = dir.resolve("png.tif");
		IJ.saveAs(imp, "PNG", dir.resolve("p.png").toString());
		Files.move(dir.resolve("p.png"), png);
		assertEquals("true", TiffFiles.readable(png.toString()));
		assertEquals(30, IJ.openImage(png.toString()).getWidth());
		// no TIFF at all, or no file: left to open(), whose failure the macro sees
		assertEquals("true", TiffFiles.readable(Files.writeString(dir.resolve("junk.tif"), "not a TIFF").toString()));
		assertEquals("true", TiffFiles.readable(dir.resolve("missing.tif").toString()));
	}
}
