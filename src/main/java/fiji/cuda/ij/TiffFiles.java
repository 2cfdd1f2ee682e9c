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
		Header h = header(path);
		if (h == null) return "true";
		// a whole tiled TIFF: ImageJ's decoder refuses it, and its Opener then hands the file to
		// the other readers (Bio-Formats in Fiji) without throwing, so open() may still read it
		if (h.tiled) return String.valueOf(h.chain.whole(Integer.MAX_VALUE));
		return String.valueOf(h.info != null && complete(h.info, h.chain));
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

	/** What ImageJ's TIFF decoder makes of a file's header, read once, and what the walk of its directories before it found. */
	private static final class Header {
		/** The entries; null where the decoder could not read them. */
		final FileInfo[] info;
		/** Whether the decoder refused the file as tiled, with the IOException its Opener answers by trying other readers. */
		final boolean tiled;
		/** The file's chain of directories. */
		final Chain chain;

		Header(FileInfo[] info, boolean tiled, Chain chain) {
			this.info = info != null && info.length > 0 && info[0] != null ? info : null;
			this.tiled = tiled;
			this.chain = chain;
		}
	}

	/**
	 * ImageJ's decoder, whose file stays open when reading the header throws (a file cut short
	 * there): open until the collector found it, and a folder of such files ran a batch out of
	 * file handles, after which every image was skipped as not opening.
	 */
	private static final class ClosingDecoder extends ij.io.TiffDecoder {
		ClosingDecoder(Opener o, String path, Chain chain) throws java.io.IOException {
			super(o.getDir(path), o.getName(path));
			// the decoder reads through the stream it finds, and opens its own only where there is none
			in = new ij.io.RandomAccessStream(new Watched(path, chain));
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

	/**
	 * The file as ImageJ's decoder reads it: through a buffer, and stopped where it goes on to
	 * the second directory while the walk found a directory cut short.
	 * <ul>
	 * <li>The decoder reads a byte at a time, each a read of the file, also past its end: a
	 * directory's million strip offsets took a few million reads, seconds, and any count up to
	 * 2<sup>31</sup> is read whole.</li>
	 * <li>It goes to the second directory only for a file it reads page by page, not an ImageJ
	 * stack, and such a file is refused unless all its directories are whole: later directories
	 * placing millions of strips held it for minutes before the check said "false".</li>
	 * </ul>
	 * What it reads is what it would read without: the answers stay the same.
	 */
	private static final class Watched extends java.io.RandomAccessFile {
		private final Chain chain;
		private final long length;
		private final byte[] buffer;
		/** The place in the file the buffer starts at, and how many of its bytes are the file's. */
		private long start;
		private int size;
		/** Where the decoder reads next. */
		private long at;

		Watched(String path, Chain chain) throws java.io.IOException {
			super(path, "r");
			this.chain = chain;
			// the file is open: the decoder that would close it never gets this stream if what follows throws
			try {
				length = super.length();
				buffer = new byte[64 * 1024];
			} catch (java.io.IOException | RuntimeException | Error e) {
				super.close();
				throw e;
			}
		}

		@Override
		public void seek(long to) throws java.io.IOException {
			if (to < 0) throw new java.io.IOException("Negative seek offset");
			// from the end of the first directory's link alone: on its way through the first, the
			// decoder may go to the same place (an ImageJ stack's description, which it reads alone)
			if (to == chain.second && at == chain.firstLinkEnd && !chain.whole(Integer.MAX_VALUE))
				throw new java.io.IOException("a directory after the first is cut short");
			at = to;
		}

		@Override
		public long getFilePointer() {
			return at;
		}

		@Override
		public int read() throws java.io.IOException {
			if (!buffered()) return -1;
			return buffer[(int) (at++ - start)] & 0xff;
		}

		/**
		 * As RandomAccessFile's: a length or place outside {@code b} throws, also at the end of the
		 * file. The decoder asks for a negative length where a file gives one (its metadata's), and
		 * ImageJ's open() then throws, uncaught: "end of file" there made such a file readable.
		 */
		@Override
		public int read(byte[] b, int off, int len) throws java.io.IOException {
			java.util.Objects.checkFromIndexSize(off, len, b.length);
			if (len == 0) return 0;
			if (!buffered()) return -1;
			int n = (int) Math.min(len, start + size - at);
			System.arraycopy(buffer, (int) (at - start), b, off, n);
			at += n;
			return n;
		}

		/** @return whether the buffer now holds the byte at {@link #at}; false past the end */
		private boolean buffered() throws java.io.IOException {
			if (at >= start && at < start + size) return true;
			if (at >= length) return false;
			super.seek(at);
			int n = 0;
			while (n < buffer.length) {
				int r = super.read(buffer, n, buffer.length - n);
				if (r < 0) break;
				n += r;
			}
			start = at;
			size = n;
			return n > 0;
		}
	}

	/**
	 * @return what the walk and ImageJ's decoder make of the file; null for a file ImageJ's Opener
	 *         does not take for a TIFF, which the decoder is not given: it ignores the version the
	 *         walk looks at, and followed a looping chain of one that is not 42 until the heap was full
	 */
	private static Header header(String path) {
		if (!readByTiffDecoder(path)) return null;
		// ImageJ's decoder follows the chain of directories with no check for a loop: it read the
		// same directories again and again until the heap was full, and a folder batch hung there
		Chain chain = Chain.walk(path);
		if (chain.loops) return new Header(null, false, chain);
		// a first directory cut short refuses the file whatever the decoder reads of it, and one
		// placing hundreds of millions of strips past the end kept the decoder busy for minutes
		if (!chain.whole(1)) return new Header(null, false, chain);
		try {
			return new Header(new ClosingDecoder(new Opener(), path, chain).read(), false, chain);
		} catch (java.io.IOException e) {
			return new Header(null, refusedAsTiled(e), chain);
		} catch (RuntimeException | OutOfMemoryError e) {
			return new Header(null, false, chain); // a corrupt entry count can ask for any amount of memory
		}
	}

	/**
	 * @param e what ImageJ's decoder threw
	 * @return whether it refused the file as tiled ("ImageJ cannot open tiled TIFFs"); not a file
	 *         that could not be opened, whose message holds its path, which may hold "tiled" too
	 *         (a file removed after the walk, from a folder named for its tiled scans)
	 */
	static boolean refusedAsTiled(java.io.IOException e) {
		return !(e instanceof java.io.FileNotFoundException) && String.valueOf(e.getMessage()).contains("tiled");
	}

	/**
	 * @return whether ImageJ's TIFF decoder refuses the file as tiled; false for one it is not
	 *         given (a loop, a first directory cut short, not a TIFF to ImageJ's Opener)
	 */
	static boolean tiled(String path) {
		Header h = header(path);
		return h != null && h.tiled;
	}

	/**
	 * @param info what ImageJ's decoder read of the file's header
	 * @param chain what the walk of its directories found
	 * @return whether the file holds every byte that its directories place: each directory, the
	 *         arrays its entries point to, and each strip or tile of pixels. ImageJ opens a TIFF
	 *         cut short there without a word, with slices missing, rows of 0 or header bytes read
	 *         as pixels, which a batch would then process and save as a result
	 */
	private static boolean complete(FileInfo[] info, Chain chain) {
		for (FileInfo fi : info)
			if (fi == null || dataEnd(fi) > chain.length) return false;
		// pages of planar 16-bit RGB: ImageJ's Opener stacks each page's three planes as one
		// slice, and its ImagePlus then throws "Unknown stack type", which a macro cannot catch
		if (info.length > 1)
			for (FileInfo fi : info)
				if (fi.fileType == FileInfo.RGB48_PLANAR) return false;
		// an ImageJ stack's slices lie one after another after its first directory, which alone
		// ImageJ reads: the directories of the other slices, written after the pixels, are not needed
		boolean imageJStack = info.length == 1 && info[0].nImages > 1;
		return chain.whole(imageJStack ? 1 : Integer.MAX_VALUE);
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
	 * Strip offsets or byte counts past which a directory whose array of them, as ImageJ's decoder
	 * reads it, runs past the end of the file is refused without the decoder (64 MB of them).
	 */
	private static final long ABSURD = 1 << 24;
	/** Strips or tiles compared at a time: a directory can place millions, which are not read in whole. */
	private static final int PIECES = 1024;

	/**
	 * What one walk of a classic TIFF's chain of directories finds, before ImageJ's decoder reads
	 * the file: whether the chain loops, and which directory is the first cut short. The decoder
	 * reads a run of directories from the first (the first alone of an ImageJ stack), so the place
	 * of the first cut one tells whether all those it read are whole.
	 */
	private static final class Chain {
		/** The file's length as walked, against which the pixels the decoder places are measured too. */
		final long length;
		/**
		 * Whether the chain comes back to a directory already in it before a directory where
		 * ImageJ's decoder stops (one of no entries or more than 1000). Such a file is refused
		 * whole, also an ImageJ stack, whose first directory alone the decoder reads: no writer
		 * makes one.
		 */
		final boolean loops;
		/**
		 * The place in the chain, from 0, of the first directory that lies past the end of the
		 * file or places an array there, or (the first directory only) a strip or tile; -1 where
		 * none does, and for files this does not walk (BigTIFF). The chain is followed past a
		 * directory where the decoder stops, until it ends, comes back to a directory already in
		 * it or runs past a million.
		 */
		private final int firstCut;
		/** Where the second directory lies; -1 where the chain has one directory or was not walked. */
		final long second;
		/**
		 * Just past the first directory's link to the second, where ImageJ's decoder is when it goes
		 * there (every place it goes to on its way through the first it leaves again); -1 where not walked.
		 */
		final long firstLinkEnd;
		/** The file walked, for the pixels of the later directories, measured when asked. */
		private final String path;
		private final boolean le;
		/**
		 * Where the directories after the first lie, up to the first cut one: their strips and
		 * tiles, millions a directory, are measured only when more than the first is asked of
		 * (an ImageJ stack's later directories, which the decoder does not read, are not).
		 */
		private final long[] later;
		private final int laterCount;
		/** The first of {@link #later} placing a strip or tile past the end, from 1; -1 none; -2 not yet measured. */
		private int firstPiecesCut = -2;

		private Chain(long length, boolean loops, int firstCut) {
			this(length, loops, firstCut, -1, -1, null, false, null, 0);
		}

		private Chain(long length, boolean loops, int firstCut, long second, long firstLinkEnd, String path, boolean le, long[] later,
			int laterCount)
		{
			this.length = length;
			this.loops = loops;
			this.firstCut = firstCut;
			this.second = second;
			this.firstLinkEnd = firstLinkEnd;
			this.path = path;
			this.le = le;
			this.later = later;
			this.laterCount = laterCount;
		}

		/** @return whether the first {@code most} directories of the chain are whole */
		boolean whole(int most) {
			if (firstCut >= 0 && firstCut < most) return false;
			if (most <= 1 || laterCount == 0) return true;
			if (firstPiecesCut == -2) firstPiecesCut = laterPiecesCut();
			return firstPiecesCut < 0 || firstPiecesCut >= most;
		}

		/** @return the place of the first later directory placing a strip or tile past the end, or -1 */
		private int laterPiecesCut() {
			int i = 0;
			try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(path, "r")) {
				Window w = new Window(f, length);
				for (; i < laterCount; i++) {
					int count = u16(w.bytes, w.load(later[i], 2), le);
					int e = w.load(later[i] + 2, 12 * count);
					// a copy: the pieces are read through the same window
					byte[] entries = java.util.Arrays.copyOfRange(w.bytes, e, e + 12 * count);
					if (!piecesWithin(w, entries, pieces(entries, count, le, length), le, length)) return i + 1;
				}
				return -1;
			} catch (java.io.IOException | RuntimeException e) {
				return i + 1; // the file changed since the walk: cut where reading failed
			}
		}

		/**
		 * @return the file's chain, walked once; a file that cannot be read is cut at the
		 *         directory where reading failed (at the first for one shorter than its header),
		 *         with no loop
		 */
		static Chain walk(String path) {
			long length = 0;
			int at = 0, cut = -1; // the directory being read; the first cut one
			long second = -1, firstLinkEnd = -1;
			try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(path, "r")) {
				length = f.length();
				if (length < 8) return new Chain(length, false, 0);
				Window w = new Window(f, length);
				int h = w.load(0, 8);
				byte[] b = w.bytes;
				// ImageJ's decoder reads files of these two byte orders only: no other's directories
				// are asked of. Another version than 42 (43: BigTIFF) is not walked: whole, no loop
				if (b[h] != b[h + 1] || b[h] != 'I' && b[h] != 'M') return new Chain(length, false, -1);
				boolean le = b[h] == 'I';
				if (u16(b, h + 2, le) != 42) return new Chain(length, false, -1);
				java.util.Set<Long> seen = new java.util.HashSet<>();
				long[] later = new long[16];
				int laterCount = 0;
				// the decoder stops at a directory of no entries or more than 1000, so a chain coming
				// back after one does not hold it; the directories after one are still checked whole
				boolean decoderReads = true;
				for (long next = u32(b, h + 4, le); next != 0; at++) {
					if (at == 1) second = next;
					if (!seen.add(next)) return new Chain(length, decoderReads, cut, second, firstLinkEnd, path, le, later, laterCount);
					// a chain this long ends (the decoder reads it, slowly) or is cut short
					if (seen.size() > 1_000_000) break;
					if (next + 2 > length) {
						if (cut < 0) cut = at;
						break;
					}
					int count = u16(w.bytes, w.load(next, 2), le);
					if (next + 2 + 12L * count + 4 > length) {
						if (cut < 0) cut = at;
						break;
					}
					if (at == 0) firstLinkEnd = next + 2 + 12L * count + 4;
					if (count < 1 || count > 1000) decoderReads = false;
					if (!decoderReads && cut >= 0) break; // nothing left to find
					int e = w.load(next + 2, 12 * count + 4);
					long following = u32(w.bytes, e + 12 * count, le);
					if (cut < 0) {
						// a copy: the first directory's pieces are read through the same window
						byte[] entries = java.util.Arrays.copyOfRange(w.bytes, e, e + 12 * count);
						int[] pieces = pieces(entries, count, le, length);
						if (pieces == null || at == 0 && !piecesWithin(w, entries, pieces, le, length)) cut = at;
						else if (at > 0) {
							if (laterCount == later.length) later = java.util.Arrays.copyOf(later, 2 * laterCount);
							later[laterCount++] = next;
						}
					}
					next = following;
				}
				return new Chain(length, false, cut, second, firstLinkEnd, path, le, later, laterCount);
			} catch (java.io.IOException | RuntimeException e) {
				return new Chain(length, false, cut < 0 ? at : cut);
			}
		}
	}

	/**
	 * A file's bytes as the walk reads them, 4 KiB at a time (what the file system reads anyway):
	 * directories stored one after another (an ImageJ stack's, after its pixels) take one read for
	 * dozens, and one between pages of pixels a single read for its count and entries.
	 */
	private static final class Window {
		private final java.io.RandomAccessFile f;
		private final long length;
		/** From {@code start}, {@code size} bytes of the file. */
		byte[] bytes = new byte[4096];
		private long start;
		private int size;

		Window(java.io.RandomAccessFile f, long length) {
			this.f = f;
			this.length = length;
		}

		/**
		 * @param at a place in the file, with {@code n} bytes of the file from there
		 * @return where {@link #bytes} holds those bytes, until the next load
		 */
		int load(long at, int n) throws java.io.IOException {
			if (at < start || at + n > start + size) {
				if (n > bytes.length) bytes = new byte[n];
				size = (int) Math.min(bytes.length, length - at);
				f.seek(at);
				f.readFully(bytes, 0, size);
				start = at;
			}
			return (int) (at - start);
		}
	}

	/**
	 * @param entries a directory's {@code count} entries
	 * @return null when an array an entry points to lies past {@code length}, as its type sizes
	 *         it or, for strip offsets and byte counts, as ImageJ's decoder reads it; else the
	 *         entries of strip offsets, strip byte counts, tile offsets and tile byte counts, -1
	 *         for none: the last of each tag whose SHORT or LONG values are read
	 */
	private static int[] pieces(byte[] entries, int count, boolean le, long length) {
		int[] pieces = { -1, -1, -1, -1 };
		for (int e = 0; e < 12 * count; e += 12) {
			int tag = u16(entries, e, le), type = u16(entries, e + 2, le);
			long n = u32(entries, e + 4, le);
			long bytes = type < TYPE_BYTES.length ? n * TYPE_BYTES[type] : 0;
			if (bytes > 4 && u32(entries, e + 8, le) + bytes > length) return null;
			// the decoder makes an array of any count of strip offsets or byte counts, whatever their
			// type, and reads it 4 bytes a value (2 for SHORT byte counts) from where the entry
			// points: 2^31 - 1 of them would take 8 GB and read 8 GB past the end of a file of 200
			// bytes. Fewer it reads quickly enough (Watched), and ImageJ may open such a file
			if ((tag == STRIP_OFFSETS || tag == STRIP_BYTE_COUNTS) && n > ABSURD
				&& u32(entries, e + 8, le) + n * (tag == STRIP_BYTE_COUNTS && type == 3 ? 2 : 4) > length) return null;
			if ((type == 3 || type == 4) && n > 0 && n <= 1 << 24) {
				if (tag == STRIP_OFFSETS) pieces[0] = e;
				else if (tag == STRIP_BYTE_COUNTS) pieces[1] = e;
				else if (tag == TILE_OFFSETS) pieces[2] = e;
				else if (tag == TILE_BYTE_COUNTS) pieces[3] = e;
			}
		}
		return pieces;
	}

	/** @return false when a strip or tile of the {@link #pieces} found lies past {@code length} */
	private static boolean piecesWithin(Window w, byte[] entries, int[] pieces, boolean le, long length)
		throws java.io.IOException
	{
		return !pastEnd(w, entries, pieces[0], pieces[1], le, length) && !pastEnd(w, entries, pieces[2], pieces[3], le, length);
	}

	/**
	 * @param offsets the entry of the pieces' offsets, -1 for none
	 * @param counts the entry of their byte counts, -1 for none
	 * @return whether some piece of pixels ends past {@code length}, of as many as both entries hold
	 */
	private static boolean pastEnd(Window w, byte[] entries, int offsets, int counts, boolean le, long length)
		throws java.io.IOException
	{
		if (offsets < 0 || counts < 0) return false;
		long n = Math.min(u32(entries, offsets + 4, le), u32(entries, counts + 4, le));
		for (long from = 0; from < n; from += PIECES) {
			int k = (int) Math.min(PIECES, n - from);
			long[] o = values(w, entries, offsets, le, from, k), c = values(w, entries, counts, le, from, k);
			for (int i = 0; i < k; i++)
				if (o[i] + c[i] > length) return true;
		}
		return false;
	}

	/**
	 * @return {@code k} of the SHORT or LONG values of the entry at {@code at}, from the
	 *         {@code from}th: in the entry itself when they all fit in 4 bytes
	 */
	private static long[] values(Window w, byte[] entries, int at, boolean le, long from, int k)
		throws java.io.IOException
	{
		int size = u16(entries, at + 2, le) == 3 ? 2 : 4;
		byte[] b = entries;
		int i0 = at + 8;
		if (u32(entries, at + 4, le) * size > 4) {
			i0 = w.load(u32(entries, at + 8, le) + from * size, k * size);
			b = w.bytes;
		}
		long[] v = new long[k];
		for (int i = 0; i < k; i++)
			v[i] = size == 2 ? u16(b, i0 + 2 * i, le) : u32(b, i0 + 4 * i, le);
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
		Header h = header(path);
		if (h == null || h.info == null || !complete(h.info, h.chain)) return null;
		try {
			return new Opener().openImage(path);
		} catch (RuntimeException e) {
			return null;
		}
	}
}
