package fiji.cuda.gaussian;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.Fallback;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Progress;
import fiji.cuda.ops.Texts;
import fiji.cuda.runtime.GpuAccess;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuException;

/**
 * Gaussian blur with the semantics of ImageJ's "Gaussian Blur..." and "Gaussian Blur 3D...":
 * ImageJ's kernel radius from the accuracy, its edge-corrected and normalized kernel, edge
 * pixels replicated, and integer results rounded (+0.5) and clamped. Where ImageJ
 * downsamples (sigma above 8.5) this class convolves with the full kernel instead, which is
 * closer to a true Gaussian.
 * <p>
 * The same call runs on the GPU or on the CPU (the fallback and the test oracle). Planes
 * are modified in place. A call that fails leaves every plane it did not finish unchanged:
 * the GPU path writes a plane back only once it is complete, and a GPU failure midway
 * hands the remaining planes to the CPU path.
 */
public final class GaussianBlur {

	/**
	 * The 2D operation's name in its error messages and Log lines, and in its menu entry,
	 * "GPU Gaussian Blur...".
	 */
	public static final String NAME = "Gaussian Blur";
	/**
	 * The 3D operation's name in its error messages and Log lines, and in its menu entry,
	 * "GPU Gaussian Blur 3D...".
	 */
	public static final String NAME_3D = "Gaussian Blur 3D";

	private GaussianBlur() {}

	/**
	 * Blurs every plane in x and y, writing only inside {@code roi}. On the CPU, an interrupt of
	 * the calling thread gives the blur up at the next plane, or within a plane before its first
	 * write, and the report says canceled and how many planes are done: ImageJ interrupts a
	 * preview that is switched off, and SciJava a command whose run is canceled.
	 *
	 * @param image  the planes, modified in place; each an array of its own
	 * @param sigmaX standard deviation along x in pixels; 0 skips x (at least one axis must be positive)
	 * @param sigmaY standard deviation along y in pixels; 0 skips y
	 * @param roi    the part written, or null for the whole plane; a mask restores the pixels outside it
	 * @param opts   backend, threads and progress
	 * @return which backend ran, and why the GPU did not if it did not
	 * @throws IllegalArgumentException for bad input, with the image unchanged
	 * @throws GpuException when the GPU was forced and failed, or when it failed while writing
	 *                      a plane back, which the CPU path cannot redo (the message says which
	 *                      slices are done)
	 * @throws PartlyDoneException when the CPU path failed after writing (out of memory, an
	 *                      exception of the progress), saying which planes hold the result; a
	 *                      failure before any write comes as it is, with the image unchanged
	 */
	public static OpReport blur2D(Planes image, double sigmaX, double sigmaY, Region roi, ExecutionOptions opts) {
		long t0 = System.nanoTime();
		opts = ExecutionOptions.orDefaults(opts);
		checkSigmas(NAME, image, sigmaX, sigmaY, 0);
		Region rect = roi == null ? Region.all(image.width(), image.height()) : roi.clipTo(image.width(), image.height(),
			NAME + ": the selection");
		double acc = GaussianKernel.defaultAccuracy(image.type());
		GaussianKernel kx = sigmaX > 0 ? GaussianKernel.imagej(sigmaX, acc, image.width()) : null;
		GaussianKernel ky = sigmaY > 0 ? GaussianKernel.imagej(sigmaY, acc, image.height()) : null;
		int n = image.depth();
		// A mask needs the rectangle's original pixels, to put back those outside it. They are
		// kept for a bounded group of planes at a time, not for the whole stack: a copy of the
		// rectangle of every slice of a 2 GB stack would exhaust Fiji's heap (ImageJ itself
		// keeps the snapshot of one slice).
		long rectBytes = (long) rect.width * rect.height * image.type().bytesPerPixel();
		int group = rect.mask == null ? n : (int) Math.max(1, Math.min(n, maskCopyBytes / rectBytes));
		State state = new State(opts.backend() != Backend.CPU);
		int done = 0;
		while (done < n && (done == 0 || !opts.progress().isCanceled())) {
			int to = Math.min(n, done + group);
			int end;
			try {
				end = blurGroup(image, done, to, kx, ky, rect, opts, state);
			} catch (PartlyDoneException | GpuException e) {
				throw e; // they say which planes hold the result
			} catch (RuntimeException | Error e) {
				// before the group wrote anything (its copy of the rectangle ran out of memory, say):
				// the earlier groups hold the result, and the user must hear so
				if (done == 0) throw e;
				throw stopped(e, done, false, n);
			}
			done = end;
			if (end < to) break; // canceled
		}
		return new OpReport(state.ran, state.why, done < n, done, System.nanoTime() - t0);
	}

