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

	@Test
	void aTiffCutShortInItsPixelsIsRefused(@TempDir Path dir) throws Exception {
		// ImageJ opens these without a word: a stack with slices missing, a plane with rows of 0
		for (String[] kind : new String[][] { { "16-bit ramp", "3" }, { "8-bit ramp", "1" }, { "32-bit ramp", "2" },
			{ "RGB ramp", "1" } })
		{
			ImagePlus imp = IJ.createImage("x", kind[0], 64, 48, Integer.parseInt(kind[1]));
			Path tif = dir.resolve("whole.tif");
			IJ.saveAsTiff(imp, tif.toString());
			byte[] all = Files.readAllBytes(tif);
			assertEquals("true", TiffFiles.readable(tif.toString()), kind[0]);
			ImagePlus back = TiffFiles.open(tif.toString());
			assertEquals(imp.getStackSize(), back.getStackSize());
			// ImageJ writes the header first, then the pixels, then its metadata: cut in the last plane
			long pixelsEnd = 0;
			for (ij.io.FileInfo fi : ij.io.Opener.getTiffFileInfo(tif.toString()))
				pixelsEnd = Math.max(pixelsEnd, TiffFiles.dataEnd(fi));
			assertEquals(true, pixelsEnd > 1000 && pixelsEnd <= all.length, kind[0] + ": pixels end at " + pixelsEnd);
			Path cut = Files.write(dir.resolve("cut.tif"), Arrays.copyOf(all, (int) pixelsEnd - 100));
			assertEquals("false", TiffFiles.readable(cut.toString()), kind[0]);
			assertEquals(null, TiffFiles.open(cut.toString()), kind[0]);
			Path exact = Files.write(dir.resolve("exact.tif"), Arrays.copyOf(all, (int) pixelsEnd));
			assertEquals("true", TiffFiles.readable(exact.toString()), kind[0] + ", nothing of the pixels missing");
		}
	}
}
