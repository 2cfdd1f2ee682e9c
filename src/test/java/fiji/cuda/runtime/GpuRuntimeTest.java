package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import fiji.cuda.HangGuard;
import fiji.cuda.TestImages;
import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;

/** The device runtime on a real GPU: threads, leaks, faults, the driver check, the self-check. */
@Tag("gpu")
class GpuRuntimeTest {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	@Test
	void anotherNameForTheSameDeviceKeepsItsObject() {
		// GPU Info switching "auto" to "0" used to open a second object and strand the first
		// one's pool, staging, streams and context reference
		String old = System.getProperty(GpuSettings.PROPERTY);
		try {
			System.setProperty(GpuSettings.PROPERTY, "auto");
			Gpu a = Gpu.get();
			System.setProperty(GpuSettings.PROPERTY, String.valueOf(a.info().index));
			org.junit.jupiter.api.Assertions.assertSame(a, Gpu.get());
			System.setProperty(GpuSettings.PROPERTY, "auto");
			org.junit.jupiter.api.Assertions.assertSame(a, Gpu.get());
			assertTrue(Gpu.selfCheck().startsWith("Self-check passed"), Gpu.selfCheck());
		} finally {
			if (old == null) System.clearProperty(GpuSettings.PROPERTY);
			else System.setProperty(GpuSettings.PROPERTY, old);
		}
	}

	@Test
	void aScriptsOwnContextIsCurrentAgainAfterAnOperation() {
		// a script with a JCuda context of its own found the primary context current after a
		// blur, and its next driver call went to the wrong context
		Gpu gpu = Gpu.get();
		jcuda.driver.CUdevice dev = new jcuda.driver.CUdevice();
		jcuda.driver.JCudaDriver.cuDeviceGet(dev, gpu.info().index);
		jcuda.driver.CUcontext own = new jcuda.driver.CUcontext();
		jcuda.driver.JCudaDriver.cuCtxCreate(own, 0, dev); // current on this thread
		try {
			Planes p = TestImages.random(PixelType.UINT8, 64, 48, 2, 3), q = p.copy();
			OpReport r = GaussianBlur.blur2D(p, 2, 2, null, GPU);
			assertEquals(Backend.GPU, r.ranOn());
			GaussianBlur.blur2D(q, 2, 2, null, CPU);
			byte[] a = (byte[]) p.plane(1), b = (byte[]) q.plane(1);
			for (int i = 0; i < a.length; i++)
				assertTrue(Math.abs((a[i] & 0xff) - (b[i] & 0xff)) <= 1, "not the CPU's pixels at " + i);
			jcuda.driver.CUcontext now = new jcuda.driver.CUcontext();
			jcuda.driver.JCudaDriver.cuCtxGetCurrent(now);
			assertEquals(own, now, "the script's context is no longer current");
			gpu.memoryInfo(); // and after a run that opens no session of an operation's
			jcuda.driver.JCudaDriver.cuCtxGetCurrent(now);
			assertEquals(own, now);
		} finally {
			jcuda.driver.JCudaDriver.cuCtxDestroy(own);
		}
		// with none of its own current, the thread keeps the primary one, as before
		gpu.memoryInfo();
		jcuda.driver.CUcontext now = new jcuda.driver.CUcontext();
		jcuda.driver.JCudaDriver.cuCtxGetCurrent(now);
		assertTrue(!now.equals(new jcuda.driver.CUcontext()), "no context current");
	}

	@Test
	void selfCheckPasses() {
		String r = Gpu.selfCheck();
		assertTrue(r.startsWith("Self-check passed"), r);
	}

