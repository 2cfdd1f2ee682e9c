package fiji.cuda.ij;

import fiji.cuda.ops.Progress;
import ij.IJ;

/** ImageJ's progress bar and the Esc key as a {@link Progress}, for whole-image commands. */
final class IjProgress implements Progress {

	/** Clears an earlier Esc, so that a new command is not canceled before it starts. */
	IjProgress() {
		IJ.resetEscape();
	}

	@Override
	public void update(double fraction) {
		IJ.showProgress(Math.max(0, Math.min(1, fraction)));
	}

	@Override
	public boolean isCanceled() {
		return IJ.escapePressed();
	}
}
