package fiji.cuda;

import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;

/** The class path for a test's child JVM, wherever the tests run. */
public final class TestClassPath {

	private TestClassPath() {}

	/**
	 * @return the JVM's class path, and the entries a launcher's own class loader added: under
	 *         the JUnit console ({@code --class-path}, as on the GPU machine) the JVM's class path
	 *         is the console's jar alone
	 */
	public static String get() {
		StringBuilder cp = new StringBuilder(System.getProperty("java.class.path"));
		ClassLoader cl = TestClassPath.class.getClassLoader();
		if (cl instanceof URLClassLoader) {
			for (URL u : ((URLClassLoader) cl).getURLs()) {
				try {
					cp.append(File.pathSeparator).append(new File(u.toURI()).getPath());
				} catch (URISyntaxException e) {
					throw new IllegalStateException(e);
				}
			}
		}
		return cp.toString();
	}
}
