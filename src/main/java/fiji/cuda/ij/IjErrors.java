package fiji.cuda.ij;

import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.runtime.GpuException;
import ij.IJ;
import ij.ImagePlus;
import ij.Macro;
import ij.WindowManager;
import ij.macro.Interpreter;
import ij.plugin.frame.Recorder;

import java.awt.GraphicsEnvironment;

/**
 * Reports a failure to the user without ever blocking a batch run.
 * <p>
 * Interactively the message goes to an ImageJ error dialog. While a macro runs, or in batch
 * or headless mode, a modal dialog would wait forever for a click nobody can give (under
 * Xvfb the process just hangs), and {@code IJ.error} then opens the macro interpreter's
 * error dialog too. So there the message goes to the Log (standard output in {@code -batch}
 * mode) and the running macro is stopped quietly, so that it does not go on with an
 * unprocessed image.
 */
public final class IjErrors {

	private IjErrors() {}

	/**
	 * @param command the menu command, e.g. "GPU Gaussian Blur"
	 * @param e       what went wrong: bad input ({@link IllegalArgumentException}) and GPU
	 *                failures ({@link GpuException}) show their message only, as does a stop part
	 *                way ({@link PartlyDoneException}, whose message names its cause and what is
	 *                done); running out of Java memory ({@link OutOfMemoryError}) says how much
	 *                there is; anything else also names its class, as it is a bug
	 */
	public static void report(String command, Throwable e) {
		if (!(e instanceof OutOfMemoryError || e.getCause() instanceof OutOfMemoryError)) {
			report(command, message(e));
			return;
		}
		reserve = null; // room for the message, the Log line and the macro's abort
		String msg = null;
		try {
			for (int attempt = 1;; attempt++) {
				try {
					if (msg == null) msg = message(e);
					report(command, msg);
					return;
				} catch (OutOfMemoryError again) {
					// the report itself found no room (the failed work's pool threads may still have
					// been letting go of theirs): an error escaping here reaches ImageJ's own handler,
					// which logs "<Out of memory>" and lets a batch macro go on with the unchanged image
					if (attempt == 3) throw again;
					System.gc();
				}
			}
		} finally {
			reserve();
		}
	}

	/**
	 * A little heap held back for reporting that the heap is full: a stack that fills all but a
	 * few megabytes leaves too little for the report's strings and the Log's window after a
	 * failed allocation.
	 */
	private static volatile byte[] reserve = new byte[1 << 20];

	private static void reserve() {
		try {
			if (reserve == null) reserve = new byte[1 << 20];
		} catch (OutOfMemoryError e) {
			// still full: the next report goes without it
		}
	}

	/**
	 * The cancel reason of a SciJava command, in the menu command's words: the operations name
	 * themselves ("Gaussian Blur: ..."), checks of the command's own did not ("The radius must be
	 * at least 1, not 0."), and neither is the command's name.
	 *
	 * @param command the command's label, e.g. "GPU Box Statistics"
	 * @param e       what went wrong, as for {@link #report(String, Throwable)}
	 * @return "command: message"
	 */
	public static String line(String command, Throwable e) {
		return command + ": " + stripPrefix(command, message(e));
	}

	/**
	 * @param e a failure, as for {@link #report(String, Throwable)}
	 * @return what the user reads of it (without the command's name); an unexpected one also
	 *         goes, with its stack trace, to the console
	 */
	static String message(Throwable e) {
		String msg = e.getMessage();
		if (e instanceof OutOfMemoryError) return outOfMemory();
		if (e instanceof PartlyDoneException && e.getCause() instanceof OutOfMemoryError && msg != null)
			return msg + " T" + moreMemory().substring(1); // what to do, after what the image now is
		if ((e instanceof IllegalArgumentException || e instanceof GpuException || e instanceof PartlyDoneException)
			&& msg != null) return msg;
		e.printStackTrace(); // a bug: its trace goes to the console, not to the user
		return "an unexpected error stopped the command (" + e.getClass().getSimpleName() + (msg != null ? ": " + msg : "")
			+ "); please report it, with the image and the options used. The details are in the console.";
	}

