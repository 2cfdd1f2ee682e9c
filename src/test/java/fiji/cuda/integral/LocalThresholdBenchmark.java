package fiji.cuda.integral;

import java.util.Locale;
import java.util.Set;

import fiji.cuda.BenchmarkArgs;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuException;
import ij.ImagePlus;

/**
 * Benchmark of "GPU Local Threshold..." (not a test): prints a Markdown table of the end-to-end
 * time of a local threshold of a 4096² 8-bit ImagePlus, radius 15, for Mean, Niblack, Sauvola and
 * Phansalkar: with the GPU forced (the tables the operation picks, then int64 tables forced) and
 * on the CPU path, after the device copy bandwidth measured in the same run. Run on the GPU
 * machine with {@code .device/run java fiji.cuda.integral.LocalThresholdBenchmark}; locally
 * {@code mvn -q -B test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=fiji.cuda.integral.LocalThresholdBenchmark -Dexec.args=quick}. Where the GPU
 * cannot be used at all, its columns say "no GPU" and the CPU path is timed alone.
 * <p>
 * Arguments: {@code quick} (a 1024² image, 3 timed runs instead of 7), {@code nocpu} (the GPU
 * columns only).
 */
public final class LocalThresholdBenchmark {

	static final int RADIUS = 15;
	static final LocalThreshold.Method[] METHODS = { LocalThreshold.Method.MEAN, LocalThreshold.Method.NIBLACK,
		LocalThreshold.Method.SAUVOLA, LocalThreshold.Method.PHANSALKAR };

	private LocalThresholdBenchmark() {}

	/** @param args {@code quick} and {@code nocpu}, in any order; see the class comment */
	public static void main(String[] args) {
		Set<String> given = BenchmarkArgs.of(args, "quick", "nocpu");
		boolean quick = given.contains("quick"), cpu = !given.contains("nocpu");
		Gpu g = null;
		try {
			g = Gpu.get();
			System.out.println("Device: " + g.info());
		} catch (RuntimeException | LinkageError e) {
			System.out.println("Device: none (" + e.getMessage() + ")");
		}
		System.out.println("CPU threads: " + Runtime.getRuntime().availableProcessors());
		if (g != null)
			System.out.printf(Locale.ROOT, "Device copy bandwidth (read + write): %.0f GB/s%n",
				IntegralImageBenchmark.copyBandwidth(g));
		int n = quick ? 1024 : 4096, gpuRuns = quick ? 3 : 7;
		System.out.println();
		System.out.println("End to end: LocalThreshold.thresholdInto in place on the ImagePlus's own pixel array, as the"
			+ " plug-in thresholds an 8-bit image; tables, transfers and staging included; the pixels are put back"
			+ " before each run, untimed. Median of " + gpuRuns + " runs (3 on the CPU path) after one warm-up."
			+ " Tables: what the GPU run read, as the operation counts it (WRAP32: 32-bit wrap-around tables);"
			+ " the next column forces int64 tables.");
		System.out.println();
		System.out.println("| Case | Tables | GPU ms end to end | GPU ms, int64 tables | CPU path ms | CPU / GPU |");
		System.out.println("|---|---|---|---|---|---|");
		ImagePlus imp = BoxStatisticsBenchmark.image(PixelType.UINT8, n, n, 1);
		byte[] pixels = (byte[]) imp.getProcessor().getPixels(), original = pixels.clone();
		Planes planes = Planes.wrap(n, n, pixels);
		for (LocalThreshold.Method m : METHODS) {
			LocalThreshold.Settings st = LocalThreshold.Settings.of(m, RADIUS, 0, 0, true);
			String tables = "-", gpuMs = "no GPU", wideMs = "no GPU", cpuMs = "skipped", ratio = "";
			double gpu = Double.NaN;
			if (g != null) {
				int before = IntegralImageGpu.wrap32Planes.get();
				gpu = inPlaceMillis(planes, original, st, Backend.GPU, gpuRuns);
				tables = IntegralImageGpu.wrap32Planes.get() > before ? "WRAP32 (uint32)" : "int64";
				gpuMs = String.format(Locale.ROOT, "%.2f", gpu);
				IntegralImageGpu.wideTablesForTest = true;
				try {
					wideMs = String.format(Locale.ROOT, "%.2f", inPlaceMillis(planes, original, st, Backend.GPU, gpuRuns));
				} finally {
					IntegralImageGpu.wideTablesForTest = false;
				}
			}
			if (cpu) {
				double c = inPlaceMillis(planes, original, st, Backend.CPU, 3);
				cpuMs = String.format(Locale.ROOT, "%.1f", c);
				if (g != null) ratio = String.format(Locale.ROOT, "%.0fx", c / gpu);
			}
			System.out.printf(Locale.ROOT, "| %s, u8 %d², radius %d | %s | %s | %s | %s | %s |%n", m.label(), n, RADIUS,
				tables, gpuMs, wideMs, cpuMs, ratio);
		}
		imp.close();
		System.exit(0);
	}

	/**
	 * Thresholds the plane in place, as the plug-in does an 8-bit image, {@code runs} times after
	 * a warm-up (JIT, modules, pool), putting the original pixels back before each run outside
	 * the clock.
	 *
	 * @return the median ms
	 * @throws GpuException when the forced GPU failed
	 * @throws IllegalStateException when another backend ran than the one forced
	 */
	static double inPlaceMillis(Planes planes, byte[] original, LocalThreshold.Settings st, Backend backend, int runs) {
		ExecutionOptions o = ExecutionOptions.defaults().withBackend(backend);
		double[] t = new double[runs];
		for (int i = -1; i < runs; i++) {
			System.arraycopy(original, 0, planes.plane(0), 0, original.length);
			long t0 = System.nanoTime();
			OpReport r = LocalThreshold.thresholdInto(planes, planes, st, o);
			double ms = (System.nanoTime() - t0) / 1e6;
			if (r.ranOn() != backend)
				throw new IllegalStateException("ran on " + r.ranOn() + " instead of " + backend + ": " + r);
			if (i >= 0) t[i] = ms;
		}
		return IntegralImageBenchmark.median(t);
	}
}
