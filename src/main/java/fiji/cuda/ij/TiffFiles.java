package fiji.cuda.ij;

import ij.io.FileInfo;
import ij.io.Opener;

/**
 * Whether ImageJ can open a TIFF file whole without stopping the macro that opens it. ImageJ's
 * Opener throws on a file cut short in its header (a NegativeArraySizeException from its TIFF
 * decoder, say), and a macro's {@code open()} cannot catch that: a batch over a folder ended at
 * such a file, the rest unprocessed and no summary written. A file cut short in its pixels it
 * opens silently, incomplete. The macros in {@code macros/} ask first, through {@code call}.
 */
public final class TiffFiles {

	private TiffFiles() {}

	/**
	 * For a macro: {@code call("fiji.cuda.ij.TiffFiles.readable", path)}. Only a classic TIFF
	 * that ImageJ's decoder cannot read is refused, or one cut short: a directory, an array its
	 * entries point to, or pixels it places lie past the end of the file. Any other file is left
	 * to {@code open()}, which picks its reader by the file's first bytes, not its name (a PNG
	 * named .tif, or a BigTIFF or tiled TIFF that Fiji hands to Bio-Formats), and whose failure
	 * the macro can see.
	 *
	 * @param path a file
	 * @return "false" for a classic TIFF whose header ImageJ cannot read or that is cut short,
	 *         "true" otherwise
	 */
	public static String readable(String path) {
		if (!readByTiffDecoder(path)) return "true";
		Header h = header(path);
		long length = new java.io.File(path).length();
		// a whole tiled TIFF: ImageJ's decoder refuses it, and its Opener then hands the file to
		// the other readers (Bio-Formats in Fiji) without throwing, so open() may still read it
		if (h.tiled) return String.valueOf(directoriesWhole(path, length, Integer.MAX_VALUE));
		return String.valueOf(h.info != null && complete(h.info, path, length));
	}

	/**
	 * For the folder macros, whose {@code ==} ignores letter case: whether two paths name the
	 * same file as the file system sees it (letter case on Windows and macOS, links).
	 *
	 * @param a a path
	 * @param b another
	 * @return "true" or "false"; paths that do not both exist are the same only when equal
	 */
	public static String sameFile(String a, String b) {
		try {
			return String.valueOf(java.nio.file.Files.isSameFile(java.nio.file.Paths.get(a), java.nio.file.Paths.get(b)));
		} catch (java.io.IOException | RuntimeException e) {
			return String.valueOf(String.valueOf(a).equals(b));
		}
	}

	/** What ImageJ's TIFF decoder makes of a file's header, read once. */
	private static final class Header {
		/** The entries; null where the decoder could not read them. */
		final FileInfo[] info;
		/** Whether the decoder refused the file as tiled, with the IOException its Opener answers by trying other readers. */
		final boolean tiled;

		Header(FileInfo[] info, boolean tiled) {
			this.info = info != null && info.length > 0 && info[0] != null ? info : null;
			this.tiled = tiled;
		}
	}

	/**
	 * ImageJ's decoder, whose file stays open when reading the header throws (a file cut short
	 * there): open until the collector found it, and a folder of such files ran a batch out of
	 * file handles, after which every image was skipped as not opening.
	 */
	private static final class ClosingDecoder extends ij.io.TiffDecoder {
		ClosingDecoder(Opener o, String path) {
			super(o.getDir(path), o.getName(path));
		}

		FileInfo[] read() throws java.io.IOException {
			try {
				return getTiffInfo();
			} finally {
				// again after a whole read: closing twice is harmless
				if (in != null) try {
					in.close();
				} catch (java.io.IOException e) {
					// nothing was written; what was read stands
				}
			}
		}
	}

	private static Header header(String path) {
		// ImageJ's decoder follows the chain of directories with no check for a loop: it read the
		// same directories again and again until the heap was full, and a folder batch hung there
		if (directoriesLoop(path)) return new Header(null, false);
		try {
			return new Header(new ClosingDecoder(new Opener(), path).read(), false);
		} catch (java.io.IOException e) {
			return new Header(null, String.valueOf(e.getMessage()).contains("tiled"));
		} catch (RuntimeException | OutOfMemoryError e) {
			return new Header(null, false); // a corrupt entry count can ask for any amount of memory
		}
	}

	/** @return whether ImageJ's TIFF decoder refuses the file as tiled */
	static boolean tiled(String path) {
		return header(path).tiled;
	}

