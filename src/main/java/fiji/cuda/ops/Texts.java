package fiji.cuda.ops;

import java.math.BigDecimal;

/**
 * Values as messages show them to a user: numbers as a person writes them, not as Java
 * prints doubles ("-1" rather than "-1.0", "0.0000123" rather than "1.23E-5"), and the
 * {@code key=value} form of a macro option.
 */
public final class Texts {

	/** What to do with an RGB image where a command needs grey values, in every command's words. */
	public static final String CONVERT_RGB = "Convert to 8-bit (Image>Type>8-bit) or split the channels "
		+ "(Image>Color>Split Channels) first.";

	/** Why an RGB image is refused, and what to do, in every command's words. */
	public static final String RGB = "RGB images are not supported. " + CONVERT_RGB;

	private Texts() {}

	/**
	 * @param ascending slice numbers (or any whole numbers), ascending, at least one
	 * @return them as runs, the way a person lists them: "1-2, 5 and 7-9" for 1, 2, 5, 7, 8, 9
	 */
	public static String runs(Iterable<Integer> ascending) {
		java.util.List<String> parts = new java.util.ArrayList<>();
		int first = -1, last = -1;
		for (int s : ascending) {
			if (s != last + 1 && first >= 0) {
				parts.add(first == last ? String.valueOf(first) : first + "-" + last);
				first = -1;
			}
			if (first < 0) first = s;
			last = s;
		}
		parts.add(first == last ? String.valueOf(first) : first + "-" + last);
		int n = parts.size();
		return n == 1 ? parts.get(0) : String.join(", ", parts.subList(0, n - 1)) + " and " + parts.get(n - 1);
	}

	/**
	 * @param v a value the user gave or will recognize
	 * @return its shortest exact decimal form: whole numbers without ".0" ("-1", "2000000000"),
	 *         others in plain notation from 0.00001 to 1e9 ("0.0000123", "2.5"), and in
	 *         scientific notation beyond ("1e300", "1.5e-7"); "NaN", "infinity" or "-infinity".
	 *         Never rounded: a value just outside a range must not read as inside it.
	 */
	public static String number(double v) {
		if (Double.isNaN(v)) return "NaN";
		if (Double.isInfinite(v)) return v > 0 ? "infinity" : "-infinity";
		if (v == 0) return "0";
		double a = Math.abs(v);
		BigDecimal d = new BigDecimal(Double.toString(v)).stripTrailingZeros();
		if (v == Math.rint(v) && a < 1e15 || a >= 1e-5 && a < 1e9) return d.toPlainString();
		// the digits Java chose (the shortest that give v back), as 1.5e-7
		String s = Double.toString(v);
		int e = s.indexOf('E');
		String mantissa = new BigDecimal(s.substring(0, e)).stripTrailingZeros().toPlainString();
		return mantissa + "e" + s.substring(e + 1);
	}

	/**
	 * @param key   a macro key, e.g. "sigma"
	 * @param value its value as written
	 * @return {@code key=value}, the value in brackets when it has a space, as a macro writes it
	 */
	public static String option(String key, String value) {
		String v = String.valueOf(value);
		return key + "=" + (v.isEmpty() || v.contains(" ") ? "[" + v + "]" : v);
	}

	/**
	 * @param key   a macro key
	 * @param value its value
	 * @return {@code key=value} with the value as {@link #number} writes it
	 */
	public static String option(String key, double value) {
		return key + "=" + number(value);
	}
}
