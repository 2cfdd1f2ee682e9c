package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import fiji.cuda.integral.Window;

/** The dialog's window rule: the radius's square, or a w x h rectangle; nothing silently dropped. */
class BoxStatisticsPluginTest {

	@Test
	void aNegativeWidthOrHeightIsAnErrorNotTheRadiusSquare() {
		// width=-5 height=0 used to give the radius-2 square without a word
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> BoxStatisticsPlugin.window(2, -5, 0, false));
		assertTrue(e.getMessage().contains("-5.0 x 0.0"), e.getMessage());
		assertThrows(IllegalArgumentException.class, () -> BoxStatisticsPlugin.window(2, 3, -1, false));
		Window square = BoxStatisticsPlugin.window(2, 0, 0, false);
		assertEquals(Window.square(2).toString(), square.toString());
		assertEquals(Window.rectangle(4, 3).toString(), BoxStatisticsPlugin.window(2, 4, 3, false).toString());
	}
}
