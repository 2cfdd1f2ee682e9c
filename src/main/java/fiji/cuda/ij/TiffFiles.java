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
	 * that ImageJ's decoder cannot read is refused, or one whose pixel data the header places past
	 * the end of the file; any other file is left to {@code open()}, which picks its reader by the
	 * file's first bytes, not its name (a PNG named .tif, or a BigTIFF that Fiji hands to
	 * Bio-Formats), and whose failure the macro can see.
	 *
	 * @param path a file
	 * @return "false" for a classic TIFF whose header ImageJ cannot read or whose pixels are cut
	 *         short, "true" otherwise
	 */
	public static String readable(String path) {
		return String.valueOf(!readByTiffDecoder(path) || complete(path));
	}

	/**
	 * @return whether ImageJ's decoder reads the header and the file holds every byte of pixel
	 *         data the header places: ImageJ opens a TIFF cut short in its pixels without a word,
	 *         with slices missing or rows of 0, which a batch would then process and save as a result
	 */
	static boolean complete(String path) {
		FileInfo[] info = info(path);
		if (info == null) return false;
		long length = new java.io.File(path).length();
		for (FileInfo fi : info)
			if (fi == null || dataEnd(fi) > length) return false;
		return true;
	}

	/** @return the byte just past the last pixel data the entry places, or 0 where that cannot be told */
	static long dataEnd(FileInfo fi) {
		long end = 0;
		if (fi.stripOffsets != null && fi.stripLengths != null)
			for (int i = 0; i < Math.min(fi.stripOffsets.length, fi.stripLengths.length); i++)
				end = Math.max(end, (fi.stripOffsets[i] & 0xffffffffL) + (fi.stripLengths[i] & 0xffffffffL));
		// an ImageJ stack is one entry for all its slices, stored one after another uncompressed;
		// packed 10 and 12-bit and 1-bit pixels take less than getBytesPerPixel says, and are left out
		boolean packed = fi.fileType == FileInfo.GRAY12_UNSIGNED || fi.fileType == FileInfo.GRAY10_UNSIGNED
			|| fi.fileType == FileInfo.BITMAP;
		if (fi.nImages > 1 && fi.compression <= FileInfo.COMPRESSION_NONE && !packed) {
			long plane = (long) fi.width * fi.height * fi.getBytesPerPixel();
			end = Math.max(end, fi.getOffset() + fi.nImages * plane + (fi.nImages - 1) * fi.getGap());
		}
		return end;
	}

	/** @return whether {@code open()} would read the file with ImageJ's TIFF decoder: its own choice, by content */
	static boolean readByTiffDecoder(String path) {
		int type = new Opener().getFileType(path);
		return type == Opener.TIFF || type == Opener.TIFF_AND_DICOM;
	}

	/** @return the entries ImageJ's TIFF decoder reads from the file's header, or null where it cannot, whatever it throws */
	private static FileInfo[] info(String path) {
		try {
			FileInfo[] info = Opener.getTiffFileInfo(path);
			return info != null && info.length > 0 && info[0] != null ? info : null;
		} catch (RuntimeException | OutOfMemoryError e) {
			return null; // a corrupt entry count can ask for any amount of memory
		}
	}

	/**
	 * @return the TIFF image in the file, or null where ImageJ's TIFF decoder cannot read it whole
	 *         (nothing thrown, and no dialog: ImageJ's Opener answers a file of no format it knows
	 *         with one, on which a batch run would wait)
	 */
	static ij.ImagePlus open(String path) {
		if (!complete(path)) return null;
		try {
			return new Opener().openImage(path);
		} catch (RuntimeException e) {
			return null;
		}
	}
}