	@Test
	void timingsLeaveOutTheHoldAndTheHostButNotTheWork() {
		float[] ms = Gpu.get().run("timing test", s -> {
			long bytes = 256L << 20;
			try (DeviceBuffer a = s.alloc(bytes); DeviceBuffer b = s.alloc(bytes)) {
				s.copy(a.ptr(), b.ptr(), bytes);
				s.sync();
				float nothing = s.timeMillis(() -> {});
				// the host waits 0.2 ms between two copies (about 0.13 ms each on an H200): without
				// the hold that wait would be timed too, and the pair would take over 3 copies
				float copies = s.timeMillis(() -> {
					s.copy(a.ptr(), b.ptr(), bytes);
					for (long t0 = System.nanoTime(); System.nanoTime() - t0 < 200_000;)
						Thread.onSpinWait();
					s.copy(b.ptr(), a.ptr(), bytes);
				});
				float one = s.timeMillis(() -> s.copy(a.ptr(), b.ptr(), bytes));
				return new float[] { nothing, copies, one };
			}
		});
		assertTrue(ms[0] >= 0 && ms[0] < 0.1, "empty timing " + ms[0] + " ms: the hold was counted");
		assertTrue(ms[2] > 0.01, "a 256 MiB copy timed at " + ms[2] + " ms");
		assertTrue(ms[1] > 1.5 * ms[2] && ms[1] < 3 * ms[2], "two copies " + ms[1] + " ms against one " + ms[2]);
	}

	@Test
	void sixteenThreadsAtOnce() throws Exception {
		ExecutorService ex = Executors.newFixedThreadPool(16);
		try {
			List<Future<String>> fs = new ArrayList<>();
			for (int t = 0; t < 16; t++) {
				final int seed = t;
				fs.add(ex.submit((Callable<String>) () -> {
					for (int rep = 0; rep < 5; rep++) {
						PixelType type = PixelType.values()[(seed + rep) % 4];
						Planes gpu = TestImages.random(type, 300 + seed, 200 + rep, 3, seed * 31 + rep);
						Planes cpu = gpu.copy();
						double sigma = 0.5 + seed + rep;
						OpReport r = GaussianBlur.blur2D(gpu, sigma, sigma, null, GPU);
						if (r.ranOn() != Backend.GPU) return "thread " + seed + " ran on " + r.ranOn();
						GaussianBlur.blur2D(cpu, sigma, sigma, null, CPU);
						String d = firstDifference(cpu, gpu);
						if (d != null) return "thread " + seed + " rep " + rep + ": " + d;
					}
					return null;
				}));
			}
			for (Future<String> f : fs) {
				String err = f.get(HangGuard.inSeconds(120), TimeUnit.SECONDS);
				assertEquals(null, err);
			}
		} finally {
			ex.shutdownNow();
		}
	}

	@Test
	void thousandOperationsLeaveDeviceMemoryWhereItWas() {
		Gpu g = Gpu.get();
		Planes img = TestImages.random(PixelType.UINT16, 512, 384, 1, 5);
		GaussianBlur.blur2D(img, 2, 2, null, GPU); // warm up: modules, streams, staging
		g.trimPool();
		long before = g.memoryInfo()[0], pinnedBefore = g.pinnedBytes();
		for (int i = 0; i < 1000; i++) {
			PixelType t = PixelType.values()[i % 4];
			Planes p = TestImages.random(t, 64 + i % 37, 48 + i % 23, 1 + i % 3, i);
			if (i % 10 == 0) GaussianBlur.blur3D(p, 1, 1, 1, GPU);
			else GaussianBlur.blur2D(p, 1 + i % 5, 1 + i % 3, null, GPU);
		}
		assertEquals(0, g.bytesInUse(), "pooled buffers still handed out");
		g.trimPool();
		long after = g.memoryInfo()[0];
		// below one 2 MiB page of the driver's: one small buffer leaked per call (1000 x 4 KB)
		// would take at least two
		assertTrue(Math.abs(before - after) < (1L << 20), "free memory before " + before + ", after " + after
				+ " (other processes on the device move this number too: run this test alone there)");
		assertEquals(pinnedBefore, g.pinnedBytes(), "pinned host bytes before and after");
	}

	@Test
	void tooOldDriverFallsBackToTheCpuWithAReason() {
		try {
			Gpu.requireDriverForTest(99000);
			Planes img = TestImages.random(PixelType.UINT8, 50, 40, 1, 9);
			Planes cpu = img.copy();
			OpReport r = GaussianBlur.blur2D(img, 2, 2, null, ExecutionOptions.defaults());
			assertEquals(Backend.CPU, r.ranOn());
			assertTrue(r.fallbackReason().contains("driver"), r.fallbackReason());
			GaussianBlur.blur2D(cpu, 2, 2, null, CPU);
			assertArrayEquals((byte[]) cpu.plane(0), (byte[]) img.plane(0));
		} finally {
			Gpu.requireDriverForTest(Gpu.REQUIRED_DRIVER);
		}
		assertTrue(Gpu.isAvailable());
	}

