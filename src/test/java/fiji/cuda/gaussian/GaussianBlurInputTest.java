package fiji.cuda.gaussian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.Progress;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** Bad input, empty images and cancellation, through the facade on the CPU backend. */
class GaussianBlurInputTest {

	private static final ExecutionOptions CPU = GaussianBlurCpuTest.CPU;

	@Test
	void sizesPastTheKernelGridsAreLeftToTheCpu() {
		// grids are at most 65535 blocks high: beyond, the GPU path declines as "unavailable",
		// which sends AUTO to the CPU path instead of failing a launch
		GaussianBlurGpu.checkGrid(GaussianBlurGpu.MAX_ROWS, GaussianBlurGpu.MAX_DEPTH);
		assertTrue(assertThrows(fiji.cuda.runtime.GpuUnavailableException.class,
			() -> GaussianBlurGpu.checkGrid(GaussianBlurGpu.MAX_ROWS + 1, 1)).getMessage().contains("past the GPU kernels' grids"));
		assertTrue(assertThrows(fiji.cuda.runtime.GpuUnavailableException.class,
			() -> GaussianBlurGpu.checkGrid(1, GaussianBlurGpu.MAX_DEPTH + 1)).getMessage().contains("past the GPU kernels' grids"));
	}

	@Test
	void badSigmasAreRejectedWithTheImageUnchanged() {
		Object[][] cases = { // sigmaX, sigmaY, sigmaZ, words the message must contain
			{ 0.0, 0.0, 0.0, "at least one sigma must be greater than 0" },
			{ -1.0, 2.0, 0.0, "X sigma must be 0 (that axis is not blurred) or more, not -1" },
			{ 2.0, -0.5, 0.0, "Y sigma must be 0 (that axis is not blurred) or more" },
			{ Double.NaN, 1.0, 0.0, "X sigma must be a finite number, not NaN" },
			{ 1.0, Double.POSITIVE_INFINITY, 0.0, "Y sigma must be a finite number, not infinity" },
			{ Double.NEGATIVE_INFINITY, 1.0, 0.0, "X sigma must be a finite number" },
			{ 1.0, 1.0, -2.0, "Z sigma must be 0 (that axis is not blurred) or more" },
			{ 1.0, 1.0, Double.NaN, "Z sigma must be a finite number" } };
		for (PixelType t : PixelType.values()) {
			for (Object[] c : cases) {
				double sx = (Double) c[0], sy = (Double) c[1], sz = (Double) c[2];
				Planes image = TestImages.random(t, 13, 11, 3, 42), original = image.copy();
				IllegalArgumentException e;
				if (sz == 0) {
					e = assertThrows(IllegalArgumentException.class,
						() -> GaussianBlur.blur2D(image, sx, sy, null, CPU), t + " " + sx + "/" + sy);
					assertTrue(e.getMessage().startsWith(GaussianBlur.NAME + ":"), e.getMessage());
					// only the prefix was checked: a 2D message naming the wrong axis passed
					assertTrue(e.getMessage().contains((String) c[3]), e.getMessage());
					assertTrue(TestImages.sameBits(image, original), t + ": the image changed in 2D");
				}
				e = assertThrows(IllegalArgumentException.class,
					() -> GaussianBlur.blur3D(image, sx, sy, sz, CPU), t + " " + sx + "/" + sy + "/" + sz);
				assertTrue(e.getMessage().startsWith(GaussianBlur.NAME_3D + ":"), e.getMessage());
				assertTrue(e.getMessage().contains((String) c[3]), e.getMessage());
				assertTrue(TestImages.sameBits(image, original), t + ": the image changed");
			}
		}
	}

	@Test
	void aSelectionOffTheImageIsRefusedInTheOperationsName() {
		// a script heard "The selection lies outside the image." without the operation's name
		Planes p = TestImages.random(PixelType.FLOAT32, 40, 30, 1, 3);
		Object before = ((float[]) p.plane(0)).clone();
		assertEquals("Gaussian Blur: the selection lies outside the image.", assertThrows(IllegalArgumentException.class,
			() -> GaussianBlur.blur2D(p, 1, 1, new Region(50, 50, 5, 5, null), CPU)).getMessage());
		assertTrue(java.util.Arrays.equals((float[]) before, (float[]) p.plane(0)), "the image was changed");
		assertEquals("Template Matching: the rectangle lies outside the image.", assertThrows(
			IllegalArgumentException.class, () -> fiji.cuda.ncc.TemplateMatching.crop(p, 0, new Region(50, 50, 3, 3, null)))
			.getMessage());
	}

