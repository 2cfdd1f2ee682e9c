package fiji.cuda.runtime;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Copies between Java arrays and pinned host memory on several threads. One thread moves
 * about 5 GB/s into pinned memory, a tenth of what the DMA engine takes from it (measured on
 * the H200 machine: 12.3 ms for 64 MiB on one thread, 1.5 ms on sixteen), so the copy is cut
 * into slices that run in parallel.
 */
final class HostCopy {

	/** Slices smaller than this are not worth a thread hand-off. */
	private static final int MIN_SLICE_BYTES = 256 << 10;
	/** Copy threads, the calling thread included: one per core up to 16 (fiji.cuda.copyThreads to measure others). */
	private static final int THREADS = Math.max(1, Integer.getInteger("fiji.cuda.copyThreads",
		Math.min(16, Runtime.getRuntime().availableProcessors())));

	private static final Workers POOL = new Workers(THREADS - 1);
	/**
	 * Target slice size (0: one slice per thread). Slices of 512 KiB, more than there are
	 * threads, moved a 64 MiB plane in 0.6 ms on the GPU machine against 1.2 ms for one slice
	 * per thread: the queue evens out threads that run slower.
	 */
	static long sliceBytes = Long.getLong("fiji.cuda.copySliceKiB", 512) << 10;
	/**
	 * How long an idle copy thread keeps looking for work before it sleeps. Waking a sleeping
	 * thread took about 0.3 ms per hand-off on the GPU machine's virtual CPUs, as much as
	 * copying 8 MiB, so threads stay awake through the back-to-back slices of one transfer.
	 */
	static long spinNanos = Long.getLong("fiji.cuda.copySpinMicros", 500) * 1000;

	private HostCopy() {}

	/** A run of elements of one array and where it sits in the staging buffer. */
	static final class Segment {
		final Object array;
		final long first;
		final long count;
		final long bufOffset;

		Segment(Object array, long first, long count, long bufOffset) {
			this.array = array;
			this.first = first;
			this.count = count;
			this.bufOffset = bufOffset;
		}
	}

	/**
	 * Copies every segment into {@code buf} (or back when {@code toArray} is true), cut into
	 * about one slice per copy thread over all segments together, so that a chunk made of many
	 * small planes costs one hand-off, not one per plane. The calling thread copies a slice
	 * itself rather than wait idle.
	 */
	static void copy(Segment[] segs, ByteBuffer buf, boolean toArray) {
		start(segs, buf, toArray).await();
	}

	/** As {@link #copy}, but returns once the slices are queued; the copy threads do them meanwhile. */
	static Pending start(Segment[] segs, ByteBuffer buf, boolean toArray) {
		// a copy of no elements (HostBuffer.fill(planes, 0)) has no first segment to take the type from
		if (segs.length == 0) return POOL.submit(java.util.Collections.emptyList());
		int esize = elementSize(segs[0].array);
		long total = 0;
		for (Segment s : segs)
			total += s.count;
		long bytes = total * esize;
		int slices = (int) Math.max(1, Math.min(bytes / MIN_SLICE_BYTES,
			sliceBytes > 0 ? Math.max(THREADS, bytes / sliceBytes) : THREADS));
		long per = (total + slices - 1) / slices;
		java.util.List<Runnable> work = new java.util.ArrayList<>();
		for (Segment s : segs)
			for (long off = 0; off < s.count; off += per) {
				final int from = (int) (s.first + off), n = (int) Math.min(per, s.count - off);
				final int at = (int) (s.bufOffset + off * esize);
				work.add(() -> slice(s.array, from, n, buf, at, toArray));
			}
		return POOL.submit(work);
	}

	/** A copy under way on the copy threads. */
	static final class Pending implements HostBuffer.Copy {
		private final java.util.concurrent.atomic.AtomicInteger left;
		private final java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
		private final Workers pool;

		Pending(Workers pool, int tasks) {
			this.pool = pool;
			this.left = new java.util.concurrent.atomic.AtomicInteger(tasks);
		}

		/**
		 * Returns once every slice is done, working on queued slices meanwhile, even when
		 * interrupted (a plane half copied would be lost data).
		 */
		@Override
		public void await() {
			// help: the queue may hold other copies' slices too, which is still progress
			while (left.get() > 0) {
				Runnable r = pool.queue.poll();
				if (r != null) r.run();
				else Thread.onSpinWait();
			}
			Throwable f = failed.get();
			// a bug, named for its report after plain words ("host copy failed: java.lang....")
			if (f != null) throw new GpuException("copying the pixels for the GPU failed (" + f.getClass().getSimpleName()
				+ (f.getMessage() != null ? ": " + f.getMessage() : "") + ")", f);
		}

