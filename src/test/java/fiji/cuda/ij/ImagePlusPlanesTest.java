package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.VirtualStack;
import ij.gui.OvalRoi;
import ij.gui.Roi;
import ij.process.ByteProcessor;
import ij.process.ColorProcessor;
import ij.process.FloatProcessor;
import ij.process.ShortProcessor;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class ImagePlusPlanesTest {

	@Test
	void wrapsProcessorsWithoutCopying() {
		ShortProcessor ip = new ShortProcessor(5, 4);
		Planes p = ImagePlusPlanes.wrap(ip);
		assertSame(ip.getPixels(), p.plane(0));
		assertEquals(PixelType.UINT16, p.type());
		assertEquals(5, p.width());
		assertEquals(4, p.height());
		((short[]) p.plane(0))[7] = 1234;
		assertEquals(1234, ip.get(2, 1));
		assertEquals(PixelType.UINT8, ImagePlusPlanes.wrap(new ByteProcessor(2, 2)).type());
		assertEquals(PixelType.FLOAT32, ImagePlusPlanes.wrap(new FloatProcessor(2, 2)).type());
		assertEquals(PixelType.RGB, ImagePlusPlanes.wrap(new ColorProcessor(2, 2)).type());
	}

	@Test
	void wrapsTheStacksArraysInOrder() {
		ImagePlus imp = IJ.createImage("s", "32-bit black", 6, 3, 4);
		Planes p = ImagePlusPlanes.wrap(imp);
		assertEquals(4, p.depth());
		for (int i = 0; i < 4; i++)
			assertSame(imp.getStack().getPixels(i + 1), p.plane(i));
	}

	@Test
	void hyperstackVolumesArePerChannelAndFrame() {
		ImagePlus imp = IJ.createHyperStack("h", 4, 4, 2, 3, 5, 8); // c=2, z=3, t=5
		List<Planes> v = ImagePlusPlanes.volumes(imp);
		assertEquals(2 * 5, v.size());
		Set<Object> seen = new HashSet<>();
		int k = 0;
		for (int c = 1; c <= 2; c++)
			for (int t = 1; t <= 5; t++, k++) {
				assertEquals(3, v.get(k).depth());
				for (int z = 1; z <= 3; z++) {
					assertSame(imp.getStack().getPixels(imp.getStackIndex(c, z, t)), v.get(k).plane(z - 1));
					assertTrue(seen.add(v.get(k).plane(z - 1)));
				}
			}
		assertEquals(imp.getStackSize(), seen.size());
	}

	@Test
	void hyperstackWithOneSliceIsBlurredAlongTimeLikeImageJ() {
		ImagePlus imp = IJ.createHyperStack("h", 4, 4, 2, 1, 6, 16); // c=2, z=1, t=6
		List<Planes> v = ImagePlusPlanes.volumes(imp);
		assertEquals(2, v.size());
		for (int c = 1; c <= 2; c++) {
			assertEquals(6, v.get(c - 1).depth());
			for (int t = 1; t <= 6; t++)
				assertSame(imp.getStack().getPixels(imp.getStackIndex(c, 1, t)), v.get(c - 1).plane(t - 1));
		}
	}

	@Test
	void plainStackIsOneVolume() {
		ImagePlus imp = IJ.createImage("s", "8-bit black", 4, 4, 7);
		List<Planes> v = ImagePlusPlanes.volumes(imp);
		assertEquals(1, v.size());
		assertEquals(7, v.get(0).depth());
		ImagePlus single = IJ.createImage("s", "8-bit black", 4, 4, 1);
		assertEquals(1, ImagePlusPlanes.volumes(single).get(0).depth());
	}

	@Test
	void aCompositeOfChannelsAloneIsOneVolumePerChannel() {
		// no hyperstack to ImageJ, so it was one volume, and a 3D blur mixed its channels
		ImagePlus imp = IJ.createImage("c", "8-bit composite-mode black", 4, 4, 3, 1, 1);
		assertTrue(imp.isComposite() && !imp.isHyperStack());
		List<Planes> v = ImagePlusPlanes.volumes(imp);
		assertEquals(3, v.size());
		for (int c = 0; c < 3; c++) {
			assertEquals(1, v.get(c).depth());
			assertSame(imp.getStack().getPixels(c + 1), v.get(c).plane(0));
		}
	}

	@Test
	void regionsFromSelections() {
		assertNull(ImagePlusPlanes.region(null));
		Region r = ImagePlusPlanes.region(new Roi(2, 3, 10, 5));
		assertEquals(2, r.x);
		assertEquals(3, r.y);
		assertEquals(10, r.width);
		assertEquals(5, r.height);
		assertNull(r.mask);
		OvalRoi oval = new OvalRoi(1, 1, 9, 7);
		Region o = ImagePlusPlanes.region(oval);
		assertEquals(9 * 7, o.mask.length);
		byte[] expected = (byte[]) oval.getMask().getPixels();
		assertArrayEquals(expected, o.mask);
		assertEquals(0, o.mask[0]); // a corner is outside the oval
		assertTrue(o.mask[3 * 9 + 4] != 0); // the centre is inside
		assertNull(ImagePlusPlanes.region(new ij.gui.Line(0, 0, 5, 5)), "a line selects no area");
	}

	@Test
	void aSelectionOutsideTheImageIsNamedSo() {
		// it was "The selection has zero area (0x0)": ImageJ had clipped it away
		ByteProcessor ip = new ByteProcessor(20, 20);
		ip.setRoi(new java.awt.Rectangle(30, 25, 5, 5));
		IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
			() -> ImagePlusPlanes.rectangle(ip));
		String message = "The selection has no area inside the image: it lies outside it, or encloses no pixel "
			+ "(points on one line). Remove it (Edit>Selection>Select None) or draw another.";
		assertEquals(message, e.getMessage());
		// a polygon of points on one line, inside the image, was said to lie outside it
		ip.setRoi(new ij.gui.PolygonRoi(new int[] {2, 12, 7}, new int[] {5, 5, 5}, 3, ij.gui.Roi.POLYGON));
		assertEquals(message, org.junit.jupiter.api.Assertions.assertThrows(
			IllegalArgumentException.class, () -> ImagePlusPlanes.rectangle(ip)).getMessage());
		// and on a slanted line, whose bounds are 10x10 but whose mask holds no pixel: the blur
		// marked the image changed with no pixel changed and no word
		ij.gui.PolygonRoi slanted = new ij.gui.PolygonRoi(new int[] {2, 7, 12}, new int[] {3, 8, 13}, 3, ij.gui.Roi.POLYGON);
		ip.setRoi(slanted);
		assertEquals(message, org.junit.jupiter.api.Assertions.assertThrows(
			IllegalArgumentException.class, () -> ImagePlusPlanes.rectangle(ip)).getMessage());
		ImagePlus imp = new ImagePlus("slanted", new ByteProcessor(20, 20));
		imp.setRoi(slanted);
		assertEquals(message, org.junit.jupiter.api.Assertions.assertThrows(
			IllegalArgumentException.class, () -> ImagePlusPlanes.selection(imp)).getMessage());
		// a thin triangle that holds a pixel is an area, and so is an oval partly off the image
		ip.setRoi(new ij.gui.PolygonRoi(new int[] {2, 12, 12}, new int[] {3, 13, 11}, 3, ij.gui.Roi.POLYGON));
		assertEquals(10, ImagePlusPlanes.rectangle(ip).width);
		imp.setRoi(new OvalRoi(-5, -5, 12, 12));
		assertEquals(12, ImagePlusPlanes.selection(imp).width);
	}

	@Test
	void aTitlesNumbersAreNoFileExtension() {
		// "dose_0.5" and "dose_0.25" both gave results titled "dose_0 ...", told apart only by -1
		String[][] cases = { { "cells.tif", "cells" }, { "scan.tiff", "scan" }, { "a.jp2", "a" }, { "dose_0.5", "dose_0.5" },
			{ "ratio 1.25", "ratio 1.25" }, { "experiment.lif - Series 1", "experiment.lif - Series 1" } };
		for (String[] c : cases)
			assertEquals(c[1], ImagePlusPlanes.baseTitle(new ImagePlus(c[0], new ByteProcessor(2, 2))), c[0]);
	}

	@Test
	void aResultOfAPlainStackIsAtTheSourcesSliceAsAPositionToo() {
		// it showed slice 3, yet Stack.getPosition said slice 1 until the slice was changed
		ImagePlus source = IJ.createImage("zs", "8-bit ramp", 8, 6, 5), result = source.duplicate();
		source.setSlice(3);
		result.setSlice(1);
		ImagePlusPlanes.copyLayout(result, source, 1);
		assertEquals(3, result.getCurrentSlice());
		assertEquals(3, result.getZ(), "the position's slice");
	}

	@Test
	void rectangleOfAProcessorIgnoresItsMask() {
		ByteProcessor ip = new ByteProcessor(20, 20);
		ip.setRoi(new OvalRoi(3, 4, 8, 6));
		Region r = ImagePlusPlanes.rectangle(ip);
		assertEquals(3, r.x);
		assertEquals(4, r.y);
		assertEquals(8, r.width);
		assertEquals(6, r.height);
		assertNull(r.mask);
	}

	@Test
	void virtualStacksAreRefusedWithAMessage() {
		VirtualStack vs = new VirtualStack(4, 4, null, System.getProperty("java.io.tmpdir"));
		vs.addSlice("none.tif");
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ImagePlusPlanes.wrap((ImageStack) vs));
		assertTrue(e.getMessage().contains("virtual stack"), e.getMessage());
	}
}
