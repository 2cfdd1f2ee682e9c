package fiji.cuda;

import fiji.cuda.ops.Progress;

/** Progress listeners that cancel or fail at a chosen point, for the tests of what a stop leaves. */
public final class TestProgress {

	private TestProgress() {}

	/** @return a progress that reports itself canceled once it has been updated {@code updates} times */
	public static Progress cancelAfter(int updates) {
		return new Progress() {
			private int seen;

			@Override
			public void update(double fraction) {
				seen++;
			}

			@Override
			public boolean isCanceled() {
				return seen >= updates;
			}
		};
	}

	/** @return a progress whose {@code n}th update throws, as a broken listener would */
	public static Progress failingAtUpdate(int n) {
		return new Progress() {
			private int seen;

			@Override
			public void update(double fraction) {
				if (++seen == n) throw new IllegalStateException("listener broke");
			}

			@Override
			public boolean isCanceled() {
				return false;
			}
		};
	}

	/**
	 * @return a progress that runs out of memory at its first update or cancel check, as Java's
	 *         heap would inside a run, before the run writes anything
	 */
	public static Progress outOfMemoryAtOnce() {
		return new Progress() {
			@Override
			public void update(double fraction) {
				throw new OutOfMemoryError("Java heap space");
			}

			@Override
			public boolean isCanceled() {
				throw new OutOfMemoryError("Java heap space");
			}
		};
	}
}