	/** The most bytes of a masked selection's rectangle kept at once (tests lower it). */
	static long maskCopyBytes = 64L << 20;

	/** Called with each group's first plane before the group starts; tests make it fail. */
	static java.util.function.IntConsumer groupStart = from -> {};

	/** What the groups of {@link #blur2D} share: whether to try the GPU, and what ran. */
	private static final class State {
		boolean gpu;
		Backend ran = Backend.CPU;
		String why;

		State(boolean gpu) {
			this.gpu = gpu;
		}
	}

	/**
	 * Blurs planes [from, to), on the GPU while it works, then on the CPU, and puts back the
	 * pixels outside the mask of the planes done.
	 *
	 * @return the first plane not done: {@code to}, or less when canceled
	 */
	private static int blurGroup(Planes image, int from, int to, GaussianKernel kx, GaussianKernel ky, Region rect,
		ExecutionOptions opts, State state)
	{
		groupStart.accept(from);
		Planes rectCopy = rect.mask != null ? copyRect(image, rect, from, to) : null;
		int done = from;
		boolean partly = false;
		try {
			if (state.gpu) {
				try {
					Gpu gpu = GpuAccess.get();
					done = GaussianBlurGpu.blur2D(gpu, image, from, to, kx, ky, rect,
						share(opts.progress(), from, to, image.depth()));
					state.ran = Backend.GPU;
				} catch (PartialGpuFailure e) {
					done = e.planesDone;
					if (!(e.getCause() instanceof GpuException)) {
						// Java ran out of memory, say: no reason to go on on the CPU
						partly = e.partlyWritten >= 0;
						throw stopped(e.getCause(), done, partly, image.depth());
					}
					if (e.partlyWritten >= 0) {
						partly = true;
						throw e.unrecoverable(NAME, image.depth());
					}
					state.why = Fallback.reasonAfterPart(NAME, opts, e.getCause(),
						Fallback.prefixDone(done, image.depth(), "planes"));
					fellBack(state);
				} catch (GpuException e) {
					// earlier groups of a masked stack are written already
					state.why = from > 0
						? Fallback.reasonAfterPart(NAME, opts, e, Fallback.prefixDone(from, image.depth(), "planes"))
						: Fallback.reason(NAME, opts, e);
					fellBack(state);
				}
			}
			if (done < to && !opts.progress().isCanceled()) {
				try {
					done = GaussianBlurCpu.blur2D(image, done, to, kx, ky, rect,
						opts.withProgress(share(opts.progress(), done, to, image.depth())));
				} catch (GaussianBlurCpu.Stopped e) {
					// the planes done must get the pixels outside the mask back, below, and the user
					// must hear which planes hold the result
					done = e.planesDone;
					partly = e.partlyWritten >= 0;
					throw stopped(e.getCause(), done, partly, image.depth());
				}
			}
		} finally {
			// also when a forced GPU fails after some planes: those keep the mask's outside
			if (rectCopy != null) restoreOutsideMask(image, rectCopy, rect, from, partly ? done + 1 : done);
		}
		return done;
	}

