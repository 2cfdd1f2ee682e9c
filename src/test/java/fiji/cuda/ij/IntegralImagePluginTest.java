package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import ij.IJ;
import ij.ImagePlus;

/** The menu command's table image: values, and the source's hyperstack layout. */
class IntegralImagePluginTest {

	@Test
	void aHyperstacksTablesKeepItsLayoutEachChannelTwiceForBoth() {
		// with "stack" a 2-channel, 3-slice image came back as a plain stack
		ImagePlus imp = IJ.createHyperStack("h", 6, 4, 2, 3, 1, 8);
		for (int i = 1; i <= imp.getStackSize(); i++) {
			ij.process.ImageProcessor p = imp.getStack().getProcessor(i);
			p.setValue(i);
			p.fill();
		}
		ImagePlus sum = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[0], true);
		assertTrue(sum.isHyperStack());
		assertEquals(2, sum.getNChannels());
		assertEquals(3, sum.getNSlices());
		ImagePlus both = IntegralImagePlugin.compute(imp, IntegralImagePlugin.TABLES[2], true);
		assertEquals(4, both.getNChannels());
		assertEquals(3, both.getNSlices());
		// channel 2k+1 of a position is plane k's sum, 2k+2 its sum of squares: plane 4 (c 2, z 2) is all 4
		int i = both.getStackIndex(3, 2, 1), j = both.getStackIndex(4, 2, 1);
		assertEquals(4f * 24, both.getStack().getProcessor(i).getf(5, 3));
		assertEquals(16f * 24, both.getStack().getProcessor(j).getf(5, 3));
	}
}
