package fiji.cuda.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** {@link Progress#part}: a step's fractions on the whole's scale, and the whole's cancel. */
class ProgressTest {

	@Test
	void aPartReportsOnTheWholesScaleAndIsCanceledWithIt() {
		List<Double> seen = new ArrayList<>();
		boolean[] canceled = { false };
		Progress whole = new Progress() {
			@Override
			public void update(double fraction) {
				seen.add(fraction);
			}

			@Override
			public boolean isCanceled() {
				return canceled[0];
			}
		};
		// the third of four steps, then the half of it
		Progress step = whole.part(2 / 4.0, 1 / 4.0), half = step.part(0.5, 0.5);
		step.update(0);
		step.update(0.5);
		half.update(1);
		assertEquals(3, seen.size());
		assertEquals(0.5, seen.get(0), 1e-15);
		assertEquals(0.625, seen.get(1), 1e-15);
		assertEquals(0.75, seen.get(2), 1e-15);
		assertFalse(half.isCanceled());
		canceled[0] = true;
		assertTrue(step.isCanceled() && half.isCanceled());
	}
}