	@Test
	void volumeLargerThanFreeMemoryFallsBackToTheCpu() {
		// the pool refuses rather than the driver: ask the device for more than it has
		Gpu g = Gpu.get();
		long total = g.info().totalMemory;
		GpuUnavailableException e = assertThrows(GpuUnavailableException.class,
			() -> g.run("Huge", s -> {
				try (DeviceBuffer b = s.alloc(total + (1L << 30))) {
					return null;
				}
			}));
		assertTrue(e.getMessage().contains("Huge"), e.getMessage());
		assertTrue(Gpu.isAvailable(), "an out-of-memory must not poison the GPU");
	}

	@Test
	void aBlockWhoseSizeClassDoesNotFitIsAllocatedAtItsExactSize() {
		// 1 GiB + 1 byte is a class of 1.125 GiB; leave room for the request and 64 MiB more only
		Gpu g = Gpu.get();
		g.trimPool();
		long want = (1L << 30) + 1, cls = BufferPool.sizeClass(want);
		assertEquals((1L << 30) + (1L << 27), cls);
		long cachedBefore = g.pool().cachedBytes();
		long capacity = g.run("Exact", s -> {
			jcuda.driver.CUdeviceptr filler = new jcuda.driver.CUdeviceptr();
			jcuda.driver.JCudaDriver.cuMemAlloc(filler, g.memoryInfo()[0] - want - (64L << 20));
			try (DeviceBuffer b = s.alloc(want)) {
				s.zero(b.ptr(), want);
				s.sync();
				return b.capacity();
			} finally {
				jcuda.driver.JCudaDriver.cuMemFree(filler);
			}
		});
		assertEquals(BufferPool.exactSize(want), capacity);
		assertEquals(cachedBefore, g.pool().cachedBytes(), "a block of no class must be freed, not cached");
		assertEquals(0, g.bytesInUse());
	}

	@Test
	void idleBlocksAndStagingAreFreedAfterTheIdleTime() throws InterruptedException {
		Gpu g = Gpu.get();
		String old = System.getProperty("fiji.cuda.idleReleaseSeconds");
		try {
			System.setProperty("fiji.cuda.idleReleaseSeconds", "0.5");
			GaussianBlur.blur2D(TestImages.random(PixelType.FLOAT32, 300, 200, 2, 1), 2, 2, null, GPU);
			assertTrue(g.idleBytes() > 0, "the blur left nothing cached");
			long end = System.currentTimeMillis() + 15_000;
			while (g.idleBytes() > 0 && System.currentTimeMillis() < end)
				Thread.sleep(50);
			assertEquals(0, g.idleBytes(), "cached blocks or staging still held after the idle time");
			// and the GPU works as before, allocating again (float: the integer types may round apart by 1)
			Planes img = TestImages.random(PixelType.FLOAT32, 97, 61, 1, 2), cpu = img.copy();
			assertEquals(Backend.GPU, GaussianBlur.blur2D(img, 3, 3, null, GPU).ranOn());
			GaussianBlur.blur2D(cpu, 3, 3, null, CPU);
			float[] want = (float[]) cpu.plane(0), got = (float[]) img.plane(0);
			for (int i = 0; i < want.length; i++)
				assertEquals(want[i], got[i], 1e-5 * TestImages.FLOAT_RANGE, "pixel " + i);
		} finally {
			if (old == null) System.clearProperty("fiji.cuda.idleReleaseSeconds");
			else System.setProperty("fiji.cuda.idleReleaseSeconds", old);
		}
	}

	@Test
	void describeNamesTheDevice() {
		String all = String.join("\n", Gpu.describe());
		assertTrue(all.contains(Gpu.get().info().name), all);
		assertTrue(all.contains("Operations run on: GPU"), all);
		if (new java.io.File("/proc/driver/nvidia/version").canRead()) // the release, as the requirements name it
			assertTrue(all.matches("(?s).*Driver: CUDA \\d+\\.\\d \\(NVIDIA \\d+\\.\\d+.*"), all);
	}