	/**
	 * @param command the menu command, e.g. "GPU Gaussian Blur"
	 * @param message one or two sentences for the user
	 */
	public static void report(String command, String message) {
		// a failed run is not recorded: its line, played back, stopped the recorded macro there,
		// where ImageJ's own commands record nothing of a run they refuse
		if (Recorder.record) Recorder.setCommand(null);
		String msg = stripPrefix(command, message);
		if (!mustNotBlock()) {
			IJ.error(command, msg);
			return;
		}
		String line = command + ": " + msg;
		IJ.log(line);
		// only the macro that called the command: ImageJ's interpreter is one for all threads,
		// and a menu command failing while some other macro runs must not stop that macro
		if (calledByAMacro()) abortMacro(line);
	}

	/**
	 * For a command whose dialog was canceled. ImageJ's Recorder then writes the bare command,
	 * run("GPU Box Statistics..."), which played back opens the dialog again, and in a -batch run
	 * stops the macro for want of options, where the session it records did nothing.
	 */
	static void canceled() {
		if (Recorder.record) Recorder.setCommand(null);
	}

	/**
	 * The commands report running out of memory themselves, as any other failure: ImageJ's own
	 * handler logs it and then lets a {@code -batch} macro go on, which would save the unchanged
	 * image as the result and carry on with the next.
	 *
	 * @return the message, naming the memory Java may use and where to give it more
	 */
	static String outOfMemory() {
		return "out of memory: " + moreMemory();
	}

	/** @return the memory Java may use, and where to give it more */
	private static String moreMemory() {
		Runtime rt = Runtime.getRuntime();
		return "the " + (rt.maxMemory() >> 20) + " MB Java may use are not enough for this image. "
			+ "Give ImageJ more (Edit>Options>Memory & Threads, or java -Xmx) or process smaller images.";
	}

	/** @return true when a dialog could not be answered: called by a macro, batch mode or no display */
	static boolean mustNotBlock() {
		return calledByAMacro() || Interpreter.isBatchMode() || IJ.getInstance() == null
			|| GraphicsEnvironment.isHeadless();
	}

	/**
	 * @return true when this thread runs a macro (or a script's {@code IJ.run}): ImageJ names such
	 *         threads "Run$_..." or "...Macro$", and keeps a command's macro options for its thread
	 */
	static boolean calledByAMacro() {
		String name = Thread.currentThread().getName();
		return name.startsWith("Run$_") || name.endsWith("Macro$") || Macro.getOptions() != null;
	}

	/**
	 * @return true in ImageJ's {@code -batch} mode (a batch-mode macro without an ImageJ window)
	 *         with a display, such as Xvfb: a dialog opens there and waits forever for a click, so a
	 *         macro that gives a command no options would hang. (Without a display no dialog can
	 *         open, and Fiji's headless mode answers dialogs with their defaults.)
	 */
	static boolean noOneToAsk() {
		return Interpreter.isBatchMode() && IJ.getInstance() == null && !GraphicsEnvironment.isHeadless();
	}

	/**
	 * For a command about to open its parameter dialog: where nobody could answer it
	 * ({@link #noOneToAsk()}) and the macro gave no options, reports that instead.
	 *
	 * @param command the command, for the message
	 * @param example options to show in the message, e.g. {@code "sigma=2"}
	 * @return true when reported: the command must stop
	 */
	static boolean noOptionsToRunWith(String command, String example) {
		if (Macro.getOptions() != null || !noOneToAsk()) return false;
		report(command, "No options given, and in batch mode there is no one to ask; write them in the macro, "
			+ "e.g. run(\"" + command + "...\", \"" + example + "\").");
		return true;
	}

	/**
	 * Stops the running macro without its error dialog. Interpreter.abort(String) opens that
	 * dialog unless the interpreter ignores errors, so errors are ignored first; the macro ends
	 * before its next statement (checked under Xvfb with ImageJ 1.54p in -batch mode). Macro.abort()
	 * covers commands run by IJ.run from Java, where no macro called the command.
	 * <p>
	 * ImageJ keeps one interpreter for all threads, the macro started last: a script's
	 * {@code IJ.run} on a thread of its own, failing while a batch macro ran in the background,
	 * stopped that macro, which had nothing to do with it. So an interpreter is stopped only
	 * when this thread runs a macro, and it is the one that called the command, noted as the
	 * command started ({@link #enter}).
	 */
	private static void abortMacro(String line) {
		Interpreter interp = null;
		if (runsAMacro()) {
			java.lang.ref.WeakReference<Interpreter> caller = CALLER.get();
			interp = caller != null ? caller.get() : null;
			if (interp == null) interp = callingInterpreter();
		}
		if (interp != null) {
			interp.setIgnoreErrors(true);
			interp.abort(line); // becomes what IJ.runMacro and eval() return
		} else {
			// ImageJ's flag is one for all threads: set along with stopping this thread's macro, it
			// stopped another macro too, at the end of whatever command that one ran next
			Macro.abort();
		}
	}

