package fiji.cuda;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The words a benchmark's {@code main} takes, such as {@code quick} and {@code nocpu}, in any order. */
public final class BenchmarkArgs {

	private BenchmarkArgs() {}

	/**
	 * Reads the arguments. An unknown one is named on standard error with the valid ones, and
	 * ends the JVM with status 2 before anything is measured, so that a mistyped word cannot
	 * pass for a full run.
	 *
	 * @param args    the arguments of {@code main}
	 * @param allowed every word the benchmark knows
	 * @return the words given
	 */
	public static Set<String> of(String[] args, String... allowed) {
		List<String> known = Arrays.asList(allowed);
		Set<String> given = new LinkedHashSet<>();
		for (String a : args) {
			if (!known.contains(a)) {
				System.err.println("Unknown argument '" + a + "'; use " + String.join(", ", known) + ".");
				System.exit(2);
			}
			given.add(a);
		}
		return given;
	}
}
