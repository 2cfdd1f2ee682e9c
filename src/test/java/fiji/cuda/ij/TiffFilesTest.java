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
	void aCutTiffLeavesNoFileOpen(@TempDir Path dir) throws Exception {
		// ImageJ's decoder throws on this header without closing the file: a folder of such files
		// ran the folder macros out of file handles, and every later image was skipped (the
		// decoder is no longer given a file cut in its first directory; the check opens it too)
		Path tif = dir.resolve("whole.tif");
		IJ.saveAsTiff(IJ.createImage("x", "8-bit ramp", 64, 48, 1), tif.toString());
		Path cut = Files.write(dir.resolve("cut.tif"), Arrays.copyOf(Files.readAllBytes(tif), 100));
		assertEquals("false", TiffFiles.readable(cut.toString()));
		assertFewFilesLeftOpen(cut);
	}

	/** Checks {@code file} 200 times and counts the file handles left open (Unix only). */
	private static void assertFewFilesLeftOpen(Path file) {
		Object os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
		org.junit.jupiter.api.Assumptions.assumeTrue(os instanceof com.sun.management.UnixOperatingSystemMXBean,
			"open files are counted on Unix only");
		com.sun.management.UnixOperatingSystemMXBean unix = (com.sun.management.UnixOperatingSystemMXBean) os;
		long before = unix.getOpenFileDescriptorCount();
		for (int i = 0; i < 200; i++)
			TiffFiles.readable(file.toString());
		long opened = unix.getOpenFileDescriptorCount() - before;
		org.junit.jupiter.api.Assertions.assertTrue(opened < 20, opened + " files left open by 200 checks");
	}

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
		// written by ImageIO: ImageJ's PNG writer writes nothing where there is no display
		javax.imageio.ImageIO.write(imp.getProcessor().getBufferedImage(), "png", png.toFile());
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
	@Test
	void aTiffMissingOnlyItsLastPixelByteIsRefused(@TempDir Path dir) throws Exception {
		// one byte short is short: ImageJ would open the plane with its last pixel 0. A mutation test
		// found that pixels allowed to end one byte past the file (dataEnd > length + 1) passed every test
		for (String kind : new String[] { "8-bit ramp", "16-bit ramp", "32-bit ramp", "RGB ramp" }) {
			ImagePlus imp = IJ.createImage("x", kind, 64, 48, 2);
			Path tif = dir.resolve("whole.tif");
			IJ.saveAsTiff(imp, tif.toString());
			byte[] all = Files.readAllBytes(tif);
			long pixelsEnd = 0;
			for (ij.io.FileInfo fi : ij.io.Opener.getTiffFileInfo(tif.toString()))
				pixelsEnd = Math.max(pixelsEnd, TiffFiles.dataEnd(fi));
			assertEquals("false", cutAt(dir, "short.tif", all, (int) pixelsEnd - 1), kind + ", one byte short");
			assertEquals(null, TiffFiles.open(dir.resolve("short.tif").toString()), kind + ", one byte short");
			assertEquals("true", cutAt(dir, "exact.tif", all, (int) pixelsEnd), kind + ", nothing of the pixels missing");
		}
	}

	/** @return what {@link TiffFiles#readable} says of the file's first {@code at} bytes, written under that name */
	private static String cutAt(Path dir, String name, byte[] file, int at) throws java.io.IOException {
		return TiffFiles.readable(Files.write(dir.resolve(name), Arrays.copyOf(file, at)).toString());
	}

	/** A little-endian TIFF writer for layouts ImageJ does not write: entries {tag, type, count, value or offset}. */
	private static final class Tiff {
		final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
		int lastNext = 4; // where the offset of the next directory goes

		Tiff() {
			put(new byte[] { 'I', 'I', 42, 0, 0, 0, 0, 0 });
		}

		int put(byte[] b) {
			int at = out.size();
			out.write(b, 0, b.length);
			return at;
		}

		/** Appends that many random bytes (pixels); returns where they start. */
		int putRandom(java.util.Random r, int bytes) {
			byte[] b = new byte[bytes];
			r.nextBytes(b);
			return put(b);
		}

		/** Appends a page of {@code w} x {@code h} random 8-bit pixels in one strip, then its directory. */
		void grayPage(java.util.Random r, int w, int h) {
			int data = putRandom(r, w * h);
			directory(gray8(w, h, h, new int[] { data }, 0, new int[] { w * h }));
		}

		/** Appends a directory of these entries and chains it after the last one. */
		void directory(int[][] entries) {
			java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(2 + 12 * entries.length + 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
			b.putShort((short) entries.length);
			for (int[] e : entries) {
				b.putShort((short) e[0]).putShort((short) e[1]).putInt(e[2]);
				if (e[1] == 3 && e[2] <= 2) b.putShort((short) e[3]).putShort((short) (e.length > 4 ? e[4] : 0));
				else b.putInt(e[3]);
			}
			b.putInt(0);
			int at = put(b.array());
			byte[] all = out.toByteArray();
			java.nio.ByteBuffer.wrap(all, lastNext, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(at);
			out.reset();
			out.write(all, 0, all.length);
			lastNext = at + 2 + 12 * entries.length;
		}

		static int[][] gray8(int w, int h, int rowsPerStrip, int[] offsets, int offsetsAt, int[] counts) {
			int n = offsets.length;
			return new int[][] { { 256, 3, 1, w }, { 257, 3, 1, h }, { 258, 3, 1, 8 }, { 259, 3, 1, 1 }, { 262, 3, 1, 1 },
				n == 1 ? new int[] { 273, 4, 1, offsets[0] } : new int[] { 273, 4, n, offsetsAt }, { 277, 3, 1, 1 },
				{ 278, 3, 1, rowsPerStrip }, n == 1 ? new int[] { 279, 3, 1, counts[0] } : new int[] { 279, 3, 2, counts[0], counts[1] } };
		}
	}

	@Test
	void twoStripCountsKeptInTheEntryAreReadAsImageJReadsThePixels(@TempDir Path dir) throws Exception {
		// libtiff stores two SHORT strip counts in the entry itself, which ImageJ's decoder misreads
		// (as -257): the check took them for pixels past the end and skipped a good file
		byte[] px = new byte[100 * 100];
		new java.util.Random(3).nextBytes(px);
		Tiff t = new Tiff();
		int data = t.put(px);
		java.nio.ByteBuffer offs = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
		offs.putInt(data).putInt(data + 8100);
		int offsetsAt = t.put(offs.array());
		t.directory(Tiff.gray8(100, 100, 81, new int[] { data, data + 8100 }, offsetsAt, new int[] { 8100, 1900 }));
		Path f = Files.write(dir.resolve("libtiff.tif"), t.out.toByteArray());
		ImagePlus imp = IJ.openImage(f.toString());
		org.junit.jupiter.api.Assertions.assertArrayEquals(px, (byte[]) imp.getProcessor().getPixels(), "ImageJ opens it whole");
		assertEquals("true", TiffFiles.readable(f.toString()));
		// cut in its second strip, it is refused
		assertEquals("false", cutAt(dir, "libtiff-cut.tif", t.out.toByteArray(), data + 9000));
	}

	@Test
	void aPageByPageFileCutShortIsRefused(@TempDir Path dir) throws Exception {
		// most writers but ImageJ put each page's pixels and then its directory: cut in the last page,
		// ImageJ opened the pages before it, and a batch saved a stack with slices missing
		Tiff t = new Tiff();
		java.util.Random r = new java.util.Random(4);
		for (int page = 0; page < 6; page++) {
			t.grayPage(r, 100, 100);
		}
		byte[] all = t.out.toByteArray();
		Path whole = Files.write(dir.resolve("pages.tif"), all);
		assertEquals(6, IJ.openImage(whole.toString()).getStackSize());
		assertEquals("true", TiffFiles.readable(whole.toString()));
		for (int cutAt : new int[] { all.length - 266, all.length - 60, all.length - 4, 131, 20 }) {
			assertEquals("false", cutAt(dir, "pages-" + cutAt + ".tif", all, cutAt), "cut at " + cutAt + " of " + all.length);
		}
		// an ImageJ stack cut inside its first directory: ImageJ opened a slice of 0 or of header bytes
		ImagePlus stack = IJ.createImage("s", "8-bit ramp", 100, 100, 6);
		Path ij = dir.resolve("ij.tif");
		IJ.saveAsTiff(stack, ij.toString());
		for (int cutAt : new int[] { 60, 100, 131 }) {
			assertEquals("false", cutAt(dir, "ij-" + cutAt + ".tif", Files.readAllBytes(ij), cutAt), "ImageJ stack cut at " + cutAt);
		}
	}

	/**
	 * Adds a page of 32 x 32 8-bit pixels in four 16 x 16 tiles, those of 256 bytes each at
	 * {@code data}: their offsets and byte counts, then the directory.
	 *
	 * @return where the tile offsets lie (the byte counts follow, 16 bytes on)
	 */
	private static int tiledPage(Tiff t, int data) {
		java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(32).order(java.nio.ByteOrder.LITTLE_ENDIAN);
		for (int i = 0; i < 4; i++)
			b.putInt(data + 256 * i);
		for (int i = 0; i < 4; i++)
			b.putInt(256);
		int arrays = t.put(b.array());
		t.directory(new int[][] { { 256, 3, 1, 32 }, { 257, 3, 1, 32 }, { 258, 3, 1, 8 }, { 259, 3, 1, 1 },
			{ 262, 3, 1, 1 }, { 277, 3, 1, 1 }, { 322, 3, 1, 16 }, { 323, 3, 1, 16 }, { 324, 4, 4, arrays },
			{ 325, 4, 4, arrays + 16 } });
		return arrays;
	}

	@Test
	void aWholeTiledTiffIsLeftToOpenAndACutOneRefused(@TempDir Path dir) throws Exception {
		// ImageJ's decoder refuses tiles, and its Opener then tries the other readers (Bio-Formats in
		// Fiji) without throwing: a whole tiled file must not be skipped, a cut one must
		Tiff t = new Tiff();
		int data = t.putRandom(new java.util.Random(6), 4 * 16 * 16);
		int arrays = tiledPage(t, data);
		byte[] all = t.out.toByteArray();
		Path whole = Files.write(dir.resolve("tiled.tif"), all);
		assertEquals(true, TiffFiles.tiled(whole.toString()));
		assertEquals("true", TiffFiles.readable(whole.toString()));
		assertEquals(null, TiffFiles.open(whole.toString()), "the template folder takes only what ImageJ's decoder reads");
		assertEquals("false", cutAt(dir, "tiled-cut.tif", all, data + 700));
	}

	@Test
	void pagesOfPlanarSixteenBitRgbAreRefused(@TempDir Path dir) throws Exception {
		// ImageJ's open() threw IllegalArgumentException ("Unknown stack type") on them, which ended a
		// folder batch there, with no summary; one such page alone opens. Two pages are pages too
		for (int n : new int[] { 3, 2 }) {
			Path pages = planarRgb48(dir, "rgb48-planar-" + n + ".tif", n, 5 * n);
			ij.io.FileInfo[] info = ij.io.Opener.getTiffFileInfo(pages.toString());
			assertEquals(ij.io.FileInfo.RGB48_PLANAR, info[0].fileType);
			assertEquals(n, info.length);
			org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
				() -> new ij.io.Opener().openImage(pages.toString()), n + " pages: ImageJ still cannot open these");
			assertEquals("false", TiffFiles.readable(pages.toString()), n + " pages");
		}
	}

	@Test
	void aTiffWhoseDirectoriesLoopIsRefusedWithoutHanging(@TempDir Path dir) throws Exception {
		// ImageJ's decoder follows the directories' chain with no check for a loop: on a file whose
		// last directory points back at an earlier one, readable() (and the template folder's open())
		// read the same directories again and again, until the heap was full, and a folder batch hung there
		Tiff t = new Tiff();
		java.util.Random r = new java.util.Random(8);
		int first = -1;
		for (int page = 0; page < 2; page++) {
			t.grayPage(r, 40, 30);
			if (page == 0) first = t.lastNext - 2 - 12 * 9;
		}
		byte[] all = t.out.toByteArray();
		Path whole = Files.write(dir.resolve("pages.tif"), all);
		assertEquals("true", TiffFiles.readable(whole.toString()), "the file without the loop is read");
		// the second directory's next points back at the first; a single directory pointing at itself
		java.nio.ByteBuffer.wrap(all, t.lastNext, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(first);
		Path loop = Files.write(dir.resolve("loop.tif"), all);
		Tiff one = new Tiff();
		int data = one.putRandom(r, 40 * 30);
		one.directory(Tiff.gray8(40, 30, 30, new int[] { data }, 0, new int[] { 40 * 30 }));
		byte[] self = one.out.toByteArray();
		java.nio.ByteBuffer.wrap(self, one.lastNext, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(one.lastNext - 2 - 12 * 9);
		Path selfLoop = Files.write(dir.resolve("self.tif"), self);
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
			assertEquals("false", TiffFiles.readable(loop.toString()));
			assertEquals(null, TiffFiles.open(loop.toString()));
			assertEquals("false", TiffFiles.readable(selfLoop.toString()));
			assertEquals(null, TiffFiles.open(selfLoop.toString()));
		}, "a TIFF whose directories loop hung the check");
	}

	@Test
	void aFirstDirectoryPlacingMillionsOfStripsPastTheEndIsRefusedAtOnce(@TempDir Path dir) throws Exception {
		// ImageJ's decoder read the 200 million offsets such a directory claims one by one, past
		// the end of a file of a few hundred bytes, for minutes before the check said "false"
		byte[] all = ramp(dir, 1);
		java.nio.ByteBuffer offsets = entry(all, directories(all)[0], 273);
		offsets.putInt(4, 200_000_000).putInt(8, 8); // that many LONG offsets, from byte 8
		Path huge = Files.write(dir.resolve("huge.tif"), all);
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
			assertEquals("false", TiffFiles.readable(huge.toString()));
			assertEquals(null, TiffFiles.open(huge.toString()));
		}, "a directory of 200 million strips held the check");
	}

	@Test
	void millionsOfStripOffsetsOfAnUnknownTypeAreReadQuickly(@TempDir Path dir) throws Exception {
		// ImageJ's decoder reads strip offsets of any type, 4 bytes each, a byte at a time, each
		// byte a read of the file: 16 million past the end of a file of a few hundred bytes held
		// the check for 10 s (a fuzzed file of 200 bytes and 3.6 million took 2.4 s)
		byte[] all = ramp(dir, 1);
		entry(all, directories(all)[0], 273).putShort(2, (short) 121).putInt(4, (1 << 24) - 1).putInt(8, 8);
		Path odd = Files.write(dir.resolve("odd.tif"), all);
		// the first offset it reads is the file's bytes 8 to 11, which place the pixels past the end
		assertQuickly("false", odd, "strip offsets of an unknown type held the check");
	}

	@Test
	void moreStripOffsetsThanAnyFileHoldsAreRefusedWithoutImageJsDecoder(@TempDir Path dir) throws Exception {
		// past 16 million, strip offsets that ImageJ's decoder would read past the end refuse the
		// file before it makes an array of them (up to 8 GB), although the first it reads, here the
		// right one, is all ImageJ uses of an uncompressed image's
		byte[] ramp = ramp(dir, 1);
		java.nio.ByteBuffer offsets = entry(ramp, directories(ramp)[0], 273);
		int pixels = offsets.getInt(8);
		byte[] all = Arrays.copyOf(ramp, ramp.length + 4);
		ordered(all).putInt(ramp.length, pixels);
		java.nio.ByteBuffer odd = entry(all, directories(all)[0], 273).putShort(2, (short) 121).putInt(8, ramp.length);
		odd.putInt(4, 1 << 24);
		assertEquals("true", cutAt(dir, "many.tif", all, all.length), "ImageJ opens it");
		odd.putInt(4, (1 << 24) + 1);
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), () -> {
			assertEquals("false", cutAt(dir, "absurd.tif", all, all.length));
		}, "an absurd count of strip offsets held the check");
	}

	@Test
	void aLoopingChainOfAVersionOtherThan42IsNotGivenToTheDecoder(@TempDir Path dir) throws Exception {
		// ImageJ's Opener takes only version 42 for a TIFF, but its decoder reads any version: the
		// walk, which looks only at 42, let the template folder's open() follow such a file's loop
		// until the heap was full
		byte[] all = ramp(dir, 1);
		int first = directories(all)[0];
		ordered(all).putInt(nextAt(all, first), first); // the directory points at itself
		ordered(all).putShort(2, (short) 49);
		Path loop = Files.write(dir.resolve("loop49.tif"), all);
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
			assertEquals(null, TiffFiles.open(loop.toString()));
			assertEquals(false, TiffFiles.tiled(loop.toString()));
			// not a TIFF to ImageJ's Opener: left to open(), as a PNG named .tif is
			assertEquals("true", TiffFiles.readable(loop.toString()));
		}, "a looping TIFF of version 49 held the check");
	}

	@Test
	void theStripsOfAnImageJStacksLaterDirectoriesAreNotMeasured(@TempDir Path dir) throws Exception {
		// ImageJ's decoder reads an ImageJ stack's first directory alone, and so does the check;
		// the one walk measured every later directory's strips too, before anything asked for
		// them: 400 directories of 8 million strips each held readable() for half a minute
		byte[] stack = ramp(dir, 2);
		int strips = 1 << 23, later = 400, zeros = stack.length, first = zeros + 2 * strips;
		byte[] all = Arrays.copyOf(stack, first + 30 * later);
		java.nio.ByteBuffer b = ordered(all);
		b.putInt(nextAt(all, directories(stack)[0]), first);
		for (int d = 0; d < later; d++) {
			int at = first + 30 * d;
			b.putShort(at, (short) 2);
			// SHORT offsets and byte counts of every strip, all 0, from one array
			for (int tag : new int[] { 273, 279 }) {
				int e = at + 2 + (tag == 273 ? 0 : 12);
				b.putShort(e, (short) tag).putShort(e + 2, (short) 3).putInt(e + 4, strips).putInt(e + 8, zeros);
			}
			b.putInt(at + 26, d + 1 < later ? at + 30 : 0);
		}
		Path many = Files.write(dir.resolve("many.tif"), all);
		assertQuickly("true", many, "the strips of directories ImageJ does not read held the check");
	}

	@Test
	void aLoopPastAnImageJStacksCutDirectoryIsStillRefused(@TempDir Path dir) throws Exception {
		// ImageJ's decoder reads an ImageJ stack's first directory alone: a later one placing its
		// strip past the end does not refuse the file, a loop after it does (nothing writes one).
		// Both come from one walk, which must go on past the first cut directory to find the loop
		byte[] all = ramp(dir, 6);
		int[] at = directories(all);
		assertEquals(6, at.length);
		entry(all, at[2], 273).putInt(8, all.length); // the third slice's strip starts where the file ends
		assertEquals("true", cutAt(dir, "cut.tif", all, all.length), "the decoder reads the first directory only");
		ordered(all).putInt(nextAt(all, at[5]), at[1]);
		assertEquals("false", cutAt(dir, "loop.tif", all, all.length));
		assertEquals(null, TiffFiles.open(dir.resolve("loop.tif").toString()));
	}

	@Test
	void aDirectoryOfNoEntriesEndsWhatImageJReadsButNotTheCheck(@TempDir Path dir) throws Exception {
		// ImageJ's decoder stops at a directory of no entries: a chain that comes back to the first
		// directory after one holds no decoder, and its pages are read; but a directory after one
		// that places its pixels past the end still refuses the file, which is cut short
		java.util.Random r = new java.util.Random(9);
		Tiff t = new Tiff();
		for (int page = 0; page < 3; page++) {
			t.grayPage(r, 40, 30);
		}
		t.directory(new int[0][]);
		byte[] back = t.out.toByteArray();
		ordered(back).putInt(t.lastNext, directories(t.out.toByteArray())[0]);
		Path backPath = Files.write(dir.resolve("back.tif"), back);
		t.directory(Tiff.gray8(40, 30, 30, new int[] { 1 << 20 }, 0, new int[] { 40 * 30 }));
		Path cutPath = Files.write(dir.resolve("cut.tif"), t.out.toByteArray());
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
			assertEquals(3, IJ.openImage(backPath.toString()).getStackSize(), "ImageJ reads the pages before it");
			assertEquals("true", TiffFiles.readable(backPath.toString()));
			assertEquals(3, TiffFiles.open(backPath.toString()).getStackSize());
			assertEquals(3, IJ.openImage(cutPath.toString()).getStackSize(), "ImageJ reads the pages before it");
			assertEquals("false", TiffFiles.readable(cutPath.toString()));
			assertEquals(null, TiffFiles.open(cutPath.toString()));
		}, "a chain coming back after a directory of no entries hung the check");
	}

	@Test
	void aStripPastTheEndIsFoundAmongThousandsOfStrips(@TempDir Path dir) throws Exception {
		// a directory's strips are compared a thousand or so at a time, not read whole (a file can
		// place millions): one past the end after the first thousand refuses the file as well
		int w = 8, h = 1100;
		Tiff t = new Tiff();
		int data = t.putRandom(new java.util.Random(10), w * h);
		java.nio.ByteBuffer arrays = java.nio.ByteBuffer.allocate(6 * h).order(java.nio.ByteOrder.LITTLE_ENDIAN);
		for (int y = 0; y < h; y++)
			arrays.putInt(data + w * y);
		for (int y = 0; y < h; y++)
			arrays.putShort((short) w);
		int offsetsAt = t.put(arrays.array());
		t.directory(new int[][] { { 256, 3, 1, w }, { 257, 3, 1, h }, { 258, 3, 1, 8 }, { 259, 3, 1, 1 }, { 262, 3, 1, 1 },
			{ 273, 4, h, offsetsAt }, { 277, 3, 1, 1 }, { 278, 3, 1, 1 }, { 279, 3, h, offsetsAt + 4 * h } });
		byte[] all = t.out.toByteArray();
		Path whole = Files.write(dir.resolve("strips.tif"), all);
		assertEquals(h, IJ.openImage(whole.toString()).getHeight());
		assertEquals("true", TiffFiles.readable(whole.toString()));
		ordered(all).putInt(offsetsAt + 4 * 1050, 1 << 20);
		assertEquals("false", cutAt(dir, "far.tif", all, all.length), "the 1051st strip starts past the end");
	}

	@Test
	void laterDirectoriesPlacingMillionsOfStripsPastTheEndRefuseAPageByPageFileAtOnce(@TempDir Path dir) throws Exception {
		// ImageJ's decoder reads every directory of a file that is not an ImageJ stack, each strip
		// offset a byte at a time: later directories claiming a million strips, one past the end,
		// held the check for half a minute before it said "false", as the walk already knew
		int strips = 1 << 20, later = 8;
		Tiff t = new Tiff();
		int data = t.putRandom(new java.util.Random(11), 40 * 30);
		java.nio.ByteBuffer arrays = java.nio.ByteBuffer.allocate(6 * strips).order(java.nio.ByteOrder.LITTLE_ENDIAN);
		for (int s = 0; s < strips; s++)
			arrays.putInt(s + 1 < strips ? data : 1 << 30);
		int offsetsAt = t.put(arrays.array()), countsAt = offsetsAt + 4 * strips;
		t.directory(Tiff.gray8(40, 30, 30, new int[] { data }, 0, new int[] { 40 * 30 }));
		for (int d = 0; d < later; d++)
			t.directory(new int[][] { { 256, 3, 1, 1 }, { 257, 4, 1, strips }, { 258, 3, 1, 8 }, { 259, 3, 1, 1 }, { 262, 3, 1, 1 },
				{ 273, 4, strips, offsetsAt }, { 277, 3, 1, 1 }, { 278, 3, 1, 1 }, { 279, 3, strips, countsAt } });
		Path pages = Files.write(dir.resolve("pages.tif"), t.out.toByteArray());
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
			assertEquals("false", TiffFiles.readable(pages.toString()));
			assertEquals(null, TiffFiles.open(pages.toString()));
		}, "the strips of later directories, read by ImageJ's decoder, held the check");
	}

	@Test
	void aNegativeMetadataLengthAtTheEndOfTheFileIsRefusedAsImageJThrowsOnIt(@TempDir Path dir) throws Exception {
		// ImageJ's decoder skips metadata of a type it does not know by the lengths the file gives,
		// the second into the buffer of the first: a length of -1 there is an IndexOutOfBoundsException
		// from the file, which its open() does not catch, also where the first length has read the
		// rest of the file. The check's own reading of the file returned "end of file" there instead
		Path f = negativeMetadataLength(dir);
		org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class,
			() -> new ij.io.Opener().openImage(f.toString()), "ImageJ's open() throws on it");
		assertEquals("false", TiffFiles.readable(f.toString()));
		assertEquals(null, TiffFiles.open(f.toString()));
	}

	@Test
	void anImageJStackWhoseNextDirectoryIsWhereItsDescriptionLiesIsRead(@TempDir Path dir) throws Exception {
		// ImageJ's decoder reads an ImageJ stack's first directory alone, going to its description
		// on the way: the check stopped it there, as if it went on to a second directory cut short,
		// and skipped a file ImageJ opens whole. The decoder goes on to the second directory only
		// from the end of the first
		byte[] all = ramp(dir, 6);
		int first = directories(all)[0];
		int description = entry(all, first, 270).getInt(8);
		// a second directory there holds thousands of entries: it runs past the end, cut short
		ordered(all).putInt(nextAt(all, first), description);
		Path f = Files.write(dir.resolve("description.tif"), all);
		assertEquals(6, IJ.openImage(f.toString()).getStackSize(), "ImageJ opens it");
		assertEquals("true", TiffFiles.readable(f.toString()));
		assertEquals(6, TiffFiles.open(f.toString()).getStackSize());
	}

	@Test
	void aFileThatCannotBeOpenedIsNotTakenForATiledOneByItsPath(@TempDir Path dir) throws Exception {
		// the check tells a tiled TIFF by the word in the exception ImageJ's decoder throws; a file
		// removed between the walk and the decoder threw one naming its path, and a folder of tiled
		// scans made it "tiled": readable() then answered from the walk, "true", for a missing file
		Path gone = dir.resolve("tiled scans").resolve("gone.tif");
		assertEquals(false, TiffFiles.refusedAsTiled(new java.io.FileNotFoundException(gone + " (No such file or directory)")));
		try {
			new ij.io.RandomAccessStream(new java.io.RandomAccessFile(gone.toFile(), "r"));
			org.junit.jupiter.api.Assertions.fail("the file does not exist");
		} catch (java.io.IOException e) {
			assertEquals(false, TiffFiles.refusedAsTiled(e), "what opening a missing file throws: " + e);
		}
		// what ImageJ's decoder throws for a tiled TIFF, which aWholeTiledTiffIsLeftToOpenAndACutOneRefused reads whole
		assertEquals(true, TiffFiles.refusedAsTiled(new java.io.IOException("ImageJ cannot open tiled TIFFs.\nTry using the Bio-Formats plugin.")));
	}

	@Test
	void aTiledTiffWithATilePastTheEndIsRefused(@TempDir Path dir) throws Exception {
		// a tile is measured by its end, not its start, and by its own byte count: a last tile
		// starting in the file and ending past it, or a later page's tile past the end, refuses the
		// file (its directories whole, so only the walk's measure of the tiles tells it is cut)
		Tiff t = new Tiff();
		int data = t.putRandom(new java.util.Random(13), 4 * 16 * 16);
		int[] arrays = new int[2];
		for (int page = 0; page < 2; page++)
			arrays[page] = tiledPage(t, data);
		byte[] all = t.out.toByteArray();
		assertEquals("true", cutAt(dir, "tiled.tif", all, all.length));
		assertEquals(true, TiffFiles.tiled(dir.resolve("tiled.tif").toString()));
		byte[] later = all.clone();
		ordered(later).putInt(arrays[1] + 12, 1 << 20); // the second page's last tile lies past the end
		assertEquals("false", cutAt(dir, "later.tif", later, later.length), "a later page's tile past the end");
		byte[] first = all.clone();
		ordered(first).putInt(arrays[0] + 12, all.length - 100); // the first page's last tile ends 156 bytes past the end
		assertEquals("false", cutAt(dir, "first.tif", first, first.length), "a tile starting in the file and ending past it");
	}

	@Test
	void aWholeTiffImageJsDecoderThrowsOnLeavesNoFileOpen(@TempDir Path dir) throws Exception {
		// the decoder also throws on a file whose directories are whole (a negative metadata length),
		// without closing it: the check closes it, or a folder of such files would run the macros
		// out of file handles (aCutTiffLeavesNoFileOpen's file is no longer given to the decoder)
		Path f = negativeMetadataLength(dir);
		assertEquals("false", TiffFiles.readable(f.toString()));
		assertFewFilesLeftOpen(f);
	}

	@Test
	void anImageJStackWithMoreMetadataThanTheBufferHoldsIsRead(@TempDir Path dir) throws Exception {
		// ImageJ's decoder reads its metadata item by item, each whole: slice labels of 60 KB each,
		// read from inside the check's buffer of 64 KB and past its end, are copied from the file,
		// not from past the buffer
		ImagePlus imp = IJ.createImage("x", "8-bit ramp", 20, 10, 3);
		StringBuilder label = new StringBuilder();
		for (int i = 0; i < 3000; i++)
			label.append("label ").append(i).append('\n');
		for (int slice = 1; slice <= 3; slice++)
			imp.getStack().setSliceLabel(slice + ":" + label, slice);
		Path f = dir.resolve("labels.tif");
		IJ.saveAsTiff(imp, f.toString());
		org.junit.jupiter.api.Assumptions.assumeTrue(Files.size(f) > 100_000, "ImageJ saved the labels");
		assertEquals("true", TiffFiles.readable(f.toString()));
		assertEquals(imp.getStack().getSliceLabel(3), TiffFiles.open(f.toString()).getStack().getSliceLabel(3));
	}

	/** @return a TIFF whose ImageJ metadata gives a length of -1, at the end of the file, on which ImageJ's decoder throws */
	private static Path negativeMetadataLength(Path dir) throws java.io.IOException {
		Tiff t = new Tiff();
		int data = t.putRandom(new java.util.Random(12), 20 * 10);
		java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(24).order(java.nio.ByteOrder.LITTLE_ENDIAN);
		// ImageJ's metadata header: its magic number, then one type (not one ImageJ knows) of two items
		b.putInt(0x494a494a).putInt(0x7f000000).putInt(2);
		// the lengths of the header and of the two items: the first runs past the end, the second is -1
		b.putInt(12).putInt(1 << 20).putInt(-1);
		int header = t.put(b.array());
		int[][] gray = Tiff.gray8(20, 10, 10, new int[] { data }, 0, new int[] { 20 * 10 });
		int[][] entries = Arrays.copyOf(gray, gray.length + 2);
		entries[gray.length] = new int[] { 50838, 4, 3, header + 12 };
		entries[gray.length + 1] = new int[] { 50839, 1, 12, header };
		t.directory(entries);
		return Files.write(dir.resolve("metadata.tif"), t.out.toByteArray());
	}

	/** @return a file of {@code pages} pages of 20 x 10 planar 16-bit RGB pixels, seeded at random */
	private static Path planarRgb48(Path dir, String name, int pages, long seed) throws java.io.IOException {
		Tiff t = new Tiff();
		java.util.Random r = new java.util.Random(seed);
		for (int page = 0; page < pages; page++) {
			int data = t.putRandom(r, 3 * 2 * 20 * 10);
			java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(30).order(java.nio.ByteOrder.LITTLE_ENDIAN);
			for (int c = 0; c < 3; c++)
				b.putInt(data + 400 * c);
			for (int c = 0; c < 3; c++)
				b.putInt(400);
			for (int c = 0; c < 3; c++)
				b.putShort((short) 16);
			int arrays = t.put(b.array());
			t.directory(new int[][] { { 256, 3, 1, 20 }, { 257, 3, 1, 10 }, { 258, 3, 3, arrays + 24 }, { 259, 3, 1, 1 },
				{ 262, 3, 1, 2 }, { 273, 4, 3, arrays }, { 277, 3, 1, 3 }, { 278, 3, 1, 10 }, { 279, 4, 3, arrays + 12 },
				{ 284, 3, 1, 2 } });
		}
		return Files.write(dir.resolve(name), t.out.toByteArray());
	}

	@Test
	void aOneBitImageMissingTheLastByteOfItsLastRowIsRefused(@TempDir Path dir) throws Exception {
		// a row of 20 one-bit pixels takes 3 bytes, the last partly: measured as 2, a file cut in
		// its last rows' third bytes passed as whole
		Tiff t = new Tiff();
		int data = 8 + 2 + 12 * 8 + 4; // the pixels after the directory, so that the file can end in them
		// no strip byte counts (ImageJ reads without): the pixels' size alone tells where they end
		t.directory(new int[][] { { 256, 3, 1, 20 }, { 257, 3, 1, 10 }, { 258, 3, 1, 1 }, { 259, 3, 1, 1 }, { 262, 3, 1, 0 },
			{ 273, 4, 1, data }, { 277, 3, 1, 1 }, { 278, 3, 1, 10 } });
		assertEquals(data, t.putRandom(new java.util.Random(16), 3 * 10));
		byte[] all = t.out.toByteArray();
		assertEquals(ij.io.FileInfo.BITMAP, ij.io.Opener.getTiffFileInfo(Files.write(dir.resolve("b.tif"), all).toString())[0].fileType);
		assertEquals("true", cutAt(dir, "whole.tif", all, all.length));
		assertEquals(20, IJ.openImage(dir.resolve("whole.tif").toString()).getWidth(), "ImageJ opens it");
		assertEquals("false", cutAt(dir, "short.tif", all, all.length - 1), "the last byte of the last row missing");
	}

	@Test
	void aWholeTwelveBitImageIsReadable(@TempDir Path dir) throws Exception {
		// packed 12-bit pixels take a byte and a half each: measured as 16-bit, a whole file was refused
		Tiff t = new Tiff();
		int data = 8 + 2 + 12 * 9 + 4; // the pixels after the directory: the file ends with them
		t.directory(new int[][] { { 256, 3, 1, 20 }, { 257, 3, 1, 10 }, { 258, 3, 1, 12 }, { 259, 3, 1, 1 }, { 262, 3, 1, 1 },
			{ 273, 4, 1, data }, { 277, 3, 1, 1 }, { 278, 3, 1, 10 }, { 279, 4, 1, 300 } });
		assertEquals(data, t.putRandom(new java.util.Random(17), 20 * 10 * 3 / 2));
		Path f = Files.write(dir.resolve("twelve.tif"), t.out.toByteArray());
		assertEquals(ij.io.FileInfo.GRAY12_UNSIGNED, ij.io.Opener.getTiffFileInfo(f.toString())[0].fileType);
		assertEquals(20, IJ.openImage(f.toString()).getWidth(), "ImageJ opens it");
		assertEquals("true", TiffFiles.readable(f.toString()));
	}

	@Test
	void anImageOfFourGigabytesInAFileOfAFewHundredBytesIsRefused(@TempDir Path dir) throws Exception {
		// 65536 x 32768 16-bit pixels are 4 GB, 2^32 bytes: in int arithmetic their size wrapped to
		// 0, and the pixels seemed to end inside the file
		Tiff t = new Tiff();
		int data = t.putRandom(new java.util.Random(18), 100);
		t.directory(new int[][] { { 256, 4, 1, 65536 }, { 257, 4, 1, 32768 }, { 258, 3, 1, 16 }, { 259, 3, 1, 1 }, { 262, 3, 1, 1 },
			{ 273, 4, 1, data }, { 277, 3, 1, 1 }, { 278, 4, 1, 32768 }, { 279, 4, 1, 100 } });
		assertEquals("false", cutAt(dir, "huge.tif", t.out.toByteArray(), t.out.size()));
	}

	@Test
	void aCutTiffThatIsAlsoDicomIsRefused(@TempDir Path dir) throws Exception {
		// ImageJ's Opener reads a TIFF with DICOM's "DICM" at byte 128 (GE scanners write them) with
		// its TIFF decoder as well: cut short in its pixels, it opens as silently as any TIFF
		Tiff t = new Tiff();
		byte[] preamble = new byte[200];
		preamble[120] = 'D';
		preamble[121] = 'I';
		preamble[122] = 'C';
		preamble[123] = 'M';
		t.put(preamble);
		int data = t.out.size() + 2 + 12 * 9 + 4; // the pixels after the directory, so that the file can end in them
		t.directory(Tiff.gray8(20, 10, 10, new int[] { data }, 0, new int[] { 200 }));
		assertEquals(data, t.putRandom(new java.util.Random(19), 200));
		byte[] all = t.out.toByteArray();
		Path whole = Files.write(dir.resolve("dicom.tif"), all);
		assertEquals(ij.io.Opener.TIFF_AND_DICOM, new ij.io.Opener().getFileType(whole.toString()));
		assertEquals("true", TiffFiles.readable(whole.toString()));
		assertEquals("false", cutAt(dir, "cut.tif", all, all.length - 1), "the last pixel missing");
	}

	@Test
	void anArrayAnEntryPointsToIsMeasuredByTheSizeOfItsType(@TempDir Path dir) throws Exception {
		// 3 SHORTs take 6 bytes, a RATIONAL 8: either running past the end is a file cut short,
		// one ending where the file ends is not
		for (int[] c : new int[][] { { 65000, 3, 3, -4, 0 }, { 282, 5, 1, -4, 0 }, { 282, 5, 1, -8, 1 }, { 65000, 3, 3, -6, 1 } }) {
			Tiff t = new Tiff();
			int data = t.putRandom(new java.util.Random(20), 200);
			int[][] gray = Tiff.gray8(20, 10, 10, new int[] { data }, 0, new int[] { 200 });
			int[][] entries = Arrays.copyOf(gray, gray.length + 1);
			int end = t.out.size() + 2 + 12 * entries.length + 4 + 8; // 8 bytes after the directory
			entries[gray.length] = new int[] { c[0], c[1], c[2], end + c[3] };
			t.directory(entries);
			t.putRandom(new java.util.Random(21), 8);
			assertEquals(end, t.out.size());
			String what = "tag " + c[0] + " of type " + c[1] + " from " + c[3] + " bytes before the end";
			assertEquals(c[4] == 1 ? "true" : "false", cutAt(dir, "array.tif", t.out.toByteArray(), end), what);
		}
	}

	@Test
	void aBigEndianFileReadPageByPageIsMeasuredInItsByteOrder(@TempDir Path dir) throws Exception {
		// the strips of the directories after the first are measured in the file's byte order: an
		// ImageJ stack whose description is not ImageJ's is read page by page, and big-endian as
		// ImageJ writes it by default
		byte[] all = ramp(dir, 3);
		org.junit.jupiter.api.Assumptions.assumeTrue(all[0] == 'M', "ImageJ writes little-endian TIFFs here");
		int first = directories(all)[0];
		int description = entry(all, first, 270).getInt(8);
		assertEquals('I', all[description]);
		all[description] = 'i'; // "imageJ=...": no longer an ImageJ stack to the decoder
		assertEquals(3, cutAt(dir, "pages.tif", all, all.length).equals("true") ? IJ.openImage(dir.resolve("pages.tif").toString()).getStackSize() : -1);
		int third = directories(all)[2];
		entry(all, third, 279).putInt(8, 1 << 20); // the last page's strip starts in the file and ends far past it
		assertEquals("false", cutAt(dir, "long.tif", all, all.length), "the third page's strip ends past the end");
	}

	@Test
	void aFileOfTwentyPagesIsReadable(@TempDir Path dir) throws Exception {
		// the walk keeps where the pages after the first lie, more than it first makes room for
		Tiff t = new Tiff();
		java.util.Random r = new java.util.Random(22);
		for (int page = 0; page < 20; page++) {
			t.grayPage(r, 40, 30);
		}
		Path pages = Files.write(dir.resolve("pages.tif"), t.out.toByteArray());
		assertEquals(20, IJ.openImage(pages.toString()).getStackSize());
		assertEquals("true", TiffFiles.readable(pages.toString()));
	}

	@Test
	void aChainOfMoreThanAThousandDirectoriesIsWalkedToItsEnd(@TempDir Path dir) throws Exception {
		// ImageJ's decoder reads every one of 1100 pages: the last pointing past the end of the file,
		// the file is cut short there
		Tiff t = new Tiff();
		for (int page = 0; page < 1100; page++) {
			int data = t.put(new byte[] { (byte) page });
			t.directory(Tiff.gray8(1, 1, 1, new int[] { data }, 0, new int[] { 1 }));
		}
		byte[] all = t.out.toByteArray();
		assertEquals("true", cutAt(dir, "pages.tif", all, all.length));
		ordered(all).putInt(t.lastNext, all.length + 1000);
		assertEquals("false", cutAt(dir, "cut.tif", all, all.length), "a 1101st directory past the end");
	}

	@Test
	void aLastDirectoryMissingHalfItsLinkIsRefused(@TempDir Path dir) throws Exception {
		// a directory ends with the 4 bytes of its link to the next: 2 of them missing, it is cut short.
		// Blank pages: a walk that read what it had not loaded found 0 there, an end to the chain
		Tiff t = new Tiff();
		for (int page = 0; page < 3; page++) {
			int data = t.put(new byte[40 * 30]);
			t.directory(Tiff.gray8(40, 30, 30, new int[] { data }, 0, new int[] { 40 * 30 }));
		}
		byte[] all = t.out.toByteArray();
		for (int cut = 1; cut <= 3; cut++)
			assertEquals("false", cutAt(dir, "cut.tif", all, all.length - cut), cut + " bytes of the link missing");
	}

	@Test
	void aLoopThroughADirectoryOfAThousandEntriesIsRefused(@TempDir Path dir) throws Exception {
		// ImageJ's decoder stops at a directory of more than 1000 entries, not at one of 1000: it
		// reads this one, and a chain coming back to it held it until the heap was full
		int[][] gray = Tiff.gray8(20, 10, 10, new int[] { 0 }, 0, new int[] { 200 });
		int[][] entries = Arrays.copyOf(gray, 1000);
		for (int i = gray.length; i < entries.length; i++)
			entries[i] = new int[] { 60000 + i, 3, 1, i }; // private tags ImageJ does not know
		Tiff t = new Tiff();
		int data = 8 + 2 + 12 * 1000 + 4;
		entries[5] = new int[] { 273, 4, 1, data };
		t.directory(entries);
		assertEquals(data, t.putRandom(new java.util.Random(25), 200));
		byte[] all = t.out.toByteArray();
		assertEquals("true", cutAt(dir, "thousand.tif", all, all.length), "ImageJ's decoder reads a directory of 1000 entries");
		ordered(all).putInt(t.lastNext, 8); // the directory points at itself
		Path loop = Files.write(dir.resolve("loop.tif"), all);
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
			assertEquals("false", TiffFiles.readable(loop.toString()));
			assertEquals(null, TiffFiles.open(loop.toString()));
		}, "a loop through a directory of 1000 entries held the check");
	}

	/** Asserts that {@link TiffFiles#readable} answers {@code expected} of {@code file} within 5 s; {@code held} says what a timeout means */
	private static void assertQuickly(String expected, Path file, String held) {
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(5),
			() -> assertEquals(expected, TiffFiles.readable(file.toString())), held);
	}

	/** @return the file's bytes, read in its byte order (ImageJ writes either, as its preferences say) */
	private static java.nio.ByteBuffer ordered(byte[] file) {
		return java.nio.ByteBuffer.wrap(file).order(file[0] == 'I' ? java.nio.ByteOrder.LITTLE_ENDIAN : java.nio.ByteOrder.BIG_ENDIAN);
	}

	/**
	 * @return the bytes of a TIFF as ImageJ writes a 20x10 8-bit ramp of {@code slices} (an
	 *         ImageJ stack where more than one), to be broken by a test
	 */
	private static byte[] ramp(Path dir, int slices) throws java.io.IOException {
		Path p = dir.resolve("ramp.tif");
		IJ.saveAsTiff(IJ.createImage("ramp", "8-bit ramp", 20, 10, slices), p.toString());
		return Files.readAllBytes(p);
	}

	/** @return where the directory at {@code ifd} keeps the place of the next */
	private static int nextAt(byte[] file, int ifd) {
		return ifd + 2 + 12 * (ordered(file).getShort(ifd) & 0xffff);
	}

	/** @return the places of a TIFF's directories, as its chain links them; the chain must end */
	private static int[] directories(byte[] file) {
		java.util.List<Integer> at = new java.util.ArrayList<>();
		for (int next = ordered(file).getInt(4); next != 0; next = ordered(file).getInt(nextAt(file, next)))
			at.add(next);
		return at.stream().mapToInt(Integer::intValue).toArray();
	}

	/** @return the entry {@code tag} of the directory at {@code ifd}, from its first byte */
	private static java.nio.ByteBuffer entry(byte[] file, int ifd, int tag) {
		for (int e = ifd + 2; e < nextAt(file, ifd); e += 12)
			if ((ordered(file).getShort(e) & 0xffff) == tag)
				return java.nio.ByteBuffer.wrap(file, e, 12).slice().order(ordered(file).order());
		throw new AssertionError("no entry " + tag + " in the directory at " + ifd);
	}
}
