package fiji.cuda.ij;

import fiji.cuda.ops.Texts;
import ij.gui.GenericDialog;

import java.awt.TextField;

/**
 * A parameter of a command as the user meets it: the label of its dialog field and its macro
 * key. Messages about a bad value name both, in one form for every command: "Radius must be a
 * whole number of at least 1, not radius=2.5." A dialog user finds the field by its label, a
 * macro user the key and the value as written.
 */
final class Field {

	/** The dialog's label without its colon and underscores, e.g. "Score threshold". */
	final String label;
	/** The macro key, e.g. "score_threshold". */
	final String key;

	Field(String label, String key) {
		this.label = label;
		this.key = key;
	}

	/**
	 * @param rule  what the value must be, e.g. "a whole number of at least 1"
	 * @param value the value given
	 * @return "Label must be rule, not key=value."
	 */
	String mustBe(String rule, double value) {
		return label + " must be " + rule + ", not " + Texts.option(key, value) + ".";
	}

	/** {@link #mustBe(String, double)} for a value as written (a word, a list). */
	String mustBe(String rule, String value) {
		return label + " must be " + rule + ", not " + Texts.option(key, value) + ".";
	}

	/** @return the refusal of {@link #mustBe(String, double)}, to throw */
	IllegalArgumentException refused(String rule, double value) {
		return new IllegalArgumentException(mustBe(rule, value));
	}

	/** @return the refusal of {@link #mustBe(String, String)}, to throw */
	IllegalArgumentException refused(String rule, String value) {
		return new IllegalArgumentException(mustBe(rule, value));
	}

	/**
	 * GenericDialog reads a choice's value up to the first space unless it is in brackets:
	 * "statistic=Standard deviation" reads as "Standard", and "table=Sum of squares" silently as
	 * the Sum table, the rest being taken for unknown keys.
	 *
	 * @param options the macro options, or null
	 * @param choices the field's choices
	 * @return the message for a choice with spaces written without its brackets, or null
	 */
	String unbracketedChoice(String options, String[] choices) {
		if (options == null) return null;
		String outside = IjBridge.outsideBrackets(options);
		for (String c : choices) {
			if (c.indexOf(' ') < 0) continue;
			java.util.regex.Pattern p = java.util.regex.Pattern.compile("(^|\\s)" + java.util.regex.Pattern.quote(key + "=" + c)
				+ "(\\s|$)", java.util.regex.Pattern.CASE_INSENSITIVE);
			if (p.matcher(outside).find())
				return label + " must be in brackets when it has spaces: " + key + "=[" + c + "], not " + key + "=" + c
					+ " (only \"" + c.substring(0, c.indexOf(' ')) + "\" would be read).";
		}
		return null;
	}

	/** @return the message for a value that is not a number (nor a macro variable holding one) */
	String notANumber(String value) {
		return mustBe("a number", value);
	}

	/**
	 * Reads a dialog's next numeric field, as {@link GenericDialog#getNextNumber()}, refusing a
	 * text that is no number with this field's message; GenericDialog only says that some field
	 * of the dialog held one. (Not for a macro's options: there GenericDialog opens its own modal
	 * error for such a value, which {@link IjBridge#notANumber} prevents.)
	 *
	 * @param gd    the dialog, its numeric fields read in order up to this one
	 * @param index this field's place among the dialog's numeric fields, from 0
	 * @throws IllegalArgumentException naming the field and the text typed
	 */
	double read(GenericDialog gd, int index) {
		double v = gd.getNextNumber();
		if (gd.invalidNumber()) throw new IllegalArgumentException(notANumber(typed(gd, index)));
		return v;
	}

	/** @return the text of a dialog's numeric field, as typed */
	static String typed(GenericDialog gd, int index) {
		java.util.Vector<?> fields = gd.getNumericFields();
		return fields != null && index < fields.size() ? ((TextField) fields.get(index)).getText().trim() : "";
	}
}