	/**
	 * @param info what ImageJ's decoder read of the file's header
	 * @return whether the file holds every byte that its directories place: each directory, the
	 *         arrays its entries point to, and each strip or tile of pixels. ImageJ opens a TIFF
	 *         cut short there without a word, with slices missing, rows of 0 or header bytes read
	 *         as pixels, which a batch would then process and save as a result
	 */
	private static boolean complete(FileInfo[] info, String path, long length) {
		for (FileInfo fi : info)
			if (fi == null || dataEnd(fi) > length) return false;
		// pages of planar 16-bit RGB: ImageJ's Opener stacks each page's three planes as one
		// slice, and its ImagePlus then throws "Unknown stack type", which a macro cannot catch
		if (info.length > 1)
			for (FileInfo fi : info)
				if (fi.fileType == FileInfo.RGB48_PLANAR) return false;
		// an ImageJ stack's slices lie one after another after its first directory, which alone
		// ImageJ reads: the directories of the other slices, written after the pixels, are not needed
		boolean imageJStack = info.length == 1 && info[0].nImages > 1;
		return directoriesWhole(path, length, imageJStack ? 1 : Integer.MAX_VALUE);
	}

	/**
	 * @return the byte just past the pixels ImageJ reads for an uncompressed entry, from its
	 *         offset and size, as ImageJ reads them (an ImageJ stack is one entry for all its
	 *         slices, stored one after another); 0 where that cannot be told (compressed, packed
	 *         10 and 12-bit pixels). Not from the entry's strip lengths, which ImageJ's decoder
	 *         misreads when two of them are stored in the entry itself (libtiff writes such files).
	 */
	static long dataEnd(FileInfo fi) {
		if (fi.compression > FileInfo.COMPRESSION_NONE || fi.width <= 0 || fi.height <= 0) return 0;
		long plane;
		if (fi.fileType == FileInfo.BITMAP) plane = (long) ((fi.width + 7) / 8) * fi.height;
		else if (fi.fileType == FileInfo.GRAY12_UNSIGNED || fi.fileType == FileInfo.GRAY10_UNSIGNED) return 0;
		else plane = (long) fi.width * fi.height * fi.getBytesPerPixel();
		int n = Math.max(1, fi.nImages);
		return fi.getOffset() + n * plane + (n - 1) * fi.getGap();
	}

	/** @return whether {@code open()} would read the file with ImageJ's TIFF decoder: its own choice, by content */
	static boolean readByTiffDecoder(String path) {
		int type = new Opener().getFileType(path);
		return type == Opener.TIFF || type == Opener.TIFF_AND_DICOM;
	}

	/** Bytes of one value of each TIFF field type, by type number; 0 for types unknown. */
	private static final int[] TYPE_BYTES = { 0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4 };
	private static final int STRIP_OFFSETS = 273, STRIP_BYTE_COUNTS = 279, TILE_OFFSETS = 324, TILE_BYTE_COUNTS = 325;

