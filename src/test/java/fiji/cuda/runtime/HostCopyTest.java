package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

/**
 * The host half of every transfer (no GPU needed): Java arrays into a staging buffer and back,
 * sliced over the copy threads, must arrive whole and in place, for every element type, for
 * runs of several arrays, from many callers at once, and even when the caller is interrupted.
 */
class HostCopyTest {

	private static ByteBuffer buffer(long bytes) {
		return ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
	}

	/** Copies {@code a} in via {@code segs} and back into a fresh array of the same kind. */
	private static Object roundTrip(Object a, int n, int pieces) {
		int es = HostCopy.elementSize(a);
		ByteBuffer buf = buffer((long) es * n + 64);
		HostCopy.Segment[] in = new HostCopy.Segment[pieces], out = new HostCopy.Segment[pieces];
		Object back = java.lang.reflect.Array.newInstance(a.getClass().getComponentType(), n);
		for (int p = 0; p < pieces; p++) {
			long first = (long) n * p / pieces, count = (long) n * (p + 1) / pieces - first;
			in[p] = new HostCopy.Segment(a, first, count, 64 + es * first);
			out[p] = new HostCopy.Segment(back, first, count, 64 + es * first);
		}
		HostCopy.copy(in, buf, false);
		HostCopy.copy(out, buf, true);
		return back;
	}

	@Test
	void everyElementTypeArrivesWholeAndInPlace() {
		Random r = new Random(3);
		for (int n : new int[] { 1, 7, 65_537, 3_000_001 })
			for (int pieces : new int[] { 1, 3 }) {
				if (pieces > n) continue;
				byte[] b = new byte[n];
				r.nextBytes(b);
				short[] s = new short[n];
				float[] f = new float[n];
				int[] i = new int[n];
				double[] d = new double[n];
				long[] l = new long[n];
				for (int k = 0; k < n; k++) {
					s[k] = (short) r.nextInt();
					f[k] = r.nextFloat();
					i[k] = r.nextInt();
					d[k] = r.nextDouble();
					l[k] = r.nextLong();
				}
				String what = n + " elements in " + pieces + " pieces";
				assertArrayEquals(b, (byte[]) roundTrip(b, n, pieces), what);
				assertArrayEquals(s, (short[]) roundTrip(s, n, pieces), what);
				assertArrayEquals(f, (float[]) roundTrip(f, n, pieces), what);
				assertArrayEquals(i, (int[]) roundTrip(i, n, pieces), what);
				assertArrayEquals(d, (double[]) roundTrip(d, n, pieces), what);
				assertArrayEquals(l, (long[]) roundTrip(l, n, pieces), what);
			}
	}

	@Test
	void manyCallersAtOnceEachGetTheirOwnData() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(8);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int c = 0; c < 32; c++) {
				final int seed = c;
				results.add(pool.submit(() -> {
					Random r = new Random(seed);
					float[] a = new float[1_000_000 + seed * 1001];
					for (int k = 0; k < a.length; k++)
						a[k] = r.nextFloat();
					return java.util.Arrays.equals(a, (float[]) roundTrip(a, a.length, 1 + seed % 4));
				}));
			}
			for (Future<Boolean> f : results)
				assertTrue(f.get());
		} finally {
			pool.shutdownNow();
		}
	}

	@Test
	void anInterruptedCallerStillGetsTheWholeCopyAndKeepsItsInterrupt() {
		int[] a = new int[4_000_000];
		for (int k = 0; k < a.length; k++)
			a[k] = k * 31;
		Thread.currentThread().interrupt();
		try {
			assertArrayEquals(a, (int[]) roundTrip(a, a.length, 2));
			assertTrue(Thread.currentThread().isInterrupted(), "the interrupt was swallowed");
		} finally {
			Thread.interrupted(); // clear it for the next test
		}
	}

	@Test
	void copiesStartedTogetherFinishWholeInWhicheverOrderTheyAreAwaited() {
		// the Align Slices pipeline fills one staging half while another drains into arrays
		Random r = new Random(11);
		int n = 5_000_003;
		byte[] up = new byte[n], staged = new byte[n], down = new byte[n];
		r.nextBytes(up);
		r.nextBytes(staged);
		ByteBuffer a = buffer(n), b = buffer(n);
		b.put(staged).clear();
		HostCopy.Pending fill = HostCopy.start(new HostCopy.Segment[] { new HostCopy.Segment(up, 0, n, 0) }, a, false);
		HostCopy.Pending drain = HostCopy.start(new HostCopy.Segment[] { new HostCopy.Segment(down, 0, n, 0) }, b, true);
		drain.await();
		assertTrue(drain.isDone());
		assertArrayEquals(staged, down);
		fill.await();
		byte[] got = new byte[n];
		a.get(got);
		assertArrayEquals(up, got);
	}

	@Test
	void aSliceThatFailsIsReportedByAwait() {
		byte[] tooShort = new byte[10];
		HostCopy.Pending p = HostCopy.start(new HostCopy.Segment[] { new HostCopy.Segment(tooShort, 0, 1 << 20, 0) },
			buffer(1 << 20), false);
		GpuException e = org.junit.jupiter.api.Assertions.assertThrows(GpuException.class, p::await);
		assertTrue(e.getMessage().startsWith("copying the pixels for the GPU failed (IndexOutOfBoundsException"),
			e.getMessage());
	}

	@Test
	void aRunAcrossSeveralArraysBecomesOneSegmentPerArrayPiece() {
		// elements 3..12 of three arrays of 5, starting at element 1 of each: 2 + 5 + 3
		byte[] a = new byte[6], b = new byte[6], c = new byte[6];
		HostCopy.Segment[] s = HostCopy.segments(new Object[] { a, b, c }, 1, 5, 3, 10);
		assertEquals(3, s.length);
		Object[] arrays = { a, b, c };
		long[][] want = { { 4, 2, 0 }, { 1, 5, 2 }, { 1, 3, 7 } }; // first, count, buffer offset
		for (int i = 0; i < 3; i++) {
			assertTrue(s[i].array == arrays[i], "piece " + i);
			assertEquals(want[i][0], s[i].first, "piece " + i);
			assertEquals(want[i][1], s[i].count, "piece " + i);
			assertEquals(want[i][2], s[i].bufOffset, "piece " + i);
		}
	}

	@Test
	void aCopyOfNoElementsDoesNothing() {
		// HostBuffer.fill(planes, 0) and its kin: no segment, and the copy threw
		// ArrayIndexOutOfBoundsException looking at the first one's element type
		HostCopy.Segment[] none = HostCopy.segments(new Object[] { new float[4] }, 0, 0, 0, 0);
		assertEquals(0, none.length);
		HostCopy.copy(none, buffer(16), false);
		HostCopy.Pending p = HostCopy.start(none, buffer(16), true);
		assertTrue(p.isDone());
		p.await();
	}
}