		@Override
		public boolean isDone() {
			return left.get() == 0;
		}
	}

	/**
	 * Elements [from, from+n) of the arrays taken one after the other, {@code count} elements
	 * each starting at element {@code first}, as segments packed from the start of a buffer.
	 */
	static Segment[] segments(Object[] arrays, long first, long count, long from, long n) {
		int es = elementSize(arrays[0]);
		java.util.List<Segment> segs = new java.util.ArrayList<>();
		for (long done = 0; done < n;) {
			long g = from + done;
			long inArray = g % count;
			long m = Math.min(n - done, count - inArray);
			segs.add(new Segment(arrays[(int) (g / count)], first + inArray, m, done * es));
			done += m;
		}
		return segs.toArray(new Segment[0]);
	}

	static int elementSize(Object array) {
		if (array instanceof byte[]) return 1;
		if (array instanceof short[]) return 2;
		if (array instanceof float[] || array instanceof int[]) return 4;
		if (array instanceof double[] || array instanceof long[]) return 8;
		throw new IllegalArgumentException("unsupported array " + array.getClass());
	}

	private static void slice(Object a, int from, int n, ByteBuffer buf, int byteOff, boolean toArray) {
		ByteBuffer b = buf.duplicate().order(ByteOrder.nativeOrder());
		b.position(byteOff);
		if (a instanceof byte[]) {
			if (toArray) b.get((byte[]) a, from, n); else b.put((byte[]) a, from, n);
		} else if (a instanceof short[]) {
			if (toArray) b.asShortBuffer().get((short[]) a, from, n); else b.asShortBuffer().put((short[]) a, from, n);
		} else if (a instanceof float[]) {
			if (toArray) b.asFloatBuffer().get((float[]) a, from, n); else b.asFloatBuffer().put((float[]) a, from, n);
		} else if (a instanceof int[]) {
			if (toArray) b.asIntBuffer().get((int[]) a, from, n); else b.asIntBuffer().put((int[]) a, from, n);
		} else if (a instanceof double[]) {
			if (toArray) b.asDoubleBuffer().get((double[]) a, from, n); else b.asDoubleBuffer().put((double[]) a, from, n);
		} else {
			if (toArray) b.asLongBuffer().get((long[]) a, from, n); else b.asLongBuffer().put((long[]) a, from, n);
		}
	}

	/**
	 * Daemon threads that take slices from one queue, spinning a little before they sleep. The
	 * caller queues its slices and works on them too; it returns once all of its own are done,
	 * every one of them, even when interrupted (a plane half copied would be lost data), and
	 * passes the interrupt on afterwards.
	 */
	static final class Workers {
		private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> queue = new java.util.concurrent.ConcurrentLinkedQueue<>();
		private final java.util.concurrent.ConcurrentLinkedQueue<Thread> sleeping = new java.util.concurrent.ConcurrentLinkedQueue<>();

		Workers(int threads) {
			for (int i = 0; i < threads; i++) {
				Thread t = new Thread(this::work, "fiji-cuda-hostcopy-" + (i + 1));
				t.setDaemon(true);
				t.start();
			}
		}

		private void work() {
			long idleSince = System.nanoTime();
			for (;;) {
				Runnable r = queue.poll();
				if (r != null) {
					r.run();
					idleSince = System.nanoTime();
				} else if (System.nanoTime() - idleSince < spinNanos) {
					Thread.onSpinWait();
				} else {
					Thread me = Thread.currentThread();
					sleeping.add(me);
					if (queue.isEmpty()) java.util.concurrent.locks.LockSupport.park(this);
					sleeping.remove(me);
					idleSince = System.nanoTime();
				}
			}
		}

		/** Queues every task for the pool; the caller's {@link Pending#await} works on them too. */
		Pending submit(java.util.List<Runnable> tasks) {
			Pending p = new Pending(this, tasks.size());
			for (Runnable t : tasks)
				queue.add(() -> {
					try {
						t.run();
					} catch (Throwable e) {
						p.failed.compareAndSet(null, e);
					} finally {
						p.left.decrementAndGet();
					}
				});
			for (Thread t : sleeping)
				java.util.concurrent.locks.LockSupport.unpark(t);
			return p;
		}
	}
}
