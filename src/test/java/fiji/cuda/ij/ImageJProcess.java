package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import ij.IJ;
import ij.ImagePlus;
import ij.io.FileSaver;

/**
 * Runs real ImageJ 1 ({@code ij.ImageJ -batch}) under Xvfb in a separate JVM, with a fresh
 * ImageJ home whose plugins/Fiji_CUDA.jar is built here from target/classes (the test phase
 * comes before {@code package}). The child's classpath is the test classpath's jars only, so
 * the plug-ins are found through the jar's plugins.config, as in a user's ImageJ.
 */
final class ImageJProcess {

	/** What one run printed, and how it ended. */
	static final class Result {
		final int exitCode;
		final String output;
		final double seconds;

		Result(int exitCode, String output, double seconds) {
			this.exitCode = exitCode;
			this.output = output;
			this.seconds = seconds;
		}

		@Override
		public String toString() {
			return "exit " + exitCode + " after " + seconds + " s, output:\n" + output;
		}
	}

	/** ImageJ's own limit (timeout) and ours, in seconds; a hang is an error dialog. */
	static final int TIMEOUT_S = 120;

	final Path home;

	private ImageJProcess(Path home) {
		this.home = home;
	}

	/**
	 * Skips (or, when CI=true, fails) without xvfb-run, then lays out a new ImageJ home.
	 *
	 * @param dir an empty temporary folder
	 */
	static ImageJProcess create(Path dir) throws IOException {
		boolean hasXvfb = Stream.of(System.getenv("PATH").split(File.pathSeparator))
			.anyMatch(p -> Files.isExecutable(Paths.get(p, "xvfb-run")));
		if (!hasXvfb) {
			if ("true".equals(System.getenv("CI")))
				fail("xvfb-run is missing: install the Debian package xvfb (.ci/run does)");
			assumeTrue(false, "xvfb-run is missing; apt-get install xvfb to run the ImageJ macro tests");
		}
		Path home = dir.resolve("ImageJ");
		Files.createDirectories(home.resolve("plugins"));
		Files.createDirectories(dir.resolve("user-home")); // keeps IJ_Prefs.txt away from the real home
		buildPluginJar(home.resolve("plugins").resolve("Fiji_CUDA.jar"));
		return new ImageJProcess(home);
	}

	private static void buildPluginJar(Path jar) throws IOException {
		// target/classes under Maven; wherever the main classes are elsewhere (the GPU machine)
		Path classes;
		try {
			classes = Paths.get(IjBridge.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		} catch (java.net.URISyntaxException e) {
			throw new IOException(e);
		}
		assertTrue(Files.isRegularFile(classes.resolve("plugins.config")), classes + "/plugins.config is missing");
		try (OutputStream os = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(os);
			Stream<Path> files = Files.walk(classes))
		{
			for (Path f : files.filter(Files::isRegularFile).sorted().collect(Collectors.toList())) {
				out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
				Files.copy(f, out);
				out.closeEntry();
			}
		}
	}

	/** @return the test classpath's jars (ij, scijava, imglib2, jcuda...), without class folders */
	private static String childClasspath() {
		return Stream.of(fiji.cuda.TestClassPath.get().split(File.pathSeparator))
			.filter(p -> p.endsWith(".jar") && !p.contains("surefire") && !p.contains("junit-console"))
			.collect(Collectors.joining(File.pathSeparator));
	}

	/**
	 * Runs a macro file in batch mode and waits for ImageJ to exit.
	 *
	 * @param macro    the .ijm file
	 * @param argument getArgument()'s value, or null
	 * @param jvmArgs  extra JVM options, e.g. -Dfiji.cuda.device=cpu
	 */
	Result run(Path macro, String argument, String... jvmArgs) throws IOException, InterruptedException {
		return run(childClasspath(), macro, argument, jvmArgs);
	}

	/**
	 * Runs a macro in a plain ImageJ 1 installed as the README says: only ij.jar on the class
	 * path, and the JCuda jars copied into plugins/jars/ next to the plug-in; no SciJava or
	 * ImgLib2 anywhere.
	 */
	Result runPlainImageJ1(Path macro, String argument) throws IOException, InterruptedException {
		List<String> jars = List.of(childClasspath().split(File.pathSeparator));
		String ij = jars.stream().filter(p -> Paths.get(p).getFileName().toString().matches("ij-[0-9.a-z]+\\.jar"))
			.findFirst().orElseThrow(() -> new AssertionError("no ij jar on the test classpath"));
		Path plugJars = Files.createDirectories(home.resolve("plugins").resolve("jars"));
		int copied = 0;
		for (String p : jars) {
			Path f = Paths.get(p);
			if (f.getFileName().toString().startsWith("jcuda-")) {
				Files.copy(f, plugJars.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
				copied++;
			}
		}
		assertTrue(copied >= 2, "the jcuda jars are missing from the test classpath");
		return run(ij, macro, argument);
	}

	private Result run(String classpath, Path macro, String argument, String... jvmArgs)
		throws IOException, InterruptedException
	{
		List<String> cmd = new ArrayList<>(List.of("xvfb-run", "-a", "timeout", String.valueOf(TIMEOUT_S),
			Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
			"-Duser.home=" + home.getParent().resolve("user-home")));
		cmd.addAll(List.of(jvmArgs));
		cmd.addAll(List.of("-cp", classpath, "ij.ImageJ", "-ijpath", home.toString(), "-batch",
			macro.toAbsolutePath().toString()));
		if (argument != null) cmd.add(argument);
		Path log = Files.createTempFile(home.getParent(), "imagej", ".log");
		// in the temporary folder: a relative path in a macro's argument then lands there, not in the checkout
		ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.getParent().toFile()).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
		pb.environment().remove("DISPLAY");
		long t0 = System.nanoTime();
		Process p = pb.start();
		if (!p.waitFor(TIMEOUT_S + 30, TimeUnit.SECONDS)) {
			p.descendants().forEach(ProcessHandle::destroyForcibly);
			p.destroyForcibly();
			fail("ImageJ did not exit; output:\n" + Files.readString(log, StandardCharsets.UTF_8));
		}
		Result r = new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8),
			Math.round((System.nanoTime() - t0) / 1e7) / 100.0);
		// timeout(1) exits 124 when ImageJ hung, typically on a modal dialog nobody can close
		assertTrue(r.exitCode != 124, () -> "ImageJ hung (a dialog?) until killed: " + r);
		return r;
	}

	/** Writes the image as a TIFF (a stack as a multi-image TIFF) for a child ImageJ to open. */
	static Path save(ImagePlus imp, Path file) {
		FileSaver fs = new FileSaver(imp);
		assertTrue(imp.getStackSize() > 1 ? fs.saveAsTiffStack(file.toString()) : fs.saveAsTiff(file.toString()),
			"could not write " + file);
		return file;
	}

	/** Opens what a child ImageJ wrote, failing the test when it wrote nothing. */
	static ImagePlus open(Path file) {
		ImagePlus imp = IJ.openImage(file.toString());
		assertNotNull(imp, "ImageJ did not write " + file);
		return imp;
	}

	/** @return a macro in the repository's macros/ folder */
	static Path macro(String name) {
		Path p = Paths.get("macros", name).toAbsolutePath();
		assertTrue(Files.isRegularFile(p), "missing " + p);
		return p;
	}
}
