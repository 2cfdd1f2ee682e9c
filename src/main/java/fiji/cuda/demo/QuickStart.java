package fiji.cuda.demo;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics;
import fiji.cuda.integral.IntegralImage;
import fiji.cuda.integral.LocalThreshold;
import fiji.cuda.integral.SatBuild;
import fiji.cuda.integral.SummedAreaTable;
import fiji.cuda.integral.Window;
import fiji.cuda.ncc.AlignSlices;
import fiji.cuda.ncc.Detection;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.runtime.GpuAccess;

/**
 * The README's first Quick start command: runs the project's operations headless on a
 * built-in sample image and prints which device ran, the timings, and where the outputs went.
 * <p>
 * The sample is synthetic (bright round cells on a noisy background, 16-bit, 1024x1024x32),
 * made from a fixed seed so every run sees the same data. Usage:
 * {@code QuickStart [output folder]}, default {@code target/quickstart}.
 */
public final class QuickStart {

	private QuickStart() {}

	/** @param args the output folder, optional (target/quickstart); a folder or file that cannot be written exits with 1 */
	public static void main(String[] args) {
		File out = new File(args.length > 0 ? args[0] : "target/quickstart");
		if (!out.isDirectory() && !out.mkdirs()) {
			System.err.println("Cannot create the output folder " + out.getAbsolutePath());
			System.exit(1);
		}
		System.out.println("Fiji CUDA quick start");
		for (String l : GpuAccess.describe())
			System.out.println("  " + l);

		Planes sample = sample(1024, 1024, 32, 7);
		save(sample, new File(out, "sample.tif"));
		// a small run first, so that the timings below are not of the JIT compiler or the
		// one-time CUDA start (driver, context, module load, pools); its time is what the first
		// GPU command of a Fiji session costs before any pixel is blurred
		long start = System.nanoTime();
		GaussianBlur.blur3D(sample(64, 64, 4, 1), 2, 2, 2, ExecutionOptions.defaults());
		System.out.printf(java.util.Locale.ROOT, "First call (a 64x64x4 blur: %s): %.0f ms%n", GpuAccess.isAvailable()
			? "CUDA start, kernel load and JIT warm-up" : "JIT warm-up, on the CPU", (System.nanoTime() - start) / 1e6);
		GaussianBlur.blur3D(sample(64, 64, 4, 1), 2, 2, 2, ExecutionOptions.defaults().withBackend(Backend.CPU));
		Planes tiny = sample(128, 128, 2, 2);
		LocalThreshold.Settings warm = LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 15, 0, 0, true);
		for (Backend b : new Backend[] { Backend.AUTO, Backend.CPU })
			LocalThreshold.thresholdInto(tiny, blank(PixelType.UINT8, 128, 128, 2), warm,
				ExecutionOptions.defaults().withBackend(b));

		Planes blurred = sample.copy();
		report("Gaussian Blur (2D, sigma=2, every slice)", GaussianBlur.blur2D(blurred, 2, 2, null,
			ExecutionOptions.defaults()), GaussianBlur.blur2D(sample.copy(), 2, 2, null,
				ExecutionOptions.defaults().withBackend(Backend.CPU)));
		save(blurred, new File(out, "gaussian_blur.tif"));

		Planes blurred3d = sample.copy();
		report("Gaussian Blur 3D (x=2 y=2 z=2)", GaussianBlur.blur3D(blurred3d, 2, 2, 2,
			ExecutionOptions.defaults()), GaussianBlur.blur3D(sample.copy(), 2, 2, 2,
				ExecutionOptions.defaults().withBackend(Backend.CPU)));
		save(blurred3d, new File(out, "gaussian_blur_3d.tif"));

