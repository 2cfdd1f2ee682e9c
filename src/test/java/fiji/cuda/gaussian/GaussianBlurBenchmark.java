package fiji.cuda.gaussian;

import java.util.Arrays;
import java.util.Random;
import java.util.function.DoubleSupplier;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import ij.ImagePlus;
import ij.ImageStack;
import ij.plugin.GaussianBlur3D;
import ij.process.FloatProcessor;
import ij.process.ShortProcessor;

/**
 * Benchmark of Gaussian blur (not a test): prints a Markdown table of kernel time, effective
 * bandwidth against the device copy bandwidth measured in the same run, end-to-end time from
 * an ImagePlus, the CPU path, and ImageJ's own filter. Run on the GPU machine with
 * {@code .device/run java fiji.cuda.gaussian.GaussianBlurBenchmark}; record the table in
 * docs/benchmarks.md. Arguments: {@code quick} (fewer repetitions), {@code transfers} (host-device
 * copies only), {@code modules} (the load time of every shipped kernel module only).
 */
public final class GaussianBlurBenchmark {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);
	static final int LAUNCHES = 20;

	public static void main(String[] args) {
		boolean quick = args.length > 0 && args[0].equals("quick");
		if (args.length > 0 && args[0].equals("transfers")) {
			transfers(Gpu.get());
			System.exit(0);
		}
		Gpu g = Gpu.get();
		System.out.println("Device: " + g.info());
		for (String l : Gpu.describe())
			System.out.println("  " + l);
		System.out.println("CPU threads: " + Runtime.getRuntime().availableProcessors());
		double copyGBs = copyBandwidth(g);
		System.out.printf("Device copy bandwidth (read + write): %.0f GB/s%n", copyGBs);
		moduleLoads(g, args.length > 0 && args[0].equals("modules"));
		System.out.println();
		warmCpuPaths();
		System.out.println("| Case | Kernel | Kernel ms | GB/s | % of copy | End-to-end ms | CPU path ms | ImageJ ms | vs ImageJ |");
		System.out.println("|---|---|---|---|---|---|---|---|---|");
		for (double sigma : new double[] { 2, 5, 10 })
			plane2D(g, copyGBs, 4096, 4096, sigma, quick);
		plane2D(g, copyGBs, 4096, 4096, 30, true);
		stack3D(g, copyGBs, 1024, 1024, quick ? 32 : 128, 2, quick);
		stack2D(1024, 1024, quick ? 32 : 128, 2);
		System.exit(0);
	}

	/**
	 * Prints the load time of the blur's module and the runtime's, or of every shipped module
	 * when {@code all} (the "modules" argument), which then ends the run: the foundation issue
	 * holds each load to 1 ms.
	 */
	static void moduleLoads(Gpu g, boolean all) {
		java.util.List<String> modules = new java.util.ArrayList<>();
		modules.add(GaussianBlurKernels.MODULE);
		modules.addAll(java.util.Arrays.asList(GaussianBlurKernels.WIDE_MODULES));
		modules.add("runtime");
		if (all) modules.addAll(java.util.Arrays.asList("integral_image", "box_statistics", "local_threshold",
			"template_matching", "align_slices"));
		for (String m : modules) {
			double[] t = new double[5];
			for (int i = 0; i < t.length; i++)
				t[i] = g.moduleLoadMillis(m);
			System.out.printf("Module load (%s.fatbin): %.3f ms (median of 5)%n", m, median(t));
		}
		if (all) System.exit(0);
	}

	static double copyBandwidth(Gpu g) {
		long bytes = 1L << 30;
		return g.run("Copy bandwidth", s -> {
			try (DeviceBuffer a = s.alloc(bytes); DeviceBuffer b = s.alloc(bytes)) {
				double[] t = new double[10];
				s.copy(a.ptr(), b.ptr(), bytes);
				for (int i = 0; i < t.length; i++)
					t[i] = s.timeMillis(() -> s.copy(a.ptr(), b.ptr(), bytes));
				return 2.0 * bytes / (median(t) * 1e-3) / 1e9;
			}
		});
	}

	static void plane2D(Gpu g, double copyGBs, int w, int h, double sigma, boolean quick) {
		float[] px = new float[w * h];
		Random r = new Random(1);
		for (int i = 0; i < px.length; i++)
			px[i] = r.nextFloat() * 1000;
		double acc = GaussianKernel.defaultAccuracy(PixelType.FLOAT32);
		GaussianKernel kx = GaussianKernel.imagej(sigma, acc, w), ky = GaussianKernel.imagej(sigma, acc, h);
		long bytes = 4L * w * h;
		String[] name = new String[1];
		double kernelMs = g.run("Benchmark", s -> {
			try (GaussianBlurKernels k = new GaussianBlurKernels(s, PixelType.FLOAT32, w, h, kx, ky);
				DeviceBuffer src = s.alloc(bytes); DeviceBuffer dst = s.alloc(bytes);
				DeviceBuffer tmp = k.needsTemp() ? s.alloc(bytes) : null)
			{
				name[0] = k.xyKernelName();
				s.upload(px, 0, px.length, src.ptr());
				Region all = Region.all(w, h);
				k.blurXY(src.ptr(), dst.ptr(), tmp, all);
				double[] t = new double[5];
				for (int i = 0; i < t.length; i++)
					t[i] = s.timeMillis(() -> {
						// back to back, so the host's launch overhead hides behind the kernels
						for (int j = 0; j < LAUNCHES; j++)
							k.blurXY(src.ptr(), dst.ptr(), tmp, all);
					}) / LAUNCHES;
				double[] up = new double[5], down = new double[5];
				for (int i = 0; i < up.length; i++) {
					long t0 = System.nanoTime();
					s.upload(px, 0, px.length, src.ptr());
					s.sync();
					long t1 = System.nanoTime();
					s.download(dst.ptr(), px, 0, px.length);
					long t2 = System.nanoTime();
					up[i] = (t1 - t0) / 1e6;
					down[i] = (t2 - t1) / 1e6;
				}
				System.out.printf("(transfers %dx%d float: upload %.2f ms = %.1f GB/s, download %.2f ms = %.1f GB/s)%n", w,
					h, median(up), bytes / median(up) / 1e6, median(down), bytes / median(down) / 1e6);
				return median(t);
			}
		});
		ImagePlus imp = new ImagePlus("bench", new FloatProcessor(w, h, px.clone()));
		double e2e = time(9, () -> {
			GaussianBlur.blur2D(Planes.wrap(w, h, imp.getProcessor().getPixels()), sigma, sigma, null, GPU);
			return 0;
		});
		double cpu = time(quick ? 1 : 3, () -> {
			GaussianBlur.blur2D(Planes.wrap(w, h, imp.getProcessor().getPixels()), sigma, sigma, null, CPU);
			return 0;
		});
		double ij = time(quick ? 1 : 3, () -> {
			new ij.plugin.filter.GaussianBlur().blurGaussian(imp.getProcessor(), sigma, sigma, acc);
			return 0;
		});
		row(String.format("float32 %dx%d, sigma %s", w, h, fmt(sigma)), name[0], kernelMs, bytes, copyGBs, e2e, cpu, ij);
	}

	static void stack3D(Gpu g, double copyGBs, int w, int h, int d, double sigma, boolean quick) {
		Random r = new Random(2);
		ImageStack st = new ImageStack(w, h);
		Object[] planes = new Object[d];
		for (int z = 0; z < d; z++) {
			short[] p = new short[w * h];
			for (int i = 0; i < p.length; i++)
				p[i] = (short) r.nextInt(4096);
			st.addSlice(new ShortProcessor(w, h, p, null));
			planes[z] = p;
		}
		ImagePlus imp = new ImagePlus("stack", st);
		double acc = GaussianKernel.defaultAccuracy(PixelType.UINT16);
		GaussianKernel kx = GaussianKernel.imagej(sigma, acc, w), ky = GaussianKernel.imagej(sigma, acc, h),
			kz = GaussianKernel.imagej(sigma, acc, d);
		long planeBytes = 2L * w * h, bytes = planeBytes * d;
		String[] name = new String[1];
		double kernelMs = g.run("Benchmark", s -> {
			try (GaussianBlurKernels k = new GaussianBlurKernels(s, PixelType.UINT16, w, h, kx, ky);
				DeviceBuffer a = s.alloc(bytes); DeviceBuffer b = s.alloc(bytes);
				DeviceBuffer tmp = k.needsTemp() ? s.alloc(4L * w * h) : null)
			{
				name[0] = k.xyKernelName() + " + gauss_z_u16";
				s.uploadAll(planes, (long) w * h, a.ptr());
				Region all = Region.all(w, h);
				Runnable work = () -> {
					for (int z = 0; z < d; z++)
						k.blurXY(a.at(z * planeBytes), b.at(z * planeBytes), tmp, all);
					k.blurZ(b.ptr(), a.ptr(), d, kz);
				};
				work.run();
				double[] t = new double[3];
				for (int i = 0; i < t.length; i++)
					t[i] = s.timeMillis(work);
				return median(t);
			}
		});
		double e2e = time(3, () -> {
			GaussianBlur.blur3D(Planes.wrap(w, h, Arrays.copyOf(imp.getStack().getImageArray(), d)), sigma, sigma,
				sigma, GPU);
			return 0;
		});
		double cpu = time(1, () -> {
			GaussianBlur.blur3D(Planes.wrap(w, h, Arrays.copyOf(imp.getStack().getImageArray(), d)), sigma, sigma,
				sigma, CPU);
			return 0;
		});
		double ij = time(1, () -> {
			GaussianBlur3D.blur(imp, sigma, sigma, sigma);
			return 0;
		});
		// two passes over the volume on the device, each one read and one write
		row(String.format("uint16 %dx%dx%d 3D, sigma %s", w, h, d, fmt(sigma)), name[0], kernelMs, 2 * bytes, copyGBs,
			e2e, cpu, ij);
	}

	/**
	 * A 2D blur of every slice of a 16-bit stack, end to end, three ways: the whole stack in one
	 * call (the SciJava command and the API, which move slices in batches), slice by slice on
	 * every core as ImageJ's PlugInFilterRunner calls the menu command (PARALLELIZE_STACKS), and
	 * ImageJ's own Gaussian Blur slice by slice on every core. Not a kernel row: printed as a
	 * table of its own.
	 */
	static void stack2D(int w, int h, int d, double sigma) {
		Random r = new Random(4);
		Object[] planes = new Object[d];
		for (int z = 0; z < d; z++) {
			short[] p = new short[w * h];
			for (int i = 0; i < p.length; i++)
				p[i] = (short) r.nextInt(4096);
			planes[z] = p;
		}
		Planes stack = Planes.wrap(w, h, planes);
		int threads = Runtime.getRuntime().availableProcessors();
		double acc = GaussianKernel.defaultAccuracy(PixelType.UINT16);
		double batched = time(5, () -> {
			GaussianBlur.blur2D(stack, sigma, sigma, null, GPU);
			return 0;
		});
		ExecutionOptions perSlice = GPU.withThreads(1);
		double menu = time(5, () -> {
			slices(d, threads, z -> GaussianBlur.blur2D(Planes.wrap(w, h, planes[z]), sigma, sigma, null, perSlice));
			return 0;
		});
		double cpu = time(1, () -> {
			GaussianBlur.blur2D(stack, sigma, sigma, null, CPU);
			return 0;
		});
		double ij = time(1, () -> {
			slices(d, threads, z -> new ij.plugin.filter.GaussianBlur().blurGaussian(new ShortProcessor(w, h,
				(short[]) planes[z], null), sigma, sigma, acc));
			return 0;
		});
		System.out.println();
		System.out.println("| 2D blur of a stack, end to end | ms | vs ImageJ |");
		System.out.println("|---|---|---|");
		String what = String.format("uint16 %dx%dx%d, sigma %s", w, h, d, fmt(sigma));
		System.out.printf("| %s, whole stack in one call (SciJava, API) | %.2f | %.0fx |%n", what, batched, ij / batched);
		System.out.printf("| %s, slice by slice on %d threads (the menu command under ImageJ's runner) | %.2f | %.0fx |%n",
			what, threads, menu, ij / menu);
		System.out.printf("| %s, CPU path, whole stack | %.1f | %.1fx |%n", what, cpu, ij / cpu);
		System.out.printf("| %s, ImageJ's Gaussian Blur, slice by slice on %d threads | %.1f | |%n", what, threads, ij);
	}

	/** Slices [0, d) on {@code threads} threads taking the next slice as they finish, as ImageJ's runner. */
	static void slices(int d, int threads, java.util.function.IntConsumer blur) {
		java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
		Thread[] ts = new Thread[threads];
		for (int i = 0; i < threads; i++) {
			ts[i] = new Thread(() -> {
				for (int z = next.getAndIncrement(); z < d; z = next.getAndIncrement())
					blur.accept(z);
			});
			ts[i].start();
		}
		for (Thread t : ts) {
			try {
				t.join();
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(e);
			}
		}
	}

	/** Upload and download of one 64 MiB float plane and of a 256 MiB 16-bit stack, for tuning staging. */
	static void transfers(Gpu g) {
		float[] px = new float[4096 * 4096];
		Object[] stack = new Object[128];
		for (int z = 0; z < stack.length; z++)
			stack[z] = new short[1024 * 1024];
		g.run("Transfers", s -> {
			try (DeviceBuffer d = s.alloc(256L << 20)) {
				double[] up = new double[7], down = new double[7], sup = new double[7], sdown = new double[7];
				for (int i = 0; i < up.length; i++) {
					long t0 = System.nanoTime();
					s.upload(px, 0, px.length, d.ptr());
					s.sync();
					long t1 = System.nanoTime();
					s.download(d.ptr(), px, 0, px.length);
					long t2 = System.nanoTime();
					s.uploadAll(stack, 1024 * 1024, d.ptr());
					s.sync();
					long t3 = System.nanoTime();
					s.downloadAll(d.ptr(), stack, 1024 * 1024);
					long t4 = System.nanoTime();
					up[i] = (t1 - t0) / 1e6;
					down[i] = (t2 - t1) / 1e6;
					sup[i] = (t3 - t2) / 1e6;
					sdown[i] = (t4 - t3) / 1e6;
				}
				System.out.printf("staging %s MiB: 64 MiB plane up %.2f ms (%.1f GB/s) down %.2f ms (%.1f GB/s); "
					+ "256 MiB stack up %.2f ms (%.1f GB/s) down %.2f ms (%.1f GB/s)%n",
					System.getProperty("fiji.cuda.stagingMiB", "16"), median(up), 67.1 / median(up), median(down),
					67.1 / median(down), median(sup), 268.4 / median(sup), median(sdown), 268.4 / median(sdown));
				return null;
			}
		});
	}

	static void row(String what, String kernel, double kernelMs, long bytes, double copyGBs, double e2e, double cpu,
		double ij)
	{
		double gbs = 2.0 * bytes / (kernelMs * 1e-3) / 1e9;
		System.out.printf("| %s | %s | %.4f | %.0f | %.0f%% | %.2f | %.1f | %.1f | %.0fx |%n", what, kernel, kernelMs, gbs,
			100 * gbs / copyGBs, e2e, cpu, ij, ij / e2e);
	}

	/**
	 * Runs the CPU path and ImageJ's filter on a smaller float image at every sigma of the table
	 * first, so that the JIT has compiled both before anything is timed: one warm-up per case was
	 * not enough, and sigma 2, the first case, showed the CPU path at 134-325 ms against 75-83 at
	 * sigma 5 (H200 host, 2026-11-30).
	 */
	static void warmCpuPaths() {
		int n = 1024;
		float[] px = new float[n * n];
		java.util.Random r = new java.util.Random(7);
		for (int i = 0; i < px.length; i++)
			px[i] = r.nextFloat() * 1000;
		for (int round = 0; round < 4; round++)
			for (double sigma : new double[] { 2, 5, 10, 30 }) {
				GaussianBlur.blur2D(Planes.wrap(n, n, px.clone()), sigma, sigma, null, CPU);
				new ij.plugin.filter.GaussianBlur().blurGaussian(new FloatProcessor(n, n, px.clone()), sigma, sigma,
					GaussianKernel.defaultAccuracy(PixelType.FLOAT32));
			}
	}

	static double time(int reps, DoubleSupplier f) {
		f.getAsDouble(); // warm-up: JIT, modules, pool
		double[] t = new double[reps];
		for (int i = 0; i < reps; i++) {
			long t0 = System.nanoTime();
			f.getAsDouble();
			t[i] = (System.nanoTime() - t0) / 1e6;
		}
		return median(t);
	}

	static double median(double[] t) {
		double[] c = t.clone();
		Arrays.sort(c);
		return c[c.length / 2];
	}

	static String fmt(double v) {
		return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
	}
}
