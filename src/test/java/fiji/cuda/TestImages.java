package fiji.cuda;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;

import java.util.Random;

/**
 * Seeded test images and pixel-wise comparisons, shared by the CPU and GPU tests.
 * Random noise is used on purpose: it has the largest local contrast, so rounding and
 * edge handling differences show up rather than averaging out.
 */
public final class TestImages {

	/** Float test images hold values in [-FLOAT_RANGE/2, FLOAT_RANGE/2). */
	public static final float FLOAT_RANGE = 2000f;

	private TestImages() {}

	/**
	 * @return {@code depth} planes of uniform random pixels over the type's whole range
	 *         (8/16-bit unsigned, all 32 bits of RGB including alpha, floats in
	 *         [-1000, 1000)), the same for the same arguments
	 */
	public static Planes random(PixelType type, int width, int height, int depth, long seed) {
		Random rnd = new Random(seed);
		Object[] planes = new Object[depth];
		for (int z = 0; z < depth; z++)
			planes[z] = randomPlane(type, width * height, rnd);
		return Planes.wrap(width, height, planes);
	}

	/** @return one plane array of {@code n} random pixels drawn from {@code rnd} */
	public static Object randomPlane(PixelType type, int n, Random rnd) {
		switch (type) {
			case UINT8: {
				byte[] p = new byte[n];
				rnd.nextBytes(p);
				return p;
			}
			case UINT16: {
				short[] p = new short[n];
				for (int i = 0; i < n; i++)
					p[i] = (short) rnd.nextInt(65536);
				return p;
			}
			case FLOAT32: {
				float[] p = new float[n];
				for (int i = 0; i < n; i++)
					p[i] = (rnd.nextFloat() - 0.5f) * FLOAT_RANGE;
				return p;
			}
			default: {
				int[] p = new int[n];
				for (int i = 0; i < n; i++)
					p[i] = rnd.nextInt();
				return p;
			}
		}
	}

	/** @return the number of values (channels for RGB) per pixel that {@link #value} can read */
	public static int values(PixelType type) {
		return type == PixelType.RGB ? 4 : 1;
	}

	/**
	 * @return value {@code v} of pixel {@code i}: the pixel itself, or for RGB the
	 *         channel v (0 red, 1 green, 2 blue, 3 alpha)
	 */
	public static double value(Object plane, PixelType type, int i, int v) {
		switch (type) {
			case UINT8: return ((byte[]) plane)[i] & 0xff;
			case UINT16: return ((short[]) plane)[i] & 0xffff;
			case FLOAT32: return ((float[]) plane)[i];
			default: {
				int shift = v == 3 ? 24 : 16 - 8 * v;
				return (((int[]) plane)[i] >>> shift) & 0xff;
			}
		}
	}

	/** @return true when the two pixels hold exactly the same bits */
	public static boolean sameBits(Object a, Object b, PixelType type, int i) {
		switch (type) {
			case UINT8: return ((byte[]) a)[i] == ((byte[]) b)[i];
			case UINT16: return ((short[]) a)[i] == ((short[]) b)[i];
			case FLOAT32: return Float.floatToRawIntBits(((float[]) a)[i]) == Float.floatToRawIntBits(((float[]) b)[i]);
			default: return ((int[]) a)[i] == ((int[]) b)[i];
		}
	}

	/** @return true when every pixel of every plane holds the same bits */
	public static boolean sameBits(Planes a, Planes b) {
		if (a.width() != b.width() || a.height() != b.height() || a.depth() != b.depth() || a.type() != b.type())
			return false;
		for (int z = 0; z < a.depth(); z++)
			for (int i = 0; i < a.planeSize(); i++)
				if (!sameBits(a.plane(z), b.plane(z), a.type(), i)) return false;
		return true;
	}

	/** Differences between two images of the same size and type. */
	public static final class Diff {
		/** Largest |a - b| over all values. */
		public double maxAbs;
		/** Values (channels for RGB) whose bits differ. */
		public long count;
		/** Values compared. */
		public long total;
		/** Where the largest difference is: "z,x,y[,channel]", or null when none. */
		public String where;

		@Override
		public String toString() {
			return String.format("max |diff| %.3g in %d of %d values%s", maxAbs, count, total,
				where != null ? " (largest at " + where + ")" : "");
		}
	}

	/** @return how {@code a} and {@code b} differ, over all planes and channels */
	public static Diff diff(Planes a, Planes b) {
		if (a.width() != b.width() || a.height() != b.height() || a.depth() != b.depth() || a.type() != b.type())
			throw new IllegalArgumentException("different images: " + a + " vs " + b);
		Diff d = new Diff();
		PixelType t = a.type();
		for (int z = 0; z < a.depth(); z++) {
			for (int i = 0; i < a.planeSize(); i++) {
				for (int v = 0; v < values(t); v++) {
					d.total++;
					double x = value(a.plane(z), t, i, v), y = value(b.plane(z), t, i, v);
					boolean same = t == PixelType.FLOAT32 ? sameBits(a.plane(z), b.plane(z), t, i) : x == y;
					if (same) continue;
					d.count++;
					double e = Math.abs(x - y);
					if (e > d.maxAbs || d.where == null) {
						d.maxAbs = Math.max(d.maxAbs, e);
						d.where = z + "," + (i % a.width()) + "," + (i / a.width()) + (t == PixelType.RGB ? "," + v : "");
					}
				}
			}
		}
		return d;
	}
}
