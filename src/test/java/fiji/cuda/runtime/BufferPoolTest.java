package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

import jcuda.driver.CUdeviceptr;

/** The pool's size classes, which need no device. */
class BufferPoolTest {

	@Test
	void aLargeBlockIsAtMostAnEighthBiggerThanAskedFor() {
		// just above a power of two the old classes added a quarter: 1 GB more for a 4.3 GB volume
		long volume = 2048L * 2048 * 513 * 2;
		assertTrue(BufferPool.sizeClass(volume) <= volume * 1.125, String.valueOf(BufferPool.sizeClass(volume)));
		Random r = new Random(3);
		for (int i = 0; i < 100_000; i++) {
			long b = (1L << 20) + 1 + (long) (r.nextDouble() * (1L << (21 + r.nextInt(16))));
			long c = BufferPool.sizeClass(b);
			assertTrue(c >= b && c <= b + b / 8, b + " -> " + c);
		}
		for (int k = 21; k < 40; k++) {
			long b = (1L << k) + 1;
			assertEquals((1L << k) + (1L << (k - 3)), BufferPool.sizeClass(b), "2^" + k + " + 1");
		}
	}

	@Test
	void aClassIsItsOwnClassAndClassesGrowWithTheRequest() {
		// release() caches a block only when its size is a class, which a class must always be
		long last = 0;
		for (long b = 1; b < (1L << 36); b += 1 + b / 97) {
			long c = BufferPool.sizeClass(b);
			assertEquals(c, BufferPool.sizeClass(c), "class of " + b);
			assertTrue(c >= last, "classes shrank at " + b);
			assertTrue(c >= b && c >= 256);
			last = c;
		}
		assertEquals(256, BufferPool.exactSize(1));
		assertEquals(256, BufferPool.exactSize(256));
		assertEquals(512, BufferPool.exactSize(257));
	}

	@Test
	void aBlockTakenFromTheCacheNoLongerCountsAsCached() {
		// the count bounds the cache at a quarter of the device: counted twice, the pool would
		// free blocks it should keep, and report idle memory that it does not hold
		BufferPool pool = new BufferPool(1L << 30);
		long cls = BufferPool.sizeClass(1 << 20);
		// a block the pool caches without the driver (neither reuse nor caching calls it)
		new DeviceBuffer(pool, null, new CUdeviceptr(), cls, cls).close();
		assertEquals(cls, pool.cachedBytes());
		DeviceBuffer again = pool.allocate(1 << 20, "reuse test", null);
		assertEquals(cls, again.capacity());
		assertEquals(0, pool.cachedBytes(), "a block handed out is still counted as cached");
		again.close();
		assertEquals(cls, pool.cachedBytes());
	}

	@Test
	void aBufferClosedTwiceGoesBackToThePoolOnce() {
		// a second close pushed the block onto the free list again: two later allocations got
		// the same device memory, and the in-use count went below zero
		BufferPool pool = new BufferPool(1L << 30);
		long cls = BufferPool.sizeClass(1 << 20);
		DeviceBuffer b = new DeviceBuffer(pool, null, new CUdeviceptr(), cls, cls);
		b.close();
		b.close();
		assertEquals(cls, pool.cachedBytes(), "the block was cached twice");
	}

	@Test
	void callersOnManyThreadsNeverShareACachedBlockAndTheCountsAddUp() throws Exception {
		// the free lists are plain deques: read or changed without the pool's lock, two callers
		// got the same block, or a block was lost. Blocks made without the driver stay in the
		// cache, so every allocation below is a cache hit and the loop runs at full speed.
		BufferPool pool = new BufferPool(1L << 30);
		long cls = BufferPool.sizeClass(1 << 16);
		int threads = 4, blocks = 2 * threads, rounds = 500_000;
		for (int i = 0; i < blocks; i++)
			new DeviceBuffer(pool, null, new CUdeviceptr(), cls, cls).close();
		long inUse = pool.inUseBytes(); // below 0: the blocks made here were never counted as handed out
		java.util.Set<CUdeviceptr> held = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
		java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newFixedThreadPool(threads);
		try {
			java.util.List<java.util.concurrent.Future<String>> fs = new java.util.ArrayList<>();
			for (int t = 0; t < threads; t++)
				fs.add(ex.submit(() -> {
					for (int r = 0; r < rounds; r++) {
						DeviceBuffer b = pool.allocate(1 << 16, "pool test", null);
						CUdeviceptr p = b.rawPtr();
						synchronized (held) {
							if (!held.add(p)) return "round " + r + ": a block held by another caller was handed out";
						}
						synchronized (held) {
							held.remove(p);
						}
						b.close();
					}
					return null;
				}));
			for (java.util.concurrent.Future<String> f : fs)
				assertEquals(null, f.get(120, java.util.concurrent.TimeUnit.SECONDS));
		} finally {
			ex.shutdownNow();
		}
		assertEquals(blocks * cls, pool.cachedBytes(), "cached bytes after every block came back");
		assertEquals(inUse, pool.inUseBytes(), "bytes in use after every block came back");
		for (int i = 0; i < blocks; i++)
			pool.allocate(1 << 16, "pool test", null);
		assertEquals(0, pool.cachedBytes(), "the cache did not hold each block exactly once");
	}
}
