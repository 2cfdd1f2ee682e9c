package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Guards the committed kernel binaries (no GPU or nvcc needed): the fatbins in the jar must have
 * been built from the CUDA sources in {@code kernels/} as they are now, for every architecture
 * we promise. The hashing mirrors {@code kernels/build.sh}; see {@code kernels/README.md}.
 */
class KernelBinaryTest {

	private static final String RESOURCE_DIR = "/fiji/cuda/kernels/";
	private static final int FATBIN_MAGIC = 0xBA55ED50;
	private static final int FATBIN_ELF = 2;
	private static final int FATBIN_PTX = 1;
	private static final List<String> REQUIRED_SASS =
		List.of("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120");

	private static Properties manifest;
	private static Path kernelsDir;

	@BeforeAll
	static void load() throws IOException {
		manifest = new Properties();
		try (InputStream in = KernelBinaryTest.class.getResourceAsStream(RESOURCE_DIR + "manifest.properties")) {
			assertNotNull(in, "manifest.properties is missing from the classpath: run kernels/build.sh");
			manifest.load(in);
		}
		// Surefire runs in the module directory; basedir is set when run from elsewhere.
		kernelsDir = Paths.get(System.getProperty("basedir", System.getProperty("user.dir")), "kernels");
		assertTrue(Files.isDirectory(kernelsDir), "no kernels/ directory at " + kernelsDir);
	}

