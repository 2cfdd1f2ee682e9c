package fiji.cuda.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import ij.IJ;
import ij.ImagePlus;

import java.io.File;
import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's TIFF files open in ImageJ as the stacks written: size, depth, type and every pixel. */
class TiffStackTest {

	@Test
	void imageJOpensEveryTypeAsTheStackWritten(@TempDir Path dir) throws Exception {
		Random r = new Random(3);
		// 7x5 8-bit planes have an odd byte count, so their IFDs need the pad byte
		for (PixelType type : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 })
			for (int depth : new int[] { 1, 3 }) {
				Object[] p = new Object[depth];
				for (int z = 0; z < depth; z++) {
					p[z] = type.newPlane(35);
					for (int i = 0; i < 35; i++)
						java.lang.reflect.Array.set(p[z], i, type == PixelType.UINT8 ? (Object) (byte) r.nextInt(256)
							: type == PixelType.UINT16 ? (Object) (short) r.nextInt(65536) : (Object) (float) r.nextGaussian());
				}
				File f = new File(dir.toFile(), type + "_" + depth + ".tif");
				TiffStack.write(Planes.wrap(7, 5, p), f);
				ImagePlus imp = IJ.openImage(f.getPath());
				String what = type + " x" + depth;
				assertNotNull(imp, what + " did not open");
				assertEquals(7, imp.getWidth(), what);
				assertEquals(5, imp.getHeight(), what);
				assertEquals(depth, imp.getStackSize(), what);
				assertEquals(8 * type.bytesPerPixel(), imp.getBitDepth(), what);
				for (int z = 0; z < depth; z++) {
					Object read = imp.getStack().getPixels(z + 1);
					if (type == PixelType.UINT8) assertArrayEquals((byte[]) p[z], (byte[]) read, what);
					else if (type == PixelType.UINT16) assertArrayEquals((short[]) p[z], (short[]) read, what);
					else assertArrayEquals((float[]) p[z], (float[]) read, what);
				}
			}
	}
}
