package fiji.cuda.image;

import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** What a {@link Planes} holds: the caller's plane arrays, in a list of its own. */
class PlanesTest {

	@Test
	void theWrapperKeepsItsPlanesWhenTheCallersListOfThemChanges() {
		// a script reusing its array of planes for the next image changed the planes of the one
		// wrapped before. A mutation test found that keeping the caller's array passed every test
		byte[] a = new byte[6], b = new byte[6];
		Object[] planes = { a, b };
		Planes p = Planes.wrap(3, 2, planes);
		planes[0] = new byte[6];
		planes[1] = new byte[6];
		assertSame(a, p.plane(0), "plane 0");
		assertSame(b, p.plane(1), "plane 1");
	}
}
