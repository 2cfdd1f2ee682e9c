package fiji.cuda.ncc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ncc.AlignSlices.Interpolation;
import fiji.cuda.ncc.AlignSlices.Settings;
import fiji.cuda.ncc.AlignSlices.Shift;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.Gpu;

/**
 * The GPU path of Align Slices against the CPU path: the translation bit for bit for every
 * type, interpolation and kind of shift, and whole alignments (fixed reference and previous
 * slice) with the same shifts and the same slices.
 */
@Tag("gpu")
class AlignSlicesGpuTest {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);
	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU).withThreads(3);
	static final PixelType[] TYPES = { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 };

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	@Test
	void translationIsBitForBitTheCpuPath() {
		double[][] shifts = { { 0, 0 }, { 3, -2 }, { -7, 11 }, { 0.5, 0.25 }, { -1.3, 2.7 }, { 12.6, -0.4 }, { 0.001, 0 },
			{ -0.999, -0.999 }, { 200, 0.5 }, { -0.5, -300 } };
		int[][] sizes = { { 1, 1 }, { 1, 17 }, { 17, 1 }, { 2, 2 }, { 3, 5 }, { 97, 61 }, { 257, 130 } };
		int seed = 1;
		for (PixelType t : TYPES)
			for (int[] sz : sizes)
				for (double[] sh : shifts)
					for (Interpolation in : Interpolation.values()) {
						Planes img = TestImages.random(t, sz[0], sz[1], 1, seed++);
						if (t == PixelType.FLOAT32 && sz[0] > 2 && sz[1] > 2) {
							float[] p = (float[]) img.plane(0);
							p[sz[0] + 1] = Float.NaN; // ImageJ's bilinear skips a NaN neighbour
							p[p.length / 2] = Float.NaN;
						}
						Planes cpu = img.copy(), gpu = img.copy();
						AlignSlices.translate(cpu, 0, sh[0], sh[1], in, 2);
						AlignSlicesGpu.translate(Gpu.get(), gpu, 0, sh[0], sh[1], in);
						TestImages.Diff d = TestImages.diff(cpu, gpu);
						assertTrue(TestImages.sameBits(cpu, gpu), t + " " + sz[0] + "x" + sz[1] + " shift (" + sh[0] + ", "
							+ sh[1] + ") " + in + ": " + d);
					}
	}

	@Test
	void wholePixelAlignmentsEqualTheCpuPathExactly() {
		double[] sx = { 0, 3, -5, 7, -2, 4 }, sy = { 0, -4, 2, 6, 0, -7 };
		for (PixelType type : TYPES)
			for (boolean previous : new boolean[] { false, true }) {
				Planes stack = DriftingStack.make(type, 120, 100, sx, sy, 3);
				Settings s = AlignSlicesTest.settings(40, 30, 40, 36, 9);
				s.subpixel = false;
				s.previous = previous;
				Planes cpu = stack.copy(), gpu = stack.copy();
				List<Shift> a = AlignSlices.align(cpu, s, CPU), b = AlignSlices.align(gpu, s, GPU);
				for (int z = 0; z < a.size(); z++) {
					String what = type + " previous=" + previous + " slice " + z;
					assertEquals(a.get(z).dx, b.get(z).dx, 0.0, what);
					assertEquals(a.get(z).dy, b.get(z).dy, 0.0, what);
					assertEquals(a.get(z).score, b.get(z).score, 1e-4, what);
				}
				assertTrue(TestImages.sameBits(cpu, gpu), type + " previous=" + previous + ": " + TestImages.diff(cpu, gpu));
			}
	}

	@Test
	void previousSliceModePastABlankSliceEqualsTheCpuPath() {
		// the slice after a blank one is compared with the last slice that matched, on both paths
		double[] sx = { 0, 2, 4, 6, 8, 10 }, sy = { 0, -1, -2, -3, -4, -5 };
		for (PixelType type : TYPES) {
			Planes stack = DriftingStack.make(type, 120, 100, sx, sy, 5);
			Object blank = stack.plane(2);
			if (blank instanceof byte[]) java.util.Arrays.fill((byte[]) blank, (byte) 0);
			else if (blank instanceof short[]) java.util.Arrays.fill((short[]) blank, (short) 0);
			else java.util.Arrays.fill((float[]) blank, 0f);
			Settings s = AlignSlicesTest.settings(40, 30, 40, 36, 5);
			s.subpixel = false;
			s.previous = true;
			Planes cpu = stack.copy(), gpu = stack.copy();
			List<Shift> a = AlignSlices.align(cpu, s, CPU), b = AlignSlices.align(gpu, s, GPU);
			for (int z = 0; z < a.size(); z++) {
				String what = type + " slice " + z + ": " + a.get(z) + " / " + b.get(z);
				assertEquals(a.get(z).dx, b.get(z).dx, 0.0, what);
				assertEquals(a.get(z).dy, b.get(z).dy, 0.0, what);
			}
			assertEquals(-sx[5], a.get(5).dx, 0.0, a.get(5).toString());
			assertTrue(TestImages.sameBits(cpu, gpu), type + ": " + TestImages.diff(cpu, gpu));
		}
	}

	@Test
	void subPixelAlignmentsAgreeWithTheCpuPath() {
		double[] sx = { 0, 0.3, -1.7, 2.45, -3, 1.1 }, sy = { 0, -1.7, 0.3, -2.2, 4, 0.6 };
		for (PixelType type : TYPES)
			for (Interpolation in : Interpolation.values()) {
				Planes stack = DriftingStack.make(type, 120, 100, sx, sy, 4);
				Settings s = AlignSlicesTest.settings(40, 30, 40, 36, 8);
				s.interpolation = in;
				s.reference = 2;
				Planes gpu = stack.copy(), byHand = stack.copy();
				List<Shift> a = AlignSlices.align(stack.copy(), s, CPU), b = AlignSlices.align(gpu, s, GPU);
				assertEquals(a.size(), b.size());
				for (int z = 0; z < a.size(); z++) {
					String what = type + " " + in + " slice " + z;
					assertEquals(a.get(z).dx, b.get(z).dx, 1e-3, what);
					assertEquals(a.get(z).dy, b.get(z).dy, 1e-3, what);
					// the slices moved by the GPU's own shifts, to the bit: the sub-pixel fits may
					// differ from the CPU's in the last digits, the translation may not
					Shift sh = b.get(z);
					AlignSlices.translate(byHand, sh.plane, sh.dx, sh.dy, in, 2);
				}
				assertTrue(TestImages.sameBits(byHand, gpu), type + " " + in + ": " + TestImages.diff(byHand, gpu));
			}
	}

	@Test
	void theShiftsCutShortAtTheSearchsBorderAreTheSameOnBothPaths() {
		// slices 3 and 6 drift past the margin of 4, slice 4 exactly to it; in groups and slice by
		// slice, sub-pixel and whole-pixel, the GPU's shifts name the same slices as the CPU's
		double[] sx = { 0, 3, 7, -2, 1.5, -9 }, sy = { 0, -1, 1, 4, 0.5, 2 };
		int groups = AlignSlicesGpu.groupSlicesForTest;
		try {
			for (PixelType type : TYPES)
				for (int group : new int[] { 0, -1 })
					for (boolean subpixel : new boolean[] { false, true }) {
						AlignSlicesGpu.groupSlicesForTest = group;
						Planes stack = DriftingStack.make(type, 100, 90, sx, sy, 5);
						Settings s = AlignSlicesTest.settings(30, 25, 36, 30, 4);
						s.subpixel = subpixel;
						List<Shift> a = AlignSlices.align(stack.copy(), s, CPU), b = AlignSlices.align(stack.copy(), s, GPU);
						String what = type + " group " + group + " subpixel " + subpixel;
						assertEquals(List.of(2, 3, 5), AlignSlices.atSearchBorder(a, s, 100, 90), what + " " + a);
						assertEquals(List.of(2, 3, 5), AlignSlices.atSearchBorder(b, s, 100, 90), what + " " + b);
					}
		} finally {
			AlignSlicesGpu.groupSlicesForTest = groups;
		}
	}

	@Test
	void aNarrowTallStackSearchedOverItsHeightIsAlignedInGroupsThatTheKernelsTake() {
		// 2x30000 16-bit slices, the landmark searched over the whole height: 99 search areas of
		// 30000 rows fit the staging, but their column is taller than the map kernels' grid takes
		int n = 100, w = 2, h = 30000;
		double[] sx = new double[n], sy = new double[n];
		for (int z = 0; z < n; z++)
			sy[z] = z % 11 - 5;
		Planes stack = DriftingStack.make(PixelType.UINT16, w, h, sx, sy, 36);
		Settings s = AlignSlicesTest.settings(0, 15000, 2, 40, 1 << 20);
		s.subpixel = false;
		Planes cpu = stack.copy(), gpu = stack.copy();
		List<Shift> a = AlignSlices.align(cpu, s, CPU), b = AlignSlices.align(gpu, s, GPU);
		assertEquals(a.size(), b.size());
		for (int z = 0; z < a.size(); z++) {
			assertEquals(a.get(z).dx, b.get(z).dx, 0.0, "slice " + z);
			assertEquals(a.get(z).dy, b.get(z).dy, 0.0, "slice " + z);
		}
		assertTrue(TestImages.sameBits(cpu, gpu), TestImages.diff(cpu, gpu).toString());
	}

	/** @return four 16-bit slices drifting by known whole-pixel shifts, for the failure tests */
	private static Planes fourSlices() {
		return DriftingStack.make(PixelType.UINT16, 120, 100, new double[] { 0, 3, -5, 7 }, new double[] { 0, -4, 2, 6 },
			35);
	}

	/** @return {@link #fourSlices} and a copy aligned on the CPU path with {@link #fourSlicesSettings} */
	private static Planes[] fourSlicesAndTheirCpuAlignment() {
		Planes stack = fourSlices(), cpu = stack.copy();
		AlignSlices.align(cpu, fourSlicesSettings(), CPU);
		return new Planes[] { stack, cpu };
	}

	/** @return the settings the failure tests align {@link #fourSlices} with: whole pixels */
	private static Settings fourSlicesSettings() {
		Settings s = AlignSlicesTest.settings(40, 30, 40, 36, 9);
		s.subpixel = false;
		return s;
	}

	/**
	 * @return what aligning {@code gpu} throws, in groups of {@code group} slices (-1: slice by
	 *         slice); the group size goes back as it was
	 */
	private static <E extends Throwable> E alignFailing(Class<E> type, Planes gpu, Settings s, ExecutionOptions opts,
		int group) {
		int groups = AlignSlicesGpu.groupSlicesForTest;
		AlignSlicesGpu.groupSlicesForTest = group;
		try {
			return org.junit.jupiter.api.Assertions.assertThrows(type, () -> AlignSlices.align(gpu, s, opts));
		} finally {
			AlignSlicesGpu.groupSlicesForTest = groups;
		}
	}

	@Test
	void aForcedGpuFailingAfterASliceSaysWhichSlicesAreAligned() {
		// slice by slice, two downloads a slice (its score map, then the slice): the fourth, slice
		// 3's, fails. With the GPU forced nothing finishes the stack, so the error must say that
		// slice 2 is aligned and the others are not.
		Settings s = fourSlicesSettings();
		Planes[] made = fourSlicesAndTheirCpuAlignment();
		Planes stack = made[0], cpu = made[1], gpu = stack.copy();
		fiji.cuda.runtime.FaultInjection.failDownloadAfter(3, 0);
		fiji.cuda.runtime.GpuException e;
		try {
			e = alignFailing(fiji.cuda.runtime.GpuException.class, gpu, s, GPU, -1);
		} finally {
			fiji.cuda.runtime.FaultInjection.clear();
		}
		assertTrue(e.getMessage().contains("injected"), e.getMessage());
		assertTrue(e.getMessage().contains("slice 2 is aligned"), e.getMessage());
		for (int z = 0; z < 4; z++) {
			Planes want = z < 2 ? cpu : stack;
			assertTrue(java.util.Arrays.equals((short[]) want.plane(z), (short[]) gpu.plane(z)),
				"slice " + (z + 1) + (z < 2 ? " aligned" : " unchanged"));
		}
	}

	@Test
	void aProgressFailingInsideTheGpuPathSaysWhichSlicesAreAligned() {
		// anything but a GPU error thrown inside the GPU path (here the progress listener, after
		// slice 2 was written back) escaped as it was, with slices aligned and no word of which;
		// slice by slice, and in groups
		Planes stack = fourSlices();
		Settings s = fourSlicesSettings();
		Planes cpu = stack.copy();
		AlignSlices.align(cpu, s, CPU);
		int groups = AlignSlicesGpu.groupSlicesForTest;
		try {
			for (int group : new int[] { -1, 1 }) {
				AlignSlicesGpu.groupSlicesForTest = group;
				Planes gpu = stack.copy();
				fiji.cuda.ops.Progress failing = fiji.cuda.TestProgress.failingAtUpdate(1);
				fiji.cuda.ops.PartlyDoneException e = org.junit.jupiter.api.Assertions.assertThrows(
					fiji.cuda.ops.PartlyDoneException.class, () -> AlignSlices.align(gpu, s, GPU.withProgress(failing)));
				// the groups already on their way down are kept (and named) as well: slice 2 at least
				int k = 0;
				while (k < 3 && java.util.Arrays.equals((short[]) cpu.plane(k + 1), (short[]) gpu.plane(k + 1)))
					k++;
				assertTrue(k >= 1, group + ": slice 2 is not aligned");
				assertTrue(e.getMessage().contains(AlignSlices.alignedPrefix(new int[] { 1, 2, 3 }, k)), group + ", " + k
					+ " aligned: " + e.getMessage());
				for (int z = k + 1; z < 4; z++)
					assertTrue(java.util.Arrays.equals((short[]) stack.plane(z), (short[]) gpu.plane(z)),
						group + ": slice " + (z + 1) + " changed, yet not named aligned");
			}
		} finally {
			AlignSlicesGpu.groupSlicesForTest = groups;
		}
	}

	@Test
	void aProgressFailingAfterAGroupWentDownNamesThatGroupsSlicesAlignedToo() {
		// groups of one slice: slice 2 is recorded inside the pipeline, slices 3 and 4 after it,
		// when slice 4's group is already being copied into its array. The listener breaking at
		// slice 3 leaves that copy to finish: slice 4 then holds its result and must be named
		Settings s = fourSlicesSettings();
		Planes[] made = fourSlicesAndTheirCpuAlignment();
		Planes cpu = made[1], gpu = made[0].copy();
		fiji.cuda.ops.PartlyDoneException e = alignFailing(fiji.cuda.ops.PartlyDoneException.class, gpu, s,
			GPU.withProgress(fiji.cuda.TestProgress.failingAtUpdate(2)), 1);
		for (int z = 1; z < 4; z++)
			assertTrue(java.util.Arrays.equals((short[]) cpu.plane(z), (short[]) gpu.plane(z)), "slice " + (z + 1)
				+ " is not aligned");
		assertTrue(e.getMessage().contains(AlignSlices.alignedPrefix(new int[] { 1, 2, 3 }, 3)), e.getMessage());
	}

	@Test
	void aFlatLandmarkSliceKeepsItsNeighboursShiftOnBothPaths() {
		double[] sx = { 0, 2, -1 }, sy = { 0, 1, 3 };
		Planes stack = DriftingStack.make(PixelType.UINT16, 90, 80, sx, sy, 5);
		short[] p = (short[]) stack.plane(1);
		java.util.Arrays.fill(p, (short) 500); // slice 2 flat: nothing scores above 0
		Settings s = AlignSlicesTest.settings(25, 20, 40, 36, 9);
		s.previous = true;
		Planes cpu = stack.copy(), gpu = stack.copy();
		List<Shift> a = AlignSlices.align(cpu, s, CPU), b = AlignSlices.align(gpu, s, GPU);
		for (int z = 0; z < a.size(); z++) {
			assertEquals(a.get(z).dx, b.get(z).dx, 1e-3, "slice " + z);
			assertEquals(a.get(z).dy, b.get(z).dy, 1e-3, "slice " + z);
		}
	}

	@Test
	void slicesAlignedInGroupsEqualSlicesAlignedOneByOne() {
		// the grouped path (fixed reference, 8 and 16-bit) runs the same kernels on the same
		// data as the slice-by-slice one: same shifts, same pixels, whatever the group size
		double[] sx = { 0, 0.3, -1.7, 2, -3, 1.1, 4, -2.5, 0, 3.25, -1 };
		double[] sy = { 0, -1.7, 0.3, -2, 4, 0.6, -3, 1.5, 2, 0, -0.75 };
		for (PixelType type : new PixelType[] { PixelType.UINT8, PixelType.UINT16 })
			for (Interpolation in : Interpolation.values()) {
				Planes stack = DriftingStack.make(type, 97, 83, sx, sy, 6);
				Settings s = AlignSlicesTest.settings(30, 25, 36, 30, 8);
				s.interpolation = in;
				s.reference = 4;
				Planes one = stack.copy();
				List<Shift> want;
				AlignSlicesGpu.groupSlicesForTest = -1;
				try {
					want = AlignSlices.align(one, s, GPU);
				} finally {
					AlignSlicesGpu.groupSlicesForTest = 0;
				}
				List<Shift> cpu = AlignSlices.align(stack.copy(), s, CPU);
				for (int group : new int[] { 0, 1, 3, 4 }) {
					Planes grouped = stack.copy();
					List<Shift> got;
					AlignSlicesGpu.groupSlicesForTest = group;
					try {
						got = AlignSlices.align(grouped, s, GPU);
					} finally {
						AlignSlicesGpu.groupSlicesForTest = 0;
					}
					String what = type + " " + in + " groups of " + group;
					assertEquals(want.size(), got.size(), what);
					for (int z = 0; z < want.size(); z++) {
						assertEquals(want.get(z).dx, got.get(z).dx, 0.0, what + " slice " + z);
						assertEquals(want.get(z).dy, got.get(z).dy, 0.0, what + " slice " + z);
						assertEquals(want.get(z).score, got.get(z).score, 0.0, what + " slice " + z);
						assertEquals(cpu.get(z).dx, got.get(z).dx, 1e-3, what + " slice " + z + " against the CPU");
						assertEquals(cpu.get(z).dy, got.get(z).dy, 1e-3, what + " slice " + z + " against the CPU");
					}
					assertTrue(TestImages.sameBits(one, grouped), what + ": " + TestImages.diff(one, grouped));
				}
			}
	}

	/**
	 * Narrow, tall slices: a group's search areas are matched as one image, group x 20000 rows
	 * here, and the matching grids take at most 65535 x 32 rows, so the group must shrink (104
	 * slices instead of the 209 that the staging memory holds).
	 */
	@Test
	void tallNarrowSlicesAlignedInGroupsEqualTheCpuPath() {
		int n = 120;
		double[] sx = new double[n], sy = new double[n];
		for (int z = 0; z < n; z++)
			sy[z] = (z * 7) % 11 - 5;
		Planes stack = DriftingStack.make(PixelType.UINT16, 2, 20000, sx, sy, 12);
		Settings s = AlignSlicesTest.settings(0, 9900, 2, 100, 20000);
		s.subpixel = false;
		Planes one = stack.copy(), grouped = stack.copy();
		List<Shift> want;
		AlignSlicesGpu.groupSlicesForTest = -1;
		try {
			want = AlignSlices.align(one, s, GPU);
		} finally {
			AlignSlicesGpu.groupSlicesForTest = 0;
		}
		List<Shift> got = AlignSlices.align(grouped, s, GPU);
		List<Shift> cpu = AlignSlices.align(stack.copy(), s, CPU);
		for (int z = 0; z < n; z++) {
			assertEquals(want.get(z).dy, got.get(z).dy, 0.0, "slice " + z);
			assertEquals(want.get(z).score, got.get(z).score, 0.0, "slice " + z);
			assertEquals(cpu.get(z).dx, got.get(z).dx, 1e-3, "slice " + z + " against the CPU");
			assertEquals(cpu.get(z).dy, got.get(z).dy, 1e-3, "slice " + z + " against the CPU");
		}
		assertTrue(TestImages.sameBits(one, grouped), TestImages.diff(one, grouped).toString());
	}

	@Test
	void slicesLargerThanHalfAStagingChunkAreAlignedAsOnTheCpu() {
		// a group travels through half a staging chunk: slices larger than that, though within
		// one chunk, go slice by slice. 8-bit slices of 3/4 of a chunk, the drifting texture in
		// the corner where the landmark is searched, seeded noise elsewhere (cheap to make)
		long bytes = fiji.cuda.runtime.FaultInjection.stagingChunkBytes() * 3 / 4;
		int w = 4096, h = (int) (bytes / w);
		Planes corner = DriftingStack.make(PixelType.UINT8, 120, 100, new double[] { 0, 3, -5 }, new double[] { 0, -4, 2 },
			53);
		java.util.Random r = new java.util.Random(53);
		Object[] planes = new Object[3];
		for (int z = 0; z < 3; z++) {
			byte[] p = new byte[w * h];
			r.nextBytes(p);
			for (int y = 0; y < 100; y++)
				System.arraycopy(corner.plane(z), y * 120, p, y * w, 120);
			planes[z] = p;
		}
		Planes stack = Planes.wrap(w, h, planes);
		Settings s = fourSlicesSettings();
		Planes cpu = stack.copy(), gpu = stack.copy();
		List<Shift> want = AlignSlices.align(cpu, s, CPU), got;
		int groups = AlignSlicesGpu.groupSlicesForTest;
		AlignSlicesGpu.groupSlicesForTest = 0; // groups allowed, of the size the staging takes
		try {
			got = AlignSlices.align(gpu, s, GPU);
		} finally {
			AlignSlicesGpu.groupSlicesForTest = groups;
		}
		assertEquals(want.size(), got.size());
		for (int z = 0; z < want.size(); z++) {
			assertEquals(want.get(z).dx, got.get(z).dx, 0.0, "slice " + z);
			assertEquals(want.get(z).dy, got.get(z).dy, 0.0, "slice " + z);
		}
		assertTrue(TestImages.sameBits(cpu, gpu), TestImages.diff(cpu, gpu).toString());
	}

	@Test
	void aCanceledGroupedAlignmentLeavesAPrefixAlignedAndTheRestUntouched() {
		// the pipeline has three groups in flight; a cancel stops new groups, finishes those
		// started, and every slice ends either as aligned one by one or as it was
		double[] sx = { 0, 0.3, -1.7, 2, -3, 1.1, 4, -2.5, 0, 3.25, -1, 2.5, -0.5, 1, -2, 0.75, 3, -1.5, 2, -3.5, 0.5 };
		double[] sy = { 0, -1.7, 0.3, -2, 4, 0.6, -3, 1.5, 2, 0, -0.75, 1, 3, -1, 2.25, 0, -2.5, 1.5, -0.5, 3, -3 };
		Planes stack = DriftingStack.make(PixelType.UINT8, 97, 83, sx, sy, 7);
		Settings s = AlignSlicesTest.settings(30, 25, 36, 30, 8);
		Planes one = stack.copy(), grouped = stack.copy();
		AlignSlicesGpu.groupSlicesForTest = -1;
		try {
			AlignSlices.align(one, s, GPU);
		} finally {
			AlignSlicesGpu.groupSlicesForTest = 0;
		}
		fiji.cuda.ops.Progress cancelAfterTwo = fiji.cuda.TestProgress.cancelAfter(2);
		List<Shift> got;
		AlignSlicesGpu.groupSlicesForTest = 2;
		try {
			got = AlignSlices.align(grouped, s, GPU.withProgress(cancelAfterTwo));
		} finally {
			AlignSlicesGpu.groupSlicesForTest = 0;
		}
		int aligned = got.size() - 1; // the reference is listed too
		assertTrue(aligned >= 4 && aligned < sx.length - 1, "slices aligned before the cancel took: " + aligned);
		assertEquals(0, aligned % 2, "whole groups only: " + aligned);
		for (int z = 1; z < sx.length; z++) {
			Planes want = z <= aligned ? one : stack;
			assertTrue(java.util.Arrays.equals((byte[]) want.plane(z), (byte[]) grouped.plane(z)),
				"slice " + (z + 1) + (z <= aligned ? " is not aligned" : " was changed"));
		}
	}
	@Test
	void theDevicePicksExactlyTheShiftsOfTheCpuPath() {
		// image w, h; landmark x, y, w, h; margin: maps 19x19, clipped at a corner, 1x1 (margin 0), 1 row, 1 column
		int[][] cases = { { 200, 150, 40, 30, 32, 24, 9 }, { 60, 50, 0, 0, 20, 20, 9 }, { 50, 40, 10, 5, 40, 30, 20 },
			{ 30, 30, 5, 5, 20, 20, 0 }, { 64, 20, 10, 2, 16, 18, 6 }, { 20, 64, 2, 10, 18, 16, 6 } };
		java.util.Random r = new java.util.Random(11);
		int checked = 0, fractional = 0;
		for (int[] c : cases)
			for (boolean subpixel : new boolean[] { true, false })
				for (boolean cubic : new boolean[] { false, true }) {
					Settings st = AlignSlicesTest.settings(c[2], c[3], c[4], c[5], c[6]);
					st.subpixel = subpixel;
					AlignSlices.Search search = new AlignSlices.Search(c[0], c[1], st.landmark(), st, null);
					int mw = TemplateMatching.validSize(search.area.width, c[4]);
					int mh = TemplateMatching.validSize(search.area.height, c[5]);
					float[][] maps = new float[40][];
					for (int k = 0; k < maps.length; k++)
						maps[k] = pickMap(k % 11, mw, mh, r);
					double[][] axes = new double[maps.length][];
					Shift[] gpu = AlignSlicesGpu.pickOnDevice(Gpu.get(), search, maps, mh + 3, cubic, c[0], c[1], axes);
					for (int k = 0; k < maps.length; k++) {
						Shift cpu = search.pick(k, maps[k]);
						String what = java.util.Arrays.toString(c) + " subpixel=" + subpixel + " map " + k + " (kind "
							+ k % 11 + "): cpu (" + cpu.dx + ", " + cpu.dy + ", " + cpu.score + ") gpu (" + gpu[k].dx + ", "
							+ gpu[k].dy + ", " + gpu[k].score + ")";
						assertEquals(0, Double.compare(cpu.dx, gpu[k].dx), what);
						assertEquals(0, Double.compare(cpu.dy, gpu[k].dy), what);
						assertEquals(0, Double.compare(cpu.score, gpu[k].score), what);
						assertEquals(k, gpu[k].plane, what);
						checked++;
						if (!cubic || cpu.dx == (int) cpu.dx && cpu.dy == (int) cpu.dy) continue;
						fractional++;
						AlignSlices.Axis ax = new AlignSlices.Axis(c[0], cpu.dx), ay = new AlignSlices.Axis(c[1], cpu.dy);
						double[] want = new double[5 * (c[0] + c[1])];
						System.arraycopy(ax.pos, 0, want, 0, c[0]);
						System.arraycopy(ax.weights, 0, want, c[0], 4 * c[0]);
						System.arraycopy(ay.pos, 0, want, 5 * c[0], c[1]);
						System.arraycopy(ay.weights, 0, want, 5 * c[0] + c[1], 4 * c[1]);
						for (int j = 0; j < want.length; j++)
							assertEquals(0, Double.compare(want[j], axes[k][j]), what + ": axis double " + j);
					}
				}
		assertTrue(fractional > 50, "too few fractional shifts to test the bicubic axes: " + fractional + " of " + checked);
	}

	/**
	 * Score maps of eleven kinds: noise; nothing positive; all NaN; NaN, zeros of both signs and
	 * negatives; a smooth peak off the grid; ties of the top score; a peak on the border; a
	 * perfect score; a ridge (no maximum of the fitted paraboloid); only zeros of both signs;
	 * a peak with NaN neighbours.
	 */
	private static float[] pickMap(int kind, int mw, int mh, java.util.Random r) {
		float[] m = new float[mw * mh];
		double px = r.nextDouble() * (mw - 1), py = r.nextDouble() * (mh - 1);
		for (int y = 0; y < mh; y++)
			for (int x = 0; x < mw; x++) {
				int i = y * mw + x;
				double dx = x - px, dy = y - py;
				switch (kind) {
				case 0: m[i] = (float) (2 * r.nextDouble() - 1); break;
				case 1: m[i] = (float) -r.nextDouble(); break;
				case 2: m[i] = Float.NaN; break;
				case 3: m[i] = new float[] { Float.NaN, 0f, -0f, -0.25f }[r.nextInt(4)]; break;
				case 4: case 7: case 10: m[i] = (float) (0.95 * Math.exp(-(dx * dx + 1.7 * dy * dy) / 9)); break;
				case 5: m[i] = (float) (0.5 * r.nextDouble()); break;
				case 6: m[i] = (float) (0.3 * r.nextDouble()); break;
				case 8: m[i] = (float) (0.6 - 0.05 * dx * dx + 0.02 * dy * dy + 0.03 * dx * dy); break;
				default: m[i] = r.nextBoolean() ? 0f : -0f;
				}
			}
		int top = (int) Math.round(py) * mw + (int) Math.round(px);
		if (kind == 5) for (int k = 0; k < 4; k++)
			m[r.nextInt(m.length)] = 0.75f;
		if (kind == 6) m[r.nextBoolean() ? r.nextInt(mw) : (mh - 1) * mw + r.nextInt(mw)] = 0.9f;
		if (kind == 7) m[top] = 1f;
		if (kind == 10) {
			m[top] = 0.99f;
			if (top + 1 < m.length) m[top + 1] = Float.NaN;
		}
		return m;
	}
}