	@Test
	void nullImageIsRejected() {
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> GaussianBlur.blur2D(null, 1, 1, null, CPU));
		assertTrue(e.getMessage().contains("no image"), e.getMessage());
	}

	@Test
	void anImageOfNoPlanesIsRejectedByName() {
		// a range of no planes got the CPU path's "Line length must be at least 1, not 0." (3D)
		Planes none = TestImages.random(PixelType.UINT8, 5, 4, 2, 1).range(1, 1);
		assertEquals("Gaussian Blur 3D: the image has no slices.", assertThrows(IllegalArgumentException.class,
			() -> GaussianBlur.blur3D(none, 1, 1, 1, CPU)).getMessage());
		assertEquals("Gaussian Blur: the image has no slices.", assertThrows(IllegalArgumentException.class,
			() -> GaussianBlur.blur2D(none, 1, 1, null, CPU)).getMessage());
	}

	@Test
	void selectionReachingPastIntegerRangeIsClipped() {
		// "from x = 5 to the right edge, whatever the width": x + width passes Integer.MAX_VALUE
		Planes image = TestImages.random(PixelType.UINT8, 13, 11, 1, 47), expected = image.copy();
		GaussianBlur.blur2D(expected, 1, 1, new Region(5, 2, 8, 9, null), CPU);
		GaussianBlur.blur2D(image, 1, 1, new Region(5, 2, Integer.MAX_VALUE, Integer.MAX_VALUE, null), CPU);
		assertTrue(TestImages.sameBits(image, expected));
	}

	@Test
	void selectionOutsideTheImageIsRejected() {
		Planes image = TestImages.random(PixelType.UINT8, 13, 11, 1, 43), original = image.copy();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> GaussianBlur.blur2D(image, 1, 1, new Region(20, 0, 5, 5, null), CPU));
		assertTrue(e.getMessage().contains("outside the image"), e.getMessage());
		assertTrue(TestImages.sameBits(image, original));
	}

	@Test
	void emptyImagesAreRejectedWhenWrapped() {
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Planes.wrap(0, 5, new byte[0]));
		assertTrue(e.getMessage().contains("empty"), e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> Planes.wrap(5, 0, new float[0]));
		assertTrue(e.getMessage().contains("empty"), e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> Planes.wrap(5, 5));
		assertTrue(e.getMessage().contains("no slices"), e.getMessage());
	}

	@Test
	void cancelStopsBetweenPlanes() {
		for (PixelType t : PixelType.values()) {
			Planes image = TestImages.random(t, 29, 23, 4, 44), original = image.copy();
			Planes firstOnly = original.range(0, 1).copy();
			GaussianBlur.blur2D(firstOnly, 2, 3, null, CPU);
			// the user presses Esc while plane 1 is blurred: it is finished, no other is started
			AtomicInteger updates = new AtomicInteger();
			Progress cancelAfterFirst = new Progress() {
				@Override
				public void update(double fraction) {
					updates.incrementAndGet();
				}

				@Override
				public boolean isCanceled() {
					return updates.get() >= 1;
				}
			};
			OpReport r = GaussianBlur.blur2D(image, 2, 3, null, CPU.withProgress(cancelAfterFirst));
			assertTrue(r.canceled(), t + ": report " + r);
			assertEquals(1, updates.get());
			assertTrue(TestImages.sameBits(image.range(0, 1), firstOnly), t + ": plane 1 not fully blurred");
			assertTrue(TestImages.sameBits(image.range(1, 4), original.range(1, 4)), t + ": later planes changed");
			assertFalse(TestImages.sameBits(image.range(0, 1), original.range(0, 1)), t + ": plane 1 unchanged");
		}
	}

	@Test
	void progressReachesOneWithoutCancel() {
		double[] last = { -1 };
		Progress p = new Progress() {
			@Override
			public void update(double fraction) {
				assertTrue(fraction >= last[0] && fraction <= 1, "fraction " + fraction);
				last[0] = fraction;
			}

			@Override
			public boolean isCanceled() {
				return false;
			}
		};
		OpReport r = GaussianBlur.blur2D(TestImages.random(PixelType.UINT16, 9, 9, 5, 45), 1, 1, null,
			CPU.withProgress(p));
		assertFalse(r.canceled());
		assertEquals(1.0, last[0]);
		last[0] = -1;
		GaussianBlur.blur3D(TestImages.random(PixelType.RGB, 9, 9, 5, 46), 1, 1, 1, CPU.withProgress(p));
		assertEquals(1.0, last[0]);
	}

	@Test
	void aWriteBackFailureSaysWhichOfThePlanesGivenAreDone() {
		fiji.cuda.runtime.GpuException cause = new fiji.cuda.runtime.GpuException("Gaussian Blur 3D: CUDA_ERROR_UNKNOWN");
		assertEquals("Gaussian Blur 3D: the GPU failed while writing the result back (CUDA_ERROR_UNKNOWN); "
			+ "of the 300 planes given, planes 1-209 may hold the result (the last of them in part) and the later ones are "
			+ "unchanged.", new GaussianBlur.PartialGpuFailure(0, 208, cause).unrecoverable(GaussianBlur.NAME_3D, 300)
				.getMessage());
		assertTrue(new GaussianBlur.PartialGpuFailure(0, 0, cause).unrecoverable(GaussianBlur.NAME, 1).getMessage()
			.endsWith("; the plane is left part blurred."));
		assertTrue(new GaussianBlur.PartialGpuFailure(0, 0, cause).unrecoverable(GaussianBlur.NAME, 4).getMessage()
			.contains("of the 4 planes given, plane 1 may hold the result"));
	}

	@Test
	void aStackThatHoldsOneArrayAtTwoSlicesIsRefusedWithTheImageUnchanged() {
		// that array was blurred twice, once as each slice, and nothing was said
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.FLOAT32 }) {
			Planes distinct = TestImages.random(t, 13, 11, 2, 43);
			Planes twice = Planes.wrap(13, 11, distinct.plane(0), distinct.plane(1), distinct.plane(0));
			Planes original = twice.copy();
			IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
				() -> GaussianBlur.blur2D(twice, 2, 2, null, CPU));
			assertEquals("Gaussian Blur: slices 1 and 3 are one array (the same pixels twice), which cannot hold the "
				+ "results of both; each must have pixels of its own.", e.getMessage());
			assertTrue(TestImages.sameBits(original, twice), t.label());
			e = assertThrows(IllegalArgumentException.class, () -> GaussianBlur.blur3D(twice, 1, 1, 1, CPU));
			assertEquals("Gaussian Blur 3D: slices 1 and 3 are one array (the same pixels twice), which cannot hold the "
				+ "results of both; each must have pixels of its own.", e.getMessage());
			assertTrue(TestImages.sameBits(original, twice), t.label());
		}
	}
}
