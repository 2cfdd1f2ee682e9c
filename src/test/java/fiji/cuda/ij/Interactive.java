package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import ij.ImagePlus;
import ij.WindowManager;
import ij.plugin.frame.Recorder;

import java.awt.Button;
import java.awt.Checkbox;
import java.awt.Component;
import java.awt.Container;
import java.awt.Dialog;
import java.awt.EventQueue;
import java.awt.Window;
import java.awt.event.ActionEvent;
import java.awt.event.ActionListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * For the in-JVM tests that use a command as a user does, through its dialogs, and compare it
 * with ImageJ's own: runs it as ImageJ's menu runs it, answers its dialogs by pressing their
 * buttons, and reads what the macro Recorder wrote. Needs the X display ({@link Display}).
 */
final class Interactive {

	private Interactive() {}

	/**
	 * Runs {@code command} as a menu command runs (ImageJ's Executer): on a thread of its own
	 * named after the command, with {@code imp} as the current image, recorded when the
	 * Recorder is open. Each dialog it opens is answered in turn: an answer "+Label" ticks the
	 * checkbox whose label starts with Label and goes on with the same dialog; "#n=text" types
	 * text into the dialog's numeric field n (from 0) and goes on too; any other answer
	 * presses the button of that label ("OK", "Yes", "No", "Cancel"), and null closes the
	 * dialog's window.
	 *
	 * @return the classes of the dialogs answered, in order
	 */
	static List<Class<?>> run(String command, ImagePlus imp, Runnable body, String... answers) throws Exception {
		Thread t = new Thread(() -> {
			Recorder.setCommand(command);
			body.run();
			Recorder.saveCommand();
		}, command);
		WindowManager.setTempCurrentImage(t, imp);
		List<Class<?>> dialogs = new ArrayList<>();
		Set<Window> answered = Collections.newSetFromMap(new IdentityHashMap<>());
		try {
			t.start();
			Dialog d = null;
			for (String answer : answers) {
				if (d == null) {
					d = next(answered, command);
					settled(t);
				}
				Dialog open = d;
				if (answer != null && answer.startsWith("+")) {
					Checkbox box = find(open, Checkbox.class, answer.substring(1));
					EventQueue.invokeAndWait(() -> { // as a click: the dialog's listeners (a preview) hear of it
						box.setState(true);
						((java.awt.event.ItemListener) open).itemStateChanged(
							new java.awt.event.ItemEvent(box, java.awt.event.ItemEvent.ITEM_STATE_CHANGED, box, java.awt.event.ItemEvent.SELECTED));
					});
					continue;
				}
				if (answer != null && answer.startsWith("#")) {
					int eq = answer.indexOf('=');
					java.awt.TextField field = (java.awt.TextField) ((ij.gui.GenericDialog) open).getNumericFields()
						.get(Integer.parseInt(answer.substring(1, eq)));
					EventQueue.invokeAndWait(() -> field.setText(answer.substring(eq + 1)));
					continue;
				}
				answered.add(d);
				dialogs.add(d.getClass());
				EventQueue.invokeAndWait(() -> {
					if (answer == null) ((java.awt.event.WindowListener) open).windowClosing(null); // as its close button
					else ((ActionListener) open).actionPerformed(
						new ActionEvent(find(open, Button.class, answer), ActionEvent.ACTION_PERFORMED, answer));
				});
				d = null;
			}
			t.join(20_000);
			assertFalse(t.isAlive(), command + ": still running after its dialogs were answered");
			return dialogs;
		} finally {
			WindowManager.setTempCurrentImage(t, null);
		}
	}

	/** @return what the Recorder wrote while {@code r} ran */
	static String recorded(Callable r) throws Exception {
		Recorder recorder = new Recorder(false);
		try {
			r.call();
			return recorder.getText();
		} finally {
			recorder.close();
		}
	}

	/** Work that may throw, for {@link #recorded}. */
	@FunctionalInterface
	interface Callable {
		void call() throws Exception;
	}

	/**
	 * Waits until the command's thread waits in its dialog. A dialog shows before that thread
	 * enters its wait, and an answer given in between was now and then lost: the command then
	 * hung ("still running after its dialogs were answered", about one run of the Gaussian
	 * Blur tests in five, on commands of ImageJ's and of this project alike).
	 */
	private static void settled(Thread t) throws InterruptedException {
		for (long end = System.currentTimeMillis() + 5_000; System.currentTimeMillis() < end; Thread.sleep(10))
			if (t.getState() == Thread.State.WAITING || !t.isAlive()) break;
		Thread.sleep(50);
	}

	/** @return the next dialog shown that has not been answered yet, waiting up to 20 s */
	private static Dialog next(Set<Window> answered, String command) throws InterruptedException {
		for (long end = System.currentTimeMillis() + 20_000; System.currentTimeMillis() < end; Thread.sleep(20))
			for (Window w : Window.getWindows())
				if (w instanceof Dialog && w.isShowing() && !answered.contains(w)) return (Dialog) w;
		return fail(command + ": no dialog came");
	}

	private static <T extends Component> T find(Container c, Class<T> type, String label) {
		for (Component k : c.getComponents()) {
			String l = k instanceof Button ? ((Button) k).getLabel() : k instanceof Checkbox ? ((Checkbox) k).getLabel() : null;
			if (type.isInstance(k) && l != null && l.trim().startsWith(label)) return type.cast(k);
			if (k instanceof Container) {
				T found = find((Container) k, type, label);
				if (found != null) return found;
			}
		}
		return c instanceof Window ? fail("no '" + label + "' in " + ((Dialog) c).getTitle()) : null;
	}
}
