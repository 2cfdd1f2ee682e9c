package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.gaussian.GaussianBlur;
import fiji.cuda.ops.PartlyDoneException;
import ij.IJ;
import ij.ImagePlus;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** The menu command's work on hyperstacks, without its dialog. */
class GaussianBlur3DPluginTest {

	@Test
	void theOnePlaneOfAOneSliceVirtualStackIsBlurredAsTheOtherCommandsTakeIt() {
		// refused as "a virtual stack, whose changes would be lost", where the 2D blur, the box
		// statistics and the local threshold take such an image: its one plane stays in the image
		ImagePlus mem = IJ.createImage("one", "32-bit noise", 23, 19, 1);
		ImagePlus virt = BoxStatisticsPluginTest.virtualCopy(mem);
		virt.getProcessor(); // the plane shown, as a window would load it
		ImagePlus expected = mem.duplicate();
		GaussianBlur3DPlugin.blur(expected, 2, 2, 2);
		assertEquals(1, GaussianBlur3DPlugin.blur(virt, 2, 2, 2));
		assertTrue(virt.getStack().isVirtual());
		assertArrayEquals((float[]) expected.getProcessor().getPixels(), (float[]) virt.getProcessor().getPixels(),
			"the plane shown holds the blur");
		assertFalse(java.util.Arrays.equals((float[]) mem.getProcessor().getPixels(),
			(float[]) virt.getProcessor().getPixels()), "nothing was blurred");
	}

