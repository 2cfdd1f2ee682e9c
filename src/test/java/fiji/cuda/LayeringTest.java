package fiji.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The README's layering: only the ImageJ 1 bridge ({@code fiji.cuda.ij}) and the SciJava
 * commands ({@code fiji.cuda.command}) may use ImageJ or SciJava, so that the runtime, the
 * operations and the demo run (and load) without either.
 */
class LayeringTest {

	private static final Path SOURCES = Paths.get("src/main/java/fiji/cuda");

	// an import, or a fully qualified name in code, of ij.* or org.scijava.*; "fiji.cuda.ij" is neither
	private static final Pattern USE = Pattern.compile("^\\s*import\\s+(static\\s+)?(ij|org\\.scijava)\\."
		+ "|(?<![\\w.])(ij\\.[a-zA-Z]+[.(]|org\\.scijava\\.)");

	@Test
	void onlyTheBridgeAndTheCommandsUseImageJOrSciJava() throws IOException {
		List<Path> files;
		try (Stream<Path> s = Files.walk(SOURCES)) {
			files = s.filter(p -> p.toString().endsWith(".java")).collect(Collectors.toList());
		}
		assertTrue(files.size() > 20, "the sources were not found from " + Paths.get("").toAbsolutePath());
		List<String> offenders = new ArrayList<>();
		for (Path f : files) {
			String pkg = SOURCES.relativize(f.getParent()).toString();
			if (pkg.equals("ij") || pkg.equals("command")) continue;
			int n = 0;
			for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
				n++;
				String code = line.trim();
				if (code.startsWith("*") || code.startsWith("/*") || code.startsWith("//")) continue;
				int comment = code.indexOf("//");
				if (comment >= 0) code = code.substring(0, comment);
				if (USE.matcher(code).find()) offenders.add(SOURCES.relativize(f) + ":" + n + ": " + line.trim());
			}
		}
		assertEquals(List.of(), offenders);
	}
}
