package fiji.cuda.image;

import java.lang.reflect.Array;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A sequence of 2D planes of one size and pixel type: a single image, a z-series, or
 * any list of slices. The planes are the caller's own arrays (ImageJ's stack arrays,
 * or the storage of an ImgLib2 {@code PlanarImg}); operations work on them in place
 * and never copy the whole sequence on the host.
 * <p>
 * One array may stand for several planes (a stack that holds the same slice twice): that is
 * harmless to read, and operations that write planes refuse it ({@link #checkOwnArrays}).
 * <p>
 * This type is the operation layer's image model. It imports neither ImageJ nor
 * SciJava, so that both the IJ1 bridge and the ImgLib2 adapter can feed it without
 * copies.
 */
public final class Planes {

	private final int width;
	private final int height;
	private final PixelType type;
	private final Object[] planes;

	private Planes(int width, int height, PixelType type, Object[] planes) {
		this.width = width;
		this.height = height;
		this.type = type;
		this.planes = planes;
	}

	/**
	 * Wraps existing plane arrays without copying them.
	 *
	 * @param width  plane width in pixels
	 * @param height plane height in pixels
	 * @param planes one array per plane, all of the same class and of length width*height
	 * @return the wrapper
	 * @throws IllegalArgumentException with a message naming the problem when the planes are
	 *         empty, of mixed types, or of the wrong length
	 */
	public static Planes wrap(int width, int height, Object... planes) {
		if (width < 1 || height < 1)
			throw new IllegalArgumentException("The image is empty (" + width + "x" + height + " pixels).");
		if (planes == null || planes.length == 0)
			throw new IllegalArgumentException("The image has no slices.");
		PixelType type = PixelType.of(planes[0]);
		long n = (long) width * height;
		if (n > Integer.MAX_VALUE)
			throw new IllegalArgumentException("A plane of " + width + "x" + height + " pixels is larger than Java arrays allow.");
		for (int i = 0; i < planes.length; i++) {
			if (PixelType.of(planes[i]) != type)
				throw new IllegalArgumentException("Slice " + (i + 1) + " is " + PixelType.of(planes[i]).label() + ", not "
					+ type.label() + " as slice 1.");
			if (Array.getLength(planes[i]) != n)
				throw new IllegalArgumentException("Slice " + (i + 1) + " has " + Array.getLength(planes[i])
					+ " pixels, expected " + n + ".");
		}
		return new Planes(width, height, type, planes.clone());
	}

	/** @return plane width in pixels */
	public int width() {
		return width;
	}

	/** @return plane height in pixels */
	public int height() {
		return height;
	}

	/** @return the number of planes */
	public int depth() {
		return planes.length;
	}

	/** @return pixels per plane */
	public int planeSize() {
		return width * height;
	}

	/** @return the pixel type shared by all planes */
	public PixelType type() {
		return type;
	}

	/**
	 * @param z 0-based plane index, below {@link #depth()}
	 * @return the array of plane {@code z}, not a copy: writing it writes the caller's image.
	 *         Its class is the one {@link #type()} names
	 * @throws ArrayIndexOutOfBoundsException when {@code z} is out of range
	 */
	public Object plane(int z) {
		return planes[z];
	}

	/**
	 * @param from first plane, inclusive, 0-based
	 * @param to   one past the last plane, from {@code from} to {@link #depth()}
	 * @return the planes {@code from} (inclusive) to {@code to} (exclusive), sharing the arrays;
	 *         no planes when {@code to == from}
	 * @throws ArrayIndexOutOfBoundsException when {@code from} is below 0 (and {@code to} within
	 *                                        the planes)
	 * @throws IllegalArgumentException       when {@code to < from} or {@code to > depth()}
	 */
	public Planes range(int from, int to) {
		// copyOfRange pads past the end with nulls, which failed later, part way through an operation
		if (to > planes.length)
			throw new IllegalArgumentException("Planes " + from + " to " + to + " asked of " + planes.length + ".");
		return new Planes(width, height, type, Arrays.copyOfRange(planes, from, to));
	}

	/**
	 * Refuses planes that an operation is to write when two of them are one array: planes are
	 * written one after another, so that array would end up holding one plane's result in
	 * place of the other's, or a result made from the other's. Planes that are only read may
	 * share arrays.
	 *
	 * @param op     the operation's name, which the message begins with
	 * @param what   what these planes are to the user, in the plural: "slices", "output planes"
	 * @throws IllegalArgumentException naming the first two planes, 1-based, that are one array
	 */
	public void checkOwnArrays(String op, String what) {
		if (planes.length < 2) return;
		// identity, not equal pixels: two slices may well hold the same values. A map rather than
		// every pair, as stacks run to thousands of planes
		Map<Object, Integer> first = new IdentityHashMap<>(planes.length);
		for (int j = 0; j < planes.length; j++) {
			Integer i = first.putIfAbsent(planes[j], j);
			if (i != null)
				throw new IllegalArgumentException(op + ": " + what + " " + (i + 1) + " and " + (j + 1) + " are one array "
					+ "(the same pixels twice), which cannot hold the results of both; each must have pixels of its own.");
		}
	}

	/** @return a deep copy, for keeping an original while an operation runs */
	public Planes copy() {
		Object[] c = new Object[planes.length];
		for (int i = 0; i < c.length; i++) {
			Object p = type.newPlane(planeSize());
			System.arraycopy(planes[i], 0, p, 0, planeSize());
			c[i] = p;
		}
		return new Planes(width, height, type, c);
	}

	/** @return bytes held by all planes */
	public long sizeInBytes() {
		return (long) planeSize() * depth() * type.bytesPerPixel();
	}

	@Override
	public String toString() {
		return width + "x" + height + "x" + depth() + " " + type;
	}
}
