package fiji.cuda.ops;

/**
 * Progress reporting and cancellation for long operations. The IJ1 bridge maps it to
 * ImageJ's progress bar and the Esc key; headless callers may pass {@link #NONE}.
 * <p>
 * Operations check {@link #isCanceled()} only between units of work they can leave
 * consistent (whole planes or whole volumes), so a canceled image is never half-written
 * inside a plane.
 */
public interface Progress {

	/** @param fraction done so far, 0 to 1 */
	void update(double fraction);

	/** @return true when the user asked to stop */
	boolean isCanceled();

	/**
	 * A part of this progress, for work done in steps: its fraction f is reported here as
	 * {@code start + share * f}, and it is canceled when this is.
	 *
	 * @param start the fraction of the whole done before the part
	 * @param share the part's share of the whole
	 * @return the part's progress
	 */
	default Progress part(double start, double share) {
		Progress whole = this;
		return new Progress() {
			@Override
			public void update(double fraction) {
				whole.update(start + share * fraction);
			}

			@Override
			public boolean isCanceled() {
				return whole.isCanceled();
			}
		};
	}

	/** Reports nowhere and never cancels. */
	Progress NONE = new Progress() {
		@Override
		public void update(double fraction) {}

		@Override
		public boolean isCanceled() {
			return false;
		}
	};
}
