package fiji.cuda;

import java.lang.reflect.Field;
import java.util.Set;

import fiji.cuda.runtime.GpuAccess;

/**
 * The fallback line is said once per operation and kind of reason in a JVM, and the tests
 * share one: whichever test met a reason first took its line, so a test of that line could
 * see none and had to accept none, which a fallback that never logs passes as well.
 */
public final class TestFallbackLog {

	private TestFallbackLog() {}

	/** Forgets the reasons already logged for {@code op}, so that its next fallback is logged as in a new session. */
	public static void forget(String op) {
		try {
			Field f = GpuAccess.class.getDeclaredField("LOGGED");
			f.setAccessible(true);
			@SuppressWarnings("unchecked")
			Set<String> logged = (Set<String>) f.get(null);
			logged.removeIf(r -> r.startsWith(op + ": "));
		} catch (ReflectiveOperationException e) {
			throw new AssertionError("GpuAccess no longer keeps the logged reasons in LOGGED: update this helper", e);
		}
	}
}
