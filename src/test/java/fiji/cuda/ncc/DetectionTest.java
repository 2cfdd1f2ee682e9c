package fiji.cuda.ncc;

import static fiji.cuda.ncc.TemplateMatchingCpuTest.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Known answers: templates planted in noise are found where they were put, once each. */
class DetectionTest {

	static final int[][] SPOTS = {{10, 12}, {150, 20}, {70, 90}, {30, 120}, {170, 130}};

	/** Copies plane 0 of {@code tpl} (where the mask is set) into {@code image} at (x, y). */
	static void plant(Planes image, Planes tpl, byte[] mask, int x, int y) {
		for (int v = 0; v < tpl.height(); v++)
			for (int u = 0; u < tpl.width(); u++)
				if (mask == null || mask[v * tpl.width() + u] != 0)
					NccReference.set(image.plane(0), image.type(), (y + v) * image.width() + x + u,
						TestImages.value(tpl.plane(0), tpl.type(), v * tpl.width() + u, 0));
	}

	static void assertFoundAt(List<Detection> found, int[][] spots) {
		assertEquals(spots.length, found.size(), found::toString);
		for (int[] s : spots) {
			Detection d = found.stream().filter(f -> f.x == s[0] && f.y == s[1]).findFirst().orElse(null);
			assertTrue(d != null, "nothing at " + Arrays.toString(s) + ": " + found);
			assertTrue(d.score > 0.99, d::toString);
		}
		for (int i = 1; i < found.size(); i++)
			assertTrue(found.get(i - 1).score >= found.get(i).score, "not best first: " + found);
	}

