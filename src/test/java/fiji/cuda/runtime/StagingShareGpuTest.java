package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import fiji.cuda.HangGuard;

/**
 * Sessions on many threads at once, as ImageJ's runner opens them for the slices of a stack:
 * they take turns with the cached staging pairs instead of pinning pairs of their own.
 */
@Tag("gpu")
class StagingShareGpuTest {

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	@Test
	void sixteenThreadsOfShortSessionsShareAtMostFourStagingPairs() throws Exception {
		Gpu gpu = Gpu.get();
		long oldWait = Gpu.stagingWaitMillis;
		// long enough that no session gives up waiting: every pair beyond four would be one pinned
		// by a session that did not wait
		Gpu.stagingWaitMillis = 30_000;
		Set<PinnedBuffer[]> pairs = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
		ExecutorService ex = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> fs = new ArrayList<>();
			for (int t = 0; t < 16; t++) {
				long seed = 1000 + t;
				fs.add(ex.submit(() -> {
					// every session sends its own bytes through a shared pair: a pair handed to two
					// sessions at once, or one not drained before it is passed on, mixes them up
					Random rnd = new Random(seed);
					for (int i = 0; i < 20; i++) {
						byte[] data = new byte[(1 << 16) + rnd.nextInt(4096)];
						rnd.nextBytes(data);
						byte[] back = gpu.run("staging share", s -> {
							pairs.add(s.staging());
							byte[] out = new byte[data.length];
							try (DeviceBuffer d = s.alloc(data.length)) {
								s.upload(data, 0, data.length, d.ptr());
								s.download(d.ptr(), out, 0, data.length);
							}
							return out;
						});
						assertArrayEquals(data, back, "session " + i + " of thread seed " + seed);
					}
					return null;
				}));
			}
			for (Future<?> f : fs)
				f.get(HangGuard.inSeconds(120), TimeUnit.SECONDS);
		} finally {
			ex.shutdownNow();
			Gpu.stagingWaitMillis = oldWait;
		}
		assertTrue(pairs.size() <= 4, pairs.size() + " staging pairs for 320 sessions on 16 threads");
		assertEquals(0, gpu.stagingsInUse());
	}

	@Test
	void aSessionOpenedInsideAnotherWhileAllPairsAreHeldStillRuns() throws Exception {
		// four threads hold a session each, then open one more inside it: no pair comes back until
		// the inner ones end, so they must stop waiting and pin pairs of their own
		Gpu gpu = Gpu.get();
		long oldWait = Gpu.stagingWaitMillis;
		Gpu.stagingWaitMillis = 100;
		CyclicBarrier allHold = new CyclicBarrier(4);
		ExecutorService ex = Executors.newFixedThreadPool(4);
		try {
			List<Future<Integer>> fs = new ArrayList<>();
			for (int t = 0; t < 4; t++)
				fs.add(ex.submit(() -> gpu.run("outer", outer -> {
					try {
						allHold.await(HangGuard.inSeconds(30), TimeUnit.SECONDS);
					} catch (Exception e) {
						throw new IllegalStateException(e);
					}
					return gpu.run("inner", inner -> {
						if (inner.staging() == outer.staging()) return 0;
						// and the pair it pinned carries data
						byte[] data = new byte[4099], back = new byte[data.length];
						new Random(7).nextBytes(data);
						try (DeviceBuffer d = inner.alloc(data.length)) {
							inner.upload(data, 0, data.length, d.ptr());
							inner.download(d.ptr(), back, 0, back.length);
						}
						return java.util.Arrays.equals(data, back) ? 1 : 2;
					});
				})));
			for (Future<Integer> f : fs)
				assertEquals(1, (int) f.get(HangGuard.inSeconds(60), TimeUnit.SECONDS),
					"the inner session has a pair of its own (0: it shared the outer's; 2: its copy came back wrong)");
		} finally {
			ex.shutdownNow();
			Gpu.stagingWaitMillis = oldWait;
		}
		assertEquals(0, gpu.stagingsInUse());
	}

	@Test
	void aCachedPairHandedOutCountsAsInUse() {
		// sessions wait for a pair only when four are counted in use: a cached pair not counted
		// let more sessions pin pairs of their own, and the count went below zero as they ended
		Gpu gpu = Gpu.get();
		gpu.run("warm-up", s -> null); // leaves a pair cached
		assertEquals(1, (int) gpu.run("count test", s -> gpu.stagingsInUse()));
		assertEquals(0, gpu.stagingsInUse());
	}

	@Test
	void pairsBeyondTheFourCachedAreFreedAndNoLongerCountedAsPinned() {
		// six sessions, each opened inside the one before, hold six pairs: once they end, four stay
		// cached and two are freed. Four nested sessions first leave the cache full, so that the
		// pinned bytes then (which also count buffers other tests in this JVM still hold) are what
		// must be left after the six
		Gpu gpu = Gpu.get();
		long oldWait = Gpu.stagingWaitMillis;
		Gpu.stagingWaitMillis = 1; // the fifth and sixth sessions wait for no pair to come back
		Set<PinnedBuffer[]> pairs = Collections.newSetFromMap(new IdentityHashMap<>());
		long full, after;
		try {
			nest(gpu, 4, pairs);
			full = gpu.pinnedBytes();
			pairs.clear();
			nest(gpu, 6, pairs);
			after = gpu.pinnedBytes();
		} finally {
			Gpu.stagingWaitMillis = oldWait;
		}
		assertEquals(6, pairs.size());
		assertEquals(0, gpu.stagingsInUse());
		long pair = 2 * FaultInjection.stagingChunkBytes();
		// at most, not equal: an idle release may free the cache meanwhile
		assertTrue(after <= full, (after - full) / pair + " staging pairs' worth of pinned bytes more than a full cache");
	}

	private static int nest(Gpu gpu, int depth, Set<PinnedBuffer[]> pairs) {
		return depth == 0 ? 0 : gpu.run("nested " + depth, s -> {
			pairs.add(s.staging());
			return nest(gpu, depth - 1, pairs);
		});
	}
}