	/**
	 * @param done   planes [0, done) hold the result
	 * @param partly whether plane {@code done} may hold part of it
	 * @return the failure as it stands, when nothing was written; else a {@link PartlyDoneException}
	 *         that says which planes hold the result
	 */
	private static RuntimeException stopped(Throwable cause, int done, boolean partly, int n) {
		if (done == 0 && !partly) {
			if (cause instanceof Error) throw (Error) cause;
			return (RuntimeException) cause;
		}
		String what;
		if (!partly) what = Fallback.prefixDone(done, n, "planes");
		else if (n == 1) what = "the plane may be part blurred";
		else what = (done == 0 ? "" : (done == 1 ? "plane 1" : "planes 1-" + done) + " of " + n
			+ (done == 1 ? " holds" : " hold") + " the result, ")
			+ "plane " + (done + 1) + (done == 0 ? " of " + n : "") + " may be part blurred and the later ones are unchanged";
		return new PartlyDoneException(NAME, cause, what);
	}

	/** After a GPU failure under AUTO the remaining groups go to the CPU, without asking the GPU again. */
	private static void fellBack(State state) {
		state.gpu = false;
		state.ran = Backend.CPU;
	}

	/**
	 * @return a progress that reports the fractions of planes [from, to) as fractions of all
	 *         {@code n} planes, to {@code p}
	 */
	private static Progress share(Progress p, int from, int to, int n) {
		if (from == 0 && to == n) return p;
		return p.part(from / (double) n, (to - from) / (double) n);
	}

	/**
	 * Blurs a volume in x, y and z: each plane in x and y first (rounded to the pixel type,
	 * as ImageJ does), then along z. The planes are written in place as the passes go.
	 *
	 * @param volume the z-series, modified in place; each plane an array of its own
	 * @param sigmaX x standard deviation in pixels, 0 skips x
	 * @param sigmaY y standard deviation in pixels, 0 skips y
	 * @param sigmaZ z standard deviation in slices, 0 skips z
	 * @param opts   backend, threads and progress
	 * @return which backend ran
	 * @throws IllegalArgumentException for bad input, with the volume unchanged
	 * @throws GpuException             when the GPU failed while writing the volume back, which the
	 *                                  CPU path cannot redo (the message says which slices are done)
	 * @throws PartlyDoneException      when the CPU path failed after it began writing the planes, or
	 *                                  the progress listener failed (the volume is then whole; the
	 *                                  message says which)
	 */
	public static OpReport blur3D(Planes volume, double sigmaX, double sigmaY, double sigmaZ, ExecutionOptions opts) {
		long t0 = System.nanoTime();
		opts = ExecutionOptions.orDefaults(opts);
		checkSigmas(NAME_3D, volume, sigmaX, sigmaY, sigmaZ);
		double acc = GaussianKernel.defaultAccuracy(volume.type());
		GaussianKernel kx = sigmaX > 0 ? GaussianKernel.imagej(sigmaX, acc, volume.width()) : null;
		GaussianKernel ky = sigmaY > 0 ? GaussianKernel.imagej(sigmaY, acc, volume.height()) : null;
		GaussianKernel kz = sigmaZ > 0 ? GaussianKernel.imagej(sigmaZ, acc, volume.depth()) : null;
		if (opts.backend() != Backend.CPU) {
			try {
				GaussianBlurGpu.blur3D(GpuAccess.get(), volume, kx, ky, kz);
				return new OpReport(Backend.GPU, null, false, System.nanoTime() - t0);
			} catch (PartialGpuFailure e) {
				throw e.unrecoverable(NAME_3D, volume.depth());
			} catch (GpuException e) {
				String why = Fallback.reason(NAME_3D, opts, e);
				GaussianBlurCpu.blur3D(volume, kx, ky, kz, opts);
				return new OpReport(Backend.CPU, why, false, System.nanoTime() - t0);
			}
		}
		GaussianBlurCpu.blur3D(volume, kx, ky, kz, opts);
		return new OpReport(Backend.CPU, null, false, System.nanoTime() - t0);
	}


