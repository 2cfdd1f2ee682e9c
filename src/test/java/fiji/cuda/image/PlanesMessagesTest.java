package fiji.cuda.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The image's own refusals name types as ImageJ's Image>Type menu does, not as Java or this code does. */
class PlanesMessagesTest {

	@Test
	void typesAreNamedAsImageJNamesThem() {
		// "Slice 2 is not of type UINT8." and "Unsupported pixel array: null"
		assertEquals("Slice 2 is 16-bit, not 8-bit as slice 1.", assertThrows(IllegalArgumentException.class,
			() -> Planes.wrap(2, 2, new byte[4], new short[4])).getMessage());
		assertEquals("A slice of the image has no pixels (it could not be read).",
			assertThrows(IllegalArgumentException.class, () -> Planes.wrap(2, 2, (Object) null)).getMessage());
		assertEquals("The image is empty (0x3 pixels).",
			assertThrows(IllegalArgumentException.class, () -> Planes.wrap(0, 3, new byte[0])).getMessage());
		assertEquals("32-bit", PixelType.FLOAT32.label());
	}

	@Test
	void aRangeOnePlanePastTheLastIsRefusedAndOneEndingAtTheLastIsNot() {
		// the boundary of the refusal above: to = depth is the last valid end. A mutation test found
		// that a range one plane past the end (padded with a null plane) passed every test
		byte[] a = new byte[16], b = new byte[16], c = new byte[16];
		Planes p = Planes.wrap(4, 4, a, b, c);
		assertEquals("Planes 0 to 4 asked of 3.", assertThrows(IllegalArgumentException.class, () -> p.range(0, 4))
			.getMessage());
		assertEquals("Planes 2 to 4 asked of 3.", assertThrows(IllegalArgumentException.class, () -> p.range(2, 4))
			.getMessage());
		Planes last = p.range(1, 3);
		assertEquals(2, last.depth());
		org.junit.jupiter.api.Assertions.assertSame(b, last.plane(0));
		org.junit.jupiter.api.Assertions.assertSame(c, last.plane(1));
	}

	@Test
	void aRangePastTheLastPlaneIsRefused() {
		// it was padded with null planes, on which an operation failed part way, its input half changed
		Planes p = Planes.wrap(4, 4, new byte[16], new byte[16]);
		assertEquals("Planes 0 to 5 asked of 2.", assertThrows(IllegalArgumentException.class, () -> p.range(0, 5))
			.getMessage());
		assertEquals(2, p.range(0, 2).depth());
		assertEquals(0, p.range(2, 2).depth());
	}

	@Test
	void planesToBeWrittenThatAreOneArrayAreNamedAsSlicesAreCounted() {
		byte[] a = new byte[4], b = new byte[4];
		Planes.wrap(2, 2, a).checkOwnArrays("Op", "slices");
		Planes.wrap(2, 2, a, b, new byte[4]).checkOwnArrays("Op", "slices");
		// equal pixels in arrays of their own are two slices
		Planes.wrap(2, 2, a, a.clone()).checkOwnArrays("Op", "slices");
		assertEquals("Op: slices 1 and 2 are one array (the same pixels twice), which cannot hold the results of both; "
			+ "each must have pixels of its own.", assertThrows(IllegalArgumentException.class,
				() -> Planes.wrap(2, 2, a, a).checkOwnArrays("Op", "slices")).getMessage());
		// a stack of thousands of slices, the repeat at its end: the first pair is named
		Object[] many = new Object[5000];
		for (int z = 0; z < many.length; z++)
			many[z] = new byte[4];
		many[4999] = many[1];
		many[4998] = many[4997];
		Planes stack = Planes.wrap(2, 2, many);
		assertEquals("Op: output planes 4998 and 4999 are one array (the same pixels twice), which cannot hold the results "
			+ "of both; each must have pixels of its own.", assertThrows(IllegalArgumentException.class,
				() -> stack.checkOwnArrays("Op", "output planes")).getMessage());
	}

	@Test
	void aSliceShorterOrLongerThanWidthTimesHeightIsRefusedTheFirstToo() {
		// a slice of the wrong length failed later, part way through an operation, or was read past
		// its rows. A mutation test found that the first slice's length going unchecked, and a longer
		// slice taken, each passed every test
		assertEquals("Slice 1 has 5 pixels, expected 6.", assertThrows(IllegalArgumentException.class,
			() -> Planes.wrap(3, 2, new byte[5], new byte[6])).getMessage());
		assertEquals("Slice 2 has 7 pixels, expected 6.", assertThrows(IllegalArgumentException.class,
			() -> Planes.wrap(3, 2, new float[6], new float[7])).getMessage());
		assertEquals(2, Planes.wrap(3, 2, new short[6], new short[6]).depth());
	}
}
