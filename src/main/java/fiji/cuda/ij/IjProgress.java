package fiji.cuda.ij;

import fiji.cuda.ops.Progress;
import ij.IJ;

/** ImageJ's progress bar and the Esc key as a {@link Progress}, for whole-image commands. */
final class IjProgress implements Progress {

	/**
	 * ImageJ's progress bar without Esc: for a filter that ImageJ's runner calls on a single
	 * image, where ImageJ's own filters do not hear Esc either.
	 */
	static final Progress BAR_ONLY = new Progress() {
		@Override
		public void update(double fraction) {
			show(fraction);
		}

		@Override
		public boolean isCanceled() {
			return false;
		}
	};

	/** Clears an earlier Esc, so that a new command is not canceled before it starts. */
	IjProgress() {
		IJ.resetEscape();
	}

	@Override
	public void update(double fraction) {
		show(fraction);
	}

	private static void show(double fraction) {
		IJ.showProgress(Math.max(0, Math.min(1, fraction)));
	}

	@Override
	public boolean isCanceled() {
		return IJ.escapePressed();
	}
}
