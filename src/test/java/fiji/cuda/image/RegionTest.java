package fiji.cuda.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@link Region#clipTo}: a selection reaching past the plane keeps, of its mask, what lies on the plane. */
class RegionTest {

	/** @return a width x height mask whose byte at (i, j) is 1 + i + 10 j: each pixel its own value */
	private static byte[] numbered(int width, int height) {
		byte[] m = new byte[width * height];
		for (int j = 0; j < height; j++)
			for (int i = 0; i < width; i++)
				m[j * width + i] = (byte) (1 + i + 10 * j);
		return m;
	}

	/** @return the part [i0, i0 + w) x [j0, j0 + h) of a mask of the given width */
	private static byte[] part(byte[] mask, int width, int i0, int j0, int w, int h) {
		byte[] p = new byte[w * h];
		for (int j = 0; j < h; j++)
			System.arraycopy(mask, (j0 + j) * width + i0, p, j * w, w);
		return p;
	}

	@Test
	void aMaskedSelectionPastAnyEdgeKeepsTheMaskOfThePixelsOnThePlane() {
		// ImageJ's oval or polygon selections may reach past the image on any side. A mutation test
		// found that the clipped mask taken from the column of the selection's left edge instead of
		// the plane's (right for a selection reaching past the right edge) passed every test
		int pw = 10, ph = 8;
		int[][] rects = { { 6, 5, 6, 5 }, { -2, -3, 6, 5 }, { -2, 5, 14, 4 }, { 7, -1, 4, 11 }, { 3, 2, 4, 3 } };
		for (int[] r : rects) {
			byte[] mask = numbered(r[2], r[3]);
			Region got = new Region(r[0], r[1], r[2], r[3], mask).clipTo(pw, ph);
			int x0 = Math.max(0, r[0]), y0 = Math.max(0, r[1]);
			int x1 = Math.min(pw, r[0] + r[2]), y1 = Math.min(ph, r[1] + r[3]);
			String what = java.util.Arrays.toString(r);
			assertEquals(x0, got.x, what);
			assertEquals(y0, got.y, what);
			assertEquals(x1 - x0, got.width, what);
			assertEquals(y1 - y0, got.height, what);
			assertArrayEquals(part(mask, r[2], x0 - r[0], y0 - r[1], x1 - x0, y1 - y0), got.mask, what);
		}
		Region inside = new Region(3, 2, 4, 3, numbered(4, 3));
		assertSame(inside, inside.clipTo(pw, ph));
		Region plain = new Region(8, -1, 5, 4, null).clipTo(pw, ph);
		assertEquals("[8,0 2x3]", plain.toString());
		assertNull(plain.mask);
		assertThrows(IllegalArgumentException.class, () -> new Region(10, 0, 3, 3, numbered(3, 3)).clipTo(pw, ph));
	}

	@Test
	void aRegionWithNoRowsOrAMaskOfAnotherSizeIsRefused() {
		// a mutation test found that a height of 0, and a mask longer than the rectangle, each passed every test
		assertEquals("The selection has zero area (3x0).", assertThrows(IllegalArgumentException.class,
			() -> new Region(0, 0, 3, 0, null)).getMessage());
		assertEquals("The selection mask has 7 pixels, expected 6.", assertThrows(IllegalArgumentException.class,
			() -> new Region(0, 0, 3, 2, new byte[7])).getMessage());
		assertEquals("The selection mask has 5 pixels, expected 6.", assertThrows(IllegalArgumentException.class,
			() -> new Region(0, 0, 3, 2, new byte[5])).getMessage());
	}

	@Test
	void aMaskedRegionOverTheWholePlaneIsNotTheWholePlane() {
		// the blur's whole-plane path writes every pixel: an oval over the whole image took it and
		// blurred its corners. A mutation test found that isAll not asking for the mask passed every test
		assertEquals(true, Region.all(4, 3).isAll(4, 3));
		assertEquals(false, new Region(0, 0, 4, 3, numbered(4, 3)).isAll(4, 3), "masked");
		assertEquals(false, Region.all(4, 3).isAll(5, 3), "a part of the plane");
	}

	@Test
	void aRegionBesideThePlaneLiesOutsideIt() {
		// one touching the plane's edge from outside has no pixel on it. A mutation test found that
		// refusing it for "zero area (0x3)", not as outside the image, passed every test
		for (Region r : new Region[] { new Region(10, 0, 3, 3, null), new Region(0, 8, 3, 3, numbered(3, 3)),
			new Region(-3, 2, 3, 3, null) })
			assertEquals("The selection lies outside the image.", assertThrows(IllegalArgumentException.class,
				() -> r.clipTo(10, 8)).getMessage(), r.toString());
	}
}
