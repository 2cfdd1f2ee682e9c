package fiji.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The README's "one name per operation": from each menu entry of plugins.config, say "GPU Box
 * Statistics...", the same name runs through the ImageJ 1 plug-in ({@code BoxStatisticsPlugin},
 * whose {@code COMMAND} is "GPU Box Statistics"), the SciJava command
 * ({@code BoxStatisticsCommand}, labelled "GPU Box Statistics"), the operation (a {@code NAME}
 * of "Box Statistics"), the kernel source and binary ({@code box_statistics}), the tests
 * ({@code BoxStatistics*Test}), among them the GPU test {@code BoxStatisticsGpuTest} tagged
 * "gpu" as a class, and the benchmark {@code BoxStatisticsBenchmark} with a {@code main}. A
 * source scan, like {@link LayeringTest}, so that no class is loaded.
 */
class NamingTest {

	private static final Path MAIN = Paths.get("src/main/java/fiji/cuda");
	private static final Path TESTS = Paths.get("src/test/java/fiji/cuda");
	private static final Pattern ENTRY = Pattern.compile("^Plugins>GPU, \"(GPU [^\"]+)\\.\\.\\.\", fiji\\.cuda\\.ij\\.(\\w+)$");

	/**
	 * GPU Info is about the device, not an operation: a plug-in and a SciJava command, but no
	 * operation class, the runtime's kernels, and no GPU test or benchmark of its own.
	 */
	private static final String INFO = "GPU Info";

	/** Kernels shared with another operation: the 3D blur runs the 2D blur's kernels along each axis. */
	private static final Map<String, String> KERNEL = Map.of("Gaussian Blur 3D", "gaussian_blur", INFO, "runtime");

	/**
	 * Operations whose GPU test and benchmark are another's: the 3D blur is the 2D blur along
	 * each axis, and GaussianBlurGpuTest and GaussianBlurBenchmark have its cases and rows.
	 */
	private static final Map<String, String> MEASURED_AS = Map.of("Gaussian Blur 3D", "GaussianBlur");

	@Test
	void everyMenuEntryKeepsItsNameThroughEveryLayer() throws IOException {
		String main = readAll(MAIN);
		List<Path> testFiles;
		try (Stream<Path> s = Files.walk(TESTS)) {
			testFiles = s.filter(Files::isRegularFile).collect(Collectors.toList());
		}
		List<String> tests = testFiles.stream().map(p -> p.getFileName().toString()).collect(Collectors.toList());
		List<String> entries = Files.readAllLines(Paths.get("plugins.config"), StandardCharsets.UTF_8).stream()
			.filter(l -> !l.startsWith("#") && !l.trim().isEmpty()).collect(Collectors.toList());
		assertEquals(8, entries.size(), "plugins.config: " + entries);
		List<String> wrong = new ArrayList<>();
		for (String entry : entries) {
			Matcher m = ENTRY.matcher(entry.trim());
			if (!m.matches()) {
				wrong.add(entry + ": not of the form Plugins>GPU, \"GPU Name...\", fiji.cuda.ij.NamePlugin");
				continue;
			}
			String command = m.group(1), op = command.equals(INFO) ? command : command.substring("GPU ".length());
			String camel = command.equals(INFO) ? "GpuInfo" : op.replace(" ", "");
			String snake = KERNEL.getOrDefault(op, op.toLowerCase(Locale.ROOT).replace(' ', '_'));
			if (!m.group(2).equals(camel + "Plugin")) wrong.add(command + ": the plug-in is " + m.group(2));
			Path plugin = MAIN.resolve("ij/" + camel + "Plugin.java");
			if (!Files.exists(plugin) || !read(plugin).contains("COMMAND = \"" + command + "\";"))
				wrong.add(command + ": " + plugin + " has no COMMAND = \"" + command + "\"");
			if (!Files.exists(Paths.get("kernels/" + snake + ".cu"))
				|| !Files.exists(Paths.get("src/main/resources/fiji/cuda/kernels/" + snake + ".fatbin"))
				|| !main.contains("\"" + snake + "\""))
				wrong.add(command + ": kernels/" + snake + ".cu, its fatbin, or the module name \"" + snake
					+ "\" in the code is missing");
			if (tests.stream().noneMatch(t -> t.startsWith(camel) && t.endsWith("Test.java")))
				wrong.add(command + ": no test class " + camel + "*Test");
			Path scijava = MAIN.resolve("command/" + camel + "Command.java");
			if (!Files.exists(scijava) || !read(scijava).contains("label = \"" + command + "\")"))
				wrong.add(command + ": " + scijava + " is missing or not labelled \"" + command + "\"");
			if (command.equals(INFO)) continue;
			if (!Pattern.compile("static final String NAME\\w* = \"" + Pattern.quote(op) + "\";").matcher(main).find())
				wrong.add(command + ": no operation class has NAME = \"" + op + "\"");
			String measured = MEASURED_AS.getOrDefault(op, camel);
			String gpuTest = measured + "GpuTest", benchmark = measured + "Benchmark";
			// class-level: a tag on a method would leave the class's other tests in the CPU-only runs
			Pattern tagged = Pattern.compile("@Tag\\(\"gpu\"\\)\\s*(@\\w+(\\([^)]*\\))?\\s*)*"
				+ "(public\\s+|final\\s+|abstract\\s+)*class\\s+" + gpuTest + "\\b");
			if (!anyFile(testFiles, gpuTest + ".java", text -> tagged.matcher(text).find()))
				wrong.add(command + ": no test class " + gpuTest + " tagged @Tag(\"gpu\") on the class");
			if (!anyFile(testFiles, benchmark + ".java", text -> text.contains("public static void main")))
				wrong.add(command + ": no benchmark " + benchmark + " with a public static void main");
		}
		assertEquals(List.of(), wrong);
	}

	/** @return whether a file of that name among {@code files} has text that {@code ok} accepts */
	private static boolean anyFile(List<Path> files, String name, Predicate<String> ok) throws IOException {
		for (Path f : files)
			if (f.getFileName().toString().equals(name) && ok.test(read(f))) return true;
		return false;
	}

	private static String readAll(Path dir) throws IOException {
		try (Stream<Path> s = Files.walk(dir)) {
			List<Path> files = s.filter(p -> p.toString().endsWith(".java")).collect(Collectors.toList());
			StringBuilder b = new StringBuilder();
			for (Path f : files)
				b.append(read(f)).append('\n');
			return b.toString();
		}
	}

	private static String read(Path f) throws IOException {
		return new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
	}
}
