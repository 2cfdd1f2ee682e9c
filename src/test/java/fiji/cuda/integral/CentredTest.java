package fiji.cuda.integral;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import fiji.cuda.image.Planes;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** CPU test of the 32-bit planes moved by their mean before variance tables are built. */
class CentredTest {

	@Test
	void aPlaneEveryPixelOfWhichMovesExactlyIsMovedByItsRoundedMean() {
		float[] p = new float[300_001];
		Random r = new Random(1);
		for (int i = 0; i < p.length; i++)
			p[i] = 1000 + r.nextInt(200) / 8f; // eighths near 1000: exact after any whole shift near them
		double sum = 0;
		for (float v : p)
			sum += v;
		float c = (float) Math.rint(sum / p.length);
		float[] moved = (float[]) Centred.planes(Planes.wrap(p.length, 1, p), 4).plane(0);
		assertNotSame(p, moved);
		for (int i = 0; i < p.length; i++)
			assertEquals(p[i] - c, moved[i], 0, "pixel " + i);
		// the same mean, so the same plane, on any number of threads
		for (int threads : new int[] { 1, 3, 16 })
			assertArrayEquals(moved, (float[]) Centred.planes(Planes.wrap(p.length, 1, p), threads).plane(0));
	}

	@Test
	void aPlaneWithOnePixelThatWouldRoundIsLeftAsItIs() {
		// uniform noise in 0-1000: the pixels far below the mean lose bits when moved; one is enough
		float[] p = new float[300_001];
		Random r = new Random(2);
		for (int i = 0; i < p.length; i++)
			p[i] = r.nextFloat() * 1000;
		for (int threads : new int[] { 1, 4, 16 })
			assertSame(p, Centred.planes(Planes.wrap(p.length, 1, p), threads).plane(0));
		// and a plane otherwise exact, with one such pixel at its very end
		float[] q = new float[300_001];
		java.util.Arrays.fill(q, 1000);
		q[q.length - 1] = 1e-7f;
		assertSame(q, Centred.planes(Planes.wrap(q.length, 1, q), 4).plane(0));
	}

	@Test
	void nonFinitePixelsStayAsTheyAreAndDoNotStopTheMove() {
		float[] p = new float[70_001];
		java.util.Arrays.fill(p, 500.5f);
		p[3] = Float.NaN;
		p[40_000] = Float.POSITIVE_INFINITY;
		p[70_000] = Float.NEGATIVE_INFINITY;
		float[] moved = (float[]) Centred.planes(Planes.wrap(p.length, 1, p), 4).plane(0);
		assertNotSame(p, moved);
		assertEquals(Float.NaN, moved[3], 0);
		assertEquals(Float.POSITIVE_INFINITY, moved[40_000], 0);
		assertEquals(Float.NEGATIVE_INFINITY, moved[70_000], 0);
		assertEquals(0.5f, moved[0], 0, "moved by the rounded mean of the finite pixels, 500");
		assertEquals(0.5f, moved[69_999], 0);
	}

	@Test
	void thePartsOfTheLargestPlanesCoverItWhole() {
		// from 2^31 - 65536 pixels (46341x46340, 32-bit) the count wrapped negative and every
		// variance and threshold of the plane failed with a NegativeArraySizeException
		int n = Integer.MAX_VALUE - 10;
		int parts = Centred.parts(n);
		assertEquals(32768, parts);
		assertEquals(n, Centred.partEnd(parts - 1, n), "the last part ends at the plane's end");
		assertEquals(65536, Centred.partEnd(0, n));
		assertEquals(1, Centred.parts(1));
		assertEquals(1, Centred.partEnd(0, 1));
		assertEquals(0, Centred.parts(0));
	}
}
