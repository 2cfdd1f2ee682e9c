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
