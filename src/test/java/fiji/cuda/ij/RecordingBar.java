package fiji.cuda.ij;

import ij.IJ;
import ij.gui.ProgressBar;

import java.awt.event.KeyEvent;
import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * ImageJ's progress bar as a test sees it: installed in place of the ImageJ window's bar, it
 * keeps every value a command shows, and can press Esc, or fail as a run out of memory would,
 * once it has been shown a chosen number of values. Esc and the failure so come at a fixed
 * point of the work, not at a time racing it.
 */
public final class RecordingBar extends ProgressBar implements AutoCloseable {

	/** The values shown, in order: 1 (or more) clears the bar. */
	public final List<Double> shown = new CopyOnWriteArrayList<>();
	private final int escAfter, failAt;
	private final Object saved;

	/**
	 * @param escAfter press Esc once this many values were shown; negative for never
	 * @param failAt   throw an {@link OutOfMemoryError} when shown this value (1 for the first); 0
	 *                 for never
	 */
	private RecordingBar(int escAfter, int failAt) throws ReflectiveOperationException {
		super(120, 20);
		this.escAfter = escAfter;
		this.failAt = failAt;
		Field f = field();
		saved = f.get(null);
		f.set(null, this);
		IJ.resetEscape();
	}

	/** @return a bar that presses Esc once it has shown {@code n} values */
	public static RecordingBar escAfter(int n) throws ReflectiveOperationException {
		return new RecordingBar(n, 0);
	}

	/** @return a bar whose {@code n}th value fails with "Java heap space" (a failure part way) */
	public static RecordingBar failingAt(int n) throws ReflectiveOperationException {
		return new RecordingBar(-1, n);
	}

	/** @return a bar that only records */
	public static RecordingBar recording() throws ReflectiveOperationException {
		return new RecordingBar(-1, 0);
	}

	private static Field field() throws NoSuchFieldException {
		Field f = IJ.class.getDeclaredField("progressBar");
		f.setAccessible(true);
		return f;
	}

	@Override
	public void show(double progress, boolean showInBatchMode) {
		shown.add(progress);
		if (shown.size() == failAt) throw new OutOfMemoryError("Java heap space");
		if (shown.size() == escAfter) IJ.setKeyDown(KeyEvent.VK_ESCAPE);
	}

	@Override
	public void show(int currentIndex, int finalIndex) {
		show(finalIndex == 0 ? 1 : (currentIndex + 1.0) / finalIndex, false);
	}

	/** @return the values shown that neither start nor clear the bar: it moved while the work went on */
	public long between() {
		return shown.stream().filter(v -> v > 0 && v < 1).count();
	}

	/** @return whether the last value shown cleared the bar */
	public boolean cleared() {
		return !shown.isEmpty() && shown.get(shown.size() - 1) >= 1;
	}

	@Override
	public void close() throws ReflectiveOperationException {
		field().set(null, saved);
		IJ.resetEscape();
	}
}