	/**
	 * The interpreter that called the command running on this thread, noted as it started. Weakly:
	 * a thread that lives on (the event thread, a script's) kept a finished macro's interpreter,
	 * with all of that macro's variables and arrays, until its next command.
	 */
	private static final ThreadLocal<java.lang.ref.WeakReference<Interpreter>> CALLER = new ThreadLocal<>();

	/**
	 * Notes, as a command starts, which macro interpreter called it, for {@link #report} to stop
	 * that one if the command fails: the one ImageJ held as it started the command on this thread
	 * ({@link #noteCallers}), else the one it holds now. ImageJ keeps the interpreter of the last
	 * {@code run()} of any thread, and clears it when that run ends: read seconds later, at a
	 * failure, it was another thread's macro or none, and with two macros running the other one
	 * was stopped, without a word, while this one went on with its image unprocessed. Read at the
	 * command's first line, it was still another macro's whenever that one called a command while
	 * this one started (its classes loading, ImageJ's filter runner): beside a batch macro running
	 * commands one after another, one first command in seven stopped the wrong macro.
	 */
	static void enter() {
		java.lang.ref.WeakReference<Interpreter> noted = NOTED.get();
		NOTED.remove(); // for this command only: another called from Java later has not been noted
		Interpreter interp = null;
		if (runsAMacro()) {
			interp = noted != null ? noted.get() : null;
			if (interp == null) interp = callingInterpreter();
		}
		CALLER.set(interp != null ? new java.lang.ref.WeakReference<>(interp) : null);
	}

	/**
	 * The interpreter ImageJ held as it started this thread's command of this project, until the
	 * command's {@link #enter} takes it; weakly, as {@link #CALLER}.
	 */
	private static final ThreadLocal<java.lang.ref.WeakReference<Interpreter>> NOTED = new ThreadLocal<>();

	/** Whether {@link #NOTE_CALLER} listens to ImageJ's commands. */
	private static final java.util.concurrent.atomic.AtomicBoolean NOTING =
		new java.util.concurrent.atomic.AtomicBoolean();

	/** {@link #noteCaller}, as ImageJ's command listener. */
	private static final ij.CommandListener NOTE_CALLER = IjErrors::noteCaller;

	/**
	 * From now on, notes for each command of this project which macro called it as ImageJ starts
	 * the command, for {@link #enter}. ImageJ calls its command listeners on the thread that runs
	 * the command, before it looks the command up, a few statements after a macro's run() set its
	 * interpreter; the command's own start, after that, left time for another macro's run() to
	 * replace it. Those few statements remain: a run() of another thread that comes in there, as
	 * ImageJ has no note of which thread called which run(), is taken for this one's, as ImageJ's
	 * own commands take it for their errors. Called when Fiji starts ({@code FijiCudaService}) and
	 * as the first command of this project loads; in ImageJ without Fiji, that first command is
	 * noted at its first line, as before.
	 */
	static void noteCallers() {
		if (NOTING.compareAndSet(false, true)) ij.Executer.addCommandListener(NOTE_CALLER);
	}

	/**
	 * @param command the command ImageJ is about to run on this thread
	 * @return it, unchanged: the listener only looks
	 */
	private static String noteCaller(String command) {
		try {
			java.util.Hashtable<?, ?> commands = ij.Menus.getCommands();
			Object plugin = commands != null && command != null ? commands.get(command) : null;
			// only this project's commands, which take their note as they start: ImageJ's own
			// commands, run by thousands, are left alone
			if (plugin instanceof String && ((String) plugin).startsWith("fiji.cuda.")) {
				Object interp = MACRO_INTERPRETER != null ? MACRO_INTERPRETER.get(null) : null;
				NOTED.set(interp instanceof Interpreter ? new java.lang.ref.WeakReference<>((Interpreter) interp)
					: null);
			}
		} catch (ReflectiveOperationException | RuntimeException e) {
			// ImageJ calls its listeners outside the command's error handling: whatever goes wrong
			// here must not stop the command, which then notes its caller at its first line
		}
		return command;
	}

