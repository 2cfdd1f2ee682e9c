package fiji.cuda.runtime;

import java.util.Locale;

import jcuda.Pointer;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.JCudaDriver;

/**
 * Host cost of queueing work (not a test): microseconds per {@link GpuSession#launch} of kernels
 * with 4 and 9 arguments whose blocks return at once, per raw {@code cuLaunchKernel} with the
 * parameters built once, per event record, and per launch whose scalar arguments sit in a direct
 * buffer instead of small Java arrays. The grouped Align Slices pipeline queues about 16 such
 * calls per group on its host thread. Run with
 * {@code .device/run java fiji.cuda.runtime.LaunchOverheadBenchmark}.
 */
public final class LaunchOverheadBenchmark {

	public static void main(String[] args) {
		Gpu g = Gpu.get();
		System.out.println("Device: " + g.info());
		g.run("Launch overhead", s -> {
			try (DeviceBuffer a = s.alloc(1 << 20); DeviceBuffer b = s.alloc(1 << 20)) {
				// sat_rts_rows_u32 with tilesY = 0: every thread returns at once
				CUfunction rows = s.function("integral_image", "sat_rts_rows_u32");
				// box_stat_u32 with W = 0: every thread returns at once (10 arguments)
				CUfunction box = s.function("box_statistics", "box_stat_u32");
				CUevent e = s.event();
				int n = 20000;
				for (int rep = 0; rep < 3; rep++) {
					long t0 = System.nanoTime();
					for (int i = 0; i < n; i++)
						s.launch(rows, new int[] { 1 }, new int[] { 128 }, 0, a, b, 1, 0);
					s.sync();
					long t1 = System.nanoTime();
					for (int i = 0; i < n; i++)
						s.launch(box, new int[] { 1, 1 }, new int[] { 256 }, 0, a, b, b, 0, 1, 0, 0, 0, 0, 0);
					s.sync();
					long t2 = System.nanoTime();
					Pointer p = Pointer.to(Pointer.to(a.ptr()), Pointer.to(b.ptr()), Pointer.to(new int[] { 1 }),
						Pointer.to(new int[] { 0 }));
					for (int i = 0; i < n; i++)
						JCudaDriver.cuLaunchKernel(rows, 1, 1, 1, 128, 1, 1, 0, s.stream(), p, null);
					s.sync();
					long t3 = System.nanoTime();
					for (int i = 0; i < n; i++)
						s.record(e, s.stream());
					s.sync();
					long t4 = System.nanoTime();
					// scalars from a direct buffer instead of small Java arrays, built per launch
					java.nio.ByteBuffer bb = java.nio.ByteBuffer.allocateDirect(256).order(java.nio.ByteOrder.nativeOrder());
					Pointer base = Pointer.to(bb);
					for (int i = 0; i < n; i++) {
						Pointer[] ps = new Pointer[10];
						ps[0] = Pointer.to(a.ptr());
						ps[1] = Pointer.to(b.ptr());
						ps[2] = Pointer.to(b.ptr());
						int[] v = { 0, 1, 0, 0, 0, 0, 0 };
						for (int k = 0; k < 7; k++) {
							bb.putInt(8 * k, v[k]);
							ps[3 + k] = base.withByteOffset(8 * k);
						}
						JCudaDriver.cuLaunchKernel(box, 1, 1, 1, 256, 1, 1, 0, s.stream(), Pointer.to(ps), null);
					}
					s.sync();
					long t5 = System.nanoTime();
					System.out.printf(Locale.ROOT,
						"us per call: launch, 4 args %.2f; launch, 10 args %.2f; raw cuLaunchKernel, 4 args built once %.2f;"
							+ " event record %.2f; 10 args, scalars in a direct buffer %.2f%n",
						(t1 - t0) / 1e3 / n, (t2 - t1) / 1e3 / n, (t3 - t2) / 1e3 / n, (t4 - t3) / 1e3 / n,
						(t5 - t4) / 1e3 / n);
				}
				return null;
			}
		});
		System.exit(0);
	}
}
