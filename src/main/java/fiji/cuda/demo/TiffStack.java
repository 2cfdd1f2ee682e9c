package fiji.cuda.demo;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Writes planes as an uncompressed multi-page grayscale TIFF, one page per plane, which
 * ImageJ and Fiji open as a stack. The demo writes its outputs with it so that, like the
 * operations it calls, it needs no ImageJ on the class path.
 */
final class TiffStack {

	private static final int SHORT = 3, LONG = 4;
	private static final int TAGS = 11;
	private static final int IFD_BYTES = 2 + 12 * TAGS + 4;

	private TiffStack() {}

	/**
	 * @param planes 8-bit, 16-bit or 32-bit float planes (not RGB)
	 * @param file   the file written, replaced if it exists
	 * @throws IllegalArgumentException for RGB planes, or a file that would pass the 4 GB
	 *         that TIFF offsets can address
	 * @throws IOException when the file cannot be written
	 */
	static void write(Planes planes, File file) throws IOException {
		PixelType type = planes.type();
		if (type == PixelType.RGB) throw new IllegalArgumentException("RGB planes are not written.");
		long data = (long) planes.planeSize() * type.bytesPerPixel();
		// IFDs must start on a word boundary, so an odd-sized 8-bit plane gets one pad byte
		long page = data + (data & 1) + IFD_BYTES;
		if (8 + page * planes.depth() > 0xffffffffL)
			throw new IllegalArgumentException("A TIFF of " + planes.depth() + " planes of " + data + " bytes passes 4 GB.");
		try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(file), 1 << 16))) {
			out.writeShort(0x4d4d); // "MM": big-endian, as DataOutputStream writes
			out.writeShort(42);
			out.writeInt((int) (8 + data + (data & 1)));
			for (int z = 0; z < planes.depth(); z++) {
				long start = 8 + page * z;
				out.write(bytes(planes.plane(z), (int) data));
				if ((data & 1) != 0) out.writeByte(0);
				out.writeShort(TAGS);
				entry(out, 254, LONG, 0); // NewSubfileType: a full-resolution page
				entry(out, 256, LONG, planes.width());
				entry(out, 257, LONG, planes.height());
				entry(out, 258, SHORT, 8 * type.bytesPerPixel());
				entry(out, 259, SHORT, 1); // no compression
				entry(out, 262, SHORT, 1); // black is zero
				entry(out, 273, LONG, start); // StripOffsets: the whole plane is one strip
				entry(out, 277, SHORT, 1);
				entry(out, 278, LONG, planes.height());
				entry(out, 279, LONG, data);
				entry(out, 339, SHORT, type == PixelType.FLOAT32 ? 3 : 1); // IEEE float, else unsigned
				out.writeInt(z + 1 < planes.depth() ? (int) (start + page + data + (data & 1)) : 0);
			}
		}
	}

	private static byte[] bytes(Object plane, int length) {
		ByteBuffer b = ByteBuffer.allocate(length); // big-endian, as the header says
		if (plane instanceof byte[]) b.put((byte[]) plane);
		else if (plane instanceof short[]) b.asShortBuffer().put((short[]) plane);
		else b.asFloatBuffer().put((float[]) plane);
		return b.array();
	}

	/** One IFD entry of a single value; a SHORT sits in the first two bytes of the value field. */
	private static void entry(DataOutputStream out, int tag, int type, long value) throws IOException {
		out.writeShort(tag);
		out.writeShort(type);
		out.writeInt(1);
		if (type == SHORT) {
			out.writeShort((int) value);
			out.writeShort(0);
		} else {
			out.writeInt((int) value);
		}
	}
}