	@Test
	void everyKernelSourceHasACommittedBinary() throws IOException {
		Set<String> sources;
		try (Stream<Path> s = Files.list(kernelsDir)) {
			sources = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".cu"))
				.map(n -> n.substring(0, n.length() - 3)).collect(Collectors.toCollection(TreeSet::new));
		}
		Set<String> listed = new TreeSet<>(Arrays.asList(manifest.getProperty("kernels", "").split(",")));
		listed.remove("");
		assertEquals(sources, listed,
			"the kernels in kernels/*.cu and in manifest.properties differ: run kernels/build.sh");
	}

	@Test
	void committedBinariesMatchTheSources() throws IOException {
		List<String> headers = headerPaths();
		assertEquals(String.join(",", headers), manifest.getProperty("headers"),
			"the kernels/*.cuh headers changed since the committed fatbins were built: run kernels/build.sh");
		for (String name : kernelNames()) {
			String expected = manifest.getProperty(name + ".sources");
			assertNotNull(expected, "manifest.properties has no " + name + ".sources");
			String actual = sourcesHash("kernels/" + name + ".cu", headers);
			if (!expected.equals(actual))
				fail("kernels/" + name + ".cu changed since the committed fatbin was built: run kernels/build.sh"
					+ " (or a kernels/*.cuh header did; sources hash " + actual + ", manifest " + expected + ")");
		}
	}

	@Test
	void fatbinsAreWholeAndCoverEveryArchitecture() throws IOException {
		for (String name : kernelNames()) {
			String resource = RESOURCE_DIR + name + ".fatbin";
			byte[] bin = readResource(resource);
			assertTrue(bin.length > 16, resource + " is empty or truncated");
			ByteBuffer b = ByteBuffer.wrap(bin).order(ByteOrder.LITTLE_ENDIAN);
			assertEquals(FATBIN_MAGIC, b.getInt(0),
				resource + " does not start with the fatbin magic 0xBA55ED50");
			assertEquals(manifest.getProperty(name + ".fatbin.sha256"), hex(sha256(bin)),
				resource + " is not the file build.sh recorded in manifest.properties: run kernels/build.sh");

			// Entries: 16-byte header {magic, u16 version, u16 header size, u64 payload size},
			// then per entry {u16 kind, u16, u32 entry header size, u64 size, ..., u32 arch at 28}.
			Set<String> sass = new TreeSet<>();
			Set<String> ptx = new TreeSet<>();
			int pos = b.getShort(6) & 0xffff;
			long end = pos + b.getLong(8);
			assertEquals(bin.length, end, resource + " size does not match its header");
			while (pos < end) {
				int kind = b.getShort(pos) & 0xffff;
				int headerSize = b.getInt(pos + 4);
				long size = b.getLong(pos + 8);
				int arch = b.getInt(pos + 28);
				if (kind == FATBIN_ELF) sass.add("sm_" + arch);
				else if (kind == FATBIN_PTX) ptx.add("compute_" + arch);
				assertTrue(headerSize > 0 && size >= 0 && pos + headerSize + size <= end, resource + " is corrupt");
				pos += headerSize + (int) size;
			}
			assertEquals(new TreeSet<>(REQUIRED_SASS), sass, resource + " SASS architectures");
			assertEquals(Set.of(manifest.getProperty("ptx")), ptx, resource + " PTX architectures");
		}
	}

	@Test
	void manifestListsEveryArchitectureWeShip() {
		List<String> listed = Arrays.asList(manifest.getProperty("sass", "").split(","));
		assertEquals(REQUIRED_SASS, listed, "manifest sass list");
		assertEquals("compute_120", manifest.getProperty("ptx"), "PTX for the newest architecture");
		String flags = manifest.getProperty("flags", "");
		for (String sm : REQUIRED_SASS)
			assertTrue(flags.contains("code=" + sm), "flags lack " + sm + ": " + flags);
		assertTrue(manifest.getProperty("nvcc", "").startsWith("Cuda compilation tools"), "nvcc version line");
	}

	@Test
	void hashingMatchesSha256sumConvention() {
		// The manifest key is sha256 over "hex  path\n" lines, as `sha256sum a b | sha256sum`.
		// Known value: sha256 of the empty string, so this guards the line format, not the files.
		byte[] line = ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  x\n")
			.getBytes(StandardCharsets.US_ASCII);
		assertEquals(hex(sha256(line)), combined(List.of("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  x")));
		assertEquals(hex(sha256(new byte[0])), fileHash(new byte[] {'\r'}), "CR bytes are ignored");
	}

	private static List<String> kernelNames() {
		List<String> names = new ArrayList<>(Arrays.asList(manifest.getProperty("kernels", "").split(",")));
		names.remove("");
		assertTrue(!names.isEmpty(), "manifest.properties lists no kernels");
		return names;
	}

	/** kernels/*.cuh as repository-relative paths, in byte order (build.sh uses LC_ALL=C sort). */
	private static List<String> headerPaths() throws IOException {
		try (Stream<Path> s = Files.list(kernelsDir)) {
			return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".cuh")).sorted()
				.map(n -> "kernels/" + n).collect(Collectors.toList());
		}
	}

	private static String sourcesHash(String cu, List<String> headers) throws IOException {
		List<String> lines = new ArrayList<>();
		lines.add(fileHash(Files.readAllBytes(kernelsDir.resolve(cu.substring("kernels/".length())))) + "  " + cu);
		for (String h : headers)
			lines.add(fileHash(Files.readAllBytes(kernelsDir.resolve(h.substring("kernels/".length())))) + "  " + h);
		return combined(lines);
	}

	private static String combined(List<String> lines) {
		StringBuilder sb = new StringBuilder();
		for (String l : lines) sb.append(l).append('\n');
		return hex(sha256(sb.toString().getBytes(StandardCharsets.UTF_8)));
	}

	private static String fileHash(byte[] content) {
		ByteArrayOutputStream noCr = new ByteArrayOutputStream(content.length);
		for (byte c : content)
			if (c != '\r') noCr.write(c);
		return hex(sha256(noCr.toByteArray()));
	}

	private static byte[] readResource(String resource) throws IOException {
		try (InputStream in = KernelBinaryTest.class.getResourceAsStream(resource)) {
			assertNotNull(in, resource + " is missing from the classpath: run kernels/build.sh");
			return in.readAllBytes();
		}
	}

	private static byte[] sha256(byte[] data) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(data);
		}
		catch (NoSuchAlgorithmException e) {
			throw new AssertionError(e);
		}
	}

	private static String hex(byte[] bytes) {
		StringBuilder sb = new StringBuilder(bytes.length * 2);
		for (byte x : bytes) sb.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
		return sb.toString();
	}
}
