package fiji.cuda.runtime;

import java.util.Random;

import jcuda.driver.CUfunction;

/** The quick check behind "GPU Info...": a kernel from the shipped fatbin, run and verified. */
final class SelfCheck {

	static final String MODULE = "runtime";

	private SelfCheck() {}

	static String run(Gpu g) {
		final int n = 100_003; // prime, so the last block is partial
		float[] x = new float[n], y = new float[n];
		Random r = new Random(42);
		for (int i = 0; i < n; i++) {
			x[i] = r.nextFloat();
			y[i] = r.nextFloat();
		}
		float a = 2.5f;
		long t0 = System.nanoTime();
		float[] out = g.run("Self-check", s -> {
			try (DeviceBuffer dx = s.alloc(4L * n); DeviceBuffer dy = s.alloc(4L * n)) {
				s.upload(x, 0, n, dx.ptr());
				s.upload(y, 0, n, dy.ptr());
				CUfunction f = s.function(MODULE, "runtime_saxpy");
				s.launch(f, new int[] { 64 }, new int[] { 256 }, 0, dx, dy, a, n);
				float[] res = new float[n];
				s.download(dy.ptr(), res, 0, n);
				return res;
			}
		});
		double ms = (System.nanoTime() - t0) / 1e6;
		for (int i = 0; i < n; i++) {
			float want = a * x[i] + y[i];
			if (Math.abs(out[i] - want) > 1e-5f * Math.max(1, Math.abs(want)))
				return "Self-check failed: element " + i + " is " + out[i] + ", expected " + want;
		}
		return String.format(java.util.Locale.ROOT,
			"Self-check passed on %s (%d values, %.1f ms)", g.info().name, n, ms);
	}
}
