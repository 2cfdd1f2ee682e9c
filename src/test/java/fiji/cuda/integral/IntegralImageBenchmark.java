package fiji.cuda.integral;

import java.util.Arrays;
import java.util.Random;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import ij.ImagePlus;
import ij.process.ByteProcessor;

/**
 * Benchmark of the summed-area-table builds and the local threshold built on them (not a
 * test). Prints Markdown tables: per build and size the kernel time, effective bandwidth
 * (1 or 2 bytes read and 16 written per pixel) and its fraction of the device copy bandwidth
 * measured in the same run; then a local threshold of a 4096^2 8-bit ImagePlus end to end, GPU
 * against the CPU path. Run with {@code .device/run java fiji.cuda.integral.IntegralImageBenchmark}.
 */
public final class IntegralImageBenchmark {

	static final int LAUNCHES = 10;

	public static void main(String[] args) {
		Gpu g = Gpu.get();
		System.out.println("Device: " + g.info());
		double copy = copyBandwidth(g);
		System.out.printf("Device copy bandwidth (read + write): %.0f GB/s%n%n", copy);
		System.out.println("| Type | Size | Build | Kernel ms | GB/s | % of copy |");
		System.out.println("|---|---|---|---|---|---|");
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16 })
			for (int n : new int[] { 512, 1024, 2048, 4096, 8192 })
				for (SatBuild b : new SatBuild[] { SatBuild.NAIVE, SatBuild.CUB, SatBuild.DLB, SatBuild.FUSED, SatBuild.RTS })
					build(g, copy, t, n, b);
		System.out.println();
		System.out.println("WRAP32 (8-bit, both tables as uint32 modulo 2^32, internal to template matching): GB/s counts"
			+ " 1 byte read and 8 written per pixel");
		System.out.println();
		System.out.println("| Size | WRAP32 ms | GB/s | % of copy | RTS int64 ms, same run | RTS / WRAP32 |");
		System.out.println("|---|---|---|---|---|---|");
		for (int n : new int[] { 512, 1024, 2048, 4096, 8192 })
			wrap32(g, copy, n);
		System.out.println();
		threshold();
		System.exit(0);
	}

	static void build(Gpu g, double copy, PixelType t, int n, SatBuild b) {
		long px = (long) n * n;
		Random r = new Random(n);
		Object plane = t.newPlane((int) px);
		if (t == PixelType.UINT8) r.nextBytes((byte[]) plane);
		else for (int i = 0; i < px; i++)
			((short[]) plane)[i] = (short) r.nextInt(65536);
		double ms = g.run("Benchmark", s -> {
			try (DeviceBuffer in = s.alloc(px * t.bytesPerPixel()); DeviceBuffer sum = s.alloc(8 * px);
				DeviceBuffer sq = s.alloc(8 * px))
			{
				s.upload(plane, 0, px, in.ptr());
				IntegralImageGpu.launch(s, b, t, n, n, in.ptr(), sum.ptr(), sq.ptr());
				double[] times = new double[5];
				for (int i = 0; i < times.length; i++)
					times[i] = s.timeMillis(() -> {
						for (int k = 0; k < LAUNCHES; k++)
							IntegralImageGpu.launch(s, b, t, n, n, in.ptr(), sum.ptr(), sq.ptr());
					}) / LAUNCHES;
				return median(times);
			}
		});
		double gbs = px * (t.bytesPerPixel() + 16.0) / (ms * 1e-3) / 1e9;
		System.out.printf("| %s | %d^2 | %s | %.4f | %.0f | %.1f%% |%n", t, n, b, ms, gbs, 100 * gbs / copy);
	}

	static void wrap32(Gpu g, double copy, int n) {
		long px = (long) n * n;
		byte[] plane = new byte[(int) px];
		new Random(n).nextBytes(plane);
		double[] ms = g.run("Benchmark", s -> {
			try (DeviceBuffer in = s.alloc(px); DeviceBuffer sum = s.alloc(8 * px); DeviceBuffer sq = s.alloc(8 * px);
				IntegralImage.DeviceScratch sc = new IntegralImage.DeviceScratch(s))
			{
				s.upload(plane, 0, px, in.ptr());
				Runnable wrap = () -> IntegralImage.buildWrap32OnDevice(s, n, n, in.ptr(), sum.ptr(), sq.ptr(), sc);
				Runnable rts = () -> IntegralImageGpu.launch(s, SatBuild.RTS, PixelType.UINT8, n, n, in.ptr(), sum.ptr(),
					sq.ptr(), sc);
				double[] r = new double[2];
				int k = 0;
				for (Runnable build : new Runnable[] { wrap, rts }) {
					build.run();
					double[] times = new double[5];
					for (int i = 0; i < times.length; i++)
						times[i] = s.timeMillis(() -> {
							for (int j = 0; j < LAUNCHES; j++)
								build.run();
						}) / LAUNCHES;
					r[k++] = median(times);
				}
				return r;
			}
		});
		double gbs = px * 9.0 / (ms[0] * 1e-3) / 1e9;
		System.out.printf("| %d^2 | %.4f | %.0f | %.1f%% | %.4f | %.2fx |%n", n, ms[0], gbs, 100 * gbs / copy, ms[1],
			ms[1] / ms[0]);
	}

	static void threshold() {
		int n = 4096;
		byte[] px = new byte[n * n];
		new Random(3).nextBytes(px);
		ImagePlus imp = new ImagePlus("bench", new ByteProcessor(n, n, px));
		LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 15, 0, 0, true);
		System.out.println("| Local threshold (Sauvola, radius 15), 4096^2 8-bit ImagePlus | ms |");
		System.out.println("|---|---|");
		for (int k = 0; k < 3; k++) {
			Backend be = k < 2 ? Backend.GPU : Backend.CPU;
			ExecutionOptions o = ExecutionOptions.defaults().withBackend(be);
			double[] t = new double[be == Backend.GPU ? 7 : 3];
			IntegralImageGpu.wideTablesForTest = k == 1;
			try {
				for (int i = -1; i < t.length; i++) {
					byte[] copyPx = px.clone();
					long t0 = System.nanoTime();
					LocalThreshold.thresholdInto(Planes.wrap(n, n, copyPx), Planes.wrap(n, n, copyPx), st, o);
					if (i >= 0) t[i] = (System.nanoTime() - t0) / 1e6;
				}
			} finally {
				IntegralImageGpu.wideTablesForTest = false;
			}
			System.out.printf("| %s, end to end (in place, tables included%s) | %.2f |%n", be,
				k == 0 ? "; 32-bit wrap-around tables" : k == 1 ? "; int64 tables" : "", median(t));
		}
		imp.close();
	}

	static double copyBandwidth(Gpu g) {
		long bytes = 1L << 30;
		return g.run("Copy bandwidth", s -> {
			try (DeviceBuffer a = s.alloc(bytes); DeviceBuffer b = s.alloc(bytes)) {
				double[] t = new double[7];
				for (int i = 0; i < t.length; i++)
					t[i] = s.timeMillis(() -> s.copy(a.ptr(), b.ptr(), bytes));
				return 2.0 * bytes / (median(t) * 1e-3) / 1e9;
			}
		});
	}

	static double median(double[] t) {
		double[] c = t.clone();
		Arrays.sort(c);
		return c[c.length / 2];
	}
}