	@Test
	void aFailureOnALaterVolumeSaysWhichAreBlurred() {
		// 2 channels x 3 slices x 2 frames: 4 volumes. Running out of memory on the 3rd came out
		// as the bare error, with two volumes blurred and nothing saying so
		ImagePlus imp = IJ.createHyperStack("h", 17, 13, 2, 3, 2, 16);
		Random r = new Random(7);
		for (int s = 1; s <= imp.getStackSize(); s++)
			for (int i = 0; i < 17 * 13; i++)
				imp.getStack().getProcessor(s).setf(i, r.nextInt(4000));
		ImagePlus expected = imp.duplicate();
		GaussianBlur3DPlugin.blur(expected, 1, 1, 1);
		ImagePlus before = imp.duplicate();
		GaussianBlur3DPlugin.VolumeBlur saved = GaussianBlur3DPlugin.volumeBlur;
		int[] calls = { 0 };
		GaussianBlur3DPlugin.volumeBlur = (v, x, y, z, opts) -> {
			if (++calls[0] == 3) throw new OutOfMemoryError("Java heap space");
			return GaussianBlur.blur3D(v, x, y, z, opts);
		};
		try {
			PartlyDoneException e = assertThrows(PartlyDoneException.class, () -> GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
			assertEquals("Gaussian Blur 3D: stopped part way (Java ran out of memory); volumes 1-2 of 4 hold the "
				+ "result and the later ones are unchanged.", e.getMessage());
		} finally {
			GaussianBlur3DPlugin.volumeBlur = saved;
		}
		assertTrue(imp.changes, "the image is not marked changed");
		java.util.List<fiji.cuda.image.Planes> got = ImagePlusPlanes.volumes(imp), blurred = ImagePlusPlanes.volumes(expected),
			original = ImagePlusPlanes.volumes(before);
		for (int v = 0; v < 4; v++)
			for (int z = 0; z < 3; z++)
				assertArrayEquals((short[]) (v < 2 ? blurred : original).get(v).plane(z), (short[]) got.get(v).plane(z),
					"volume " + (v + 1) + " plane " + (z + 1));
	}

	@Test
	void aGpuFailureOnALaterVolumeNamesTheVolumesBlurredBeforeIt() {
		// a GPU failure names the planes of its own volume only: the message adds which volume of
		// the hyperstack it was and which ones before it hold the result. A mutation test found
		// that naming one volume too many ("volumes 1-3" blurred, of a failure on volume 3) passed
		// every test
		String[] said = new String[4];
		for (int i = 0; i < 4; i++)
			said[i] = GaussianBlur3DPlugin.inVolume(new fiji.cuda.runtime.GpuException("GPU failed"), i, 4).getMessage();
		assertEquals("GPU failed (volume 1 of 4)", said[0]);
		assertEquals("GPU failed (volume 2 of 4; volume 1 is blurred)", said[1]);
		assertEquals("GPU failed (volume 3 of 4; volumes 1-2 are blurred)", said[2]);
		assertEquals("GPU failed (volume 4 of 4; volumes 1-3 are blurred)", said[3]);
		fiji.cuda.runtime.GpuException one = new fiji.cuda.runtime.GpuException("GPU failed");
		assertTrue(GaussianBlur3DPlugin.inVolume(one, 0, 1) == one, "a single volume's failure is left as it is");
	}

	@Test
	void undoAfterATypeConversionTakesBackTheBlurNotTheConversion() {
		// Image>Type>8-bit, then this blur, then Edit>Undo: a single image's blur is undoable as
		// ImageJ's filters are, one step back. A mutation test found that leaving Undo as the
		// conversion set it up passed every test: Undo then gave back the 16-bit image, the blur
		// and the conversion both gone
		ImagePlus imp = IJ.createImage("converted", "16-bit ramp", 17, 13, 1);
		ij.Undo.setup(ij.Undo.TYPE_CONVERSION, imp); // as Image>Type>8-bit sets it up
		new ij.process.ImageConverter(imp).convertToGray8();
		ImagePlus converted = imp.duplicate();
		assertEquals(1, GaussianBlur3DPlugin.blur(imp, 2, 2, 1));
		assertFalse(ImageJReference.samePixels(converted, imp), "not blurred");
		ImageJReference.undo(imp);
		assertEquals(8, imp.getBitDepth(), "Undo took back the conversion");
		assertTrue(ImageJReference.samePixels(converted, imp), "Undo did not take back the blur");
	}

	@Test
	void aFailureAfterTheFirstVolumeWasWrittenMarksTheImageChangedAndSaysSo() {
		// the progress bar failing inside the only volume, or the first of two, came out as the
		// bare error: the volume was blurred, yet not marked changed, not redrawn, and not undoable
		GaussianBlur3DPlugin.VolumeBlur saved = GaussianBlur3DPlugin.volumeBlur;
		fiji.cuda.ops.Progress failing = new fiji.cuda.ops.Progress() {
			@Override
			public void update(double fraction) {
				throw new OutOfMemoryError("Java heap space");
			}

			@Override
			public boolean isCanceled() {
				return false;
			}
		};
		GaussianBlur3DPlugin.volumeBlur = (v, x, y, z, opts) -> GaussianBlur.blur3D(v, x, y, z,
			opts.withBackend(fiji.cuda.ops.Backend.CPU).withProgress(failing));
		try {
			ImagePlus one = IJ.createImage("one", "32-bit ramp", 17, 13, 3);
			one.changes = false;
			PartlyDoneException e = assertThrows(PartlyDoneException.class, () -> GaussianBlur3DPlugin.blur(one, 1, 1, 1));
			assertEquals("Gaussian Blur 3D: stopped part way (Java ran out of memory); every slice holds the result.",
				e.getMessage());
			assertTrue(one.changes, "the blurred stack is not marked changed");

			ImagePlus single = IJ.createImage("single", "32-bit ramp", 17, 13, 1);
			single.changes = false;
			assertThrows(PartlyDoneException.class, () -> GaussianBlur3DPlugin.blur(single, 1, 1, 0));
			assertTrue(single.changes);
			ImageJReference.undo(single);
			assertTrue(ImageJReference.samePixels(IJ.createImage("ramp", "32-bit ramp", 17, 13, 1), single),
				"Undo did not give the single image back");

			ImagePlus two = IJ.createHyperStack("two", 17, 13, 1, 3, 2, 16);
			e = assertThrows(PartlyDoneException.class, () -> GaussianBlur3DPlugin.blur(two, 1, 1, 1));
			assertEquals("Gaussian Blur 3D: stopped part way (Java ran out of memory); in volume 1 of 2, every slice holds "
				+ "the result; the later ones are unchanged.", e.getMessage());
			assertTrue(two.changes);
		} finally {
			GaussianBlur3DPlugin.volumeBlur = saved;
		}
	}

	@Test
	void aSingleImageThatFailsBeforeItIsWrittenLeavesUndoToTheFilterBefore() {
		// the run took the plane's snapshot over the one the filter before had left: after the
		// failure, Edit>Undo no longer took back that filter
		ImagePlus[] v = addedToByTheFilterBefore();
		ImagePlus imp = v[0];
		GaussianBlur3DPlugin.VolumeBlur saved = GaussianBlur3DPlugin.volumeBlur;
		GaussianBlur3DPlugin.volumeBlur = (vol, x, y, z, opts) -> {
			throw new OutOfMemoryError("Java heap space");
		};
		try {
			assertThrows(OutOfMemoryError.class, () -> GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
		} finally {
			GaussianBlur3DPlugin.volumeBlur = saved;
		}
		assertUnchangedAndUndoable(v);
	}

	@Test
	void aSingleImageWhoseCopyForUndoFindsNoMemoryLeavesUndoToTheFilterBefore() {
		// the earlier snapshot was set aside before the new copy was made: out of memory for that
		// copy left the plane with none, and Edit>Undo no longer took back the filter before
		ImagePlus[] v = addedToByTheFilterBefore();
		ImagePlus imp = v[0];
		ij.process.ShortProcessor had = (ij.process.ShortProcessor) imp.getProcessor();
		ij.process.ShortProcessor full = new ij.process.ShortProcessor(had.getWidth(), had.getHeight(),
			(short[]) had.getPixels(), null) {
			@Override
			public void snapshot() {
				if (getSnapshotPixels() == null) throw new OutOfMemoryError("Java heap space");
				super.snapshot();
			}
		};
		full.setSnapshotPixels(had.getSnapshotPixels());
		imp.setProcessor(full);
		ij.Undo.setup(ij.Undo.FILTER, imp);
		assertThrows(OutOfMemoryError.class, () -> GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
		assertUnchangedAndUndoable(v);
	}

	/**
	 * @return a one-plane 16-bit image with 9 added as ImageJ's runner leaves a filter, with Undo
	 *         set up for it, marked unchanged; a copy before the filter; a copy after it
	 */
	private static ImagePlus[] addedToByTheFilterBefore() {
		ImagePlus imp = IJ.createImage("one", "16-bit ramp", 17, 13, 1);
		ImagePlus original = imp.duplicate();
		imp.getProcessor().snapshot();
		imp.getProcessor().add(9); // the filter before, as ImageJ's runner leaves it
		ij.Undo.setup(ij.Undo.FILTER, imp);
		imp.changes = false;
		return new ImagePlus[] { imp, original, imp.duplicate() };
	}

	/** Asserts that a run left {@link #addedToByTheFilterBefore}'s image's pixels as they were, and Undo to that filter. */
	private static void assertUnchangedAndUndoable(ImagePlus[] v) {
		assertArrayEquals((short[]) v[2].getProcessor().getPixels(), (short[]) v[0].getProcessor().getPixels(), "changed");
		ImageJReference.undo(v[0]);
		assertArrayEquals((short[]) v[1].getProcessor().getPixels(), (short[]) v[0].getProcessor().getPixels(),
			"Undo did not take back the filter before");
	}

	@Test
	void aSingleImageStoppedBeforeItIsWrittenLeavesUndoToTheFilterBefore() {
		// as after a failure: a run stopped (Esc) before its only volume is blurred changes nothing,
		// so the plane's snapshot must again be the one the filter before left. A mutation test
		// found that a stop that did not give that snapshot back passed every test
		ImagePlus[] v = addedToByTheFilterBefore();
		ImagePlus imp = v[0];
		GaussianBlur3DPlugin.VolumeBlur saved = GaussianBlur3DPlugin.volumeBlur;
		GaussianBlur3DPlugin.volumeBlur = (vol, x, y, z, opts) -> new fiji.cuda.ops.OpReport(fiji.cuda.ops.Backend.CPU, null,
			true, 0);
		try {
			assertEquals(0, GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
		} finally {
			GaussianBlur3DPlugin.volumeBlur = saved;
		}
		assertFalse(imp.changes, "marked changed");
		assertUnchangedAndUndoable(v);
	}

	@Test
	void aStackRunThatChangesNothingLeavesUndoToTheOneSliceFilterBefore() {
		// Undo was reset and the slice's snapshot dropped before the first volume: a failure (out of
		// memory), or a stop, before anything was blurred left a one-slice filter run before undoable no more
		GaussianBlur3DPlugin.VolumeBlur saved = GaussianBlur3DPlugin.volumeBlur;
		try {
			for (boolean fail : new boolean[] { true, false }) {
				ImagePlus imp = IJ.createImage("stack", "16-bit ramp", 17, 13, 3);
				imp.setSlice(2);
				short[] original = ((short[]) imp.getProcessor().getPixels()).clone();
				imp.getProcessor().snapshot();
				imp.getProcessor().add(9); // the filter before, as ImageJ's runner leaves it on one slice
				ij.Undo.setup(ij.Undo.FILTER, imp);
				imp.changes = false;
				ImagePlus added = imp.duplicate();
				GaussianBlur3DPlugin.volumeBlur = fail ? (v, x, y, z, opts) -> {
					throw new OutOfMemoryError("Java heap space");
				} : (v, x, y, z, opts) -> new fiji.cuda.ops.OpReport(fiji.cuda.ops.Backend.CPU, null, true, 0);
				if (fail) assertThrows(OutOfMemoryError.class, () -> GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
				else assertEquals(0, GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
				assertTrue(ImageJReference.samePixels(added, imp), "changed (" + (fail ? "failed" : "canceled") + ")");
				assertFalse(imp.changes, "marked changed");
				ImageJReference.undo(imp);
				assertArrayEquals(original, (short[]) imp.getStack().getPixels(2),
					"Undo did not take back the filter before (" + (fail ? "failed" : "canceled") + ")");
			}
		} finally {
			GaussianBlur3DPlugin.volumeBlur = saved;
		}
	}

	@Test
	void aRunThatBlursRemovesTheSelectionAsImageJ() {
		// ImageJ's Gaussian Blur 3D blurs the whole stack and drops the selection, which would
		// otherwise suggest that only its inside was blurred; so does the SciJava command. A mutation
		// test found that the menu command keeping it after a blur passed every test
		GaussianBlur3DPlugin.VolumeBlur saved = GaussianBlur3DPlugin.volumeBlur;
		try {
			for (int slices : new int[] { 1, 3 })
				for (boolean partly : slices == 1 ? new boolean[] { false } : new boolean[] { false, true }) {
					// a single image, or a volume of 3 slices at each of 2 time points
					ImagePlus imp = IJ.createHyperStack("roi", 17, 13, 1, slices, slices == 1 ? 1 : 2, 8);
					imp.setRoi(new ij.gui.OvalRoi(2, 3, 9, 7));
					int[] calls = { 0 };
					GaussianBlur3DPlugin.volumeBlur = (v, x, y, z, opts) -> {
						// part way: the second volume fails after the first was blurred
						if (partly && ++calls[0] == 2) throw new OutOfMemoryError("Java heap space");
						return GaussianBlur.blur3D(v, x, y, z, opts);
					};
					if (partly) assertThrows(PartlyDoneException.class, () -> GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
					else assertEquals(slices == 1 ? 1 : 2, GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
					String what = slices + " slices" + (partly ? ", one volume of two blurred" : "");
					assertTrue(imp.changes, "not marked changed: " + what);
					assertNull(imp.getRoi(), "the selection is kept: " + what);
				}
		} finally {
			GaussianBlur3DPlugin.volumeBlur = saved;
		}
	}

	@Test
	void sigmasOfZeroChangeNoPixelButDropTheSelectionAsImageJ() {
		// ImageJ's Gaussian Blur 3D with x, y and z of 0 blurs nothing, yet removes the selection
		// first; the SciJava command does the same. A mutation test found that the menu command
		// keeping it passed every test
		for (int slices : new int[] { 1, 3 }) {
			ImagePlus imp = IJ.createImage("roi", "16-bit ramp", 17, 13, slices);
			imp.setRoi(new ij.gui.OvalRoi(2, 3, 9, 7));
			imp.changes = false;
			ImagePlus before = imp.duplicate();
			assertEquals(0, GaussianBlur3DPlugin.blur(imp, 0, 0, 0));
			assertTrue(ImageJReference.samePixels(before, imp), slices + " slices: changed");
			assertFalse(imp.changes, slices + " slices: marked changed");
			assertNull(imp.getRoi(), slices + " slices: the selection is kept");
		}
	}

	@Test
	void aRunThatChangesNothingKeepsTheSelection() {
		// the selection was removed before the first volume, and stayed removed when the blur
		// failed, or was stopped, before it wrote anything
		GaussianBlur3DPlugin.VolumeBlur saved = GaussianBlur3DPlugin.volumeBlur;
		try {
			for (int slices : new int[] { 1, 3 })
				for (boolean fail : new boolean[] { true, false }) {
					ImagePlus imp = IJ.createImage("roi", "8-bit ramp", 17, 13, slices);
					ij.gui.Roi roi = new ij.gui.OvalRoi(2, 3, 9, 7);
					imp.setRoi(roi);
					GaussianBlur3DPlugin.volumeBlur = fail ? (v, x, y, z, opts) -> {
						throw new OutOfMemoryError("Java heap space");
					} : (v, x, y, z, opts) -> new fiji.cuda.ops.OpReport(fiji.cuda.ops.Backend.CPU, null, true, 0);
					if (fail) assertThrows(OutOfMemoryError.class, () -> GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
					else assertEquals(0, GaussianBlur3DPlugin.blur(imp, 1, 1, 1));
					String what = slices + " slices, " + (fail ? "failed" : "stopped");
					assertFalse(imp.changes, "marked changed: " + what);
					assertTrue(imp.getRoi() != null && imp.getRoi().getBounds().equals(roi.getBounds())
						&& imp.getRoi().getType() == ij.gui.Roi.OVAL, "the selection is gone: " + what);
				}
		} finally {
			GaussianBlur3DPlugin.volumeBlur = saved;
		}
	}
}