	@Test
	void plantedCopiesAreFoundAtTheirExactPositionsForEveryTypePair() {
		for (PixelType it : TemplateMatchingCpuTest.TYPES)
			for (PixelType tt : TemplateMatchingCpuTest.TYPES) {
				Planes image = TestImages.random(it, 200, 150, 1, 3);
				Planes tpl = TestImages.random(PixelType.UINT8, 12, 9, 1, 4); // 8-bit values fit every type
				tpl = NccReference.cut(tpl, 0, 0, 12, 9, tt);
				for (int[] s : SPOTS)
					plant(image, tpl, null, s[0], s[1]);
				List<Detection> found = TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), 0.5, 20, 0.3,
					false, null, CPU);
				assertFoundAt(found, SPOTS);
				assertEquals(SPOTS[0][0] + 6, found.stream().filter(d -> d.y == SPOTS[0][1]).findFirst().get().centreX());
			}
	}

	@Test
	void maxObjectsKeepsTheBest() {
		Planes image = TestImages.random(PixelType.UINT8, 200, 150, 1, 5);
		Planes tpl = TestImages.random(PixelType.UINT8, 12, 9, 1, 6);
		for (int[] s : SPOTS)
			plant(image, tpl, null, s[0], s[1]);
		// make one copy imperfect: it must come last and be the one dropped
		byte[] p = (byte[]) image.plane(0);
		for (int i = 0; i < 9; i++)
			p[(SPOTS[2][1] + i) * 200 + SPOTS[2][0] + i] ^= 0x55;
		List<Detection> all = TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), 0.5, 5, 0.3, false,
			null, CPU);
		assertEquals(SPOTS[2][0], all.get(4).x);
		assertTrue(all.get(4).score < 0.99 && all.get(4).score > 0.5, all::toString);
		List<Detection> four = TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), 0.5, 4, 0.3, false,
			null, CPU);
		assertEquals(all.subList(0, 4).toString(), four.toString());
	}

	@Test
	void nmsLeavesOneHitPerObjectWhenABankFindsItTwice() {
		// a left-right symmetric template: it and its mirror image match the same places perfectly
		Planes half = TestImages.random(PixelType.UINT8, 6, 9, 1, 8);
		Planes tpl = Planes.wrap(12, 9, new byte[12 * 9]);
		for (int y = 0; y < 9; y++)
			for (int x = 0; x < 6; x++) {
				byte v = ((byte[]) half.plane(0))[y * 6 + x];
				((byte[]) tpl.plane(0))[y * 12 + x] = v;
				((byte[]) tpl.plane(0))[y * 12 + 11 - x] = v;
			}
		Planes image = TestImages.random(PixelType.UINT8, 200, 150, 1, 9);
		for (int[] s : SPOTS)
			plant(image, tpl, null, s[0], s[1]);
		List<Template> bank = Template.bank(Template.fromPlanes(tpl, null), true, null);
		assertEquals(2, bank.size());
		List<Detection> kept = TemplateMatching.detect(image, 0, bank, 0.5, 20, 0.3, false, null, CPU);
		assertFoundAt(kept, SPOTS);
		List<Detection> all = TemplateMatching.detect(image, 0, bank, 0.5, 20, 1.0, false, null, CPU);
		assertEquals(2 * SPOTS.length, all.size(), all::toString);
	}

	@Test
	void rotatedAndMirroredCopiesAreFoundWithTheirAngleAndFlip() {
		Planes tpl = TestImages.random(PixelType.UINT8, 13, 8, 1, 10);
		Template t = Template.fromPlanes(tpl, null).get(0);
		Template r90 = t.rotated(90), mirror = t.mirrored(), mirror270 = mirror.rotated(270);
		assertNull(r90.mask, "a quarter turn keeps every pixel");
		assertEquals(8, r90.width());
		assertEquals(13, r90.height());
		Planes image = TestImages.random(PixelType.UINT8, 200, 150, 1, 11);
		plant(image, tpl, null, 10, 12);
		plant(image, r90.pixels, null, 150, 20);
		plant(image, mirror.pixels, null, 70, 90);
		plant(image, mirror270.pixels, null, 30, 110);
		List<Detection> found = TemplateMatching.detect(image, 0, Template.bank(List.of(t), true,
			new double[] {0, 90, 180, 270}), 0.6, 20, 0.3, false, null, CPU);
		assertFoundAt(found, new int[][] {{10, 12}, {150, 20}, {70, 90}, {30, 110}});
		for (Detection d : found) {
			double angle = d.x == 150 ? 90 : d.x == 30 ? 270 : 0;
			assertEquals(angle, d.angle, d::toString);
			assertEquals(d.x == 70 || d.x == 30, d.flipped, d::toString);
		}
	}

	@Test
	void aWholeTurnKeepsItsAngleAndTheSameRotationIsMatchedOnce() {
		// angles=0,90,360 reported 360 as 0, and matched the original twice
		Template t = Template.fromPlanes(TestImages.random(PixelType.UINT8, 13, 8, 1, 14), null).get(0);
		List<Template> bank = Template.bank(List.of(t), true, new double[] {360, 90, 0, -270, 450, 720.0000000001, 45});
		double[] angles = bank.stream().mapToDouble(b -> b.angle).toArray();
		assertArrayEquals(new double[] {360, 90, 45, 360, 90, 45}, angles, Arrays.toString(angles));
		assertTrue(bank.get(0).pixels == t.pixels && bank.get(0).mask == null && !bank.get(0).flipped,
			"a whole turn keeps the original");
		assertTrue(bank.get(3).flipped);
		assertEquals(8, bank.get(1).width());
		Planes image = TestImages.random(PixelType.UINT8, 120, 100, 1, 15);
		plant(image, t.pixels, null, 40, 30);
		// with suppression off, the original was found once per equivalent angle
		List<Detection> found = TemplateMatching.detect(image, 0, Template.bank(List.of(t), false,
			new double[] {360, 0, 90}), 0.9, 10, 1.0, false, null, CPU);
		assertEquals(1, found.size(), found::toString);
		assertEquals(360, found.get(0).angle);
		assertEquals(40, found.get(0).x);
	}

	@Test
	void anglesAWholeTurnApartWhoseDifferenceRoundsJustShortOfItAreOneRotation() {
		// 152.3 - 512.3 is -359.99999999999994 in doubles, whose remainder by 360 is not near 0
		// but near a whole turn: the bank made both, and matched the same rotation twice (mutant:
		// Template.sameRotation taking only a remainder near 0 for the same rotation)
		Template t = Template.fromPlanes(TestImages.random(PixelType.UINT8, 13, 8, 1, 18), null).get(0);
		assertEquals(-359.99999999999994, 152.3 - 512.3);
		for (double[] angles : new double[][] { { 152.3, 512.3 }, { 152.3, -207.7, 512.3 }, { 153.8, 513.8, 873.8 } }) {
			List<Template> bank = Template.bank(List.of(t), false, angles);
			assertEquals(1, bank.size(), Arrays.toString(angles));
			assertEquals(angles[0], bank.get(0).angle, Arrays.toString(angles));
		}
	}

	@Test
	void aQuarterTurnIsCounterClockwiseOnScreen() {
		// a b c      c f
		// d e f  ->  b e
		//            a d
		Planes tpl = Planes.wrap(3, 2, new float[] {1, 2, 3, 4, 5, 6});
		Template r = new Template(tpl, null, 0, 0, false).rotated(90);
		assertArrayEquals(new float[] {3, 6, 2, 5, 1, 4}, (float[]) r.pixels.plane(0));
		Template m = new Template(tpl, new byte[] {1, 0, 1, 1, 1, 0}, 0, 0, false).mirrored();
		assertArrayEquals(new float[] {3, 2, 1, 6, 5, 4}, (float[]) m.pixels.plane(0));
		assertArrayEquals(new byte[] {1, 0, 1, 0, 1, 1}, m.mask);
	}

	@Test
	void aRotatedMaskedTemplateKeepsOnlyPixelsSampledFromInsideItsMask() {
		// a quarter turn moves every pixel to a pixel centre: the mask turns with the pixels. At
		// other angles a pixel is kept only if every neighbour it is interpolated from counts, so
		// what lies outside the mask never reaches the rotated template (mutants: the mask not
		// looked at, and a neighbour of weight 0 outside the mask dropping the pixel)
		int w = 9, h = 7;
		Planes tpl = TestImages.random(PixelType.FLOAT32, w, h, 1, 16);
		byte[] mask = NccReference.randomMask(w * h, 0.6, 17);
		Template q = new Template(tpl, mask, 0, 0, false).rotated(90);
		assertEquals(h, q.width());
		assertEquals(w, q.height());
		assertTrue(q.mask != null, "the mask's holes turned with it");
		float[] src = (float[]) tpl.plane(0), turned = (float[]) q.pixels.plane(0);
		for (int y = 0; y < w; y++)
			for (int x = 0; x < h; x++) {
				int from = x * w + (w - 1 - y); // counter-clockwise: the top-right pixel comes to the top left
				String at = "quarter turn at " + x + "," + y;
				assertEquals(mask[from] != 0, q.mask[y * h + x] != 0, at);
				if (mask[from] != 0) assertEquals(src[from], turned[y * h + x], 0f, at);
			}
		// garbage outside the mask changes nothing at an odd angle
		Planes other = tpl.copy();
		float[] o = (float[]) other.plane(0);
		for (int i = 0; i < o.length; i++)
			if (mask[i] == 0) o[i] = 1e6f - o[i];
		for (double angle : new double[] { 30, 135, 200 }) {
			Template a = new Template(tpl, mask, 0, 0, false).rotated(angle);
			Template b = new Template(other, mask, 0, 0, false).rotated(angle);
			assertArrayEquals(a.mask, b.mask, angle + " degrees");
			float[] pa = (float[]) a.pixels.plane(0), pb = (float[]) b.pixels.plane(0);
			int kept = 0;
			for (int i = 0; i < pa.length; i++)
				if (a.mask[i] != 0) {
					assertEquals(pa[i], pb[i], 0f, angle + " degrees at " + i);
					kept++;
				}
			assertTrue(kept > 0, angle + " degrees keeps no pixel");
		}
	}

	@Test
	void aRotatedBoxWhoseSideIsAWholeNumberOfPixelsIsNotWidenedByRounding() {
		// at the angles of Pythagorean triangles cos and sin are rational, and a side of the
		// rotated box, |w·cos| + |h·sin|, can be a whole number that the doubles overshoot by an
		// ulp (3·0.8 + 1·0.6 = 3.0000000000000004): the box is the whole number of pixels, not one
		// more (mutant: Template.rotatedSize rounding up without its 1e-6 of slack)
		int[][] triangles = { { 3, 4, 5 }, { 4, 3, 5 }, { 5, 12, 13 }, { 8, 15, 17 } };
		int wholeSides = 0;
		for (int[] tr : triangles) {
			double degrees = Math.toDegrees(Math.atan2(tr[0], tr[1])); // sin = a/c, cos = b/c
			for (int w = 1; w <= 30; w++)
				for (int h = 1; h <= 30; h += 7) {
					Template t = new Template(Planes.wrap(w, h, new float[w * h]), null, 0, 0, false);
					int c = tr[2];
					// ceil((w·b + h·a) / c) and ceil((w·a + h·b) / c), in integers
					int ow = (w * tr[1] + h * tr[0] + c - 1) / c, oh = (w * tr[0] + h * tr[1] + c - 1) / c;
					if ((w * tr[1] + h * tr[0]) % c == 0) wholeSides++;
					String what = w + "x" + h + " at " + degrees + " degrees";
					assertArrayEquals(new int[] { ow, oh }, t.rotatedSize(degrees), what);
					if (w < 4 || h < 4) continue; // a thinner one may leave no pixel centre inside, and is refused
					Template r = t.rotated(degrees);
					assertEquals(ow, r.width(), what);
					assertEquals(oh, r.height(), what);
				}
		}
		assertTrue(wholeSides > 20, wholeSides + " whole-numbered sides");
	}

	@Test
	void anAngleThatIsNotANumberOrANullTemplateIsRefused() {
		// rotated(NaN) gave a 1x1 template of NaN; a null in matchAll's list a NullPointerException
		Template t = new Template(Planes.wrap(3, 2, new float[] {1, 2, 3, 4, 5, 6}), null, 0, 0, false);
		for (double a : new double[] {Double.NaN, Double.POSITIVE_INFINITY})
			assertTrue(assertThrows(IllegalArgumentException.class, () -> t.rotated(a)).getMessage()
				.endsWith("is not a finite number."));
		Planes image = TestImages.random(PixelType.FLOAT32, 20, 20, 1, 3);
		assertEquals("Template Matching: the list of templates holds a null.", assertThrows(
			IllegalArgumentException.class, () -> TemplateMatching.matchAll(image, 0, Arrays.asList(t, null), CPU))
			.getMessage());
	}

	@Test
	void detectAndCropRefuseMissingInputWithAMessage() {
		// detect gave NullPointerExceptions where matchAll refuses, and crop an index out of bounds
		Template t = new Template(Planes.wrap(3, 2, new float[] {1, 2, 3, 4, 5, 6}), null, 0, 0, false);
		Planes image = TestImages.random(PixelType.FLOAT32, 20, 20, 1, 3);
		assertEquals("Template Matching: the list of templates holds a null.", assertThrows(IllegalArgumentException.class,
			() -> TemplateMatching.detect(image, 0, Arrays.asList(t, null), 0.5, 10, 0.3, false, null, CPU)).getMessage());
		assertEquals("Template Matching: there is no image.", assertThrows(IllegalArgumentException.class,
			() -> TemplateMatching.detect(null, 0, Arrays.asList(t.rotated(45)), 0.5, 10, 0.3, false, null, CPU))
			.getMessage());
		assertEquals("Template Matching: the image has no slice 6.", assertThrows(IllegalArgumentException.class,
			() -> TemplateMatching.crop(image, 5, new Region(0, 0, 4, 4, null))).getMessage());
		assertEquals("Template Matching: there is no search rectangle.", assertThrows(IllegalArgumentException.class,
			() -> TemplateMatching.crop(image, 0, null)).getMessage());
		// these three gave bare NullPointerExceptions
		assertEquals("Template Matching: there is no template.", assertThrows(IllegalArgumentException.class,
			() -> Template.fromPlanes(null, null)).getMessage());
		assertEquals("Template Matching: there is no template.", assertThrows(IllegalArgumentException.class,
			() -> Template.bank(null, false, null)).getMessage());
		assertEquals("Template Matching: there is no score map.", assertThrows(IllegalArgumentException.class,
			() -> TemplateMatching.toSameSize(null, 20, 20, 3, 2)).getMessage());
	}

	/**
	 * {image, template, exact score} cases whose exact score is a threshold a user types: the
	 * float score lies just below it (0.9 is held as 0.899999976).
	 */
	static final Object[][] EXACT_SCORES = {
		{ new byte[] { 0, 1, 4, 3 }, new byte[] { 0, 1, 3, 4 }, 0.9 },  // (4·25 − 64) / (4·26 − 64) = 36/40
		{ new byte[] { 0, 1, 4, 7 }, new byte[] { 0, 1, 7, 4 }, 0.7 } };

	/** @return the detections of a 2x2 template in a 2x2 image of an {@link #EXACT_SCORES} case, at its exact score */
	static List<Detection> atExactScore(Object[] c, fiji.cuda.ops.ExecutionOptions opts) {
		return TemplateMatching.detect(Planes.wrap(2, 2, c[0]), 0, Template.fromPlanes(Planes.wrap(2, 2, c[1]), null),
			(Double) c[2], 5, 0.3, false, null, opts);
	}

	@Test
	void aScoreExactlyAtTheThresholdIsKept() {
		// the float score was compared with the double threshold, and a match at exactly
		// score_threshold was dropped although the README keeps those "at or above" it
		for (Object[] c : EXACT_SCORES) {
			List<Detection> found = atExactScore(c, CPU);
			assertEquals(1, found.size(), "threshold " + c[2]);
			assertEquals((Double) c[2], found.get(0).score, 1e-6);
		}
	}

	@Test
	void anOddAngleIsFoundThroughTheRotationMask() {
		Planes tpl = TestImages.random(PixelType.FLOAT32, 15, 11, 1, 12);
		Template r = new Template(tpl, null, 0, 0, false).rotated(30);
		assertTrue(r.mask != null, "corners of the bounding box are outside the rotated template");
		Planes image = TestImages.random(PixelType.FLOAT32, 120, 100, 1, 13);
		plant(image, r.pixels, r.mask, 40, 30);
		List<Detection> found = TemplateMatching.detect(image, 0, Template.bank(Template.fromPlanes(tpl, null), false,
			new double[] {0, 30, 60}), 0.7, 5, 0.3, false, null, CPU);
		assertEquals(1, found.size(), found::toString);
		assertEquals(30, found.get(0).angle);
		assertEquals(40, found.get(0).x);
		assertEquals(30, found.get(0).y);
		assertTrue(found.get(0).score > 0.999);
	}

	@Test
	void subPixelFitRecoversTheVertexOfAQuadraticPeak() {
		double px = 0.3, py = -0.2;
		float[] map = new float[7 * 6];
		for (int y = 0; y < 6; y++)
			for (int x = 0; x < 7; x++) {
				double u = x - 3 - px, v = y - 2 - py;
				map[y * 7 + x] = (float) (0.9 - 0.05 * u * u - 0.08 * v * v + 0.02 * u * v);
			}
		double[] d = Peaks.refine(map, 7, 6, 3, 2);
		assertEquals(px, d[0], 1e-4);
		assertEquals(py, d[1], 1e-4);
		// at the map's edge only the inner axis moves
		d = Peaks.refine(map, 7, 6, 0, 2);
		assertEquals(0, d[0]);
		Planes image = TestImages.random(PixelType.UINT8, 60, 50, 1, 14);
		Planes tpl = TestImages.random(PixelType.UINT8, 10, 10, 1, 15);
		plant(image, tpl, null, 20, 20);
		Detection hit = TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), 0.9, 1, 0.3, true, null,
			CPU).get(0);
		assertEquals(25, hit.refinedX, 0.5);
		assertEquals(25, hit.refinedY, 0.5);
	}

	@Test
	void aPeakOnTheMapsBorderIsRefinedAlongTheOtherAxisByTheParabolasVertex() {
		// no 3x3 fit on the border: the inner axis takes the vertex of the parabola through the
		// peak and its two neighbours, here exact for a quadratic, at +0.3 along x on the top row
		// and -0.4 along y in the left column (mutant: that parabola's vertex with its sign turned)
		int w = 7, h = 6;
		float[] map = new float[w * h];
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
				map[y * w + x] = (float) (0.9 - 0.02 * (x - 3.3) * (x - 3.3) - 0.03 * y * y);
		double[] d = Peaks.refine(map, w, h, 3, 0);
		assertEquals(0.3, d[0], 1e-3);
		assertEquals(0, d[1]);
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
				map[y * w + x] = (float) (0.9 - 0.03 * x * x - 0.02 * (y - 2.6) * (y - 2.6));
		d = Peaks.refine(map, w, h, 0, 3);
		assertEquals(0, d[0]);
		assertEquals(-0.4, d[1], 1e-3);
	}

	@Test
	void searchRectanglesAndScoreMapsGoThroughTheFacade() {
		Planes image = TestImages.random(PixelType.UINT16, 120, 90, 1, 16);
		Planes tpl = TestImages.random(PixelType.UINT16, 10, 8, 1, 17);
		plant(image, tpl, null, 70, 50);
		Planes part = TemplateMatching.crop(image, 0, new Region(60, 40, 40, 40, null));
		List<float[]> maps = new ArrayList<>();
		List<Detection> found = TemplateMatching.detect(part, 0, Template.fromPlanes(tpl, null), 0.9, 3, 0.3, false,
			(t, z, m) -> maps.add(m), CPU);
		assertEquals(1, found.size());
		Detection d = found.get(0).shifted(60, 40);
		assertEquals(70, d.x);
		assertEquals(50, d.y);
		assertEquals(1, maps.size());
		assertEquals(31 * 33, maps.get(0).length);
		assertThrows(IllegalArgumentException.class, () -> TemplateMatching.crop(image, 0, new Region(200, 0, 5, 5, null)));
	}

	@Test
	void imagesTooTallForTheMapGridsAreLeftToTheCpu() {
		// a grid is at most 65535 blocks high: past that the GPU path declines before it starts,
		// as "unavailable", which sends AUTO to the CPU path instead of failing a launch
		TemplateMatchingGpu.checkRows(TemplateMatchingGpu.MAX_ROWS);
		fiji.cuda.runtime.GpuUnavailableException e = assertThrows(fiji.cuda.runtime.GpuUnavailableException.class,
			() -> TemplateMatchingGpu.checkRows(TemplateMatchingGpu.MAX_ROWS + 1));
		assertTrue(e.getMessage().contains("past the GPU kernels' grids"), e.getMessage());
	}

	@Test
	void badInputIsRefusedWithAClearMessageAndNothingChanges() {
		Planes image = TestImages.random(PixelType.UINT8, 30, 20, 1, 18);
		Planes copy = image.copy();
		Planes tpl = TestImages.random(PixelType.UINT8, 5, 4, 1, 19);
		assertMessage("larger than the image", () -> TemplateMatching.match(image, 0,
			TestImages.random(PixelType.UINT8, 31, 4, 1, 1), 0, null, false, CPU));
		assertMessage("larger than the image", () -> TemplateMatching.match(image, 0,
			TestImages.random(PixelType.FLOAT32, 5, 21, 1, 1), 0, null, false, CPU));
		assertMessage("the mask has 19 pixels", () -> TemplateMatching.match(image, 0, tpl, 0, new byte[19], false, CPU));
		assertMessage("mask is empty", () -> TemplateMatching.match(image, 0, tpl, 0, new byte[20], false, CPU));
		assertMessage("RGB images", () -> TemplateMatching.match(TestImages.random(PixelType.RGB, 30, 20, 1, 1), 0, tpl,
			0, null, false, CPU));
		assertMessage("the template is RGB", () -> TemplateMatching.match(image, 0, TestImages.random(PixelType.RGB, 3, 3, 1,
			1), 0, null, false, CPU));
		float[] nan = new float[20];
		nan[7] = Float.NaN;
		assertMessage("NaN", () -> TemplateMatching.match(image, 0, Planes.wrap(5, 4, nan), 0, null, false, CPU));
		assertMessage("no slice 2", () -> TemplateMatching.match(image, 1, tpl, 0, null, false, CPU));
		assertMessage("there is no template", () -> TemplateMatching.detect(image, 0, List.of(), 0.5, 1, 0.3, false,
			null, CPU));
		List<Template> bank = Template.fromPlanes(tpl, null);
		assertMessage("at least 1", () -> TemplateMatching.detect(image, 0, bank, 0.5, 0, 0.3, false, null, CPU));
		assertMessage("between 0 and 1", () -> TemplateMatching.detect(image, 0, bank, 0.5, 1, 1.5, false, null, CPU));
		assertMessage("not a finite number", () -> Template.bank(bank, false, new double[] {Double.NaN}));
		assertMessage("zero area", () -> new Region(0, 0, 0, 5, null));
		// the mask is checked where the template is made: mirroring and rotating index it
		assertMessage("the mask has 19 pixels", () -> Template.bank(List.of(new Template(tpl, new byte[19], 0, 0,
			false)), true, new double[] {30}));
		assertMessage("mask is empty", () -> Template.bank(List.of(new Template(tpl, new byte[20], 0, 0, false)), false,
			new double[] {45}));
		// a rotated copy that does not fit is named by its angle, not by a size the user never gave
		List<Template> tall = Template.bank(Template.fromPlanes(TestImages.random(PixelType.UINT8, 25, 6, 1, 3), null),
			false, new double[] {0, 90});
		assertMessage("rotated by 90 degrees (6x25)", () -> TemplateMatching.detect(image, 0, tall, 0.5, 1, 0.3, false,
			null, CPU));
		assertTrue(TestImages.sameBits(image, copy), "the image changed");
	}

	@Test
	void aTurnThatLeavesALineTemplateNoPixelSaysWhyAndWhatToDo() {
		// "rotating the template by 30 degrees leaves no pixel" said neither why nor what to do
		Template line = new Template(TestImages.random(PixelType.UINT8, 1, 5, 1, 3), null, 0, 0, false);
		assertEquals("Template Matching: rotating the 1x5 template by 30 degrees leaves no pixel (turned by other than "
			+ "a multiple of 90 degrees, a template 1 pixel wide or high keeps only pixels that fall exactly on it); "
			+ "leave that angle out, or use a template at least 2 pixels wide and high.", assertThrows(
				IllegalArgumentException.class, () -> Template.bank(List.of(line), false, new double[] {0, 30})).getMessage());
		// a quarter turn only moves its pixels
		assertEquals(5, line.rotated(90).width());
	}

	@Test
	void aBankOfANullIsRefused() {
		// mirrored or rotated it was a NullPointerException, else a bank holding a null
		List<Template> list = Arrays.asList(new Template(TestImages.random(PixelType.UINT8, 5, 4, 1, 7), null, 0, 0,
			false), null);
		assertMessage("the list of templates holds a null", () -> Template.bank(list, false, null));
		assertMessage("the list of templates holds a null", () -> Template.bank(list, true, null));
		assertMessage("the list of templates holds a null", () -> Template.bank(list, false, new double[] {30}));
	}

	@Test
	void aSameSizeMapOfNoSizeOrPastArraysIsRefused() {
		// a 0x0 template passed the length check with a (W+1)x(H+1) map and was copied past the
		// image's rows (ArrayIndexOutOfBoundsException); 100000² wrapped to a map of 1410065408 values
		assertMessage("each side must be at least 1", () -> TemplateMatching.toSameSize(new float[21 * 16], 20, 15, 0, 0));
		assertMessage("each side must be at least 1", () -> TemplateMatching.toSameSize(new float[22 * 17], 20, 15, -1, -1));
		assertMessage("each side must be at least 1", () -> TemplateMatching.toSameSize(new float[1], 0, 0, 0, 0));
		assertMessage("larger than Java arrays allow", () -> TemplateMatching.toSameSize(new float[4], 100000, 100000,
			99999, 99999));
		assertMessage("larger than Java arrays allow", () -> TemplateMatching.toSameSize(new float[4], 65536, 65536,
			65535, 65535));
	}

	static void assertMessage(String part, org.junit.jupiter.api.function.Executable call) {
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
		assertTrue(e.getMessage().contains(part), () -> "'" + e.getMessage() + "' lacks '" + part + "'");
		assertFalse(e.getMessage().contains("Exception"));
	}

	/** The plain greedy suppression, comparing each candidate with every kept box. */
	static List<Detection> suppressAllPairs(List<Detection> candidates, double maxOverlap, int maxObjects) {
		List<Detection> sorted = new java.util.ArrayList<>(candidates);
		sorted.sort(Peaks.BEST_FIRST);
		List<Detection> kept = new java.util.ArrayList<>();
		for (Detection d : sorted) {
			if (kept.size() >= maxObjects) break;
			if (kept.stream().noneMatch(k -> k.plane == d.plane && k.iou(d) > maxOverlap)) kept.add(d);
		}
		return kept;
	}

	@Test
	void suppressionThroughTheGridKeepsWhatComparingAllPairsKeeps() {
		java.util.Random r = new java.util.Random(9);
		for (int rep = 0; rep < 30; rep++) {
			List<Detection> c = new java.util.ArrayList<>();
			int n = 50 + r.nextInt(1500);
			for (int i = 0; i < n; i++) {
				int w = 3 + r.nextInt(rep % 2 == 0 ? 10 : 60), h = 3 + r.nextInt(25);
				// a bank of templates of very different sizes, thin ones among them
				if (rep % 3 == 2 && r.nextInt(8) == 0) {
					w = 1 + r.nextInt(r.nextBoolean() ? 4 : 300);
					h = 1 + r.nextInt(r.nextBoolean() ? 4 : 300);
				}
				c.add(new Detection(r.nextInt(400) - 50, r.nextInt(300) - 20, w, h, r.nextInt(1000) / 1000.0, r.nextInt(3), 0,
					false, r.nextInt(2), 0, 0));
			}
			for (double nms : new double[] {0, 0.01, 0.1, 0.3, 0.5, 0.99, 1, 1.5, -0.5})
				for (int max : new int[] {0, 1, 7, 100, Integer.MAX_VALUE})
					assertEquals(suppressAllPairs(c, nms, max).toString(), Peaks.suppress(c, nms, max).toString(),
						"rep " + rep + " nms " + nms + " max " + max);
		}
	}

	@Test
	void equalScoresAreOrderedByRowThenColumnAndTheFirstIsKept() {
		// BEST_FIRST's ties go by plane, row, column, template: of two overlapping boxes of one
		// score, the one on the upper row is kept, whatever their columns (mutant: ties by column
		// before row, which kept the one further left)
		Detection upper = new Detection(9, 2, 10, 10, 0.8, 0, 0, false, 0, 14, 7);
		Detection lower = new Detection(6, 5, 10, 10, 0.8, 0, 0, false, 0, 11, 10);
		Detection best = new Detection(40, 40, 10, 10, 0.9, 0, 0, false, 0, 45, 45);
		List<Detection> sorted = new ArrayList<>(List.of(lower, best, upper));
		sorted.sort(Peaks.BEST_FIRST);
		assertEquals(List.of(best, upper, lower), sorted);
		assertTrue(upper.iou(lower) > 0.3);
		assertEquals(List.of(best, upper), Peaks.suppress(List.of(lower, upper, best), 0.3, 10));
	}

	@Test
	void aPlateauIsOneCandidateAtItsFirstPixel() {
		// a flat background scores 0 everywhere: with a threshold of 0 each of its pixels had
		// been a candidate, about 100 bytes apiece (1.7 GB for a 4096x4096 map)
		Detection box = new Detection(0, 0, 5, 5, 0, 0, 0, false, 0, 0, 0);
		List<Detection> flat = Peaks.localMaxima(new float[40 * 30], 40, 30, box, 0, false);
		assertEquals(1, flat.size());
		assertEquals(0, flat.get(0).x);
		assertEquals(0, flat.get(0).y);
		// an L-shaped plateau of 0.8 in a 0.1 map, and a lone 0.9 peak
		int w = 12, h = 9;
		float[] map = new float[w * h];
		java.util.Arrays.fill(map, 0.1f);
		for (int x = 3; x < 8; x++)
			map[4 * w + x] = 0.8f;
		for (int y = 4; y < 8; y++)
			map[y * w + 3] = 0.8f;
		map[1 * w + 10] = 0.9f;
		List<Detection> found = Peaks.localMaxima(map, w, h, box, 0.5, false);
		assertEquals(2, found.size(), found.toString());
		assertEquals(10, found.get(0).x);
		assertEquals(1, found.get(0).y);
		assertEquals(3, found.get(1).x);
		assertEquals(4, found.get(1).y);
	}

	@Test
	void aPlateauOpenToTheTopCountsAtTheTopOfEachArm() {
		// the rule looks only at the neighbours before a pixel, so a V of equal scores starts
		// twice (the Javadoc and README said that every plateau counts once)
		Detection box = new Detection(0, 0, 1, 1, 0, 0, 0, false, 0, 0, 0);
		float[] v = { 1, 0, 1, 0, 0, //
			0, 1, 0, 0, 0, //
			0, 0, 0, 0, 0 };
		List<Detection> found = Peaks.localMaxima(v, 5, 3, box, 0.5, false);
		assertEquals(2, found.size(), found.toString());
		assertEquals(0, found.get(0).x);
		assertEquals(2, found.get(1).x);
		// the same plateau upside down (a notch open to the bottom) counts once
		float[] a = { 0, 1, 0, 0, 0, //
			1, 0, 1, 0, 0, //
			0, 0, 0, 0, 0 };
		assertEquals(1, Peaks.localMaxima(a, 5, 3, box, 0.5, false).size());
	}

	@Test
	void hundredsOfThousandsOfDisjointCandidatesAreAllKept() {
		// 300,000 scattered boxes with one overlapping twin each: the grid compares each with a
		// handful of kept boxes (all pairs would be 4.5e10 comparisons)
		List<Detection> c = new java.util.ArrayList<>();
		for (int i = 0; i < 300_000; i++) {
			int x = (i % 600) * 10, y = (i / 600) * 10;
			double score = ((long) i * 7919 % 1000) / 1000.0;
			c.add(new Detection(x, y, 8, 8, score, 0, 0, false, 0, 0, 0));
			c.add(new Detection(x + 1, y, 8, 8, score / 2, 1, 0, false, 0, 0, 0));
		}
		List<Detection> kept = Peaks.suppress(c, 0.3, Integer.MAX_VALUE);
		assertEquals(300_000, kept.size());
		assertTrue(kept.stream().allMatch(d -> d.template == 0), "a weaker twin survived");
	}

	@Test
	void peaksGivenWithTheirPatchesGiveTheSameDetectionsAsTheMap() {
		// the GPU hands over peak positions and the 3x3 scores around them; Peaks.fromPeaks must
		// turn them into exactly what Peaks.localMaxima makes of the whole map
		java.util.Random r = new java.util.Random(5);
		int w = 53, h = 37;
		float[] map = new float[w * h];
		for (int i = 0; i < map.length; i++)
			map[i] = r.nextFloat() * 2 - 1;
		map[0] = 0.99f; // peaks on the edges and corners too
		map[w * h - 1] = 0.98f;
		map[5] = Float.NaN;
		Detection box = new Detection(0, 0, 7, 5, 0, 2, 90, true, 3, 0, 0);
		for (boolean refine : new boolean[] {false, true}) {
			List<Detection> expected = Peaks.localMaxima(map, w, h, box, -0.5, refine);
			int[] index = new int[expected.size()];
			float[] patches = new float[9 * index.length];
			for (int k = 0; k < index.length; k++) {
				Detection d = expected.get(index.length - 1 - k); // any order
				index[k] = d.y * w + d.x;
				for (int j = -1; j <= 1; j++)
					for (int i = -1; i <= 1; i++) {
						int x = d.x + i, y = d.y + j;
						patches[9 * k + 3 * (j + 1) + i + 1] = x >= 0 && y >= 0 && x < w && y < h ? map[y * w + x] : 0;
					}
			}
			List<Detection> got = Peaks.fromPeaks(index, patches, w, h, box, refine);
			assertEquals(expected.toString(), got.toString());
			for (int k = 0; k < got.size(); k++) {
				assertEquals(expected.get(k).refinedX, got.get(k).refinedX, 0.0);
				assertEquals(expected.get(k).refinedY, got.get(k).refinedY, 0.0);
			}
		}
	}

	@Test
	void settingsOutsideTheirRangeAreRefusedNamingTheSetting() {
		// a score threshold of 50 (meant as percent) found nothing, silently: scores lie in [-1, 1]
		Planes image = TestImages.random(PixelType.UINT8, 40, 30, 1, 31), tpl = TestImages.random(PixelType.UINT8, 5, 4, 1, 32);
		Object[][] bad = { { 50.0, 10, 0.3, "the score threshold must be between -1 and 1, not 50" },
			{ -1.5, 10, 0.3, "the score threshold must be between -1 and 1, not -1.5" },
			{ Double.NaN, 10, 0.3, "the score threshold must be between -1 and 1, not NaN" },
			{ 0.5, 0, 0.3, "the maximum number of objects must be at least 1, not 0" },
			{ 0.5, 10, 1.5, "the overlap (nms) must be between 0 and 1, not 1.5" } };
		for (Object[] b : bad) {
			IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TemplateMatching.detect(image, 0,
				Template.fromPlanes(tpl, null), (double) b[0], (int) b[1], (double) b[2], false, null, CPU));
			assertEquals(TemplateMatching.NAME + ": " + b[3] + ".", e.getMessage());
		}
		// the ends of the range are fine
		assertEquals(1, TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), -1, 1, 0.3, false, null, CPU).size());
		TemplateMatching.detect(image, 0, Template.fromPlanes(tpl, null), 1, 1, 0.3, false, null, CPU);
	}

	@Test
	void aScoreMapOfAnotherSizeThanSaidIsAClearError() {
		// it read past the map's end (ArrayIndexOutOfBoundsException), or refined a peak outside it to 0
		Detection box = new Detection(0, 0, 1, 1, 0, 0, 0, false, 0, 0, 0);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> Peaks.localMaxima(new float[3], 2, 2, box, 0.5, true));
		assertEquals("Template Matching: a 2x2 score map needs 4 scores, not 3.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> Peaks.refine(new float[4], 2, 2, 2, 0));
		assertEquals("Template Matching: the peak (2, 0) lies outside the 2x2 score map.", e.getMessage());
		assertEquals(List.of(), Peaks.localMaxima(new float[0], 0, 0, box, 0.5, true));
	}

	@Test
	void theOverlapWithNoDetectionIsRefusedByName() {
		// it was a bare NullPointerException
		Detection d = new Detection(0, 0, 4, 4, 0.5, 0, 0, false, 0, 2, 2);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.iou(null));
		assertEquals("Template Matching: there is no detection to compare with.", e.getMessage());
		assertEquals(1, d.iou(d), 0);
	}

	@Test
	void aMissingCandidateIsRefusedByNameCountedFromOne() {
		// a null in the list, or no list, was a bare NullPointerException from inside the sort
		Detection a = new Detection(0, 0, 4, 4, 0.9, 0, 0, false, 0, 2, 2);
		Detection b = new Detection(20, 0, 4, 4, 0.8, 0, 0, false, 0, 22, 2);
		for (double nms : new double[] {-0.5, 0.3, 1}) {
			IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
				() -> Peaks.suppress(Arrays.asList(a, b, null), nms, 10));
			assertEquals("Template Matching: detection 3 of the candidates is missing.", e.getMessage());
			e = assertThrows(IllegalArgumentException.class,
				() -> Peaks.suppress(new java.util.LinkedList<>(Arrays.asList(null, a)), nms, 10));
			assertEquals("Template Matching: detection 1 of the candidates is missing.", e.getMessage());
			e = assertThrows(IllegalArgumentException.class, () -> Peaks.suppress(null, nms, 10));
			assertEquals("Template Matching: there is no list of candidates.", e.getMessage());
		}
		// a list that refuses contains(null) is still read
		assertEquals(List.of(a, b), Peaks.suppress(List.of(b, a), 0.3, 10));
	}

	@Test
	void aBoxWithoutAreaOrAScoreThatIsNotANumberIsRefusedByName() {
		// such a box overlapped nothing, itself included, so suppression kept each of its duplicates
		for (int[] size : new int[][] {{0, 4}, {4, 0}, {-4, 4}, {4, -4}, {-4, -4}, {0, 0}}) {
			IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
				() -> new Detection(3, 5, size[0], size[1], 0.5, 0, 0, false, 0, 3, 5));
			assertEquals("Template Matching: a detection's box must be at least 1x1 pixels, not " + size[0] + "x" + size[1]
				+ ".", e.getMessage());
		}
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> new Detection(3, 5, 4, 4, Double.NaN, 0, 0, false, 0, 5, 7));
		assertEquals("Template Matching: a detection's score is not a number.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> new Detection(3, 5, 4, 4, Float.NaN, 0, 0, false, 0, 5, 7));
		assertEquals("Template Matching: a detection's score is not a number.", e.getMessage());
		// the smallest box, and the least and best scores, are kept as given
		Detection one = new Detection(-2, -3, 1, 1, -1, 0, 0, false, 0, -2, -3);
		assertEquals(1, one.width);
		assertEquals(1, one.height);
		assertEquals(-1, one.score, 0);
		assertEquals(1, new Detection(0, 0, 1, 7, 1, 0, 0, false, 0, 0, 3).score, 0);
	}
}
