package fiji.cuda.ncc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The shared-memory sizes the host asks for against the macros of
 * {@code kernels/template_matching.cu} (no GPU needed). A kernel given less shared memory than
 * its layout uses reads and writes past its allocation, which no CPU test would otherwise see.
 */
class ImmaHostRulesTest {

	private static String source() throws IOException {
		Path p = Paths.get(System.getProperty("basedir", System.getProperty("user.dir")), "kernels",
			"template_matching.cu");
		assertTrue(Files.isRegularFile(p), "no " + p);
		return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
	}

	private static int define(String src, String name) {
		Matcher m = Pattern.compile("(?m)^#define " + name + " (\\d+)\\b").matcher(src);
		assertTrue(m.find(), "#define " + name + " not found in template_matching.cu");
		return Integer.parseInt(m.group(1));
	}

	/** NCC_IMMA_PITCH and NCC_IMMA_SMEM_BYTES, evaluated as the preprocessor does. */
	private static long stagedBytes(String src, int tw, int th) {
		int jc = define(src, "NCC_IMMA_JC"), tile = define(src, "NCC_IMMA_TILE");
		int chunks = (tw + jc - 1) / jc;
		long pitch = (tile + jc * chunks + 111) / 128 * 128 + 16;
		return pitch * (tile + th - 1);
	}

	@Test
	void smallTemplateKernelsGetTheSharedMemoryTheirLayoutUses() throws IOException {
		String src = source();
		assertTrue(src.contains("#define NCC_IMMAFS_SMEM_BYTES(T) (NCC_IMMA_SMEM_BYTES(T, T) + (size_t)4 * NCC_IMMA_TILE * "
			+ "NCC_IMMAFS_SIT_PITCH)"), "NCC_IMMAFS_SMEM_BYTES changed: update TemplateMatchingGpu.immafSmallSharedBytes");
		int tile = define(src, "NCC_IMMA_TILE"), sitPitch = define(src, "NCC_IMMAFS_SIT_PITCH");
		for (int t : new int[] { 8, 16 }) {
			assertTrue(src.contains("NCC_IMMAFS_ENTRY(" + t + ")") && src.contains("NCC_IMMAFS_BANK_ENTRY(" + t + ")"),
				"no kernels for " + t + "x" + t);
			assertEquals(stagedBytes(src, t, t) + 4L * tile * sitPitch, TemplateMatchingGpu.immafSmallSharedBytes(t),
				t + "x" + t);
		}
	}

	@Test
	void generalKernelsStageAsTheMacrosSay() throws IOException {
		String src = source();
		for (int[] t : new int[][] { { 1, 1 }, { 16, 16 }, { 24, 7 }, { 25, 33 }, { 64, 64 }, { 181, 181 } })
			assertEquals(stagedBytes(src, t[0], t[1]), TemplateMatchingGpu.immaSharedBytes(t[0], t[1]), t[0] + "x" + t[1]);
	}
	/**
	 * The numerators skip a tile of a column of stacked areas when none of its rows is read:
	 * rowsWanted (the host's copy of the kernels' rule) against a scan of the tile's rows.
	 */
	@Test
	void aTileIsSkippedOnlyWhenNoneOfItsRowsIsRead() {
		int checked = 0, skipped = 0;
		for (int rows : new int[] { 1, 7, 32, 64 })
			for (int period = 1; period <= 200; period += period < 20 ? 1 : 17)
				for (int keep = 1; keep <= period; keep += Math.max(1, period / 7))
					for (int y0 = 0; y0 < 3 * period + 2 * rows; y0 += rows) {
						boolean any = false;
						for (int y = y0; y < y0 + rows && !any; y++)
							any = y % period < keep;
						assertEquals(any, TemplateMatchingGpu.rowsWanted(y0, rows, period, keep),
							"rows " + y0 + ".." + (y0 + rows - 1) + ", period " + period + ", keep " + keep);
						checked++;
						if (!any) skipped++;
					}
		assertTrue(skipped > 1000 && skipped < checked, skipped + " of " + checked + " tiles skipped");
	}
}
