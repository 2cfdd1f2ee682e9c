package fiji.cuda.runtime;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Host side of the transfers alone (no GPU): a 64 MiB float plane copied into and out of a
 * direct buffer in 1 to 16 calls, with the copy threads sleeping at once when idle and with
 * them spinning a while first. Shows what each hand-off costs. Run:
 * {@code .device/run java fiji.cuda.runtime.HostCopyBenchmark}.
 */
public final class HostCopyBenchmark {

	public static void main(String[] args) throws InterruptedException {
		if (args.length > 0 && args[0].equals("primitives")) {
			primitives();
			System.exit(0);
		}
		int n = 16 << 20;
		float[] a = new float[n];
		for (int i = 0; i < n; i++)
			a[i] = i;
		ByteBuffer buf = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder());
		System.out.println("CPU threads: " + Runtime.getRuntime().availableProcessors());
		System.out.println("| Copy threads idle | Slice | Calls per 64 MiB | To buffer ms | GB/s | From buffer ms | GB/s |");
		System.out.println("|---|---|---|---|---|---|---|");
		for (long spin : new long[] { 0, 500_000 })
		for (long slice : new long[] { 0, 4 << 20, 1 << 20, 512 << 10 }) {
			if (spin == 0 && slice != 0) continue;
			HostCopy.spinNanos = spin;
			HostCopy.sliceBytes = slice;
			for (int calls : new int[] { 1, 2, 4, 8 }) {
				double[] to = new double[9], from = new double[9];
				for (int r = 0; r < to.length; r++) {
					Thread.sleep(5); // let the threads go idle, as between two operations
					to[r] = time(a, buf, calls, false);
					from[r] = time(a, buf, calls, true);
				}
				double t = median(to), f = median(from);
				System.out.printf("| %s | %s | %d | %.2f | %.1f | %.2f | %.1f |%n", spin == 0 ? "sleep" : "spin " + spin / 1000 + " us",
					slice == 0 ? "one per thread" : (slice >> 10) + " KiB", calls, t, 4.0 * n / t / 1e6, f, 4.0 * n / f / 1e6);
			}
		}
		System.exit(0);
	}

	/**
	 * The argument {@code primitives}: 256 MiB of byte arrays (1 MiB each, like the slices of a
	 * stack) into pinned memory and back, by the NIO buffer copy that HostCopy uses and by the
	 * CUDA runtime's host-to-host cudaMemcpy from the array itself, on 1 and on 16 threads.
	 */
	static void primitives() {
		int slices = 256, sliceBytes = 1 << 20;
		byte[][] arrays = new byte[slices][sliceBytes];
		for (byte[] a : arrays)
			java.util.Arrays.fill(a, (byte) 7);
		System.out.println("| Copy | Threads | Into pinned ms | GB/s | Out of pinned ms | GB/s |");
		System.out.println("|---|---|---|---|---|---|");
		Gpu.get().run("benchmark", g -> {
			try (HostBuffer pinned = g.pinned((long) slices * sliceBytes)) {
				for (String how : new String[] { "nio", "cudaMemcpy" })
					for (int threads : new int[] { 1, 16 }) {
						double[] in = new double[7], out = new double[7];
						for (int r = 0; r < in.length; r++) {
							in[r] = timeThreads(threads, slices, i -> copyPrimitive(how, arrays[i], pinned, (long) i * sliceBytes, false));
							out[r] = timeThreads(threads, slices, i -> copyPrimitive(how, arrays[i], pinned, (long) i * sliceBytes, true));
						}
						double a = median(in), b = median(out), gb = (double) slices * sliceBytes / 1e6;
						System.out.printf("| %s | %d | %.2f | %.1f | %.2f | %.1f |%n", how, threads, a, gb / a, b, gb / b);
					}
			}
			return null;
		});
	}

	private static void copyPrimitive(String how, byte[] a, HostBuffer pinned, long at, boolean toArray) {
		if (how.equals("nio")) {
			ByteBuffer b = pinned.bytes();
			b.position((int) at);
			if (toArray) b.get(a);
			else b.put(a);
		} else {
			jcuda.Pointer p = pinned.pointer().withByteOffset(at), arr = jcuda.Pointer.to(a);
			int err = toArray ? jcuda.runtime.JCuda.cudaMemcpy(arr, p, a.length, jcuda.runtime.cudaMemcpyKind.cudaMemcpyHostToHost)
				: jcuda.runtime.JCuda.cudaMemcpy(p, arr, a.length, jcuda.runtime.cudaMemcpyKind.cudaMemcpyHostToHost);
			if (err != 0) throw new IllegalStateException("cudaMemcpy: " + jcuda.runtime.JCuda.cudaGetErrorString(err));
		}
	}

	/** Milliseconds for {@code task} over 0 .. tasks-1 on {@code threads} threads of the CPU paths' pool. */
	private static double timeThreads(int threads, int tasks, java.util.function.IntConsumer task) {
		long t0 = System.nanoTime();
		fiji.cuda.ops.CpuParallel.forRange(0, tasks, threads, 1 << 20, (from, to) -> { // a MiB per task
			for (int i = from; i < to; i++)
				task.accept(i);
		});
		return (System.nanoTime() - t0) / 1e6;
	}

	private static double time(float[] a, ByteBuffer buf, int calls, boolean toArray) {
		long t0 = System.nanoTime();
		long per = a.length / calls;
		for (int c = 0; c < calls; c++)
			HostCopy.copy(new HostCopy.Segment[] { new HostCopy.Segment(a, c * per, per, 4 * c * per) }, buf, toArray);
		return (System.nanoTime() - t0) / 1e6;
	}

	private static double median(double[] t) {
		double[] s = t.clone();
		java.util.Arrays.sort(s);
		return s[s.length / 2];
	}
}
