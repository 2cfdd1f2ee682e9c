package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ij.macro.Interpreter;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The numeric-key check against what ImageJ's GenericDialog itself accepts from a macro. */
public class IjBridgeTest { // public: the test macro call()s into it

	private static final Map<String, String> ANSWERS = new LinkedHashMap<>();

	/** Called from the test macro (call() needs a public static String method of strings). */
	public static String check(String options) {
		ANSWERS.put(options, IjBridge.notANumber(options, GaussianBlurPlugin.SIGMA));
		return "";
	}

	@Test
	void acceptsWhatGenericDialogAcceptsAndRefusesTheRest() {
		ANSWERS.clear();
		String[] accepted = { "sigma=1.5", "sigma=s", "sigma=&s", "sigma=[&s]", "sigma=0x10", "sigma=-1", "other=abc" };
		String[] refused = { "sigma=abc", "sigma=&abc", "sigma=NaN", "sigma=&" };
		StringBuilder macro = new StringBuilder("s = 1.5;\n");
		for (String o : accepted)
			macro.append("call('" + getClass().getName() + ".check', '" + o + "');\n");
		for (String o : refused)
			macro.append("call('" + getClass().getName() + ".check', '" + o + "');\n");
		new Interpreter().run(macro.toString());
		assertEquals(accepted.length + refused.length, ANSWERS.size(), ANSWERS::toString);
		// "&s" is the recorder's and the documentation's way to pass a variable; GenericDialog
		// strips the "&", and reads "0x..." as hexadecimal
		for (String o : accepted)
			assertNull(ANSWERS.get(o), o);
		assertEquals("Sigma (Radius) must be a number, not sigma=abc.", ANSWERS.get("sigma=abc"));
		assertEquals("Sigma (Radius) must be a number, not sigma=&abc.", ANSWERS.get("sigma=&abc"));
		assertEquals("Sigma (Radius) must be a number, not sigma=NaN.", ANSWERS.get("sigma=NaN"));
		assertEquals("Sigma (Radius) must be a number, not sigma=&.", ANSWERS.get("sigma=&"));
	}
}
