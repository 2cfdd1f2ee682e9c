package fiji.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** CPU test: a pinned buffer that one ByteBuffer cannot view is refused before anything is pinned. */
class PinnedBufferTest {

	@Test
	void bufferOfTwoGibibytesIsRefusedBeforeItIsAllocated() {
		// no context exists here: were the memory pinned first, the driver call would fail instead
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PinnedBuffer(1L << 31));
		assertTrue(e.getMessage().contains("fiji.cuda.stagingMiB"), e.getMessage());
	}
}
