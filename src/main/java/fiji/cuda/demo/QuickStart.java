package fiji.cuda.demo;

import java.io.File;
import java.util.Random;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.runtime.Gpu;
import ij.ImagePlus;
import ij.ImageStack;
import ij.io.FileSaver;
import ij.process.ShortProcessor;

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

	public static void main(String[] args) {
		System.setProperty("java.awt.headless", "true");
		File out = new File(args.length > 0 ? args[0] : "target/quickstart");
		if (!out.isDirectory() && !out.mkdirs()) {
			System.err.println("Cannot create the output folder " + out.getAbsolutePath());
			System.exit(1);
		}
		System.out.println("Fiji CUDA quick start");
		for (String l : Gpu.describe())
			System.out.println("  " + l);

		ImagePlus sample = sample(1024, 1024, 32, 7);
		save(sample, new File(out, "sample.tif"));
		// a small run first, so that the timings below are not of the JIT compiler or the
		// one-time CUDA start (module load, pools)
		GaussianBlur.blur3D(planes(sample(64, 64, 4, 1)), 2, 2, 2, ExecutionOptions.defaults());
		GaussianBlur.blur3D(planes(sample(64, 64, 4, 1)), 2, 2, 2, ExecutionOptions.defaults().withBackend(Backend.CPU));

		ImagePlus blurred = sample.duplicate();
		report("Gaussian Blur (2D, sigma=2, every slice)", GaussianBlur.blur2D(planes(blurred), 2, 2, null,
			ExecutionOptions.defaults()), GaussianBlur.blur2D(planes(sample.duplicate()), 2, 2, null,
				ExecutionOptions.defaults().withBackend(Backend.CPU)));
		save(blurred, new File(out, "gaussian_blur.tif"));

		ImagePlus blurred3d = sample.duplicate();
		report("Gaussian Blur 3D (x=2 y=2 z=2)", GaussianBlur.blur3D(planes(blurred3d), 2, 2, 2,
			ExecutionOptions.defaults()), GaussianBlur.blur3D(planes(sample.duplicate()), 2, 2, 2,
				ExecutionOptions.defaults().withBackend(Backend.CPU)));
		save(blurred3d, new File(out, "gaussian_blur_3d.tif"));
		System.out.println("Outputs written to " + out.getAbsolutePath());
	}

	/** Bright disks of random size and brightness on a dim, noisy background. */
	static ImagePlus sample(int w, int h, int d, long seed) {
		Random r = new Random(seed);
		ImageStack st = new ImageStack(w, h);
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
			st.addSlice("z" + (z + 1), new ShortProcessor(w, h, p, null));
		}
		return new ImagePlus("sample", st);
	}

	static Planes planes(ImagePlus imp) {
		ImageStack st = imp.getStack();
		Object[] p = new Object[st.size()];
		for (int i = 0; i < p.length; i++)
			p[i] = st.getPixels(i + 1);
		return Planes.wrap(imp.getWidth(), imp.getHeight(), p);
	}

	static void report(String what, OpReport fast, OpReport cpu) {
		System.out.printf("%-42s %s: %8.1f ms   (CPU path: %8.1f ms, %.1fx)%n", what, fast.ranOn(), fast.millis(),
			cpu.millis(), cpu.millis() / fast.millis());
		if (fast.fallbackReason() != null) System.out.println("    ran on the CPU because " + fast.fallbackReason());
	}

	static void save(ImagePlus imp, File f) {
		if (!new FileSaver(imp).saveAsTiffStack(f.getPath())) {
			System.err.println("Could not write " + f);
			System.exit(1);
		}
	}
}
