package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The shared parallel loop: every item once, in chunks that stay inside the range. */
class CpuParallelTest {

	/** Runs forRange and checks that the chunks tile [from, to) exactly. */
	private static void assertTiles(int from, int to, int threads) {
		ConcurrentLinkedQueue<long[]> ranges = new ConcurrentLinkedQueue<>();
		AtomicLong covered = new AtomicLong();
		CpuParallel.forRange(from, to, threads, 1_000_000, (s, e) -> {
			ranges.add(new long[] { s, e });
			covered.addAndGet((long) e - s);
		});
		for (long[] r : ranges)
			assertTrue(r[0] >= from && r[0] < r[1] && r[1] <= to, "chunk [" + r[0] + ", " + r[1] + ") of [" + from
				+ ", " + to + ")");
		assertEquals((long) to - from, covered.get(), "items covered");
		long[][] sorted = ranges.stream().sorted((a, b) -> Long.compare(a[0], b[0])).toArray(long[][]::new);
		for (int i = 1; i < sorted.length; i++)
			assertEquals(sorted[i - 1][1], sorted[i][0], "gap or overlap");
	}

	@Test
	void rangesNear2To31ItemsDoNotWrapAround() {
		// the shared start used to grow by a chunk per hand-out past `to` and wrap negative
		assertTiles(0, 2_000_000_000, 2);
		assertTiles(0, 1_800_000_000, 16);
		assertTiles(0, Integer.MAX_VALUE, 7);
		assertTiles(Integer.MAX_VALUE - 1000, Integer.MAX_VALUE, 16);
	}

	@Test
	void smallAndEmptyRanges() {
		assertTiles(0, 1, 16);
		assertTiles(5, 6, 1);
		assertTiles(3, 1000, 16);
		CpuParallel.forRange(10, 10, 4, 1, (s, e) -> {
			throw new AssertionError("ran an empty range");
		});
	}

	@Test
	void aFailureInAChunkIsRethrown() {
		IllegalStateException e = assertThrows(IllegalStateException.class, () -> CpuParallel.forRange(0, 1000, 4,
			1_000_000, (s, t) -> {
				if (s <= 500 && 500 < t) throw new IllegalStateException("chunk with 500");
			}));
		assertEquals("chunk with 500", e.getMessage());
	}
}
