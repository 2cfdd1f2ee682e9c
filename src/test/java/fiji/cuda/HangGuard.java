package fiji.cuda;

import java.time.Duration;

/**
 * How long a test waits for a GPU run before it calls the run hung. Under compute-sanitizer
 * kernels run tens of times slower: racecheck took more than a minute over the 65540-pixel
 * template that a minute's guard was set for, and failed a run that was only slow. So
 * {@code .ci/device-sanitize} sets {@code fiji.cuda.test.slowdown}, and the guards stretch by it.
 */
public final class HangGuard {

	private HangGuard() {}

	/** @return {@code seconds}, times the factor in {@code fiji.cuda.test.slowdown} (1 when unset) */
	public static Duration seconds(long seconds) {
		return Duration.ofSeconds(inSeconds(seconds));
	}

	/** @return {@link #seconds} as a number of seconds, for waits that take a {@code TimeUnit} */
	public static long inSeconds(long seconds) {
		return seconds * Math.max(1, Long.getLong("fiji.cuda.test.slowdown", 1));
	}
}
