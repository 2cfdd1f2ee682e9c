package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Numbers in messages read as a person writes them, never rounded into a range they are outside of. */
class TextsTest {

	@Test
	void numbersAsAPersonWritesThem() {
		// the messages said "not -1.0", "not 0.0", "not 50.0" and "not -1.23456789E-5"
		assertEquals("-1", Texts.number(-1.0));
		assertEquals("0", Texts.number(0.0));
		assertEquals("0", Texts.number(-0.0));
		assertEquals("50", Texts.number(50));
		assertEquals("2.5", Texts.number(2.5));
		assertEquals("-0.0000123456789", Texts.number(-1.23456789E-5));
		assertEquals("2000000000", Texts.number(2e9));
		assertEquals("-2147483648", Texts.number(Integer.MIN_VALUE));
		assertEquals("123456789.5", Texts.number(123456789.5));
		assertEquals("1e300", Texts.number(1e300));
		assertEquals("1.5e-7", Texts.number(1.5e-7));
		assertEquals("1.5e20", Texts.number(1.5e20));
		assertEquals("NaN", Texts.number(Double.NaN));
		assertEquals("infinity", Texts.number(Double.POSITIVE_INFINITY));
		assertEquals("-infinity", Texts.number(Double.NEGATIVE_INFINITY));
		// not rounded: 1.0000001 is outside [-1, 1], and must not read as 1
		assertEquals("1.0000001", Texts.number(1.0000001));
		assertEquals("0.1", Texts.number(0.1));
	}

	@Test
	void plainNotationRunsFromExactlyOneHundredThousandthToBelowOneBillion() {
		// the Javadoc's range of plain notation, "from 0.00001 to 1e9", includes its lower end. A
		// mutation test found that 0.00001 written as "1e-5" (a > 1e-5) passed every test
		assertEquals("0.00001", Texts.number(1e-5));
		assertEquals("-0.00001", Texts.number(-1e-5));
		assertEquals("9.99e-6", Texts.number(9.99e-6));
		assertEquals("999999999.5", Texts.number(999999999.5));
		assertEquals("1.0000000005e9", Texts.number(1000000000.5));
		assertEquals("1000000000", Texts.number(1e9));
	}

	@Test
	void optionsAsAMacroWritesThem() {
		assertEquals("sigma=-1", Texts.option("sigma", -1.0));
		assertEquals("statistic=Median", Texts.option("statistic", "Median"));
		assertEquals("use=[GPU 7]", Texts.option("use", "GPU 7"));
		assertEquals("table=[]", Texts.option("table", ""));
	}
}
