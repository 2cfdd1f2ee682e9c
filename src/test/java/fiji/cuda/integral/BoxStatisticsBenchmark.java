package fiji.cuda.integral;

import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics.Statistic;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import ij.ImagePlus;
import ij.ImageStack;
import ij.plugin.filter.RankFilters;
import ij.process.ByteProcessor;
import ij.process.FloatProcessor;
import ij.process.ImageProcessor;
import ij.process.ShortProcessor;

/**
 * Benchmark of "GPU Box Statistics..." (not a test): prints a Markdown table of the kernel time
 * (one plane's table build and box_stat kernel, as {@link IntegralImageGpu#boxStatistics}
 * launches them, the input already on the device), its effective bandwidth against the device
 * copy bandwidth measured in the same run, the end-to-end time from an ImagePlus's pixels with
 * the GPU forced, the CPU path, and ImageJ's RankFilters Mean / Variance of the same radius
 * (a disc, not the square: a comparison of cost, not of results). Cases: 4096^2 8, 16 and 32-bit
 * planes, standard deviation and mean, radius 7 and 50; a 1024x1024x64 16-bit stack. Run on the
 * GPU machine with {@code .device/run java fiji.cuda.integral.BoxStatisticsBenchmark}; with the
 * argument {@code cpuonly} it skips the GPU and prints the CPU path's and ImageJ's columns only.
 * Where no GPU can be used it says why and exits with status 0.
 */
