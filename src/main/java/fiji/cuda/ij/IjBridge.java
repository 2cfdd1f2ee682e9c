package fiji.cuda.ij;

import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpLog;
import fiji.cuda.runtime.GpuSettings;
import ij.IJ;
import ij.ImagePlus;
import ij.Macro;
import ij.Prefs;
import ij.WindowManager;
import ij.macro.Interpreter;
import ij.util.Tools;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One-time wiring of the operation layer into ImageJ 1: operation log lines (such as why
 * the CPU path ran) go to ImageJ's Log window, and the device chosen in "GPU Info..." is
 * restored from ImageJ's preferences. Every plug-in class of this package calls
 * {@link #init()} when it is loaded.
 */
public final class IjBridge {

	/** The ImageJ preference key (saved in IJ_Prefs.txt) holding the device choice. */
	public static final String PREF_DEVICE = "fiji.cuda.device";

	private static boolean done;

	/**
	 * The options every command runs with from ImageJ: the CPU path uses at most the threads
	 * that Edit > Options > Memory &amp; Threads allows ("Parallel threads"), as ImageJ's own
	 * filters do. Read at each run, so a change there holds from the next command on.
	 *
	 * @return the defaults, with ImageJ's thread count
	 */
	public static ExecutionOptions options() {
		return ExecutionOptions.defaults().withThreads(Prefs.getThreads());
	}

	/**
	 * Held while a command fills ImageJ's windows that all commands share, the Results table and
	 * the ROI Manager (with the matches' overlay). Each run empties them and writes its own, and
	 * two runs at once (two macros, a script's threads) mixed them: the rows of one went on after
	 * the other's, and one deleted the ROI Manager entries it had counted before the other added
	 * its own. Commands fill them on their own threads (ImageJ runs menu commands on a thread of
	 * their own), never on the event thread, which the ROI Manager waits for.
	 */
	static final ReentrantLock SHARED_WINDOWS = new ReentrantLock();

	/**
	 * Takes {@link #SHARED_WINDOWS}, except on the event thread, which must never wait for it:
	 * the ROI Manager updates its list there, so a run holding the lock could wait for the event
	 * thread while the event thread waited for the lock, and Fiji would hang. A plug-in called
	 * from a button's action runs there; its tables are then filled unguarded, as before.
	 *
	 * @return whether the lock was taken, for {@link #releaseSharedWindows}
	 */
	static boolean holdSharedWindows() {
		if (java.awt.EventQueue.isDispatchThread()) return false;
		SHARED_WINDOWS.lock();
		return true;
	}

	/** Gives back what {@link #holdSharedWindows} took. */
	static void releaseSharedWindows(boolean held) {
		if (held) SHARED_WINDOWS.unlock();
	}

	/**
	 * What {@link #keepsResults} asks; ImageJ's own question unless a test puts its answer here.
	 */
	static java.util.function.BooleanSupplier resultsReset = ij.plugin.filter.Analyzer::resetCounter;

	/**
	 * Whether a command that lists its results afresh, its work done, must leave the Results
	 * table to the user. ImageJ's own commands that start the table afresh (Analyze Particles
	 * with "Clear results") ask, run from a menu with measurements not yet saved, whether to
	 * save them, and empty it; run from a macro, they empty it without asking. Asked only after the work,
	 * so that a failed run leaves the measurements where they were, and only with the shared
	 * windows held ({@link #holdSharedWindows}): ImageJ's question empties the table, and asked
	 * before, it emptied another run's rows while that run showed them ("Row out of range", and
	 * that run's script stopped although its work was done).
	 *
	 * @param command the command, for the Log line that says where its results went
	 * @param title   the title of the table of the command's own that then gets them
	 * @return true when the user kept the measurements (Cancel): the results go to a new table
	 */
	static boolean keepsResults(String command, String title) {
		ij.measure.ResultsTable rt = ij.measure.ResultsTable.getResultsTable();
		if (rt == null || rt.size() == 0 || resultsReset.getAsBoolean()) return false;
		IJ.log(command + ": the Results table kept its measurements; the results are in \"" + title + "\".");
		return true;
	}

	/**
	 * @param kept what {@link #keepsResults} answered
	 * @return the Results table emptied, or a new table where the user kept the measurements
	 */
	static ij.measure.ResultsTable resultsTable(boolean kept) {
		ij.measure.ResultsTable rt = ij.measure.ResultsTable.getResultsTable();
		if (kept || rt == null) return new ij.measure.ResultsTable();
		rt.reset();
		return rt;
	}

	/**
	 * Shows a table of {@link #resultsTable} where it belongs: as the Results table, or under the
	 * command's own title.
	 */
	static void show(ij.measure.ResultsTable rt, String title) {
		rt.show(rt == ij.measure.ResultsTable.getResultsTable() ? "Results" : title);
	}

	/**
	 * A numeric field showing its value exactly. GenericDialog rounds the value to the field's
	 * decimals for display, yet OK on the untouched field uses the unrounded value and records
	 * the rounded text, so the recorded line replays otherwise than the run it records (a
	 * remembered C of 0.004 showed as 0.00 and recorded parameter_1=0, the method's default; a
	 * score threshold of 0.473 recorded as 0.47 found one more object). So the field gets as
	 * many decimals as the value needs. Only replacing the text shown was not enough:
	 * GenericDialog takes a field whose text equals the text it was made with as untouched, so
	 * typing 0.47 over a remembered 0.473 ran with 0.473 and recorded 0.47.
	 */
	static void addExactField(ij.gui.GenericDialog gd, String label, double value, int decimals) {
		int digits = decimals;
		while (digits < MAX_DECIMALS && Double.isFinite(value) && value != Double.parseDouble(IJ.d2s(value, digits)))
			digits++;
		gd.addNumericField(label, value, digits);
		java.util.Vector<?> fields = gd.getNumericFields();
		// past MAX_DECIMALS (1e-12, say) only the text shown is exact
		if (fields != null && !fields.isEmpty() && Double.isFinite(value)
			&& value != Double.parseDouble(IJ.d2s(value, digits)))
			((java.awt.TextField) fields.lastElement()).setText(fiji.cuda.ops.Texts.number(value));
	}

	/** The most decimals {@link #addExactField} gives a field. */
	private static final int MAX_DECIMALS = 9;

	private IjBridge() {}

	/** Installs the log sink and applies the stored device choice; later calls do nothing. */
	public static synchronized void init() {
		if (done) return;
		done = true;
		IjErrors.noteCallers(); // from the next command on; initEarly, in Fiji, from the first
		OpLog.setSink(IJ::log);
		String stored = Prefs.get(PREF_DEVICE, "auto");
		try {
			GpuSettings.setDeviceChoice(stored);
		} catch (IllegalArgumentException e) {
			// a hand-edited preference must not stop the plug-ins from loading
			IJ.log("Fiji CUDA: ignoring the stored device choice '" + stored + "'; using automatic.");
		}
	}

	/**
	 * What {@code FijiCudaService} does when Fiji starts, for scripts that call the operations
	 * directly: the Log sink, and the stored device choice where ImageJ's preferences already hold
	 * one. It may run before ImageJ has read its preferences file, so nothing here counts as
	 * {@link #init}: the first menu command reads the preferences again, and then they are read.
	 * It also starts noting which macro calls each menu command ({@link IjErrors#noteCallers}),
	 * which {@link #init}, run as the first command loads, starts only from the next one.
	 */
	public static synchronized void initEarly() {
		IjErrors.noteCallers(); // before any command of this project starts
		if (done) return;
		OpLog.setSink(IJ::log);
		String stored = Prefs.get(PREF_DEVICE, null);
		if (stored == null) return;
		try {
			GpuSettings.setDeviceChoice(stored);
		} catch (IllegalArgumentException e) {
			// the menu commands' init says so, once
		}
	}

	/**
	 * Stores a device choice for this and later sessions and applies it now.
	 *
	 * @param choice "auto", "cpu" or a GPU index
	 * @throws IllegalArgumentException for anything else
	 */
	public static void storeDeviceChoice(String choice) {
		GpuSettings.setDeviceChoice(choice);
		Prefs.set(PREF_DEVICE, choice);
	}

	/** @return the stored device choice, "auto" when none */
	public static String storedDeviceChoice() {
		return Prefs.get(PREF_DEVICE, "auto");
	}

	/**
	 * ImageJ's {@code WindowManager.makeUniqueName}, which sees only the images that have a
	 * window: in batch mode a second score map of one image took the first's title, and a macro
	 * that selected the map by title got the older one. This one sees the batch-mode images too.
	 *
	 * @param title the title wanted
	 * @return it, or the first free of "name-1", "name-2", ... (before a file extension, as ImageJ
	 *         numbers them); a title that {@link #showUnique} gave an image not yet shown is not free
	 */
	public static String uniqueTitle(String title) {
		synchronized (SHOWING) {
			java.util.Set<String> taken = new java.util.HashSet<>(SHOWING);
			int[] ids = WindowManager.getIDList();
			if (ids != null)
				for (int id : ids) {
					ImagePlus imp = WindowManager.getImage(id);
					if (imp != null) taken.add(imp.getTitle());
				}
			if (!taken.contains(title)) return title;
			int dot = title.lastIndexOf('.');
			// an extension is a short run of letters and digits after the last dot, as in "cells.tif"
			boolean ext = dot > 0 && title.length() - dot <= 5 && title.substring(dot + 1).matches("[A-Za-z0-9]+");
			String base = ext ? title.substring(0, dot) : title, tail = ext ? title.substring(dot) : "";
			for (int k = 1;; k++) {
				String t = base + "-" + k + tail;
				if (!taken.contains(t)) return t;
			}
		}
	}

	/**
	 * The titles {@link #showUnique} has given images that are not shown yet. A title is free to
	 * {@link #uniqueTitle} only once an image holding it is shown (registered with ImageJ), so two
	 * results of one image made at once (two matchings sharing the image, from a script's threads)
	 * each found their title free and both took it.
	 */
	private static final java.util.Set<String> SHOWING = new java.util.HashSet<>();

	/**
	 * Titles a new result image with {@link #uniqueTitle} and shows it, the title kept from any
	 * other result shown meanwhile until this one is shown.
	 *
	 * @param imp the result, titled as wanted; retitled if another image holds that title
	 */
	public static void showUnique(ImagePlus imp) {
		String title;
		synchronized (SHOWING) {
			title = uniqueTitle(imp.getTitle());
			SHOWING.add(title);
		}
		try {
			imp.setTitle(title);
			imp.show();
		} finally {
			synchronized (SHOWING) {
				SHOWING.remove(title);
			}
		}
	}

	/**
	 * ImageJ's {@code Macro.getValue}, except that a key inside a bracketed value is no key: a
	 * title or a path such as {@code image=[well max_objects=1 A1]} set max_objects, where the
	 * macro's own {@code max_objects=3} came later and was never read.
	 *
	 * @return the value of the first {@code key=} outside brackets, or {@code dflt}
	 */
	static String getValue(String options, String key, String dflt) {
		if (options == null) return dflt;
		String k = Macro.trimKey(key) + "=";
		ValueScanner v = new ValueScanner(options);
		for (int i = 0; i < options.length(); i++)
			if (v.next() == ValueScanner.OUTSIDE && (i == 0 || !Character.isLetter(options.charAt(i - 1)))
				&& options.startsWith(k, i))
				return Macro.getValue(options.substring(i), key, dflt);
		return dflt;
	}

	/**
	 * Refuses a bracketed or quoted value that is never closed. ImageJ reads such a value as
	 * absent, so a title with an unmatched bracket, recorded as {@code template=[cell[1 x]},
	 * was answered with "Please give the template", which the macro had given.
	 *
	 * @param options the macro options, or null
	 * @throws IllegalArgumentException naming the key and quoting its value
	 */
	static void checkClosed(String options) {
		if (options == null) return;
		ValueScanner v = new ValueScanner(options);
		int start = -1;
		for (int i = 0; i < options.length(); i++) {
			if (v.next() != ValueScanner.OPENS) continue;
			start = i - 1;
			while (start > 0 && !Character.isWhitespace(options.charAt(start - 1)))
				start--;
		}
		if (!v.inValue()) return;
		String value = options.substring(start).trim();
		String key = value.substring(0, value.indexOf('='));
		throw new IllegalArgumentException("The value of " + key + "= opens a " + (v.inQuote() ? "quote" : "bracket")
			+ " that is never closed: " + value + ". A title or path with an unmatched [ cannot be given in brackets; "
			+ "rename the image (Image>Rename...) or the file.");
	}

	/**
	 * @return the macro options with every bracketed or quoted value emptied to {@code []}:
	 *         titles and paths hold no keys. Values are paired as {@link #getValue} pairs them;
	 *         a title such as {@code [embryo [GFP] stack 2]}, which the Recorder writes as it is,
	 *         ended at its first {@code ]} and turned on {@code stack}.
	 */
	static String outsideBrackets(String options) {
		StringBuilder out = new StringBuilder(options.length());
		ValueScanner v = new ValueScanner(options);
		for (int i = 0; i < options.length(); i++) {
			switch (v.next()) {
			case ValueScanner.OUTSIDE:
				out.append(options.charAt(i));
				break;
			case ValueScanner.OPENS:
				out.append('[');
				break;
			case ValueScanner.CLOSES:
				out.append(']');
				break;
			default: // within a value
			}
		}
		// a value never closed runs to the end, as getValue reads it
		if (v.inValue()) out.append(']');
		return out.toString();
	}

	/**
	 * Reads macro options one character at a time and says where each stands, pairing values
	 * as ImageJ does: only a {@code [} or {@code '} right after {@code =} opens a value (a
	 * {@code [} within an unbracketed value, as {@code image=a[1}, opens nothing); brackets
	 * nested in a bracketed value are paired, as {@code image=[scan[1] a]}; a quoted value runs
	 * to the next quote. {@link #getValue}, {@link #checkClosed} and {@link #outsideBrackets}
	 * must agree on this, or a key one of them sees would be a title to another.
	 */
	private static final class ValueScanner {
		static final int OUTSIDE = 0, OPENS = 1, WITHIN = 2, CLOSES = 3;

		private final String options;
		private int i = -1;
		private int depth;
		private char quote;

		ValueScanner(String options) {
			this.options = options;
		}

		/** @return where the next character stands: outside values, or opening, within or closing one */
		int next() {
			char c = options.charAt(++i);
			if (quote != 0) {
				if (c != quote) return WITHIN;
				quote = 0;
				return CLOSES;
			}
			if (depth > 0) {
				if (c == '[') depth++;
				else if (c == ']' && --depth == 0) return CLOSES;
				return WITHIN;
			}
			boolean opens = i > 0 && options.charAt(i - 1) == '=';
			if (opens && c == '[') depth = 1;
			else if (opens && c == '\'') quote = c;
			else return OUTSIDE;
			return OPENS;
		}

		/** @return whether the characters read so far end within a value */
		boolean inValue() {
			return depth > 0 || quote != 0;
		}

		/** @return whether they end within a quoted value */
		boolean inQuote() {
			return quote != 0;
		}
	}

	/**
	 * Reads a macro key of a command that parses its options itself, as GenericDialog would
	 * read it: {@code key=&name} (the documented way to pass a macro variable) is the value of
	 * the running macro's variable {@code name}. A value naming no variable is kept as written,
	 * so that the caller's own message can quote it.
	 *
	 * @param options the macro options
	 * @param key     the key
	 * @param dflt    returned when the key is absent
	 * @return the value, with a macro variable replaced by its value
	 */
	static String macroValue(String options, String key, String dflt) {
		String v = getValue(options, key, null);
		if (v == null) return dflt;
		if (!v.startsWith("&") || v.length() < 2) return v;
		Interpreter in = Interpreter.getInstance();
		if (in == null) return v;
		String s = in.getStringVariable(v.substring(1));
		if (s != null) return s;
		// a whole number as GenericDialog's choices write it: "5", not "5.0", for a title such as "5"
		double d = in.getVariable2(v.substring(1));
		if (Double.isNaN(d)) return v;
		return d == (int) d ? String.valueOf((int) d) : String.valueOf(d);
	}

	/**
	 * Reads a numeric macro key as GenericDialog's numeric fields do: a number, or the name of
	 * a numeric macro variable, with or without {@code &}.
	 *
	 * @param options the macro options
	 * @param field   the field, whose key is read and whose label and key the message names
	 * @param dflt    returned when the key is absent
	 * @return the number
	 * @throws IllegalArgumentException quoting the value, when it is neither
	 */
	static double macroNumber(String options, Field field, double dflt) {
		String v = getValue(options, field.key, null);
		if (v == null) return dflt;
		double d = Tools.parseDouble(v.trim(), Double.NaN);
		if (!Double.isNaN(d) || v.trim().equalsIgnoreCase("NaN")) return d;
		String name = v.startsWith("&") ? v.substring(1) : v;
		Interpreter in = Interpreter.getInstance();
		d = in != null && !name.isEmpty() ? in.getVariable2(name) : Double.NaN;
		if (Double.isNaN(d)) throw new IllegalArgumentException(field.notANumber(v));
		return d;
	}

	/**
	 * A macro value for a numeric field that is neither a number nor a macro variable (given
	 * as {@code name} or {@code &name}) makes
	 * GenericDialog open a modal "Macro Error" box, which hangs a batch run; the commands check
	 * their numeric keys with this first and report the value instead.
	 *
	 * @param options the macro options, or null when no macro runs
	 * @param fields  the numeric fields
	 * @return null, or a message naming the first bad field (its label and key) and its value
	 */
	static String notANumber(String options, Field... fields) {
		if (options == null) return null;
		for (Field f : fields) {
			// as GenericDialog will read the field: these commands take no bracketed titles
			String v = Macro.getValue(options, f.key, null);
			if (v == null || !Double.isNaN(Tools.parseDouble(v, Double.NaN))) continue;
			// as GenericDialog.getNextNumber, untrimmed: "0x..." is hexadecimal, and "&name" (the
			// documented way to pass a variable, e.g. "sigma=&s") names a variable
			if (v.startsWith("0x")) continue;
			String name = v.startsWith("&") ? v.substring(1) : v;
			Interpreter in = Interpreter.getInstance();
			if (in != null && !name.isEmpty() && !name.equalsIgnoreCase("NaN") && !Double.isNaN(in.getVariable2(name)))
				continue;
			return f.notANumber(v);
		}
		return null;
	}
}
