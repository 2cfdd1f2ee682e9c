package fiji.cuda.command;

import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Fallback;
import ij.ImagePlus;
import ij.Undo;
import ij.process.ImageProcessor;
import java.util.function.BooleanSupplier;

/**
 * What ImageJ's menu filters do around a change made in place, for the commands that change
 * their image: the lock, Undo, the change mark and the redraw.
 */
final class InPlace {

	private InPlace() {}

	/**
	 * Runs {@code work} on the locked image. When it changes one plane, the current one, Edit &gt;
	 * Undo restores it afterwards, instead of restoring whatever an earlier filter left as the
	 * plane's snapshot; when it changes more, Undo is reset, as by the menu commands, because
	 * ImageJ's Undo cannot restore a stack. The reset follows the change: input that
	 * {@code work} refuses leaves Undo as it was, able to undo an earlier filter, as the menu
	 * commands leave it.
	 *
	 * @param onePlane whether only the current plane changes
	 * @throws IllegalArgumentException when another command holds the image, or for bad input
	 * @throws PartlyDoneException      when {@code work} stopped part way (what it changed is shown)
	 * @throws fiji.cuda.runtime.GpuException when the GPU failed after writing (what it changed is shown)
	 */
	static void change(ImagePlus image, boolean onePlane, Runnable work) {
		changeIf(image, onePlane, () -> {
			work.run();
			return true;
		});
	}

	/**
	 * {@link #change}, for work that may end without changing anything (canceled before its
	 * first plane): then the image is not marked changed and Undo is left as it was, as after
	 * input that {@code work} refuses.
	 *
	 * @param work does the change, and says whether it changed any pixel
	 */
	static void changeIf(ImagePlus image, boolean onePlane, BooleanSupplier work) {
		boolean[] changed = { false };
		try {
			ImagePlusPlanes.whileLocked(image, () -> {
				ImageProcessor ip = image.getProcessor();
				Object earlier = onePlane ? ImagePlusPlanes.snapshotKeepingEarlier(ip) : null;
				try {
					changed[0] = work.getAsBoolean();
				} catch (PartlyDoneException | fiji.cuda.runtime.GpuException e) {
					throw e;
				} catch (RuntimeException | Error e) {
					if (onePlane) ip.setSnapshotPixels(earlier); // the image is unchanged
					throw e;
				}
				if (!changed[0]) {
					if (onePlane) ip.setSnapshotPixels(earlier);
					return;
				}
				if (onePlane) Undo.setup(Undo.FILTER, image);
				else ImagePlusPlanes.noUndo(image);
			});
		} catch (PartlyDoneException | fiji.cuda.runtime.GpuException e) {
			// a GPU failure reaches here only once planes were written (any other falls back to
			// the CPU path), as the menu commands take it
			// the planes done before the failure are changed: they must show, ask to be saved, and
			// a single plane can be undone, as after a run that ended
			if (onePlane) Undo.setup(Undo.FILTER, image);
			else ImagePlusPlanes.noUndo(image);
			image.changes = true;
			image.updateAndDraw();
			throw e;
		}
		if (!changed[0]) return;
		image.changes = true; // closing the window asks to save
		image.updateAndDraw();
	}

	/**
	 * The cancel reason of a run that SciJava canceled (by interrupting its thread) part way:
	 * the caller must hear which planes changed, as from the menu commands' Esc.
	 *
	 * @param command the menu command's name
	 * @param done    the planes done, from the first
	 * @param total   the planes the run was to change
	 */
	static String canceled(String command, int done, int total) {
		return command + ": canceled; " + (done <= 0 ? "the image is unchanged."
			: Fallback.prefixDone(done, total, "slices") + ".");
	}
}