	static void checkSigmas(String op, Planes image, double sx, double sy, double sz) {
		if (image == null) throw new IllegalArgumentException(op + ": there is no image.");
		// a range of no planes: the CPU path's line check said "Line length must be at least 1"
		if (image.depth() == 0) throw new IllegalArgumentException(op + ": the image has no slices.");
		// written in place, one slice after another: one array at two slices was blurred twice
		image.checkOwnArrays(op, "slices");
		check(op, "X sigma", sx);
		check(op, "Y sigma", sy);
		check(op, "Z sigma", sz);
		if (!(sx > 0 || sy > 0 || sz > 0))
			throw new IllegalArgumentException(op + ": at least one sigma must be greater than 0.");
	}

	private static void check(String op, String what, double s) {
		if (Double.isNaN(s) || Double.isInfinite(s))
			throw new IllegalArgumentException(op + ": " + what + " must be a finite number, not " + Texts.number(s) + ".");
		if (s < 0)
			throw new IllegalArgumentException(op + ": " + what + " must be 0 (that axis is not blurred) or more, not "
				+ Texts.number(s) + ".");
	}

	/** Copies the rectangle of planes [from, to), so that pixels outside the mask can be put back. */
	private static Planes copyRect(Planes image, Region r, int from, int to) {
		Object[] c = new Object[to - from];
		for (int z = 0; z < c.length; z++) {
			Object p = image.type().newPlane(r.width * r.height);
			for (int y = 0; y < r.height; y++)
				System.arraycopy(image.plane(from + z), (r.y + y) * image.width() + r.x, p, y * r.width, r.width);
			c[z] = p;
		}
		return Planes.wrap(r.width, r.height, c);
	}

	/** Puts back the pixels outside the mask of planes [from, to), copied by {@link #copyRect}. */
	private static void restoreOutsideMask(Planes image, Planes rectCopy, Region r, int from, int to) {
		PixelType t = image.type();
		for (int z = from; z < Math.min(to, from + rectCopy.depth()); z++) {
			Object dst = image.plane(z), src = rectCopy.plane(z - from);
			for (int y = 0, m = 0; y < r.height; y++)
				for (int x = 0; x < r.width; x++, m++)
					if (r.mask[m] == 0) copyPixel(t, src, m, dst, (r.y + y) * image.width() + r.x + x);
		}
	}

	private static void copyPixel(PixelType t, Object src, int i, Object dst, int j) {
		switch (t) {
			case UINT8: ((byte[]) dst)[j] = ((byte[]) src)[i]; break;
			case UINT16: ((short[]) dst)[j] = ((short[]) src)[i]; break;
			case FLOAT32: ((float[]) dst)[j] = ((float[]) src)[i]; break;
			default: ((int[]) dst)[j] = ((int[]) src)[i];
		}
	}

	/** Thrown by the GPU path after some planes are already written; they must not be redone. */
	static final class PartialGpuFailure extends RuntimeException {
		private static final long serialVersionUID = 1L;
		/** Planes [0, planesDone) of the call hold their result. */
		final int planesDone;
		/** A plane written only in part (the CPU path cannot redo it from its original), or -1. */
		final int partlyWritten;

		/** @param cause a {@link GpuException}, or whatever else stopped the GPU path part way */
		PartialGpuFailure(int planesDone, int partlyWritten, Throwable cause) {
			super(cause.getMessage(), cause);
			this.planesDone = planesDone;
			this.partlyWritten = partlyWritten;
		}

		/**
		 * @param planes the planes of the call, which the message counts (a caller that gave
		 *               part of a stack adds which part)
		 * @return the error for a user whose image can no longer be finished by the CPU path
		 */
		GpuException unrecoverable(String op, int planes) {
			String done = planes == 1 ? "the plane is left part blurred"
				: "of the " + planes + " planes given, " + (partlyWritten == 0 ? "plane 1" : "planes 1-" + (partlyWritten + 1))
					+ " may hold the result (the last of them in part) and the later ones are unchanged";
			return new GpuException(op + ": the GPU failed while writing the result back (" + Fallback.withoutOp(op,
				getMessage()) + "); " + done + ".", getCause());
		}
	}
}
