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
	void aRangePastTheLastPlaneIsRefused() {
		// it was padded with null planes, on which an operation failed part way, its input half changed
		Planes p = Planes.wrap(4, 4, new byte[16], new byte[16]);
		assertEquals("Planes 0 to 5 asked of 2.", assertThrows(IllegalArgumentException.class, () -> p.range(0, 5))
			.getMessage());
		assertEquals(2, p.range(0, 2).depth());
		assertEquals(0, p.range(2, 2).depth());
	}
}
