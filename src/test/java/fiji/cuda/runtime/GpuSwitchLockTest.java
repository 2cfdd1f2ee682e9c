package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.junit.jupiter.api.Test;

import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;

/**
 * Choosing another GPU while an operation runs (no GPU needed): the thread that opens the new
 * device retires the old one, which waits for the old one's sessions while it holds the
 * device lock. A thread inside such a session that then asks for the GPU, or for the device
 * count, must not wait for that lock: neither thread could go on. Here the test thread holds
 * the lock, as the retiring thread would, and a worker holds a session's read lock.
 */
class GpuSwitchLockTest {

	private static Object deviceLock() throws ReflectiveOperationException {
		Field f = Gpu.class.getDeclaredField("LOCK");
		f.setAccessible(true);
		return f.get(null);
	}

	private static Field current() throws ReflectiveOperationException {
		Field f = Gpu.class.getDeclaredField("current");
		f.setAccessible(true);
		return f;
	}

	/** A device object made without the driver: no method here reaches it. */
	private static Gpu fakeGpu(String choice) throws ReflectiveOperationException {
		Constructor<Gpu> c = Gpu.class.getDeclaredConstructor(String.class, DeviceInfo.class, CUdevice.class,
			CUcontext.class);
		c.setAccessible(true);
		return c.newInstance(choice, new DeviceInfo(0, "Fake GPU", 9, 0, 1L << 30, 1, 1 << 16), new CUdevice(),
			new CUcontext());
	}

	private static ReentrantReadWriteLock resetLock(Gpu g) throws ReflectiveOperationException {
		Field f = Gpu.class.getDeclaredField("resetLock");
		f.setAccessible(true);
		return (ReentrantReadWriteLock) f.get(g);
	}

	/** @return what {@code call} gave inside a session of {@code g}, or "blocked" when it waited for the device lock */
	private static String insideASession(Gpu g, java.util.concurrent.Callable<String> call) throws Exception {
		ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
			Thread t = new Thread(r, "session thread");
			t.setDaemon(true);
			return t;
		});
		try {
			Future<String> f;
			synchronized (deviceLock()) {
				f = ex.submit(() -> {
					resetLock(g).readLock().lock();
					try {
						return call.call();
					} finally {
						resetLock(g).readLock().unlock();
					}
				});
				try {
					return f.get(5, TimeUnit.SECONDS);
				} catch (TimeoutException e) {
					return "blocked";
				}
			}
		} finally {
			ex.shutdown();
		}
	}

	@Test
	void aThreadInsideASessionThatAsksForAnotherGpuIsRefusedWithoutWaitingForTheRetire() throws Exception {
		String before = GpuSettings.deviceChoice();
		Field cur = current();
		Object was = cur.get(null);
		Gpu g = fakeGpu("auto");
		cur.set(null, g);
		try {
			GpuSettings.setDeviceChoice("1");
			String r = insideASession(g, () -> {
				try {
					Gpu.get();
					return "returned";
				} catch (GpuException e) {
					return e.getMessage();
				}
			});
			assertFalse(r.equals("blocked"), "waited for the device lock that the retiring thread holds while it waits "
				+ "for this session: neither can go on");
			assertTrue(r.contains("another GPU was chosen while an operation on Fake GPU runs"), r);
		} finally {
			cur.set(null, was);
			GpuSettings.setDeviceChoice(before);
		}
	}

	@Test
	void aThreadInsideASessionThatCountsTheDevicesDoesNotWaitForTheRetire() throws Exception {
		Gpu g = fakeGpu("auto");
		String r = insideASession(g, () -> String.valueOf(Gpu.deviceCount()));
		assertFalse(r.equals("blocked"), "GPU Info's device count waited for the device lock that the retiring thread "
			+ "holds while it waits for this session");
	}
}
