package fiji.cuda.ncc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuException;
import ij.IJ;
import ij.ImagePlus;
import ij.process.ImageProcessor;

/**
 * Benchmark of template matching (not a test): prints a Markdown table of the time for the full
 * normalized score map ("valid" size): on the device alone (table build, numerators and
 * normalization, against the device's measured multiply-add rate), and through the
 * {@link TemplateMatching} facade on the GPU (forced) and on the CPU path, each end to end from an
 * ImagePlus (the planes are wrapped, nothing is converted); then detection end to end. Align
 * Slices has its own, {@link AlignSlicesBenchmark}, which shares this class's timing and rows.
 * <p>
 * Cases: 4096² 8, 16 and 32-bit images with square templates of 8 to 128 pixels, banks of 16
 * and 64 templates of 16². Run on the GPU machine with
 * {@code .device/run java fiji.cuda.ncc.TemplateMatchingBenchmark} and record the table in
 * docs/benchmarks.md. Locally: {@code mvn -q -B test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=fiji.cuda.ncc.TemplateMatchingBenchmark -Dexec.args=quick}.
 * Where the GPU cannot be used at all, the GPU column says "no GPU".
 * <p>
 * Arguments: {@code quick} (1024² images, templates 8 to 32, a bank of 16),
 * {@code detectonly} (only the detection rows), {@code imma} (the 8-bit maps with dp4a and with
 * the tensor cores), {@code wrap32} (only the 8-bit cases that read the tables, with int64 and
 * with 32-bit wrap-around tables), {@code nocpu} (GPU column only), {@code cpumax=N} (the CPU path
 * only for templates up to N pixels wide: at 4096² a 128² template is about 2.7·10¹¹
 * multiply-adds per map). {@code alignonly}, which printed the Align Slices rows, now names
 * {@link AlignSlicesBenchmark} and exits with status 2.
 */
