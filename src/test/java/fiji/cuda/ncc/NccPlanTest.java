package fiji.cuda.ncc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The chunk plan of the direct and streamed kernels (no GPU needed). The kernels advance by
 * whole chunks ({@code r0 += chunkH}, {@code q0 += chunkQ}): a chunk of 0 rows or 0 quads
 * would loop for ever on the device, a hang no watchdog ends on a compute GPU.
 */
class NccPlanTest {

	/** The shared memory a template-matching block may plan into on an H200 (half its opt-in limit). */
	private static final long H200_BUDGET = 232448 / 2;
	/** Turing's: half of 64 KiB. */
	private static final long SM75_BUDGET = 65536 / 2;

	@ParameterizedTest(name = "u8 template {0} pixels wide")
	@ValueSource(ints = { 1, 7, 4096, 65530, 65533, 65534, 65540, 70000, 200_000 })
	void everyChunkHoldsAtLeastOneRowAndOneQuad(int w) {
		for (long budget : new long[] { H200_BUDGET, SM75_BUDGET })
			for (boolean streamed : new boolean[] { false, true })
				for (int h : new int[] { 1, 3, 64 }) {
					int[] p = TemplateMatchingGpu.plan(true, streamed, w, h, budget);
					String what = w + "x" + h + (streamed ? " streamed" : " direct") + ", budget " + budget + ": "
						+ p[0] + " rows x " + p[1] + " quads";
					assertTrue(p[0] >= 1 && p[0] <= h, what);
					assertTrue(p[1] >= 1 && p[1] <= TemplateMatchingGpu.quads(true, w), what);
					// the dp4a sums of a chunk stay exact in 32 bits (NCC_T8_MAX_CHUNK_QUADS)
					assertTrue((long) p[0] * p[1] <= 16384, what);
					assertTrue(p[2] <= budget, what);
				}
	}

	@ParameterizedTest(name = "16-bit template {0} pixels wide")
	@ValueSource(ints = { 1, 7, 300, 65540, 200_000 })
	void wideWordTemplatesAreChunkedToo(int w) {
		// the lower bounds alone passed a chunk of more rows or quads than the template has,
		// which the kernels would read past
		int[] p = TemplateMatchingGpu.plan(false, true, w, 5, H200_BUDGET);
		String what = p[0] + " rows x " + p[1] + " quads of " + TemplateMatchingGpu.quads(false, w);
		assertTrue(p[0] >= 1 && p[0] <= 5, what);
		assertTrue(p[1] >= 1 && p[1] <= TemplateMatchingGpu.quads(false, w), what);
		assertTrue(p[2] <= H200_BUDGET, what);
		if (w <= 300) assertEquals(5, p[0], "a narrow template fits whole: " + what);
	}

	@Test
	void aBankTooLargeForOneArrayIsMatchedTemplateByTemplate() {
		// 40000 templates of 256x256 laid out for one launch need more than 2^31 words: the
		// bank's array size came out negative and the match failed instead of falling back
		org.junit.jupiter.api.Assertions.assertFalse(TemplateMatchingGpu.bankFitsOneArray(40000, 256, 256, true));
		org.junit.jupiter.api.Assertions.assertFalse(TemplateMatchingGpu.bankFitsOneArray(40000, 256, 256, false));
		org.junit.jupiter.api.Assertions.assertTrue(TemplateMatchingGpu.bankFitsOneArray(64, 16, 16, true));
		org.junit.jupiter.api.Assertions.assertTrue(TemplateMatchingGpu.bankFitsOneArray(1000, 128, 128, false));
	}
}
