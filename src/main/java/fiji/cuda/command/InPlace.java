package fiji.cuda.command;

import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.ops.PartlyDoneException;
import ij.ImagePlus;
import ij.Undo;

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
		try {
			ImagePlusPlanes.whileLocked(image, () -> {
				if (onePlane) image.getProcessor().snapshot();
				work.run();
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
		image.changes = true; // closing the window asks to save
		image.updateAndDraw();
	}
}
