package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
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

	@Test
	void aFlagWordInANestedBracketedOrQuotedValueIsNoFlag() {
		// the Recorder writes a title with brackets as it is: its first ']' ended the value, and
		// "stack" (or "flip" in a folder's name) was read as the flag
		String o = "image=[embryo [GFP] stack 2] template=cell score_threshold=0.5";
		assertEquals("embryo [GFP] stack 2", IjBridge.getValue(o, "image", null));
		assertFalse(TemplateMatchingPlugin.flag(o, "stack"));
		assertFalse(TemplateMatchingPlugin.flag("image=x template_folder=[/data/set [A] flip 1] ", "flip"));
		assertFalse(TemplateMatchingPlugin.flag("image='cells stack 1' template=t", "stack"));
		assertTrue(TemplateMatchingPlugin.flag("image=[embryo [GFP] 2] stack template=t", "stack"));
		assertTrue(TemplateMatchingPlugin.flag("image='cells 1' flip", "flip"));
		// a bracket within an unbracketed value opens nothing, as getValue reads it
		assertTrue(TemplateMatchingPlugin.flag("image=a[1 stack", "stack"));
		assertEquals("image=[] template=[] stack x=[]", IjBridge.outsideBrackets("image=[a [b] c] template='d e' stack x=[f"));
	}

	@Test
	void aValueNeverClosedIsNamed() {
		// a title with an unmatched '[', as the Recorder writes it: ImageJ reads the value as absent,
		// and the command asked for the template the macro had given
		IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
			() -> IjBridge.checkClosed("image=cells template=[cell[1 x] score_threshold=0.5"));
		assertEquals("The value of template= opens a bracket that is never closed: template=[cell[1 x] score_threshold=0.5. "
			+ "A title or path with an unmatched [ cannot be given in brackets; rename the image (Image>Rename...) or the "
			+ "file.", e.getMessage());
		IjBridge.checkClosed("image=[a [b] c] template='d e' x=a[1 y=[]");
		IjBridge.checkClosed(null);
		org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> IjBridge.checkClosed("input='a b"));
	}

	@Test
	void uniqueTitlesSeeTheImagesOfBatchMode() {
		// ImageJ's WindowManager.makeUniqueName sees only images with a window: in a batch macro a
		// second score map of one image took the first's title
		ij.ImagePlus a = ij.IJ.createImage("Score map of img", "8-bit", 4, 4, 1);
		ij.ImagePlus b = ij.IJ.createImage("cells.tif", "8-bit", 4, 4, 1);
		ij.ImagePlus c = ij.IJ.createImage("cells-1.tif", "8-bit", 4, 4, 1);
		boolean batch = Interpreter.batchMode;
		Interpreter.batchMode = true; // as in a macro after setBatchMode(true), or in -batch
		Interpreter.addBatchModeImage(a);
		Interpreter.addBatchModeImage(b);
		Interpreter.addBatchModeImage(c);
		try {
			assertEquals("Score map of img-1", IjBridge.uniqueTitle("Score map of img"));
			assertEquals("cells-2.tif", IjBridge.uniqueTitle("cells.tif"));
			assertEquals("Score map of other", IjBridge.uniqueTitle("Score map of other"));
		} finally {
			Interpreter.removeBatchModeImage(a);
			Interpreter.removeBatchModeImage(b);
			Interpreter.removeBatchModeImage(c);
			Interpreter.batchMode = batch;
		}
	}
	@Test
	void aTakenTitleIsNumberedBeforeAnExtensionOfUpToFourCharactersAsImageJNumbersIt() {
		// ImageJ's WindowManager.getUniqueName takes up to four characters after the last dot as an
		// extension ("stack.tiff" becomes "stack-1.tiff"); a longer tail, a trailing dot or a name
		// that only starts with a dot is numbered at its end. A mutation test found that taking at
		// most three ("stack.tiff-1") passed every test
		String[][] cases = { { "stack.tiff", "stack-1.tiff" }, { "cells.tif", "cells-1.tif" }, { "run 2.5", "run 2-1.5" },
			{ "stack.tiffs", "stack.tiffs-1" }, { "stack.", "stack.-1" }, { ".hidden", ".hidden-1" },
			{ "v1.2 map", "v1.2 map-1" } };
		ij.ImagePlus[] taken = new ij.ImagePlus[cases.length];
		boolean batch = Interpreter.batchMode;
		Interpreter.batchMode = true;
		for (int i = 0; i < cases.length; i++) {
			taken[i] = ij.IJ.createImage(cases[i][0], "8-bit", 4, 4, 1);
			Interpreter.addBatchModeImage(taken[i]);
		}
		try {
			for (String[] c : cases)
				assertEquals(c[1], IjBridge.uniqueTitle(c[0]), c[0]);
		} finally {
			for (ij.ImagePlus imp : taken)
				Interpreter.removeBatchModeImage(imp);
			Interpreter.batchMode = batch;
		}
	}
}