	static String firstDifference(Planes want, Planes got) {
		PixelType t = want.type();
		double tol = t == PixelType.FLOAT32 ? 1e-5 * TestImages.FLOAT_RANGE : 1;
		for (int z = 0; z < want.depth(); z++)
			for (int i = 0; i < want.planeSize(); i++)
				for (int v = 0; v < TestImages.values(t); v++) {
					double a = TestImages.value(want.plane(z), t, i, v), b = TestImages.value(got.plane(z), t, i, v);
					if (!(Math.abs(a - b) <= tol)) return "plane " + z + " pixel " + i + ": " + b + " vs CPU " + a;
				}
		return null;
	}

	@Test
	void aStagingBufferIsHandedOutOnlyOnceTheUploadReadingItIsDone() {
		// the upload waits behind a 20 ms hold, so its DMA reads staging long after upload()
		// returned; writing into the staging buffer handed out must not change what arrives
		int n = 1 << 20;
		byte[] sevens = new byte[n], back = new byte[n];
		java.util.Arrays.fill(sevens, (byte) 7);
		Gpu.get().run("staging test", g -> {
			try (DeviceBuffer d = g.alloc(n)) {
				g.launch(g.function(SelfCheck.MODULE, "runtime_hold"), new int[] { 1 }, new int[] { 1 }, 0, 20_000_000L);
				g.upload(sevens, 0, n, d.ptr());
				java.nio.ByteBuffer b = g.stagingBuffer(0).bytes();
				for (int i = 0; i < n; i++)
					b.put(i, (byte) 1);
				g.download(d.ptr(), back, 0, n);
			}
			return null;
		});
		assertArrayEquals(sevens, back);
	}

	@Test
	void aBufferClosedWhileItsSessionStillWritesItGoesBackToThePoolOnlyOnceTheWriteIsDone() {
		// A failure inside try-with-resources closes the buffers before Gpu.run drains the stream.
		// Session A queues a clear of x behind a 200 ms hold and closes x at once; session B (here
		// nested, on a stream of its own, as another thread's operation would be) takes a block of
		// the same size class, which the pool hands out last in, first out, and fills it. A's clear
		// must not land in B's data.
		int n = 1 << 20;
		byte[] sevens = new byte[n], back = new byte[n];
		java.util.Arrays.fill(sevens, (byte) 7);
		Gpu g = Gpu.get();
		g.run("pool test A", a -> {
			DeviceBuffer x = a.alloc(n);
			a.launch(a.function(SelfCheck.MODULE, "runtime_hold"), new int[] { 1 }, new int[] { 1 }, 0, 200_000_000L);
			a.zero(x.ptr(), n);
			x.close();
			g.run("pool test B", b -> {
				try (DeviceBuffer y = b.alloc(n)) {
					b.upload(sevens, 0, n, y.ptr());
					b.sync();
					a.sync(); // A's clear has run by now, wherever it went
					b.download(y.ptr(), back, 0, n);
				}
				return null;
			});
			return null;
		});
		assertArrayEquals(sevens, back);
	}

	@Test
	void aCopyOnASideStreamWaitsForTheEventItAwaits() {
		int n = 1 << 20;
		byte[] sevens = new byte[n];
		java.util.Arrays.fill(sevens, (byte) 7);
		byte[] got = Gpu.get().run("side stream test", g -> {
			try (DeviceBuffer d = g.alloc(n); HostBuffer h = g.pinned(n)) {
				g.upload(sevens, 0, n, d.ptr());
				jcuda.driver.CUstream side = g.sideStream();
				jcuda.driver.CUevent cleared = g.event();
				// the session's stream clears the buffer 20 ms from now; the side stream's copy waits for it
				g.launch(g.function(SelfCheck.MODULE, "runtime_hold"), new int[] { 1 }, new int[] { 1 }, 0, 20_000_000L);
				g.zero(d.ptr(), n);
				g.record(cleared, g.stream());
				g.await(side, cleared);
				g.copyAsync(d.ptr(), h, n, side);
				g.drain();
				byte[] out = new byte[n];
				h.bytes().get(out);
				return out;
			}
		});
		assertArrayEquals(new byte[n], got);
	}
	@Test
	void aWriteCombinedPinnedBufferCarriesItsDataToTheDevice() {
		int n = (1 << 20) + 13; // not a whole number of pages or cache lines
		byte[] data = new byte[n];
		new java.util.Random(5).nextBytes(data);
		byte[] got = Gpu.get().run("write-combined test", g -> {
			try (DeviceBuffer d = g.alloc(n); HostBuffer up = g.pinned(n, true); HostBuffer down = g.pinned(n)) {
				up.fill(new Object[] { data }, n);
				g.copyAsync(up, d.ptr(), n, g.stream());
				g.copyAsync(d.ptr(), down, n, g.stream());
				g.sync();
				byte[] out = new byte[n];
				down.bytes().get(out);
				return out;
			}
		});
		assertArrayEquals(data, got);
	}