		Planes mask = blank(PixelType.UINT8, sample.width(), sample.height(), sample.depth());
		LocalThreshold.Settings sauvola = LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 15, 0, 0, true);
		report("Local Threshold (Sauvola, radius 15)", LocalThreshold.thresholdInto(sample, mask, sauvola,
			ExecutionOptions.defaults()), LocalThreshold.thresholdInto(sample, mask.copy(), sauvola,
				ExecutionOptions.defaults().withBackend(Backend.CPU)));
		save(mask, new File(out, "local_threshold.tif"));

		integralAndBoxStatistics(sample, new File(out, "box_statistics.tif"));
		detectCells(sample, new File(out, "detections.csv"));
		alignDrift(sample, new File(out, "aligned.tif"), new File(out, "align_shifts.csv"));
		System.out.println("Outputs written to " + out.getAbsolutePath());
	}

	/**
	 * The summed-area tables of every slice (both of them, exact 64-bit), then the standard
	 * deviation over a 15x15 window of every slice, which reads them; the second is saved.
	 */
	static void integralAndBoxStatistics(Planes sample, File tif) {
		ExecutionOptions auto = ExecutionOptions.defaults(), cpu = auto.withBackend(Backend.CPU);
		Window window = Window.square(7);
		BoxStatistics.Statistic sd = BoxStatistics.Statistic.STANDARD_DEVIATION;
		Planes small = sample(128, 128, 2, 4);
		for (ExecutionOptions o : new ExecutionOptions[] { auto, cpu }) { // JIT warm-up, as above
			IntegralImage.buildAll(small, SatBuild.AUTO, o);
			BoxStatistics.compute(small, sd, window, o);
		}
		boolean onGpu = GpuAccess.isAvailable();
		long t0 = System.nanoTime();
		List<SummedAreaTable> tables = IntegralImage.buildAll(sample, SatBuild.AUTO, auto);
		double ms = (System.nanoTime() - t0) / 1e6;
		t0 = System.nanoTime();
		IntegralImage.buildAll(sample, SatBuild.AUTO, cpu);
		double cpuMs = (System.nanoTime() - t0) / 1e6;
		System.out.println(line("Integral Image (both tables, every slice)", onGpu, ms, cpuMs) + ", " + tables.size()
			+ " slices");

		Planes result = blank(PixelType.FLOAT32, sample.width(), sample.height(), sample.depth());
		report("Box Statistics (standard deviation, 15x15)", BoxStatistics.computeInto(sample, result, sd,
			window, auto), BoxStatistics.computeInto(sample, result.copy(), sd, window, cpu));
		save(result, tif);
	}

	/**
	 * Align Slices: a stack made by moving the middle slice by known whole and fractional
	 * shifts, aligned back with a 128x128 landmark; prints the largest error of the shifts
	 * found and writes them, with the true ones, to a CSV file.
	 */
	static void alignDrift(Planes sample, File tif, File csv) {
		int w = sample.width(), h = sample.height(), n = 16;
		short[] middle = (short[]) sample.plane(sample.depth() / 2);
		double[] trueX = new double[n], trueY = new double[n];
		Object[] copies = new Object[n];
		for (int z = 0; z < n; z++) {
			trueX[z] = z == 0 ? 0 : 0.9 * z - 6.3;
			trueY[z] = z == 0 ? 0 : 4.2 - 0.55 * z;
			copies[z] = middle.clone();
		}
		Planes drift = Planes.wrap(w, h, copies);
		for (int z = 1; z < n; z++)
			AlignSlices.translate(drift, z, trueX[z], trueY[z], AlignSlices.Interpolation.BILINEAR,
				ExecutionOptions.defaults().threads());
		AlignSlices.Settings s = new AlignSlices.Settings().landmark(w / 2 - 64, h / 2 - 64, 128, 128);
		s.margin = 20;
		s.subpixel = true;
		ExecutionOptions auto = ExecutionOptions.defaults(), cpu = auto.withBackend(Backend.CPU);
		for (ExecutionOptions o : new ExecutionOptions[] { auto, cpu }) { // JIT warm-up, as above
			short[] warm = centre((short[]) drift.plane(1), w, h, 256);
			AlignSlices.align(Planes.wrap(256, 256, warm, warm.clone()), new AlignSlices.Settings().landmark(64, 64, 128,
				128), o);
		}
		Planes driftCpu = drift.copy();
		boolean onGpu = GpuAccess.isAvailable();
		long t0 = System.nanoTime();
		List<AlignSlices.Shift> found = AlignSlices.align(drift, s, auto);
		double ms = (System.nanoTime() - t0) / 1e6;
		t0 = System.nanoTime();
		AlignSlices.align(driftCpu, s, cpu);
		double cpuMs = (System.nanoTime() - t0) / 1e6;
		double worst = 0;
		for (AlignSlices.Shift f : found) // the shift applied undoes the drift
			worst = Math.max(worst, Math.hypot(f.dx + trueX[f.plane], f.dy + trueY[f.plane]));
		System.out.println(line("Align Slices (" + n + " slices, 128x128 landmark)", onGpu, ms, cpuMs)
			+ String.format(Locale.ROOT, ", largest shift error %.3f pixel", worst));
		save(drift, tif);
		try (PrintWriter out = new PrintWriter(csv, StandardCharsets.UTF_8)) {
			out.println("Slice,True dX,True dY,dX,dY,Score");
			for (AlignSlices.Shift f : found)
				out.printf(Locale.ROOT, "%d,%.4f,%.4f,%.4f,%.4f,%.4f%n", f.plane + 1, -trueX[f.plane], -trueY[f.plane],
					f.dx, f.dy, f.score);
		} catch (IOException e) {
			System.err.println("Could not write " + csv + ": " + e.getMessage());
			System.exit(1);
		}
	}

	/**
	 * Template matching: a synthetic cell (a disk of radius 10) against the middle slice, on the
	 * default backend and on the CPU path; the default backend's detections go to a CSV file.
	 */
	static void detectCells(Planes sample, File csv) {
		int size = 33;
		short[] disk = new short[size * size];
		for (int y = 0; y < size; y++)
			for (int x = 0; x < size; x++) {
				double dx = x - size / 2, dy = y - size / 2;
				disk[y * size + x] = (short) (dx * dx + dy * dy <= 100 ? 1600 : 100);
			}
		List<Template> bank = Template.fromPlanes(Planes.wrap(size, size, disk), null);
		Planes slice = sample.range(sample.depth() / 2, sample.depth() / 2 + 1);
		ExecutionOptions auto = ExecutionOptions.defaults();
		// as for the blur: a small run on each backend first, so the times are not of the JIT
		// compiler (the peak search and its sub-pixel fit run on the host on both paths)
		Planes small = sample(128, 128, 1, 3);
		TemplateMatching.detect(small, 0, bank, 0.5, 1000, 0.3, true, null, auto);
		TemplateMatching.detect(small, 0, bank, 0.5, 1000, 0.3, true, null, auto.withBackend(Backend.CPU));
		boolean onGpu = GpuAccess.isAvailable();
		long t0 = System.nanoTime();
		List<Detection> found = TemplateMatching.detect(slice, 0, bank, 0.5, 1000, 0.3, true, null, auto);
		double ms = (System.nanoTime() - t0) / 1e6;
		t0 = System.nanoTime();
		TemplateMatching.detect(slice, 0, bank, 0.5, 1000, 0.3, true, null, auto.withBackend(Backend.CPU));
		double cpuMs = (System.nanoTime() - t0) / 1e6;
		System.out.println(line("Template Matching (one slice, 33x33 disk)", onGpu, ms, cpuMs) + ", "
			+ found.size() + (found.size() == 1 ? " cell found" : " cells found"));
		try (PrintWriter w = new PrintWriter(csv, StandardCharsets.UTF_8)) {
			w.println("X,Y,Centre X,Centre Y,Score");
			for (Detection d : found)
				w.printf(Locale.ROOT, "%d,%d,%d,%d,%.4f%n", d.x, d.y, d.centreX(), d.centreY(), d.score);
		} catch (IOException e) {
			System.err.println("Could not write " + csv + ": " + e.getMessage());
			System.exit(1);
		}
	}

	/** Bright disks of random size and brightness on a dim, noisy background. */
	static Planes sample(int w, int h, int d, long seed) {
		Random r = new Random(seed);
		Object[] st = new Object[d];
		int cells = 300;
		double[] cx = new double[cells], cy = new double[cells], cz = new double[cells], rad = new double[cells],
			amp = new double[cells];
		for (int c = 0; c < cells; c++) {
			cx[c] = r.nextDouble() * w;
			cy[c] = r.nextDouble() * h;
			cz[c] = r.nextDouble() * d;
			rad[c] = 6 + r.nextDouble() * 14;
			amp[c] = 800 + r.nextDouble() * 2500;
		}
		for (int z = 0; z < d; z++) {
			short[] p = new short[w * h];
			for (int i = 0; i < p.length; i++)
				p[i] = (short) (100 + r.nextGaussian() * 20);
			for (int c = 0; c < cells; c++) {
				double dz = (z - cz[c]) / 3.0, rz2 = rad[c] * rad[c] - dz * dz * 16;
				if (rz2 <= 0) continue;
				int rr = (int) Math.ceil(Math.sqrt(rz2));
				for (int y = Math.max(0, (int) cy[c] - rr); y < Math.min(h, (int) cy[c] + rr + 1); y++)
					for (int x = Math.max(0, (int) cx[c] - rr); x < Math.min(w, (int) cx[c] + rr + 1); x++) {
						double dx = x - cx[c], dy = y - cy[c];
						if (dx * dx + dy * dy <= rz2) {
							int i = y * w + x;
							p[i] = (short) Math.min(65535, (p[i] & 0xffff) + amp[c] + r.nextGaussian() * 40);
						}
					}
			}
			st[z] = p;
		}
		return Planes.wrap(w, h, st);
	}

	/** @return d zero planes of a type */
	static Planes blank(PixelType type, int w, int h, int d) {
		Object[] p = new Object[d];
		for (int z = 0; z < d; z++)
			p[z] = type.newPlane(w * h);
		return Planes.wrap(w, h, p);
	}

	/** @return the middle n x n pixels of a w x h plane, copied */
	static short[] centre(short[] plane, int w, int h, int n) {
		short[] out = new short[n * n];
		for (int y = 0; y < n; y++)
			System.arraycopy(plane, (h - n) / 2 * w + y * w + (w - n) / 2, out, y * n, n);
		return out;
	}

	static void report(String what, OpReport fast, OpReport cpu) {
		System.out.println(line(what, fast.ranOn() != Backend.CPU, fast.millis(), cpu.millis()));
		if (fast.fallbackReason() != null) System.out.println("    ran on the CPU because " + fast.fallbackReason());
	}

	/**
	 * One timing line. Without a GPU both runs are the CPU path, so no speed-up is claimed:
	 * the second run only shows how much of the first was the JIT compiler's warm-up.
	 */
	static String line(String what, boolean onGpu, double ms, double cpuMs) {
		return onGpu ? String.format(Locale.ROOT, "%-42s GPU: %8.1f ms   (CPU path: %8.1f ms, %.1fx)", what, ms, cpuMs, cpuMs / ms)
			: String.format(Locale.ROOT, "%-42s CPU: %8.1f ms   (no GPU; the CPU path run again: %8.1f ms)", what, ms, cpuMs);
	}

	static void save(Planes planes, File f) {
		try {
			TiffStack.write(planes, f);
		} catch (IOException e) {
			System.err.println("Could not write " + f + ": " + e.getMessage());
			System.exit(1);
		}
	}
}
