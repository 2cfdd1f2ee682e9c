package fiji.cuda.integral;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.GpuAccess;
import fiji.cuda.runtime.DeviceBuffer;

/** Temporary: where the end-to-end time of box statistics goes. */
public class ZProbe {
	public static void main(String[] a) {
		ExecutionOptions gpu = ExecutionOptions.defaults().withBackend(Backend.GPU);
		for (int[] c : new int[][] { { 4096, 4096, 1 }, { 1024, 1024, 64 } }) {
			Planes img = fiji.cuda.TestImages.random(PixelType.UINT16, c[0], c[1], c[2], 5);
			Object[] out = new Object[c[2]];
			for (int z = 0; z < out.length; z++) out[z] = new float[c[0] * c[1]];
			Planes o = Planes.wrap(c[0], c[1], out);
			for (int batch : new int[] { 0, 1, 0, 1 }) {
				IntegralImageGpu.maxBatchPlanesForTest = batch;
				double[] t = new double[7];
				for (int i = 0; i < t.length; i++) {
					long t0 = System.nanoTime();
					BoxStatistics.computeInto(img, o, BoxStatistics.Statistic.STANDARD_DEVIATION, Window.square(7), gpu);
					t[i] = (System.nanoTime() - t0) / 1e6;
				}
				java.util.Arrays.sort(t);
				System.out.printf("%dx%dx%d batch<=%d: computeInto preallocated %.2f ms (min %.2f)%n", c[0], c[1], c[2], batch, t[3], t[0]);
			}
			double[] t = new double[7];
			for (int i = 0; i < t.length; i++) {
				long t0 = System.nanoTime();
				Object[] o2 = new Object[c[2]];
				for (int z = 0; z < o2.length; z++) o2[z] = new float[c[0] * c[1]];
				t[i] = (System.nanoTime() - t0) / 1e6;
			}
			java.util.Arrays.sort(t);
			System.out.printf("  allocating the float planes: %.2f ms%n", t[3]);
			for (int i = 0; i < t.length; i++) {
				long t0 = System.nanoTime();
				BoxStatistics.newResult(img, Runtime.getRuntime().availableProcessors());
				t[i] = (System.nanoTime() - t0) / 1e6;
			}
			java.util.Arrays.sort(t);
			System.out.printf("  newResult on %d threads: %.2f ms (min %.2f)%n", Runtime.getRuntime().availableProcessors(), t[3], t[0]);
			long n = (long) c[0] * c[1];
			Object[] src = new Object[c[2]];
			for (int z = 0; z < c[2]; z++) src[z] = img.plane(z);
			GpuAccess.get().run("probe", s -> {
				try (DeviceBuffer d = s.alloc(4 * n * c[2])) {
					for (int k = 0; k < 3; k++) {
						long t0 = System.nanoTime();
						s.uploadAll(src, n, d.ptr());
						s.sync();
						long t1 = System.nanoTime();
						s.downloadAll(d.ptr(), out, n);
						long t2 = System.nanoTime();
						System.out.printf("  uploadAll %.2f ms, downloadAll %.2f ms%n", (t1 - t0) / 1e6, (t2 - t1) / 1e6);
					}
				}
				return null;
			});
		}
	}
}
