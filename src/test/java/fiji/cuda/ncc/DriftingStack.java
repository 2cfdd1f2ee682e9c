package fiji.cuda.ncc;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;

import java.util.Random;

/** Test stacks of a smooth random texture that moves by known, possibly fractional, shifts. */
public final class DriftingStack {

	private DriftingStack() {}

	/** A smooth random texture: a sum of plane waves with wavelengths of 9 to 40 pixels. */
	public static double[] texture(int w, int h, long seed) {
		Random r = new Random(seed);
		double[] t = new double[w * h];
		for (int k = 0; k < 14; k++) {
			double angle = r.nextDouble() * 2 * Math.PI, lambda = 9 + 31 * r.nextDouble(), phase = r.nextDouble() * 7;
			double fx = Math.cos(angle) / lambda * 2 * Math.PI, fy = Math.sin(angle) / lambda * 2 * Math.PI;
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++)
					t[y * w + x] += Math.sin(fx * x + fy * y + phase);
		}
		return t;
	}

	/**
	 * A stack whose slice z shows the texture moved by (sx[z], sy[z]): its pixel (x, y) is the
	 * texture at (x + pad − sx, y + pad − sy), sampled bilinearly, scaled to about 40..215
	 * (16-bit: times 100). Shifts must stay within 11 pixels.
	 */
	public static Planes make(PixelType type, int w, int h, double[] sx, double[] sy, long seed) {
		int pad = 12, tw = w + 2 * pad, th = h + 2 * pad;
		double[] t = texture(tw, th, seed);
		Object[] planes = new Object[sx.length];
		for (int z = 0; z < sx.length; z++) {
			Object p = type.newPlane(w * h);
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					double u = x + pad - sx[z], v = y + pad - sy[z];
					int u0 = (int) Math.floor(u), v0 = (int) Math.floor(v);
					double fu = u - u0, fv = v - v0;
					double a = t[v0 * tw + u0], b = t[v0 * tw + u0 + 1], c = t[(v0 + 1) * tw + u0],
						d = t[(v0 + 1) * tw + u0 + 1];
					double val = 127.5 + 11 * ((1 - fv) * ((1 - fu) * a + fu * b) + fv * ((1 - fu) * c + fu * d));
					val = Math.max(0, Math.min(255, val));
					int i = y * w + x;
					if (type == PixelType.UINT8) ((byte[]) p)[i] = (byte) Math.round(val);
					else if (type == PixelType.UINT16) ((short[]) p)[i] = (short) Math.round(val * 100);
					else ((float[]) p)[i] = (float) val;
				}
			planes[z] = p;
		}
		return Planes.wrap(w, h, planes);
	}
}