	@Test
	void aNonStickyErrorAtTheLastWaitStillGivesBackTheBuffersClosedWhileBusy() {
		// The task fails after closing a buffer whose clear is still queued, and the wait at the
		// session's end then reports a non-sticky error: the buffer must still go back to the pool.
		Gpu g = Gpu.get();
		assertEquals(0, g.bytesInUse(), "pooled buffers handed out before the test");
		try {
			IllegalStateException e = assertThrows(IllegalStateException.class, () -> g.run("finish test", a -> {
				DeviceBuffer x = a.alloc(1 << 20);
				a.launch(a.function(SelfCheck.MODULE, "runtime_hold"), new int[] { 1 }, new int[] { 1 }, 0, 20_000_000L);
				a.zero(x.ptr(), 1 << 20);
				x.close();
				FaultInjection.failNextFinish();
				throw new IllegalStateException("the task failed");
			}));
			assertEquals("the task failed", e.getMessage());
		} finally {
			FaultInjection.clear();
		}
		assertEquals(0, g.bytesInUse(), "a buffer closed while busy was never given back");
		// the session's stream and staging went back too: the next operation runs
		assertEquals(Integer.valueOf(3), g.run("after the finish test", a -> 3));
	}

	@Test
	void aNonStickyErrorThatTheRetryAtTheEndSeesAgainResetsTheGpuRatherThanKeepItsBuffers() {
		// the task's own wait, the wait at the session's end and its retry all report the error:
		// the session's buffers were neither given back nor freed, and stayed counted as in use
		Gpu g = Gpu.get();
		assertEquals(0, g.bytesInUse(), "pooled buffers handed out before the test");
		try {
			FaultInjection.failNextFinishes(3);
			GpuException e = assertThrows(GpuException.class, () -> g.run("finish thrice test", a -> {
				a.alloc(1 << 20); // held by the session until it ends
				return 1;
			}));
			assertTrue(e.getMessage().startsWith("finish thrice test: "), e.getMessage());
		} finally {
			FaultInjection.clear();
		}
		Gpu fresh = Gpu.get();
		assertNotSame(g, fresh, "the GPU was not reset");
		assertEquals(0, fresh.bytesInUse());
		assertEquals(Integer.valueOf(4), fresh.run("after the finish thrice test", a -> 4));
	}

