package fiji.cuda.integral;

import java.util.Arrays;
import java.util.Random;

import fiji.cuda.image.PixelType;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;

/**
 * Benchmark of the summed-area-table builds (not a test). Prints Markdown tables: per build and
 * size the kernel time, effective bandwidth (1 or 2 bytes read and 16 written per pixel) and its
 * fraction of the device copy bandwidth measured in the same run; then the 32-bit wrap-around
 * tables against RTS. Run with {@code .device/run java fiji.cuda.integral.IntegralImageBenchmark}.
 * The operations read from the tables have their own: {@link BoxStatisticsBenchmark} and
 * {@link LocalThresholdBenchmark}.
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
