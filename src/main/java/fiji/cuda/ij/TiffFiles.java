package fiji.cuda.ij;

import ij.io.FileInfo;
import ij.io.Opener;

/**
 * Whether ImageJ can open a TIFF file without stopping the macro that opens it. ImageJ's
 * Opener throws on a file cut short in its header (a NegativeArraySizeException from its TIFF
 * decoder, say), and a macro's {@code open()} cannot catch that: a batch over a folder ended at
 * such a file, the rest unprocessed and no summary written. The folder macros in
 * {@code macros/} ask first, through {@code call}.
 */
public final class TiffFiles {

	private TiffFiles() {}

	/**
	 * For a macro: {@code call("fiji.cuda.ij.TiffFiles.readable", path)}. Only a classic TIFF
	 * that ImageJ's decoder cannot read is refused; any other file is left to {@code open()},
	 * which picks its reader by the file's first bytes, not its name (a PNG named .tif, or a
	 * BigTIFF that Fiji hands to Bio-Formats), and whose failure the macro can see.
	 *
	 * @param path a file
	 * @return "false" for a classic TIFF whose header ImageJ cannot read, "true" otherwise
	 */
	public static String readable(String path) {
		return String.valueOf(!readByTiffDecoder(path) || headerReadable(path));
	}

	/** @return whether {@code open()} would read the file with ImageJ's TIFF decoder: its own choice, by content */
	static boolean readByTiffDecoder(String path) {
		int type = new Opener().getFileType(path);
		return type == Opener.TIFF || type == Opener.TIFF_AND_DICOM;
	}

	/** @return whether ImageJ's TIFF decoder reads the file's header, whatever it throws */
	static boolean headerReadable(String path) {
		try {
			FileInfo[] info = Opener.getTiffFileInfo(path);
			return info != null && info.length > 0 && info[0] != null;
		} catch (RuntimeException | OutOfMemoryError e) {
			return false; // a corrupt entry count can ask for any amount of memory
		}
	}

	/** @return the image in the file, or null where ImageJ cannot open it (nothing thrown, no dialog) */
	static ij.ImagePlus open(String path) {
		if (!headerReadable(path)) return null;
		try {
			return new Opener().openImage(path);
		} catch (RuntimeException e) {
			return null;
		}
	}
}