	/**
	 * @return the interpreter of the macro that last called {@code run()}, on any thread, which
	 *         ImageJ holds in IJ while that command runs (and stops on IJ.error); read by
	 *         reflection, as IJ does not expose it. Where it cannot be read (another ImageJ), or
	 *         is not set (a command called from Java that a macro called), the interpreter
	 *         started last.
	 */
	static Interpreter callingInterpreter() {
		try {
			Object interp = MACRO_INTERPRETER != null ? MACRO_INTERPRETER.get(null) : null;
			if (interp instanceof Interpreter) return (Interpreter) interp;
		} catch (ReflectiveOperationException | RuntimeException e) {
			// as where it cannot be read
		}
		return Interpreter.getInstance();
	}

	/** IJ's field for the interpreter of the current run(), looked up once; null in an ImageJ without it. */
	private static final java.lang.reflect.Field MACRO_INTERPRETER = macroInterpreterField();

	private static java.lang.reflect.Field macroInterpreterField() {
		try {
			java.lang.reflect.Field f = IJ.class.getDeclaredField("macroInterpreter");
			f.setAccessible(true);
			return f;
		} catch (ReflectiveOperationException | RuntimeException e) {
			return null;
		}
	}

	/**
	 * @return true when ImageJ's macro interpreter is on this thread's stack: the command was
	 *         called by a macro (through {@code run}, {@code call} or {@code eval}), not by a
	 *         script or plug-in of its own thread, which ImageJ names alike ("Run$_...")
	 */
	private static boolean runsAMacro() {
		return StackWalker.getInstance()
			.walk(frames -> frames.anyMatch(f -> f.getClassName().equals(Interpreter.class.getName())));
	}

	/** The operations already name themselves ("Gaussian Blur: ..."); don't say it twice. */
	static String stripPrefix(String command, String message) {
		if (message == null) return "unknown error";
		int colon = message.indexOf(": ");
		if (colon > 0 && command.endsWith(message.substring(0, colon)))
			return message.substring(colon + 2);
		return message;
	}

	/**
	 * Locks an image for a command that writes it. {@code ImagePlus.lock()} only beeps and
	 * shows its refusal in the status bar, which nobody sees in batch mode, and the macro would
	 * then go on as if the image had been processed; this reports it like any other error.
	 *
	 * @param command the command asking, for the message
	 * @param imp     the image
	 * @return true when the image is now locked (the caller unlocks it); false after reporting
	 *         that another command holds it
	 */
	public static boolean lock(String command, ImagePlus imp) {
		if (imp.lockSilently()) return true;
		report(command, lockedMessage(imp));
		return false;
	}

	/**
	 * For a command about to ask for its parameters: an image already locked by another command
	 * is reported now rather than after the dialog.
	 *
	 * @return true when reported: the command must stop
	 */
	static boolean inUse(String command, ImagePlus imp) {
		if (!imp.isLockedByAnotherThread()) return false;
		report(command, lockedMessage(imp));
		return true;
	}

	/**
	 * {@link #inUse} for a command that only reads the image: it may read it beside other reads
	 * (see {@link ImagePlusPlanes#whileReading}).
	 */
	static boolean inUseForReading(String command, ImagePlus imp) {
		if (!imp.isLockedByAnotherThread() || ImagePlusPlanes.heldByReads(imp)) return false;
		report(command, lockedMessage(imp));
		return true;
	}

	/** @return the message for an image that another command has locked */
	static String lockedMessage(ImagePlus imp) {
		return "\"" + imp.getTitle() + "\" is in use by another command; try again when it is done.";
	}

	/**
	 * @param command the command asking, for the message
	 * @return the current image, or null after reporting that there is none, or that it has no
	 *         pixels (a script's image whose window was closed)
	 */
	public static ImagePlus currentImage(String command) {
		ImagePlus imp = WindowManager.getCurrentImage();
		if (imp == null) {
			report(command, "There is no image open.");
			return null;
		}
		try {
			ImagePlusPlanes.checkHasPixels(imp);
		} catch (IllegalArgumentException e) {
			report(command, e);
			return null;
		}
		return imp;
	}
}
