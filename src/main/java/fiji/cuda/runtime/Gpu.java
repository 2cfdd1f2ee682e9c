package fiji.cuda.runtime;

import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxReset;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuDeviceTotalMem;
import static jcuda.driver.JCudaDriver.cuDriverGetVersion;
import static jcuda.driver.JCudaDriver.cuFuncGetAttribute;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleGetGlobal;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import jcuda.CudaException;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The CUDA device that operations run on, and the only way into it.
 * <p>
 * {@link #get()} discovers the device the user chose ({@link GpuSettings}) and retains its
 * primary context once; {@link #run} makes that context current on the calling thread
 * (Fiji calls plugins from many threads), hands the task a {@link GpuSession} with its own
 * stream and pinned staging, and turns every CUDA error into a {@link GpuException} that
 * names the operation. Kernel modules are loaded lazily from the classpath and cached.
 * <p>
 * A kernel fault (illegal address and the like) poisons the CUDA context. The runtime then
 * resets the primary context and tries to rebuild it on the next call. CUDA does not promise
 * that a process can recover from such a fault (on the H200 with driver 580 it cannot), so when
 * rediscovery fails the GPU is reported unavailable for the rest of the session, with a reason
 * that says to restart Fiji, and every operation keeps working on its CPU path: a fault never
 * hangs or crashes Fiji. Anything that makes the GPU unusable (no driver, no device, a driver
 * too old for the shipped kernels, the CPU chosen by the user) is a
 * {@link GpuUnavailableException}, the signal for operations to take their CPU path.
 */
public final class Gpu {

	/** Driver API version (CUDA 13.0, driver R580) that the nvcc 13.0 kernels need. */
	static final int REQUIRED_DRIVER = 13000;
	/** The oldest architecture the fatbins carry machine code for (sm_75). */
	static final int MIN_COMPUTE_CAPABILITY = 75;
	/**
	 * Size of each of a session's two staging buffers. Larger chunks mean fewer hand-offs to
	 * the copy threads; smaller ones more overlap. On the H200 machine 32 MiB moved a 64 MiB
	 * plane fastest (8: 4.8 ms, 16: 3.1, 32: 2.9, 64: 3.5 ms up). System property
	 * fiji.cuda.stagingMiB.
	 */
	private static final long STAGING_BYTES = Long.getLong("fiji.cuda.stagingMiB", 32) << 20;
	/** Pinned memory is scarce on a workstation: keep at most this many idle staging pairs. */
	private static final int MAX_CACHED_STAGING = 4;
	/**
	 * How long a session waits for a staging pair to come back when {@link #MAX_CACHED_STAGING}
	 * are in use, before it pins a pair of its own. ImageJ's runner blurs the slices of a stack on
	 * every core at once, each slice a session of about a millisecond: 16 threads pinning and
	 * freeing 64 MiB per slice took 0.53 s for 128 slices of 1024x1024 on the H200 machine, four
	 * threads that reused pairs 0.02 s. The wait is bounded because a session may be opened inside
	 * another on the same thread, and a long one may hold its pair for seconds.
	 */
	static volatile long stagingWaitMillis = 50;

	private static final Object LOCK = new Object();
	/**
	 * Guards the driver's one start ({@link #initDriver}). Not {@link #LOCK}, which a change of GPU
	 * holds while it waits for the old device's sessions: GPU Info's device count or description
	 * asked from inside one of them waited for it, and neither thread went on.
	 */
	private static final Object DRIVER_LOCK = new Object();
	private static volatile Gpu current;
	/** This and driverTried: guarded by {@link #DRIVER_LOCK}. */
	private static String driverFailure;
	private static boolean driverTried;
	private static volatile int requiredDriver = REQUIRED_DRIVER;
	/** The last kernel fault ("op: CUDA_ERROR_..."), named when the GPU cannot be rebuilt after it. */
	private static volatile String lastFault;

	private volatile String choice;
	private final DeviceInfo info;
	private final CUdevice device;
	private final CUcontext context;
	private final BufferPool pool;
	private final ReentrantReadWriteLock resetLock = new ReentrantReadWriteLock();
	private final Map<String, CUmodule> modules = new ConcurrentHashMap<>();
	private final Map<String, CUfunction> functions = new ConcurrentHashMap<>();
	private final ConcurrentLinkedQueue<CUstream> streams = new ConcurrentLinkedQueue<>();
	private final ConcurrentLinkedQueue<PinnedBuffer[]> stagings = new ConcurrentLinkedQueue<>();
	/** Staging pairs held by sessions now; guarded by {@link #stagings}' monitor. */
	private int stagingsInUse;
	private volatile boolean poisoned;
	private volatile boolean retired;  // poisoned because the user chose another GPU
	/**
	 * The thread whose outermost session resets the context, after a fault in a session opened
	 * inside another on that thread; null when none is due. That thread holds the read lock
	 * twice, and a read lock cannot become the write lock that {@link #reset} takes: it waited
	 * forever, and every other thread's next session queued behind it. No session starts
	 * meanwhile, and other threads leave the reset to that one, which may be waiting for them.
	 */
	private volatile Thread resetPendingOn;
	/** Operations running now, and when the last one started or ended (System.nanoTime). */
	private final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
	private final java.util.concurrent.atomic.AtomicLong lastUse = new java.util.concurrent.atomic.AtomicLong();
	/** The idle release queued, and when it is due (System.nanoTime); guarded by releaseLock. */
	private java.util.concurrent.ScheduledFuture<?> release;
	private long releaseDue;
	private final Object releaseLock = new Object();

	private Gpu(String choice, DeviceInfo info, CUdevice device, CUcontext context) {
		this.choice = choice;
		this.info = info;
		this.device = device;
		this.context = context;
		// idle cached blocks may use up to a quarter of the device: enough for repeated stacks
		this.pool = new BufferPool(info.totalMemory / 4);
	}

	/**
	 * @return the usable GPU for the current setting
	 * @throws GpuUnavailableException with a one-sentence reason when the GPU cannot be used
	 */
	public static Gpu get() {
		String choice = choice();
		Gpu g = current;
		if (g != null && !g.poisoned && g.choice.equals(choice)) return g;
		if (choice.equals("cpu"))
			throw new GpuUnavailableException(System.getProperty(GpuSettings.PROPERTY) != null
				? "the CPU was chosen by the Java option -D" + GpuSettings.PROPERTY + "=" + System.getProperty(GpuSettings.PROPERTY)
				: "the CPU was chosen in GPU Info (Use: CPU only)");
		// retire() waits for the write lock, which a thread inside one of g's sessions never gets.
		// Refused before LOCK: another thread that opened the new device retires g holding LOCK,
		// waiting for this session, and this thread waited for LOCK: neither went on, and every
		// later get() queued behind them. While this thread holds g's read lock, g stays current.
		if (g != null && !g.poisoned && g.resetLock.getReadHoldCount() > 0)
			throw new GpuException("another GPU was chosen while an operation on " + g.info.name
				+ " runs on this thread; the choice applies once that operation has ended");
		synchronized (LOCK) {
			g = current;
			if (g != null && !g.poisoned && g.choice.equals(choice)) return g;
			initDriver();
			Gpu fresh = open(choice);
			lastFault = null; // a context opened after the fault: it no longer explains a failure
			if (g != null && !g.poisoned) {
				if (g.info.index == fresh.info.index) {
					// the same device under another name ("auto" and "0" on a one-GPU machine):
					// keep the object that holds its pool, staging and streams
					fresh.releaseContext();
					g.choice = choice;
					return g;
				}
				g.retire();
			}
			current = fresh;
			return current;
		}
	}

	/** Drops the primary-context reference that {@link #open} took. */
	private void releaseContext() {
		try {
			cuDevicePrimaryCtxRelease(device);
		} catch (CudaException e) {
			// the context stays retained; nothing more can be done
		}
	}

	/**
	 * Gives back what this device's object holds, once the operations running on it have
	 * finished (they hold the read lock): cached device blocks, staging, streams and the context
	 * reference. Called when the user switches to another GPU. An operation that took this
	 * object before the switch and starts after it is told to try again.
	 */
	private void retire() {
		resetLock.writeLock().lock();
		try {
			if (poisoned) return;
			retired = true;
			poisoned = true;
			CUcontext theirs = null;
			try {
				theirs = othersCurrent();
				cuCtxSetCurrent(context);
				pool.trim();
				for (PinnedBuffer[] p; (p = stagings.poll()) != null;)
					for (PinnedBuffer b : p)
						b.free();
				for (CUstream st; (st = streams.poll()) != null;)
					cuStreamDestroy(st);
				modules.clear();
				functions.clear();
				cuCtxSetCurrent(new CUcontext());
			} catch (CudaException e) {
				// whatever could not be given back goes with the context
			}
			putBack(theirs);
			releaseContext();
		} finally {
			resetLock.writeLock().unlock();
		}
	}

	// The setting, where a malformed system property (only the IJ1 bridge validates what it
	// stores) becomes a reason to use the CPU rather than an exception that AUTO would not catch.
	private static String choice() {
		try {
			return GpuSettings.deviceChoice();
		} catch (IllegalArgumentException e) {
			throw new GpuUnavailableException(GpuSettings.badProperty());
		}
	}

	/** @return true when {@link #get()} would succeed now; never throws */
	public static boolean isAvailable() {
		try {
			get();
			return true;
		} catch (GpuException e) {
			return false;
		}
	}

	private static void initDriver() {
		synchronized (DRIVER_LOCK) {
			startDriver();
		}
	}

	private static void startDriver() {
		if (driverTried) {
			if (driverFailure != null) throw new GpuUnavailableException(driverFailure);
			return;
		}
		driverTried = true;
		try {
			JCudaDriver.setExceptionsEnabled(true);
			cuInit(0);
		} catch (CudaException e) {
			String m = String.valueOf(e.getMessage());
			m = firstLine(m);
			driverFailure = m.contains("NO_DEVICE") ? "no CUDA device found"
				: m.contains("INSUFFICIENT_DRIVER") ? "the NVIDIA driver is too old for CUDA " + versionText(requiredDriver)
				: "CUDA could not start (" + m + ")";
		} catch (Throwable e) {
			driverFailure = noDriverReason(e, System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
		}
		if (driverFailure != null) throw new GpuUnavailableException(driverFailure);
	}

	private static Gpu open(String choice) {
		try {
			int[] v = new int[1];
			cuDriverGetVersion(v);
			if (v[0] < requiredDriver)
				throw new GpuUnavailableException("the NVIDIA driver supports CUDA " + versionText(v[0])
					+ "; the GPU path needs CUDA " + versionText(requiredDriver) + " (driver R580 or newer)");
			int[] count = new int[1];
			cuDeviceGetCount(count);
			if (count[0] == 0) throw new GpuUnavailableException("no CUDA device found");
			int index = 0;
			if (!choice.equals("auto")) {
				index = Integer.parseInt(choice);
				if (index >= count[0])
					throw new GpuUnavailableException("GPU " + index + " was chosen but this machine has " + count[0]
						+ " CUDA device" + (count[0] == 1 ? "" : "s"));
			}
			DeviceInfo info = query(index);
			if (choice.equals("auto")) {
				for (int i = 0; i < count[0] && info.computeCapability() < MIN_COMPUTE_CAPABILITY; i++)
					info = query(i);
			}
			if (info.computeCapability() < MIN_COMPUTE_CAPABILITY)
				throw new GpuUnavailableException(info.name + " has compute capability " + info.ccMajor + "."
					+ info.ccMinor + "; the GPU path needs 7.5 or newer");
			CUdevice dev = new CUdevice();
			cuDeviceGet(dev, info.index);
			CUcontext ctx = new CUcontext();
			cuDevicePrimaryCtxRetain(ctx, dev);
			return new Gpu(choice, info, dev, ctx);
		} catch (CudaException e) {
			if (lastFault != null)
				throw new GpuUnavailableException("the GPU cannot be used again in this session after it failed in "
					+ lastFault + ": CUDA cannot recover within one process; restart Fiji to use the GPU", e);
			throw new GpuUnavailableException("CUDA device discovery failed (" + e.getMessage() + ")", e);
		}
	}

	private static DeviceInfo query(int index) {
		CUdevice dev = new CUdevice();
		cuDeviceGet(dev, index);
		byte[] name = new byte[256];
		cuDeviceGetName(name, name.length, dev);
		String n = new String(name).trim();
		int nul = n.indexOf('\0');
		if (nul >= 0) n = n.substring(0, nul);
		long[] mem = new long[1];
		cuDeviceTotalMem(mem, dev);
		return new DeviceInfo(index, n, attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
			attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), mem[0],
			attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
			attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
	}

	private static int attr(CUdevice dev, int a) {
		int[] v = new int[1];
		cuDeviceGetAttribute(v, a, dev);
		return v[0];
	}

	/** The platforms whose JCuda natives the install folder ships, as JCuda names them. */
	private static final java.util.Set<String> SHIPPED_NATIVES = java.util.Set.of("linux-x86_64", "windows-x86_64");

	/**
	 * Why the driver API could not start, from what JCuda threw: UnsatisfiedLinkError and
	 * friends, for no libcuda on this machine or no JCuda natives for it.
	 *
	 * @param e    what loading or starting the driver threw
	 * @param os   the os.name property
	 * @param arch the os.arch property
	 * @return the reason, one sentence
	 */
	static String noDriverReason(Throwable e, String os, String arch) {
		String natives = missingNativesJar(e);
		if (natives != null && SHIPPED_NATIVES.stream().anyMatch(natives::contains))
			return "JCuda's native library for this platform is missing (" + natives
				+ " belongs next to jcuda-12.6.0.jar, in Fiji.app/jars or ImageJ/plugins/jars; see the README)";
		// an ARM Linux (Grace Hopper, Jetson) was sent for a natives jar the install does not have,
		// and macOS was told "no CUDA driver found ()"
		if (natives != null || os.toLowerCase(java.util.Locale.ROOT).startsWith("mac"))
			return "the GPU path is not available on " + os + " (" + arch + "): this plug-in ships JCuda for Linux and "
				+ "Windows on x86-64 only";
		return "no CUDA driver found (" + firstLine(firstMessage(e)) + ")";
	}

	/** @return the first message along the chain of causes, or the class of {@code e} when none has one */
	private static String firstMessage(Throwable e) {
		for (Throwable t = e; t != null; t = t.getCause())
			if (t.getMessage() != null && !t.getMessage().isBlank()) return t.getMessage();
		return e.getClass().getSimpleName();
	}

	/**
	 * @return the natives jar JCuda found no library in, when that is why it could not load
	 *         ("No resource found" for lib/libJCudaDriver-VERSION-OS-ARCH), else null. Both that
	 *         and a machine without the NVIDIA driver read "no CUDA driver found", and a user
	 *         with a working driver was sent to update it, where one jar was not copied.
	 */
	static String missingNativesJar(Throwable e) {
		StringBuilder all = new StringBuilder();
		for (Throwable t = e; t != null && all.length() < 100_000; t = t.getCause())
			all.append(t.getMessage()).append('\n');
		if (all.indexOf("No resource found") < 0) return null;
		java.util.regex.Matcher m = java.util.regex.Pattern.compile("JCudaDriver-([0-9.]+-[A-Za-z0-9]+-[A-Za-z0-9_]+)")
			.matcher(all);
		return m.find() ? "jcuda-natives-" + m.group(1) + ".jar" : "the jcuda-natives jar of this platform";
	}

	/** Native-library errors span many lines; a log line needs one. */
	static String firstLine(String m) {
		if (m == null) return "";
		String l = m.strip();
		int nl = l.indexOf('\n');
		if (nl >= 0) l = l.substring(0, nl).strip();
		return l.length() > 160 ? l.substring(0, 157) + "..." : l;
	}

	/**
	 * @return the number of CUDA devices the driver sees, or 0 when there is no usable driver;
	 *         never throws
	 */
	public static int deviceCount() {
		try {
			initDriver();
			int[] count = new int[1];
			cuDeviceGetCount(count);
			return count[0];
		} catch (GpuException | CudaException e) {
			return 0;
		}
	}

	static String versionText(int v) {
		return (v / 1000) + "." + (v % 1000) / 10;
	}

	/**
	 * @return the NVIDIA driver's release (e.g. "580.159.04"), which the requirements and NVIDIA's
	 *         downloads are written in, where the system tells it (Linux); null elsewhere. CUDA
	 *         itself only reports the CUDA version the driver supports.
	 */
	static String nvidiaRelease() {
		try {
			return releaseIn(new String(java.nio.file.Files.readAllBytes(
				java.nio.file.Paths.get("/proc/driver/nvidia/version")), java.nio.charset.StandardCharsets.UTF_8));
		} catch (java.io.IOException | RuntimeException e) {
			return null;
		}
	}

	/** @return the release in the text of /proc/driver/nvidia/version, or null */
	static String releaseIn(String version) {
		java.util.regex.Matcher m = java.util.regex.Pattern.compile("Kernel Module.*?\\s(\\d+\\.\\d+(?:\\.\\d+)?)(?:\\s|$)")
			.matcher(version);
		return m.find() ? m.group(1) : null;
	}

	/** @return what the driver reported about this device */
	public DeviceInfo info() {
		return info;
	}

	/**
	 * Runs GPU work for one operation on the calling thread, in this device's primary context.
	 * A context of the caller's own that was current before (a script's JCuda context) is
	 * current again afterwards; a thread with none keeps the primary one.
	 *
	 * @param op   the operation's name, used in every error message
	 * @param task the work; it allocates through the session and closes its buffers itself
	 * @param <T>  the task's result
	 * @return the task's result, after the session's stream has drained
	 * @throws GpuUnavailableException when memory runs out (the caller may fall back to the CPU)
	 * @throws GpuException            for any other CUDA error, naming {@code op} and the CUDA error
	 */
	public <T> T run(String op, Task<T> task) {
		resetLock.readLock().lock();
		boolean reset = false;
		GpuSession s = null;
		CUcontext theirs = null;
		running.incrementAndGet();
		try {
			if (poisoned) throw new GpuException(op + (retired ? ": another GPU was chosen meanwhile; try again"
				: ": the GPU was reset meanwhile; try again"));
			if (resetPendingOn != null) throw new GpuException(op + ": the GPU failed in " + lastFault
				+ " and is reset once the operation around this one ends; try again then");
			theirs = othersCurrent();
			cuCtxSetCurrent(context);
			CUstream st = borrowStream();
			PinnedBuffer[] staging;
			try {
				staging = borrowStaging();
			} catch (RuntimeException e) {
				streams.add(st);
				throw e;
			}
			try {
				s = new GpuSession(this, op, st, staging);
			} catch (RuntimeException | Error e) {
				streams.add(st);
				giveBackStaging(staging);
				throw e;
			}
			T r = task.run(s);
			s.finish();
			return r;
		} catch (CudaException e) {
			String code = String.valueOf(e.getMessage());
			if (BufferPool.isOutOfMemory(e))
				throw GpuUnavailableException.outOfMemory(op + ": the GPU ran out of memory", e);
			reset = isSticky(code);
			// the outer session of a nested one that faulted sees the same fault: name where it arose
			if (reset && resetPendingOn == null) lastFault = op + " (" + code + ")";
			// within another session of this thread, the reset waits for that one to end (finally)
			throw new GpuException(reset && resetLock.getReadHoldCount() > 1
				? failure(op, code, false) + "; the GPU is reset once the operation around this one ends"
				: failure(op, code, reset), e);
		} finally {
			// the read lock goes back whatever the clean-up throws: an Error there (out of memory
			// queueing a stream or a buffer back) left it held by this thread for good, and the next
			// reset or change of GPU waited for it forever, with every later session behind that
			try {
				boolean stagingBack = false;
				if (s != null && !reset) {
					try {
						try {
							s.finish();
						} catch (CudaException e) {
							// The driver reports a non-sticky error once; waiting again shows the streams
							// idle, so the held buffers, streams and staging can still go back.
							if (isSticky(String.valueOf(e.getMessage()))) throw e;
							s.finish();
						}
						s.end();
						streams.add(s.stream());
						s.release(streams::add);
						giveBackStaging(s.staging());
						stagingBack = true;
					} catch (CudaException e) {
						// A fault seen only here, after the task failed otherwise, or a non-sticky error
						// the retry saw again: the session's buffers and streams cannot be known idle, so
						// they would stay counted as in use for good. Only a reset gives them back. The
						// next get() must still say which operation failed, not that discovery failed.
						reset = true;
						if (resetPendingOn == null) lastFault = op + " (" + e.getMessage() + ")";
					} finally {
						// not back (lost with a reset context, or kept by a session that failed to end):
						// it no longer counts as in use, or later sessions would wait for it
						if (!stagingBack) loseStaging(s.staging());
					}
				} else if (s != null) {
					loseStaging(s.staging());
				}
			} finally {
				running.decrementAndGet();
				lastUse.set(System.nanoTime());
				resetLock.readLock().unlock();
				boolean nested = resetLock.getReadHoldCount() > 0;
				if (reset && nested) {
					if (resetPendingOn == null) resetPendingOn = Thread.currentThread();
				} else if (reset || (!nested && resetPendingOn == Thread.currentThread())) {
					reset();
				} else if (resetPendingOn == null) {
					scheduleIdleRelease(idleReleaseNanos());
				}
				putBack(theirs);
			}
		}
	}

	/**
	 * @return the context current on this thread when it is neither none nor ours: a script's
	 *         own JCuda context, which its next driver call expects to find current again
	 */
	private CUcontext othersCurrent() {
		CUcontext c = new CUcontext();
		cuCtxGetCurrent(c);
		return c.equals(new CUcontext()) || c.equals(context) ? null : c;
	}

	/** Makes {@code theirs} ({@link #othersCurrent}) current again, if there was one. */
	private static void putBack(CUcontext theirs) {
		if (theirs == null) return;
		try {
			cuCtxSetCurrent(theirs);
		} catch (CudaException e) {
			// destroyed meanwhile by its owner: nothing to put back
		}
	}

	/**
	 * Seconds without GPU work after which the pool's idle device blocks and the idle pinned
	 * staging pairs are freed (system property {@code fiji.cuda.idleReleaseSeconds}, 30 by default;
	 * 0 keeps them until Fiji exits). The pool may hold a quarter of the device, and other GPU
	 * tools in the same Fiji (deep-learning plug-ins, CLIJ) need that memory more than a batch
	 * job needs its next allocation 30 s later to be quick.
	 */
	static long idleReleaseNanos() {
		try {
			return (long) (1e9 * Math.max(0, Double.parseDouble(System.getProperty("fiji.cuda.idleReleaseSeconds", "30"))));
		} catch (NumberFormatException e) {
			return 30_000_000_000L;
		}
	}

	/** One daemon thread for every device's idle release; made on first use. */
	private static final class IdleTimer {
		static final java.util.concurrent.ScheduledExecutorService TIMER =
			java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
				Thread t = new Thread(r, "Fiji CUDA idle release");
				t.setDaemon(true);
				return t;
			});
	}

	/** Queues a look at the idle memory after the delay, unless one is queued for as soon or sooner. */
	private void scheduleIdleRelease(long delayNanos) {
		if (delayNanos <= 0 || !holdsIdleMemory()) return;
		long due = System.nanoTime() + delayNanos;
		synchronized (releaseLock) {
			// a shorter idle time set meanwhile must not wait for the look queued under the longer one
			if (release != null && !release.isDone() && releaseDue - due <= 0) return;
			if (release != null) release.cancel(false);
			releaseDue = due;
			release = IdleTimer.TIMER.schedule(this::releaseIfIdle, delayNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
		}
	}

	private boolean holdsIdleMemory() {
		return pool.cachedBytes() > 0 || !stagings.isEmpty();
	}

	/** Frees the cached device blocks and staging pairs if no operation ran for the idle time; else looks again later. */
	private void releaseIfIdle() {
		synchronized (releaseLock) {
			release = null;
		}
		long wait = idleReleaseNanos(), idle = System.nanoTime() - lastUse.get();
		if (running.get() > 0 || idle < wait) {
			scheduleIdleRelease(running.get() > 0 ? wait : wait - idle);
			return;
		}
		// the read lock keeps a reset or a change of GPU out; what is freed is idle, so operations
		// that start meanwhile simply allocate again
		if (!resetLock.readLock().tryLock()) {
			scheduleIdleRelease(wait);
			return;
		}
		try {
			if (poisoned) return;
			cuCtxSetCurrent(context);
			pool.trim();
			for (PinnedBuffer[] p; (p = stagings.poll()) != null;)
				for (PinnedBuffer b : p)
					b.free();
		} catch (CudaException e) {
			// kept until the next chance; nothing is lost
		} finally {
			resetLock.readLock().unlock();
		}
	}

	/** For tests: device bytes the pool keeps idle, and whether staging pairs are kept. */
	long idleBytes() {
		return pool.cachedBytes() + (stagings.isEmpty() ? 0 : 1);
	}

	/** Work run by {@link Gpu#run}. */
	@FunctionalInterface
	public interface Task<T> {
		/**
		 * @param s the session: stream, staging, allocation and launches
		 * @return the result
		 */
		T run(GpuSession s);
	}

	/**
	 * @param op    the operation
	 * @param code  the CUDA error, e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"
	 * @param reset whether the GPU was reset after it
	 * @return what a user reads: what happened in plain words, the CUDA error in parentheses
	 *         (for a bug report), and whether the GPU was reset
	 */
	static String failure(String op, String code, boolean reset) {
		String what;
		if (code.contains("LAUNCH_TIMEOUT")) what = "the GPU took too long, and the display driver stopped it";
		else if (code.contains("ECC_UNCORRECTABLE")) what = "the GPU reported a memory error";
		else if (code.contains("CONTEXT_IS_DESTROYED")) what = "the GPU was reset meanwhile";
		else if (isSticky(code)) what = "a computation on the GPU failed";
		else what = "the GPU reported an error";
		return op + ": " + what + " (" + code + ")" + (reset ? "; the GPU was reset" : "");
	}

	/** Errors after which the CUDA context can no longer be used. */
	static boolean isSticky(String code) {
		return code.contains("ILLEGAL_ADDRESS") || code.contains("LAUNCH_FAILED") || code.contains("ILLEGAL_INSTRUCTION")
			|| code.contains("MISALIGNED_ADDRESS") || code.contains("INVALID_ADDRESS_SPACE")
			|| code.contains("INVALID_PC") || code.contains("HARDWARE_STACK_ERROR") || code.contains("ASSERT")
			|| code.contains("CONTEXT_IS_DESTROYED") || code.contains("LAUNCH_TIMEOUT")
			// the driver keeps reporting an uncorrectable memory error to the context that saw it
			|| code.contains("ECC_UNCORRECTABLE");
	}

	private void reset() {
		resetLock.writeLock().lock();
		try {
			resetPendingOn = null;
			if (poisoned) return;
			pool.abandon();
			modules.clear();
			functions.clear();
			streams.clear();
			// their memory goes with the context
			for (PinnedBuffer[] p; (p = stagings.poll()) != null;)
				for (PinnedBuffer b : p)
					b.forget();
			// Reset, drop our reference so the poisoned context is destroyed, and detach it from
			// this thread: until then any driver call here reports the old fault again. The next
			// get() retains a fresh primary context; other threads make it current in run().
			try {
				cuDevicePrimaryCtxReset(device);
				cuDevicePrimaryCtxRelease(device);
				cuCtxSetCurrent(new CUcontext());
			} catch (CudaException e) {
				// nothing more can be done; the next get() reports the GPU unusable
			}
			// only now: a get() that saw it poisoned earlier opened the primary context again,
			// which the reset above then destroyed under it (a run meanwhile waits for the lock,
			// then finds it poisoned and says the GPU was reset)
			poisoned = true;
		} finally {
			resetLock.writeLock().unlock();
		}
	}

	BufferPool pool() {
		return pool;
	}

	/**
	 * @return the device address of a module-scope variable ({@code __constant__} or
	 *         {@code __device__}) and its size in bytes, from the cached module
	 */
	long[] global(String module, String name, jcuda.driver.CUdeviceptr ptr) {
		CUmodule m = modules.computeIfAbsent(module, this::loadModule);
		long[] size = new long[1];
		try {
			cuModuleGetGlobal(ptr, size, m, name);
		} catch (CudaException e) {
			rethrowFault(e);
			throw new GpuException("variable " + name + " is missing from " + module + ".fatbin (" + e.getMessage() + ")",
				e);
		}
		return size;
	}

	/**
	 * Lets a fault that another thread's kernel left in the context go on to {@link #run} as it
	 * is, where the operation is named and the context reset: a module loaded just then failed
	 * with it, and the user read that the kernels do not load with this driver, or that a
	 * kernel was missing from the binary.
	 */
	private static void rethrowFault(CudaException e) {
		if (isSticky(String.valueOf(e.getMessage()))) throw e;
	}

	CUfunction function(String module, String name) {
		String key = module + "/" + name;
		CUfunction f = functions.get(key);
		if (f != null) return f;
		CUmodule m = modules.computeIfAbsent(module, this::loadModule);
		f = new CUfunction();
		try {
			cuModuleGetFunction(f, m, name);
		} catch (CudaException e) {
			rethrowFault(e);
			throw new GpuException("kernel " + name + " is missing from " + module + ".fatbin (" + e.getMessage() + ")",
				e);
		}
		// Tiles above 48 KB need the opt-in limit granted per function; static shared memory
		// counts against the same limit.
		int[] staticShared = new int[1];
		cuFuncGetAttribute(staticShared, CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
		cuFuncSetAttribute(f, CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			info.maxSharedPerBlockOptin - staticShared[0]);
		functions.put(key, f);
		return f;
	}

	private static byte[] moduleImage(String module) {
		String res = "/fiji/cuda/kernels/" + module + ".fatbin";
		try (InputStream in = Gpu.class.getResourceAsStream(res)) {
			if (in == null) throw new GpuUnavailableException("the kernel binary " + res + " is missing from the jar");
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			in.transferTo(out);
			return out.toByteArray();
		} catch (IOException e) {
			throw new GpuUnavailableException("the kernel binary " + res + " could not be read", e);
		}
	}

	private CUmodule loadModule(String module) {
		byte[] image = moduleImage(module);
		CUmodule m = new CUmodule();
		try {
			cuModuleLoadData(m, image);
		} catch (CudaException e) {
			rethrowFault(e);
			throw new GpuUnavailableException(moduleLoadFailure(info.name, module, e), e);
		}
		return m;
	}

	/**
	 * @return why a module did not load: a device whose memory is full loads no module either,
	 *         and blaming the driver or the shipped binary for that would send the user the wrong way
	 */
	static String moduleLoadFailure(String device, String module, CudaException e) {
		if (BufferPool.isOutOfMemory(e))
			return "the GPU memory of " + device + " is too full to load the " + module + " kernels (" + e.getMessage() + ")";
		return "the shipped kernels do not load on " + device + " with this driver (" + e.getMessage() + ")";
	}

	/**
	 * Loads a kernel module afresh (bypassing the cache) and unloads it again, for benchmarks:
	 * a fatbin with SASS for the device loads in well under a millisecond, a PTX-only one must
	 * be compiled by the driver first.
	 *
	 * @param module kernel family name
	 * @return milliseconds the load took
	 */
	public double moduleLoadMillis(String module) {
		byte[] image = moduleImage(module);
		return run("Module load", s -> {
			CUmodule m = new CUmodule();
			long t0 = System.nanoTime();
			cuModuleLoadData(m, image);
			double ms = (System.nanoTime() - t0) / 1e6;
			cuModuleUnload(m);
			return ms;
		});
	}

	CUstream borrowStream() {
		CUstream s = streams.poll();
		if (s != null) return s;
		s = new CUstream();
		cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING);
		return s;
	}

	private PinnedBuffer[] borrowStaging() {
		PinnedBuffer[] p;
		synchronized (stagings) {
			p = stagings.poll();
			if (p == null && stagingsInUse >= MAX_CACHED_STAGING) {
				long end = System.nanoTime() + stagingWaitMillis * 1_000_000L;
				try {
					for (long left; (p = stagings.poll()) == null && (left = end - System.nanoTime()) > 0;)
						stagings.wait(Math.max(1, left / 1_000_000L));
				} catch (InterruptedException e) {
					Thread.currentThread().interrupt(); // the caller pins a pair of its own instead
				}
			}
			stagingsInUse++;
		}
		if (p != null) return p;
		PinnedBuffer a = null;
		try {
			a = new PinnedBuffer(STAGING_BYTES);
			return new PinnedBuffer[] { a, new PinnedBuffer(STAGING_BYTES) };
		} catch (CudaException | IllegalArgumentException e) {
			if (a != null) a.free();
			dropStaging();
			// host memory, not the device's: say so, and let AUTO go on on the CPU
			throw new GpuUnavailableException("the driver could not pin " + (2 * STAGING_BYTES >> 20)
				+ " MiB of host memory for the transfers (" + e.getMessage() + ")", e);
		}
	}

	/** A session's staging pair back: kept for the next session, or freed beyond the cache. */
	private void giveBackStaging(PinnedBuffer[] p) {
		boolean keep;
		synchronized (stagings) {
			stagingsInUse--;
			keep = stagings.size() < MAX_CACHED_STAGING;
			if (keep) {
				stagings.add(p);
				stagings.notify();
			}
		}
		if (!keep)
			for (PinnedBuffer b : p)
				b.free();
	}

	/** A pair that will not come back (its pinning failed, or the context went with a fault). */
	private void dropStaging() {
		synchronized (stagings) {
			stagingsInUse--;
		}
	}

	/** A session's pair that goes with the context, in the reset that always follows. */
	private void loseStaging(PinnedBuffer[] pair) {
		dropStaging();
		for (PinnedBuffer b : pair)
			b.forget();
	}

	/**
	 * For tests: whether a reset could take the write lock within {@code millis}, which it gets
	 * only once no session holds the read lock.
	 */
	boolean resetPossibleWithin(long millis) throws InterruptedException {
		if (!resetLock.writeLock().tryLock(millis, java.util.concurrent.TimeUnit.MILLISECONDS)) return false;
		resetLock.writeLock().unlock();
		return true;
	}

	/** For tests: staging pairs held by sessions now. */
	int stagingsInUse() {
		synchronized (stagings) {
			return stagingsInUse;
		}
	}

	/**
	 * @return {free, total} device memory in bytes, as the driver sees it now
	 */
	public long[] memoryInfo() {
		return run("Memory info", s -> {
			long[] free = new long[1], total = new long[1];
			cuMemGetInfo(free, total);
			return new long[] { free[0], total[0] };
		});
	}

	/** @return device bytes handed out by the pool and not yet closed */
	public long bytesInUse() {
		return pool.inUseBytes();
	}

	/**
	 * @return pinned host bytes held now, over every session: the cached staging pairs and any
	 *         buffer not yet closed
	 */
	public long pinnedBytes() {
		return PinnedBuffer.liveBytes();
	}

	/** Frees the pool's idle device memory (for leak checks and before large allocations elsewhere). */
	public void trimPool() {
		run("Trim", s -> {
			pool.trim();
			return null;
		});
	}

	/**
	 * @return human-readable lines: the driver, every CUDA device, the setting, and the path
	 *         operations take now; never throws
	 */
	public static List<String> describe() {
		List<String> lines = new ArrayList<>();
		lines.add(GpuSettings.describe());
		try {
			initDriver();
			int[] v = new int[1];
			cuDriverGetVersion(v);
			String release = nvidiaRelease();
			lines.add("Driver: CUDA " + versionText(v[0]) + (release != null ? " (NVIDIA " + release + ")" : "")
				+ (v[0] < requiredDriver ? " (too old: needs " + versionText(requiredDriver) + ", driver R580+)" : ""));
			int[] count = new int[1];
			cuDeviceGetCount(count);
			for (int i = 0; i < count[0]; i++)
				lines.add(query(i).toString());
		} catch (GpuException | CudaException e) {
			lines.add("CUDA: " + e.getMessage());
		}
		try {
			Gpu g = get();
			long[] m = g.memoryInfo();
			lines.add(String.format(java.util.Locale.ROOT,
				"Operations run on: GPU %d (%s), %.1f of %.1f GiB free", g.info.index, g.info.name,
				m[0] / (double) (1L << 30), m[1] / (double) (1L << 30)));
		} catch (GpuException e) {
			lines.add("Operations run on: the CPU, because " + e.getMessage());
		}
		return lines;
	}

	/**
	 * Runs the runtime's test kernel on a few thousand values and checks every result.
	 *
	 * @return one line starting "Self-check passed", "Self-check failed", or "Self-check not run"
	 *         when the GPU is not used (the CPU chosen, no driver...), which says nothing against
	 *         the GPU; never throws
	 */
	public static String selfCheck() {
		Gpu g;
		try {
			g = get();
		} catch (GpuException e) {
			return "Self-check not run: " + e.getMessage();
		}
		try {
			return SelfCheck.run(g);
		} catch (GpuException | CudaException e) {
			return "Self-check failed: " + e.getMessage();
		}
	}

	/** For tests: pretend the driver must be at least this version (CUDA version times 1000). */
	static void requireDriverForTest(int version) {
		synchronized (LOCK) {
			requiredDriver = version;
			current = null;
		}
	}
}