public final class BoxStatisticsBenchmark {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);
	/** Back-to-back launches of one plane's pipeline per timed event pair. */
	static final int LAUNCHES = 10;

	/** @param args {@code cpuonly} for the CPU path and ImageJ only, without a GPU; nothing otherwise */
	public static void main(String[] args) {
		boolean cpuOnly = args.length > 0 && args[0].equals("cpuonly");
		Gpu g = null;
		double copy = 0;
		if (!cpuOnly) {
			try {
				g = Gpu.get();
			} catch (RuntimeException | LinkageError e) {
				System.out.println("No GPU to benchmark Box Statistics on: " + e.getMessage()
					+ " (the argument cpuonly times the CPU path and ImageJ alone).");
				System.exit(0);
			}
			System.out.println("Device: " + g.info());
			copy = IntegralImageBenchmark.copyBandwidth(g);
			System.out.printf(Locale.ROOT, "Device copy bandwidth (read + write): %.0f GB/s%n", copy);
		} else {
			System.out.println("Device: none (cpuonly)");
		}
		System.out.println("CPU threads: " + Runtime.getRuntime().availableProcessors());
		System.out.println();
		System.out.println("Kernel ms: device time (CUDA events, median of 5 runs of " + LAUNCHES + " back-to-back plane"
			+ " pipelines; for the stack, of single runs of all its planes) of the table build and the box_stat kernel,"
			+ " as the operation launches them, the input already on the device. GB/s: the least any pipeline moves,"
			+ " the input read once and the 32-bit result written once (1, 2 or 4 + 4 bytes a pixel), over the kernel"
			+ " time. End-to-end: BoxStatistics.computeInto on the ImagePlus's own pixel arrays into new float arrays,"
			+ " GPU forced, transfers included. CPU path: the same with Backend.CPU. ImageJ: see the note below the"
			+ " table.");
		System.out.println();
		System.out.println("| Case | Tables | Kernel ms | GB/s | % of copy | End-to-end ms | CPU path ms | ImageJ ms* |"
			+ " ImageJ / end-to-end |");
		System.out.println("|---|---|---|---|---|---|---|---|---|");
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 })
			for (Statistic st : new Statistic[] { Statistic.STANDARD_DEVIATION, Statistic.MEAN })
				for (int r : new int[] { 7, 50 })
					row(g, copy, image(t, 4096, 4096, 1), st, r);
		row(g, copy, image(PixelType.UINT16, 1024, 1024, 64), Statistic.STANDARD_DEVIATION, 7);
		System.out.println();
		System.out.println("\\* ImageJ has no box (square window) filter and no standard deviation filter: its column is"
			+ " RankFilters.rank with the same radius, MEAN for the mean and VARIANCE then the square root"
			+ " (Process > Math > Square Root) for the standard deviation, on a 32-bit copy of the plane"
			+ " (convertToFloatProcessor, timed; ImageJ filters in place and in the image's own type, the result here"
			+ " is a new 32-bit image). Its window is the disc of radius r (about pi r^2 pixels) with edge pixels"
			+ " repeated at the borders, not the (2r+1)^2 square clipped to the image: a comparison of cost, not of"
			+ " results. Its cost grows with r (one kernel line per row of the disc), the box's does not. Stack:"
			+ " slice after slice, each filtered by RankFilters' threads, as ImageJ does for this radius.");
		System.exit(0);
	}

	/** Random planes: bytes, 12-bit values in 16-bit, floats in [0, 1000). */
	static ImagePlus image(PixelType t, int w, int h, int d) {
		Random r = new Random(w + 31L * d + t.ordinal());
		ImageStack stack = new ImageStack(w, h);
		for (int z = 0; z < d; z++) {
			ImageProcessor ip;
			if (t == PixelType.UINT8) {
				byte[] p = new byte[w * h];
				r.nextBytes(p);
				ip = new ByteProcessor(w, h, p);
			} else if (t == PixelType.UINT16) {
				short[] p = new short[w * h];
				for (int i = 0; i < p.length; i++)
					p[i] = (short) r.nextInt(4096);
				ip = new ShortProcessor(w, h, p, null);
			} else {
				float[] p = new float[w * h];
				for (int i = 0; i < p.length; i++)
					p[i] = r.nextFloat() * 1000;
				ip = new FloatProcessor(w, h, p);
			}
			stack.addSlice(ip);
		}
		return new ImagePlus("bench", stack);
	}

	static void row(Gpu g, double copy, ImagePlus imp, Statistic st, int radius) {
		int w = imp.getWidth(), h = imp.getHeight(), d = imp.getStackSize();
		Planes planes = Planes.wrap(w, h, Arrays.copyOf(imp.getStack().getImageArray(), d));
		PixelType t = planes.type();
		Window win = BoxStatistics.window(radius);
		boolean wrap32 = IntegralImageGpu.wrap32(t, win);
		String tables = wrap32 ? "WRAP32 (uint32)"
			: IntegralImageGpu.fastest(w, h) + (t == PixelType.FLOAT32 ? " (double)" : " (int64)");
		boolean large = radius > 10 || d > 1;
		String kernel = "-", gbs = "-", ofCopy = "-", e2eText = "-", ratio = "-";
		double e2e = Double.NaN;
		if (g != null) {
			double ms = kernelMillis(g, planes, st, win, wrap32);
			double rate = (double) w * h * d * (t.bytesPerPixel() + 4) / (ms * 1e-3) / 1e9;
			kernel = String.format(Locale.ROOT, "%.4f", ms);
			gbs = String.format(Locale.ROOT, "%.0f", rate);
			ofCopy = String.format(Locale.ROOT, "%.0f%%", 100 * rate / copy);
			e2e = time(1, d > 1 ? 3 : 7, () -> compute(planes, st, win, GPU));
			e2eText = String.format(Locale.ROOT, "%.2f", e2e);
		}
		double cpu = time(1, 3, () -> compute(planes, st, win, CPU));
		// ImageJ at radius 50 costs about 7 times radius 7, which ran just before and warmed the JIT
		double ij = time(large ? 0 : 1, large ? 1 : 3, () -> {
			for (int z = 1; z <= d; z++)
				imagej(imp.getStack().getProcessor(z), st, radius);
		});
		if (g != null) ratio = String.format(Locale.ROOT, "%.0fx", ij / e2e);
		String what = String.format(Locale.ROOT, "%s %dx%d%s, %s, radius %d", t.label(), w, h, d > 1 ? "x" + d : "",
			st.label().toLowerCase(Locale.ROOT), radius);
		System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %.1f | %.1f | %s |%n", what, tables, kernel, gbs,
			ofCopy, e2eText, cpu, ij, ratio);
	}

	/**
	 * Device time of the operation's pipeline over all planes, uploaded beforehand: per plane
	 * {@link IntegralImageGpu#buildTables} and {@link IntegralImageGpu#launchBoxStat}, into
	 * buffers sized as {@code boxStatistics} sizes them. 32-bit planes are first moved by their
	 * mean for the variance and standard deviation, as the operation does on the host.
	 *
	 * @return ms per plane pipeline for one plane, for the whole stack otherwise
	 */
	static double kernelMillis(Gpu g, Planes image, Statistic st, Window win, boolean wrap32) {
		Planes src = st == Statistic.MEAN ? image : Centred.planes(image, CPU.threads());
		PixelType t = src.type();
		int w = src.width(), h = src.height(), d = src.depth();
		long n = (long) w * h, inBytes = n * t.bytesPerPixel(), entry = wrap32 ? 4 : 8;
		Object[] planes = new Object[d];
		for (int z = 0; z < d; z++)
			planes[z] = src.plane(z);
		return g.run("Benchmark", s -> {
			try (DeviceBuffer in = s.alloc(inBytes * d); DeviceBuffer sum = s.alloc(entry * n);
				DeviceBuffer sq = s.alloc(entry * n); DeviceBuffer out = s.alloc(4L * n * d);
				IntegralImage.DeviceScratch sc = new IntegralImage.DeviceScratch(s))
			{
				s.uploadAll(planes, n, in.ptr());
				Runnable work = () -> {
					for (int z = 0; z < d; z++) {
						IntegralImageGpu.buildTables(s, t, wrap32, w, h, in.at(z * inBytes), sum.ptr(), sq.ptr(), sc);
						IntegralImageGpu.launchBoxStat(s, t, wrap32, win, st, w, h, sum.ptr(), sq.ptr(), out.at(4L * z * n));
					}
				};
				work.run(); // warm-up: modules, scratch
				s.sync();
				int launches = d == 1 ? LAUNCHES : 1;
				double[] times = new double[5];
				for (int i = 0; i < times.length; i++)
					times[i] = s.timeMillis(() -> {
						for (int k = 0; k < launches; k++)
							work.run();
					}) / launches;
				return median(times);
			}
		});
	}

	/** What {@link BoxStatistics#compute} does, checking which backend ran. */
	static void compute(Planes image, Statistic st, Window win, ExecutionOptions o) {
		OpReport r = BoxStatistics.computeInto(image, BoxStatistics.newResult(image, o.threads()), st, win, o);
		if (r.ranOn() != o.backend())
			throw new IllegalStateException("ran on " + r.ranOn() + " instead of " + o.backend() + ": " + r);
	}

	/** ImageJ's nearest equivalent, into a new 32-bit image (see the note below the table). */
	static FloatProcessor imagej(ImageProcessor ip, Statistic st, int radius) {
		FloatProcessor fp = ip.convertToFloatProcessor();
		new RankFilters().rank(fp, radius, st == Statistic.MEAN ? RankFilters.MEAN : RankFilters.VARIANCE);
		if (st == Statistic.STANDARD_DEVIATION) fp.sqrt();
		return fp;
	}

	/** Median wall time in ms of {@code reps} runs after {@code warmups} untimed ones (JIT, modules, pool). */
	static double time(int warmups, int reps, Runnable f) {
		for (int i = 0; i < warmups; i++)
			f.run();
		double[] t = new double[reps];
		for (int i = 0; i < reps; i++) {
			long t0 = System.nanoTime();
			f.run();
			t[i] = (System.nanoTime() - t0) / 1e6;
		}
		return median(t);
	}

	static double median(double[] t) {
		return IntegralImageBenchmark.median(t);
	}
}
