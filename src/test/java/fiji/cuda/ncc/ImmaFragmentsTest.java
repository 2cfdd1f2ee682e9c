package fiji.cuda.ncc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The template fragments of the tensor-core numerator (ncc_imma_u8_t8), without a GPU: under
 * the kernel's pairing (lane 4n + t of an mma multiplies the image bytes at columns
 * x0 + 24c + 4t .. +3 and x0 + 24c + 16 + 4t .. +3 of its row, byte for byte, with its two
 * fragment words, for output column x0 + n), the fragments must give exactly the correlation, at every output column of an
 * 8-column block and for templates narrower, as wide as and wider than one K step.
 */
class ImmaFragmentsTest {

	@Test
	void fragmentsPairedWithImageColumnsGiveTheCorrelation() {
		Random r = new Random(12);
		int[][] sizes = { { 1, 1 }, { 3, 3 }, { 16, 16 }, { 23, 5 }, { 24, 5 }, { 25, 5 }, { 49, 9 }, { 64, 7 }, { 97, 2 } };
		for (int[] sz : sizes) {
			int tw = sz[0], th = sz[1], w = tw + 37, h = th + 11;
			byte[] img = new byte[w * h], tpl = new byte[tw * th];
			r.nextBytes(img);
			r.nextBytes(tpl);
			int[] f = TemplateMatchingGpu.immaFragments(tpl, tw, th);
			int chunks = (tw + 23) / 24;
			assertEquals(th * chunks * 64, f.length);
			for (int y = 0; y + th <= h; y++)
				for (int x = 0; x + tw <= w; x++) {
					long want = 0;
					for (int i = 0; i < th; i++)
						for (int j = 0; j < tw; j++)
							want += (long) (img[(y + i) * w + x + j] & 0xff) * (tpl[i * tw + j] & 0xff);
					int n = x & 7, x0 = x - n;
					long got = 0;
					for (int i = 0; i < th; i++)
						for (int c = 0; c < chunks; c++)
							for (int t = 0; t < 4; t++) {
								int at = ((i * chunks + c) * 32 + 4 * n + t) * 2;
								for (int q = 0; q < 8; q++) {
									int col = x0 + 24 * c + (q < 4 ? 4 * t + q : 12 + 4 * t + q);
									int a = col < w ? img[(y + i) * w + col] & 0xff : 0; // staged zeros past the image
									int b = (f[at + (q >> 2)] >>> (8 * (q & 3))) & 0xff;
									got += (long) a * b;
								}
							}
					assertEquals(want, got, tw + "x" + th + " at " + x + "," + y);
				}
		}
	}
}
