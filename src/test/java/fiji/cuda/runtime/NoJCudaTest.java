package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;

/**
 * With only the plug-in jar installed (no jcuda jars, e.g. copied alone into plugins/), every
 * operation must still run, on the CPU, and say why; it once failed with NoClassDefFoundError,
 * which the commands did not catch, and left the image unchanged without a word.
 */
class NoJCudaTest {

	/** Runs in a JVM whose class path lacks JCuda; prints what happened. */
	public static void main(String[] args) {
		float[] px = new float[25];
		px[12] = 100;
		OpReport r = GaussianBlur.blur2D(Planes.wrap(5, 5, px), 1, 1, null, ExecutionOptions.defaults());
		System.out.println("ran=" + r.ranOn() + " changed=" + (px[12] < 100));
		System.out.println("why=" + r.fallbackReason());
		System.out.println("available=" + GpuAccess.isAvailable());
		System.out.println("describe=" + String.join(" | ", GpuAccess.describe()));
		System.out.println("selfcheck=" + GpuAccess.selfCheck());
	}

	@Test
	void withoutJCudaOperationsRunOnTheCpuAndSayWhy() throws Exception {
		List<String> cp = new ArrayList<>();
		for (String e : fiji.cuda.TestClassPath.get().split(File.pathSeparator))
			if (!new File(e).getName().toLowerCase().contains("jcuda")) cp.add(e);
		String out = runOnTheCpu(String.join(File.pathSeparator, cp), null, "JCuda is not installed");
		assertTrue(!out.contains("NoClassDefFoundError"), out);
		// a plain ImageJ has no Fiji.app/jars: its users were sent to the wrong folder
		assertTrue(out.contains("Fiji.app/jars") && out.contains("ImageJ/plugins/jars"), out);
	}

	@Test
	void withoutNativesForThePlatformOperationsRunOnTheCpuAndSayWhy() throws Exception {
		// macOS: the jcuda jar is there but no natives for it, so JCudaDriver's class fails to
		// initialize; every later use of it is a NoClassDefFoundError, which main meets after
		// the blur (isAvailable, describe, selfCheck)
		List<String> cp = new ArrayList<>();
		for (String e : fiji.cuda.TestClassPath.get().split(File.pathSeparator))
			if (!new File(e).getName().toLowerCase().startsWith("jcuda-natives")) cp.add(e);
		// and it says which jar is missing: "no CUDA driver found" sent users to update a working driver
		String out = runOnTheCpu(String.join(File.pathSeparator, cp), null, "JCuda's native library for this platform "
			+ "is missing (jcuda-natives-12.6.0-linux-x86_64.jar belongs next to jcuda-12.6.0.jar, in Fiji.app/jars or "
			+ "ImageJ/plugins/jars; see the README)");
		// the jar is installed: a NoClassDefFoundError taken for a missing jar would say it is not
		// and a second call into the failed class must not name it ("Could not initialize class ...")
		assertTrue(!out.contains("JCuda is not installed") && !out.contains("Could not initialize")
			&& !out.contains("Error:") && !out.contains("\tat "), out);
	}

	/**
	 * Runs {@link #main} in a JVM of its own and checks that the blur ran on the CPU and that
	 * nothing reports a GPU.
	 *
	 * @param env a variable to set, "NAME=value", or null
	 * @return what it printed
	 */
	static String runOnTheCpu(String classPath, String env, String why) throws Exception {
		// a temporary folder of its own: JCuda loads the library an earlier JVM unpacked into the
		// shared one, natives jar or not
		String tmp = java.nio.file.Files.createTempDirectory("nojcuda").toString();
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		ProcessBuilder pb = new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmp, "-cp", classPath,
			NoJCudaTest.class.getName()).redirectErrorStream(true);
		if (env != null) pb.environment().put(env.substring(0, env.indexOf('=')), env.substring(env.indexOf('=') + 1));
		Process p = pb.start();
		assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the JVM did not finish");
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertEquals(0, p.exitValue(), out);
		assertTrue(out.contains("ran=CPU changed=true"), out);
		assertTrue(out.contains("why=" + why), out);
		assertTrue(out.contains("available=false"), out);
		// the self-check did not fail: it could not run
		assertTrue(out.contains("selfcheck=Self-check not run: " + why), out);
		// without JCuda the setting went unsaid
		assertTrue(out.contains("describe=Setting: Automatic (chosen in GPU Info) | "), out);
		return out;
	}

	@Test
	void aPlatformTheInstallHasNoNativesForIsNamedAndNoJarIsAskedFor() {
		// ARM Linux (Grace Hopper, Jetson) was told to copy a natives jar the install does not
		// ship, and macOS read "no CUDA driver found ()"
		Throwable arm = new UnsatisfiedLinkError("Error while loading native library \"JCudaDriver-12.6.0-linux-aarch64\"");
		arm.initCause(new java.io.IOException("No resource found with name '/lib/libJCudaDriver-12.6.0-linux-aarch64.so'"));
		assertEquals("the GPU path is not available on Linux (aarch64): this plug-in ships JCuda for Linux and Windows on "
			+ "x86-64 only", Gpu.noDriverReason(arm, "Linux", "aarch64"));
		Throwable mac = new ExceptionInInitializerError(new IllegalStateException("This CUDA version is not available on MacOS"));
		assertEquals("the GPU path is not available on Mac OS X (aarch64): this plug-in ships JCuda for Linux and Windows "
			+ "on x86-64 only", Gpu.noDriverReason(mac, "Mac OS X", "aarch64"));
		// a shipped platform whose jar is missing is still sent for it
		Throwable x86 = new UnsatisfiedLinkError("Error while loading native library \"JCudaDriver-12.6.0-linux-x86_64\"");
		x86.initCause(new java.io.IOException("No resource found with name '/lib/libJCudaDriver-12.6.0-linux-x86_64.so'"));
		assertTrue(Gpu.noDriverReason(x86, "Linux", "amd64").startsWith("JCuda's native library for this platform is "
			+ "missing (jcuda-natives-12.6.0-linux-x86_64.jar belongs next to"));
		// and a failure without a message of its own gives its cause's
		Throwable noDriver = new ExceptionInInitializerError(new UnsatisfiedLinkError("libcuda.so.1: cannot open shared "
			+ "object file"));
		assertEquals("no CUDA driver found (libcuda.so.1: cannot open shared object file)",
			Gpu.noDriverReason(noDriver, "Linux", "amd64"));
	}
}
