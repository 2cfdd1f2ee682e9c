package fiji.cuda.ncc;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;

import java.util.Random;

/**
 * The score as REFERENCE.md section 4 writes it, computed the plain way: every window's five
 * sums in double, straight from the formula, with the flat rule checked by comparing pixels.
 * The CPU and GPU paths are both tested against it.
 */
public final class NccReference {

	private NccReference() {}

	/** @return the "valid" TM_CCOEFF_NORMED map, in double */
	public static double[] valid(Planes image, int plane, Planes template, int templatePlane, byte[] mask) {
		int iw = image.width(), ih = image.height(), tw = template.width(), th = template.height();
		int ow = iw - tw + 1, oh = ih - th + 1;
		Object ip = image.plane(plane), tp = template.plane(templatePlane);
		double[] out = new double[ow * oh];
		boolean flatT = isFlat(tp, template.type(), tw, th, tw, 0, 0, mask);
		for (int y = 0; y < oh; y++)
			for (int x = 0; x < ow; x++) {
				if (flatT || isFlat(ip, image.type(), tw, th, iw, x, y, mask)) continue;
				double n = 0, si = 0, st = 0, sit = 0, si2 = 0, st2 = 0;
				for (int v = 0; v < th; v++)
					for (int u = 0; u < tw; u++) {
						if (mask != null && mask[v * tw + u] == 0) continue;
						double i = TestImages.value(ip, image.type(), (y + v) * iw + x + u, 0);
						double t = TestImages.value(tp, template.type(), v * tw + u, 0);
						n++;
						si += i;
						st += t;
						sit += i * t;
						si2 += i * i;
						st2 += t * t;
					}
				double r = (n * sit - si * st) / Math.sqrt((n * si2 - si * si) * (n * st2 - st * st));
				out[y * ow + x] = Math.max(-1, Math.min(1, r));
			}
		return out;
	}

	private static boolean isFlat(Object p, PixelType type, int tw, int th, int stride, int x, int y, byte[] mask) {
		double first = Double.NaN;
		for (int v = 0; v < th; v++)
			for (int u = 0; u < tw; u++) {
				if (mask != null && mask[v * tw + u] == 0) continue;
				double a = TestImages.value(p, type, (y + v) * stride + x + u, 0);
				if (Double.isNaN(first)) first = a;
				else if (a != first) return false;
			}
		return true;
	}

	/** @return a w x h copy of plane 0 of {@code src} at (x, y), converted to {@code type} */
	public static Planes cut(Planes src, int x, int y, int w, int h, PixelType type) {
		Object dst = type.newPlane(w * h);
		for (int v = 0; v < h; v++)
			for (int u = 0; u < w; u++)
				set(dst, type, v * w + u, TestImages.value(src.plane(0), src.type(), (y + v) * src.width() + x + u, 0));
		return Planes.wrap(w, h, dst);
	}

	/** Stores a value, which must fit the type. */
	public static void set(Object plane, PixelType type, int i, double v) {
		switch (type) {
			case UINT8: ((byte[]) plane)[i] = (byte) v; break;
			case UINT16: ((short[]) plane)[i] = (short) v; break;
			default: ((float[]) plane)[i] = (float) v;
		}
	}

	/** @return a random mask with about {@code fraction} of its pixels set, at least one */
	public static byte[] randomMask(int n, double fraction, long seed) {
		Random r = new Random(seed);
		byte[] m = new byte[n];
		for (int i = 0; i < n; i++)
			m[i] = (byte) (r.nextDouble() < fraction ? 1 : 0);
		m[r.nextInt(n)] = 1;
		return m;
	}
}