	/**
	 * Walks the directories of a classic TIFF as its header chains them.
	 *
	 * @param most at most this many directories are walked, from the first
	 * @return false when a directory, an array an entry points to, or a strip or tile lies past
	 *         {@code length}; true otherwise, and for files this reader does not walk (BigTIFF)
	 */
	static boolean directoriesWhole(String path, long length, int most) {
		try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(path, "r")) {
			byte[] head = new byte[8];
			f.readFully(head);
			boolean le = head[0] == 'I';
			if (u16(head, 2, le) != 42) return true; // BigTIFF (43): not ImageJ's decoder's
			long next = u32(head, 4, le);
			java.util.Set<Long> seen = new java.util.HashSet<>();
			while (next != 0) {
				if (seen.size() >= most) return true;
				// a loop is refused before (directoriesLoop): ImageJ's decoder does not stop there
				if (!seen.add(next) || seen.size() > 1_000_000) return true;
				if (next + 2 > length) return false;
				f.seek(next);
				byte[] c = new byte[2];
				f.readFully(c);
				int count = u16(c, 0, le);
				if (next + 2 + 12L * count + 4 > length) return false;
				byte[] entries = new byte[12 * count + 4];
				f.readFully(entries);
				long[][] strips = new long[2][], tiles = new long[2][];
				for (int e = 0; e < count; e++) {
					int tag = u16(entries, 12 * e, le), type = u16(entries, 12 * e + 2, le);
					long n = u32(entries, 12 * e + 4, le);
					long bytes = type < TYPE_BYTES.length ? n * TYPE_BYTES[type] : 0;
					if (bytes > 4 && u32(entries, 12 * e + 8, le) + bytes > length) return false;
					if ((type == 3 || type == 4) && n > 0 && n <= 1 << 24) {
						long[] v = values(f, entries, 12 * e, le, type, (int) n);
						if (tag == STRIP_OFFSETS) strips[0] = v;
						else if (tag == STRIP_BYTE_COUNTS) strips[1] = v;
						else if (tag == TILE_OFFSETS) tiles[0] = v;
						else if (tag == TILE_BYTE_COUNTS) tiles[1] = v;
					}
				}
				if (pastEnd(strips, length) || pastEnd(tiles, length)) return false;
				next = u32(entries, 12 * count, le);
			}
			return true;
		} catch (java.io.IOException | RuntimeException e) {
			return false;
		}
	}

	/**
	 * @return whether the chain of directories of a classic TIFF comes back to a directory already
	 *         in it before a directory where ImageJ's decoder stops (one of no entries or more
	 *         than 1000); false for any file this cannot tell of. Such a file is refused whole, also
	 *         an ImageJ stack, whose first directory alone the decoder reads: no writer makes one
	 */
	static boolean directoriesLoop(String path) {
		try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(path, "r")) {
			long length = f.length();
			byte[] head = new byte[8];
			f.readFully(head);
			if (head[0] != head[1] || head[0] != 'I' && head[0] != 'M') return false;
			boolean le = head[0] == 'I';
			if (u16(head, 2, le) != 42) return false;
			java.util.Set<Long> seen = new java.util.HashSet<>();
			byte[] b = new byte[4];
			for (long next = u32(head, 4, le); next != 0;) {
				if (!seen.add(next)) return true;
				// a chain this long ends (the decoder reads it, slowly) or is cut short
				if (seen.size() > 1_000_000 || next + 2 > length) return false;
				f.seek(next);
				f.readFully(b, 0, 2);
				int count = u16(b, 0, le);
				if (count < 1 || count > 1000 || next + 2 + 12L * count + 4 > length) return false;
				f.seek(next + 2 + 12L * count);
				f.readFully(b);
				next = u32(b, 0, le);
			}
			return false;
		} catch (java.io.IOException | RuntimeException e) {
			return false;
		}
	}

	/** @return whether some piece of pixels, {offsets, byte counts}, ends past {@code length} */
	private static boolean pastEnd(long[][] pieces, long length) {
		if (pieces[0] == null || pieces[1] == null) return false;
		for (int i = 0; i < Math.min(pieces[0].length, pieces[1].length); i++)
			if (pieces[0][i] + pieces[1][i] > length) return true;
		return false;
	}

	/** @return the SHORT or LONG values of the entry at {@code at}: in the entry itself when they fit in 4 bytes */
	private static long[] values(java.io.RandomAccessFile f, byte[] entries, int at, boolean le, int type, int n)
		throws java.io.IOException
	{
		int size = type == 3 ? 2 : 4;
		byte[] b;
		int from;
		if ((long) n * size <= 4) {
			b = entries;
			from = at + 8;
		} else {
			b = new byte[n * size];
			f.seek(u32(entries, at + 8, le));
			f.readFully(b);
			from = 0;
		}
		long[] v = new long[n];
		for (int i = 0; i < n; i++)
			v[i] = size == 2 ? u16(b, from + 2 * i, le) : u32(b, from + 4 * i, le);
		return v;
	}

	private static int u16(byte[] b, int i, boolean le) {
		return le ? (b[i] & 0xff) | (b[i + 1] & 0xff) << 8 : (b[i] & 0xff) << 8 | (b[i + 1] & 0xff);
	}

	private static long u32(byte[] b, int i, boolean le) {
		long lo = u16(b, le ? i : i + 2, le), hi = u16(b, le ? i + 2 : i, le);
		return hi << 16 | lo;
	}

	/**
	 * @return the TIFF image in the file, or null where ImageJ's TIFF decoder cannot read it whole
	 *         (nothing thrown, and no dialog: ImageJ's Opener answers a file of no format it knows
	 *         with one, on which a batch run would wait)
	 */
	static ij.ImagePlus open(String path) {
		FileInfo[] info = header(path).info;
		if (info == null || !complete(info, path, new java.io.File(path).length())) return null;
		try {
			return new Opener().openImage(path);
		} catch (RuntimeException e) {
			return null;
		}
	}
}