public final class TemplateMatchingBenchmark {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);
	/** A measurement that takes longer than this (ms) is not repeated. */
	static final double ONCE_MS = 2000;

	static boolean cpu = true;
	static int cpuMax = Integer.MAX_VALUE;
	static boolean detectOnly, immaOnly, wrap32Only;

	public static void main(String[] args) {
		boolean quick = false;
		for (String a : args) {
			if (a.equals("quick")) quick = true;
			else if (a.equals("nocpu")) cpu = false;
			else if (a.startsWith("cpumax=")) cpuMax = Integer.parseInt(a.substring(7));
			else if (a.equals("alignonly")) {
				// scripts that still ask for the rows here must not print a template-matching table instead
				System.err.println("The Align Slices rows have moved to fiji.cuda.ncc.AlignSlicesBenchmark (arguments quick"
					+ " and nocpu, properties -DalignTypes, -DalignModes, -DalignWarmups and -DalignGroups).");
				System.exit(2);
			}
			else if (a.equals("detectonly")) detectOnly = true;
			else if (a.equals("imma")) immaOnly = true;
			else if (a.equals("wrap32")) wrap32Only = true;
			else {
				System.err.println("Unknown argument '" + a + "'; use quick, detectonly, imma, wrap32, nocpu or cpumax=N.");
				System.exit(2);
			}
		}
		printMachine();
		if (immaOnly) {
			immaRows();
			System.exit(0);
		}
		if (wrap32Only) {
			wrap32Rows();
			System.exit(0);
		}
		warmUp();
		int size = quick ? 1024 : 4096;
		int[] templates = quick ? new int[] {8, 16, 32} : new int[] {8, 16, 32, 64, 128};
		int[] banks = quick ? new int[] {16} : new int[] {16, 64};
		double[] peaks = printPeaksAndHeader();
		for (String type : detectOnly ? new String[0] : new String[] {"8-bit", "16-bit", "32-bit"}) {
			ImagePlus image = random(type, size, size, 1, 1);
			for (int t : templates)
				matchRow(image, List.of(cut(image, t, 2)), String.format("%s %d², template %d²", typeName(type), size, t), t, peaks,
					cpu && t <= cpuMax);
			for (int n : banks) {
				List<Planes> bank = new ArrayList<>();
				for (int i = 0; i < n; i++)
					bank.add(cut(image, 16, 3 + i));
				matchRow(image, bank, String.format("%s %d², bank of %d × 16²", typeName(type), size, n), 16, peaks,
					cpu && 16 <= cpuMax);
			}
		}
		// detection end to end: the maps stay on the GPU and only their peaks come back
		System.out.println();
		System.out.println("| Detection (threshold 0.5, NMS 0.3, up to 1000 objects) | Templates | GPU ms end to end | CPU path ms | CPU / GPU |");
		System.out.println("|---|---|---|---|---|");
		for (String type : new String[] {"8-bit", "16-bit", "32-bit"}) {
			ImagePlus image = random(type, size, size, 1, 1);
			List<Template> one = List.of(new Template(cut(image, 16, 2), null, 0, 0, false));
			List<Template> bank = new ArrayList<>();
			for (int i = 0; i < (quick ? 16 : 64); i++)
				bank.add(new Template(cut(image, 16, 3 + i), null, i, 0, false));
			for (List<Template> b : List.of(one, bank)) {
				String gpuMs = timeOrWhy(() -> detect(image, b, GPU));
				// the CPU path scales with the templates: timed for one only (the map rows above have banks)
				String cpuMs = cpu && 16 <= cpuMax && b.size() == 1 ? fmt(time(() -> detect(image, b, CPU))) : "skipped";
				String ratio = "";
				try {
					ratio = String.format(Locale.ROOT, "%.0fx", Double.parseDouble(cpuMs) / Double.parseDouble(gpuMs));
				} catch (NumberFormatException e) {
					// no ratio without both times
				}
				System.out.printf("| %s %d², %s | %d | %s | %s | %s |%n", typeName(type), size, b.size() == 1
					? "template 16²" : "bank of " + b.size() + " × 16²", b.size(), gpuMs, cpuMs, ratio);
			}
		}
		System.exit(0);
	}

	/** Prints the device, or why there is none, and the CPU threads: the head of every run. */
	static void printMachine() {
		try {
			System.out.println("Device: " + Gpu.get().info());
		} catch (GpuException e) {
			System.out.println("Device: none (" + e.getMessage() + ")");
		}
		System.out.println("CPU threads: " + Runtime.getRuntime().availableProcessors());
	}

	/**
	 * Measures and prints the device's multiply-add peaks, then the head of the table of
	 * {@link #matchRow} and {@link #row}.
	 *
	 * @return the peaks, as {@link #peakRates}
	 */
	static double[] printPeaksAndHeader() {
		System.out.println();
		double[] peaks = peakRates();
		if (peaks != null)
			System.out.printf(Locale.ROOT, "Measured peaks: dp4a %.1f T int8 multiply-adds/s, FP32 FMA %.1f T/s%n",
				peaks[0] * 1e-12, peaks[1] * 1e-12);
		System.out.println();
		System.out.println("| Case | Maps | Device ms (tables + maps) | % of peak (8-bit pairs: dp4a's) | GPU ms end to end | CPU path ms | CPU / GPU |");
		System.out.println("|---|---|---|---|---|---|---|");
		return peaks;
	}

	/**
	 * The 8-bit maps at 4096² on the device (tables, numerators, normalization) with the dp4a
	 * numerator and with the int8 tensor cores, as AUTO picks, next to the targets.
	 */
	static void immaRows() {
		ImagePlus image = random("8-bit", 4096, 4096, 1, 1);
		Planes plane = wrap(image);
		System.out.println("| u8 4096², template | Device ms, dp4a | Device ms, IMMA (AUTO) | Target |");
		System.out.println("|---|---|---|---|");
		String[] targets = { "", "<= 0.1", "<= 0.3", "<= 1.0", "" };
		int[] sizes = { 8, 16, 32, 64, 128 };
		for (int k = 0; k < sizes.length; k++) {
			double[] ms = autoAndImma(plane, List.of(cut(image, sizes[k], 2)), 9);
			System.out.printf(Locale.ROOT, "| %d² | %.3f | %.3f | %s |%n", sizes[k], ms[0], ms[1], targets[k]);
		}
		for (int n : new int[] { 16, 64 }) {
			List<Planes> bank = new ArrayList<>();
			for (int i = 0; i < n; i++)
				bank.add(cut(image, 16, 3 + i));
			double[] ms = autoAndImma(plane, bank, 5);
			System.out.printf(Locale.ROOT, "| bank of %d × 16² | %.3f | %.3f | |%n", n, ms[0], ms[1]);
		}
	}

	/**
	 * The 8-bit cases whose kernels read the image's tables, with int64 tables and with the
	 * 32-bit wrap-around tables AUTO takes: device ms of the whole map (tables included).
	 */
	static void wrap32Rows() {
		ImagePlus image = random("8-bit", 4096, 4096, 1, 1);
		Planes plane = wrap(image);
		System.out.println("| u8 4096², template (kernel) | Device ms, int64 tables | Device ms, 32-bit tables | int64 / 32-bit |");
		System.out.println("|---|---|---|---|");
		Object[][] cases = { { 128, "8-bit", false, "IMMA sums + ncc_finish" }, { 64, "8-bit", true, "IMMA sums + ncc_finish" },
			{ 16, "8-bit", false, "dp4a, ncc_direct (tensor cores off)" }, { 32, "8-bit", false, "dp4a, ncc_stream (tensor cores off)" },
			{ 16, "16-bit", false, "t16, 16-bit template" }, { 16, "32-bit", false, "tf, 32-bit template" } };
		for (Object[] c : cases) {
			int t = (Integer) c[0];
			boolean unfused = (Boolean) c[2];
			String kernel = (String) c[3];
			Planes tpl = NccReference.cut(cut(image, t, 2), 0, 0, t, t, typeOf((String) c[1]));
			boolean immaOff = kernel.startsWith("dp4a");
			double[] ms = new double[2];
			for (int k = 0; k < 2; k++) {
				try {
					TemplateMatchingGpu.wideTablesForTest = k == 0;
					TemplateMatchingGpu.immaOffForTest = immaOff;
					TemplateMatchingGpu.immaUnfusedForTest = unfused;
					ms[k] = TemplateMatchingGpu.deviceMillis(Gpu.get(), plane, List.of(tpl), 9);
				} finally {
					TemplateMatchingGpu.wideTablesForTest = false;
					TemplateMatchingGpu.immaOffForTest = false;
					TemplateMatchingGpu.immaUnfusedForTest = false;
				}
			}
			System.out.printf(Locale.ROOT, "| %d², %s | %.3f | %.3f | %.2fx |%n", t, kernel, ms[0], ms[1], ms[0] / ms[1]);
		}
	}

	/** The first plane of a single-plane image, wrapped. */
	private static Planes wrap(ImagePlus image) {
		ImageProcessor ip = image.getProcessor();
		return Planes.wrap(ip.getWidth(), ip.getHeight(), ip.getPixels());
	}

	private static PixelType typeOf(String type) {
		return type.equals("8-bit") ? PixelType.UINT8 : type.equals("16-bit") ? PixelType.UINT16 : PixelType.FLOAT32;
	}

	/** @return device ms of the maps on the dp4a kernels, then as AUTO makes them (the tensor cores) */
	static double[] autoAndImma(Planes plane, List<Planes> templates, int reps) {
		double dp4a;
		try {
			TemplateMatchingGpu.immaOffForTest = true;
			dp4a = TemplateMatchingGpu.deviceMillis(Gpu.get(), plane, templates, reps);
		} finally {
			TemplateMatchingGpu.immaOffForTest = false;
		}
		return new double[] { dp4a, TemplateMatchingGpu.deviceMillis(Gpu.get(), plane, templates, reps) };
	}

	/**
	 * Times every map of the templates against the image's plane: on the device alone (tables,
	 * numerators, normalization; the fraction of peak counts w·h multiply-adds per output against
	 * dp4a for 8-bit pairs, FP32 FMA otherwise), and end to end on the GPU and, when
	 * {@code timeCpu}, the CPU path.
	 */
	static void matchRow(ImagePlus image, List<Planes> templates, String what, int templateSize, double[] peaks,
		boolean timeCpu)
	{
		Runnable onGpu = () -> matchAll(image, templates, GPU);
		Runnable onCpu = () -> matchAll(image, templates, CPU);
		String device = "no GPU", frac = "";
		if (peaks != null) {
			ImageProcessor ip = image.getProcessor();
			Planes plane = Planes.wrap(ip.getWidth(), ip.getHeight(), ip.getPixels());
			double ms = TemplateMatchingGpu.deviceMillis(Gpu.get(), plane, templates, 5);
			long ow = ip.getWidth() - templateSize + 1, oh = ip.getHeight() - templateSize + 1;
			double macs = (double) ow * oh * templateSize * templateSize * templates.size();
			boolean dp4a = plane.type() == PixelType.UINT8 && templates.get(0).type() == PixelType.UINT8;
			device = String.format(Locale.ROOT, "%.3f", ms);
			frac = String.format(Locale.ROOT, "%.0f%%", 100 * macs / (ms * 1e-3) / peaks[dp4a ? 0 : 1]);
		}
		String gpuMs = timeOrWhy(onGpu);
		String cpuMs = timeCpu ? fmt(time(onCpu)) : "skipped";
		row(what, String.valueOf(templates.size()), device, frac, gpuMs, cpuMs);
	}

	static void detect(ImagePlus image, List<Template> bank, ExecutionOptions opts) {
		ImageProcessor ip = image.getProcessor();
		TemplateMatching.detect(Planes.wrap(ip.getWidth(), ip.getHeight(), ip.getPixels()), 0, bank, 0.5, 1000, 0.3, true,
			null, opts);
	}

	/** @return the device's measured {dp4a, FMA} multiply-add rates, or null without a GPU */
	static double[] peakRates() {
		try {
			return TemplateMatchingGpu.peakRates(Gpu.get());
		} catch (GpuException e) {
			return null;
		}
	}

	/** End to end from the ImagePlus: its pixels are wrapped as they are, as the plug-in does. */
	static void matchAll(ImagePlus image, List<Planes> templates, ExecutionOptions opts) {
		ImageProcessor ip = image.getProcessor();
		Planes plane = Planes.wrap(ip.getWidth(), ip.getHeight(), ip.getPixels());
		List<Template> bank = new ArrayList<>();
		for (int i = 0; i < templates.size(); i++)
			bank.add(new Template(templates.get(i), null, i, 0, false));
		TemplateMatching.matchAll(plane, 0, bank, opts);
	}

	/** @return the median time in ms, or why the GPU path did not run */
	static String timeOrWhy(Runnable work) {
		try {
			return fmt(time(work));
		} catch (GpuException e) {
			return "no GPU";
		}
	}

	/**
	 * @return the median of 3 runs after a warm-up run (JIT, modules, memory pool), or the
	 *         warm-up's time alone when it took longer than {@link #ONCE_MS}
	 */
	static double time(Runnable work) {
		double first = millis(work);
		if (first > ONCE_MS) return first;
		double[] t = new double[3];
		for (int i = 0; i < t.length; i++)
			t[i] = millis(work);
		Arrays.sort(t);
		return t[1];
	}

	static double millis(Runnable work) {
		long t0 = System.nanoTime();
		work.run();
		return (System.nanoTime() - t0) / 1e6;
	}

	/** Compiles the CPU path's loops before the first timed case, which may run only once. */
	static void warmUp() {
		for (String type : new String[] {"8-bit", "32-bit"}) {
			ImagePlus image = random(type, 256, 256, 1, 7);
			for (int i = 0; i < 3; i++)
				matchAll(image, List.of(cut(image, 16, 8)), CPU);
		}
	}

	static ImagePlus random(String type, int w, int h, int slices, long seed) {
		ImagePlus imp = IJ.createImage("bench", type + " black", w, h, slices);
		Random r = new Random(seed);
		int max = type.equals("8-bit") ? 256 : 4096;
		for (int s = 1; s <= slices; s++) {
			ImageProcessor ip = imp.getStack().getProcessor(s);
			for (int i = 0; i < w * h; i++)
				ip.setf(i, type.equals("32-bit") ? r.nextFloat() * 1000 : r.nextInt(max));
		}
		return imp;
	}

	/** A square of the image's pixels at a pseudo-random place, of the image's type. */
	static Planes cut(ImagePlus image, int size, long seed) {
		Random r = new Random(seed);
		ImageProcessor ip = image.getProcessor();
		ip.setRoi(r.nextInt(ip.getWidth() - size + 1), r.nextInt(ip.getHeight() - size + 1), size, size);
		ImageProcessor t = ip.crop();
		ip.resetRoi();
		return Planes.wrap(size, size, t.getPixels());
	}

	static void row(String what, String maps, String device, String frac, String gpu, String cpuMs) {
		String ratio = "";
		try {
			ratio = String.format(Locale.ROOT, "%.0fx", Double.parseDouble(cpuMs) / Double.parseDouble(gpu));
		} catch (NumberFormatException e) {
			// a column without a time has no ratio
		}
		System.out.printf("| %s | %s | %s | %s | %s | %s | %s |%n", what, maps, device, frac, gpu, cpuMs, ratio);
		System.out.flush();
	}

	static String typeName(String type) {
		return type.equals("8-bit") ? "u8" : type.equals("16-bit") ? "u16" : "f32";
	}

	static String fmt(double ms) {
		return ms >= 100 ? String.format(Locale.ROOT, "%.0f", ms) : String.format(Locale.ROOT, "%.2f", ms);
	}
}