	@Test
	void anErrorWhileASessionEndsLeavesNoSessionHeld() throws Exception {
		// an Error in Gpu.run's clean-up (out of memory queueing a stream or a buffer back) escaped
		// before the read lock went back: the next reset or change of GPU waited for it forever,
		// and every session after that one waited behind it
		Gpu g = Gpu.get();
		FaultInjection.failNextEndWith(new OutOfMemoryError("Java heap space (test)"));
		try {
			assertThrows(OutOfMemoryError.class, () -> g.run("End test", s -> null));
		} finally {
			FaultInjection.clear();
		}
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			assertTrue(other.submit(() -> g.resetPossibleWithin(10_000)).get(HangGuard.inSeconds(60), TimeUnit.SECONDS),
				"the session that failed as it ended still holds the GPU: a reset would wait for it forever");
		} finally {
			other.shutdownNow();
		}
		assertEquals("ran", g.run("After test", s -> "ran"));
	}

	@Test
	void aDownloadWaitsForItsCopyBeforeReadingTheStaging() {
		// the device clears the buffer 50 ms from now; the staging still holds the upload's sevens,
		// so a download that read it before its copy arrived would bring back sevens, not zeros
		int n = 1 << 20;
		byte[] sevens = new byte[n], back = new byte[n];
		java.util.Arrays.fill(sevens, (byte) 7);
		java.util.Arrays.fill(back, (byte) 1);
		Gpu.get().run("download wait test", g -> {
			try (DeviceBuffer d = g.alloc(n)) {
				g.upload(sevens, 0, n, d.ptr());
				g.launch(g.function(SelfCheck.MODULE, "runtime_hold"), new int[] { 1 }, new int[] { 1 }, 0, 50_000_000L);
				g.zero(d.ptr(), n);
				g.download(d.ptr(), back, 0, n);
			}
			return null;
		});
		assertArrayEquals(new byte[n], back);
	}

	@Test
	void anUploadRefillsAStagingBufferOnlyOnceTheCopyReadingItIsDone() {
		// three chunks through two staging buffers, queued behind a 100 ms hold: the first chunk's
		// copy has not run when the third chunk is due in the same buffer, which must wait for it
		int n = (int) (2 * FaultInjection.stagingChunkBytes() + 4096);
		byte[] data = new byte[n], back = new byte[n];
		new java.util.Random(35).nextBytes(data);
		Gpu.get().run("upload wait test", g -> {
			try (DeviceBuffer d = g.alloc(n)) {
				g.launch(g.function(SelfCheck.MODULE, "runtime_hold"), new int[] { 1 }, new int[] { 1 }, 0, 100_000_000L);
				g.upload(data, 0, n, d.ptr());
				g.download(d.ptr(), back, 0, n);
			}
			return null;
		});
		assertArrayEquals(data, back);
	}

	@Test
	void drainWaitsForTheSideStreams() {
		// a copy on a side stream, queued behind a 50 ms hold on that stream: once drain() returns
		// the pinned buffer holds the device's sevens, not the ones it was filled with
		int n = 1 << 20;
		byte[] sevens = new byte[n];
		java.util.Arrays.fill(sevens, (byte) 7);
		byte[] got = Gpu.get().run("drain test", g -> {
			try (DeviceBuffer d = g.alloc(n); HostBuffer h = g.pinned(n)) {
				g.upload(sevens, 0, n, d.ptr());
				g.sync();
				java.nio.ByteBuffer hb = h.bytes();
				for (int i = 0; i < n; i++)
					hb.put(i, (byte) 1);
				jcuda.driver.CUstream side = g.sideStream();
				jcuda.Pointer args = jcuda.Pointer.to(jcuda.Pointer.to(new long[] { 50_000_000L }));
				jcuda.driver.JCudaDriver.cuLaunchKernel(g.function(SelfCheck.MODULE, "runtime_hold"), 1, 1, 1, 1, 1, 1, 0,
					side, args, null);
				g.copyAsync(d.ptr(), h, n, side);
				g.drain();
				byte[] out = new byte[n];
				h.bytes().get(out);
				return out;
			}
		});
		assertArrayEquals(sevens, got);
	}

	@Test
	void aDownloadThatFailsAtOnceReportsNothingWrittenAfterOneThatSucceeded() {
		// a caller reads downloaded() to know which planes are done: the count of the download
		// before must not stand for the one that failed before writing anything
		int count = 1000;
		byte[] a = new byte[count], b = new byte[count], c = new byte[count];
		long[] got;
		try {
			got = Gpu.get().run("download count test", g -> {
				try (DeviceBuffer d = g.alloc(2 * count)) {
					g.zero(d.ptr(), 2 * count);
					g.downloadAll(d.ptr(), new Object[] { a, b }, count);
					assertEquals(2 * count, g.downloaded());
					FaultInjection.failNextDownloadAtChunk(0);
					assertThrows(jcuda.CudaException.class, () -> g.download(d.ptr(), c, 0, count));
					return new long[] { g.downloaded(), g.downloadTouched() };
				}
			});
		} finally {
			FaultInjection.clear();
		}
		assertArrayEquals(new long[] { 0, 0 }, got, "downloaded, touched");
	}

	@Test
	void aCopyIntoTheArraysThatFailsLeavesItsChunkCountedTouchedButNotWritten() {
		// three planes in one staging chunk, the last too short: the copy into the arrays fails,
		// so none of the chunk counts as written, though all of it may have been touched
		int count = 1000;
		Object[] planes = { new byte[count], new byte[count], new byte[count / 2] };
		long[] got = Gpu.get().run("write-back test", g -> {
			try (DeviceBuffer d = g.alloc(3 * count)) {
				g.zero(d.ptr(), 3 * count);
				GpuException e = assertThrows(GpuException.class, () -> g.downloadAll(d.ptr(), planes, count));
				assertTrue(e.getMessage().contains("IndexOutOfBounds"), e.getMessage());
				return new long[] { g.downloaded(), g.downloadTouched() };
			}
		});
		assertArrayEquals(new long[] { 0, 3 * count }, got, "downloaded, touched");
	}

	@Test
	void aDriverCallOutsideThePoolRunningOutOfMemoryIsAReasonToUseTheCpu() {
		// not only the pool's allocations: any driver call that finds the device full (a module
		// load, a stream, a library's workspace) must let the operation fall back, not fail it
		Gpu g = Gpu.get();
		long total = g.info().totalMemory;
		GpuUnavailableException e = assertThrows(GpuUnavailableException.class, () -> g.run("Own alloc", s -> {
			jcuda.driver.CUdeviceptr p = new jcuda.driver.CUdeviceptr();
			jcuda.driver.JCudaDriver.cuMemAlloc(p, total + (1L << 30));
			jcuda.driver.JCudaDriver.cuMemFree(p);
			return null;
		}));
		assertTrue(e.getMessage().startsWith("Own alloc: "), e.getMessage());
		assertEquals(GpuUnavailableException.OUT_OF_MEMORY, e.kind());
		org.junit.jupiter.api.Assertions.assertSame(g, Gpu.get(), "an out-of-memory must not reset the GPU");
	}

	@Test
	void aGpuObjectThatWasResetRefusesWorkAndSaysToTryAgain() {
		// a thread that took the object before the reset must not run on it: its context, pool
		// and streams are gone, and the next get() hands out another object
		Gpu g = Gpu.get();
		try {
			FaultInjection.failNextFinishes(3); // the session's end sees an error its retry sees again: reset
			assertThrows(GpuException.class, () -> g.run("reset test", s -> 1));
		} finally {
			FaultInjection.clear();
		}
		Gpu fresh = Gpu.get();
		assertNotSame(g, fresh, "the GPU was not reset");
		java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
		GpuException e = assertThrows(GpuException.class, () -> g.run("stale test", s -> ran.getAndSet(true)));
		assertEquals("stale test: the GPU was reset meanwhile; try again", e.getMessage());
		assertTrue(!ran.get(), "the task ran on the reset object");
		assertEquals(Integer.valueOf(5), fresh.run("after the stale test", s -> 5));
	}

	@Test
	void thePoolCachesNoMoreThanItsBound() {
		// a pool bounded at 1 MiB keeps the first of two 1 MiB blocks closed and frees the second
		// (the device's pool is bounded at a quarter of the device, too much to fill in a test)
		long cached = Gpu.get().run("cache bound test", s -> {
			BufferPool small = new BufferPool(1 << 20);
			DeviceBuffer a = small.allocate(1 << 20, "cache bound test", s), b = small.allocate(1 << 20, "cache bound test", s);
			a.close();
			b.close();
			long c = small.cachedBytes();
			small.trim();
			return c;
		});
		assertEquals(1 << 20, cached);
	}

	@Test
	void anAllocationThatDoesNotFitFreesTheCacheAndTriesItsClassAgain() {
		// 1 GiB cached in the pool, 512 MiB free: 1 GiB + 1 byte (a class of 1.125 GiB) fits at
		// its class only once the cache is freed, and at its exact size not even then, had the
		// pool gone straight to the exact size
		Gpu g = Gpu.get();
		g.trimPool();
		long want = (1L << 30) + 1;
		long capacity = g.run("Retry", s -> {
			BufferPool pool = new BufferPool(Long.MAX_VALUE);
			pool.allocate(1L << 30, "Retry", s).close();
			assertEquals(1L << 30, pool.cachedBytes());
			jcuda.driver.CUdeviceptr filler = new jcuda.driver.CUdeviceptr();
			jcuda.driver.JCudaDriver.cuMemAlloc(filler, s.freeMemory() - (512L << 20));
			try (DeviceBuffer b = pool.allocate(want, "Retry", s)) {
				return b.capacity();
			} finally {
				jcuda.driver.JCudaDriver.cuMemFree(filler);
				pool.trim();
			}
		});
		assertEquals(BufferPool.sizeClass(want), capacity);
	}
}
