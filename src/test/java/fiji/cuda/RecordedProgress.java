package fiji.cuda;

import fiji.cuda.ops.Progress;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A progress that keeps every fraction it hears, for tests of what an operation reports. */
public final class RecordedProgress implements Progress {

	/** The fractions heard, in order. */
	public final List<Double> heard = new CopyOnWriteArrayList<>();
	private final int cancelAfter;

	/** Never canceled. */
	public RecordedProgress() {
		this(-1);
	}

	/** @param cancelAfter canceled once this many fractions were heard; negative for never */
	public RecordedProgress(int cancelAfter) {
		this.cancelAfter = cancelAfter;
	}

	@Override
	public void update(double fraction) {
		heard.add(fraction);
	}

	@Override
	public boolean isCanceled() {
		return cancelAfter >= 0 && heard.size() >= cancelAfter;
	}
}
