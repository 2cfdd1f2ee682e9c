package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;
import ij.gui.Roi;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandModule;

/**
 * A script that runs the SciJava commands in a loop, image after image, in one JVM: once the
 * script drops an image and the commands' outputs, none of them may stay reachable, and no
 * thread may pile up.
 */
class BatchCommandsMemoryTest extends HeadlessCommands {

	/** @return true once the garbage collector has cleared {@code ref} (a few full collections at most) */
	private static boolean collected(WeakReference<?> ref) throws InterruptedException {
		for (int i = 0; i < 10 && ref.get() != null; i++) {
			System.gc();
			Thread.sleep(20);
		}
		return ref.get() == null;
	}

	/** Runs every command on a new stack and returns weak references to it, its template and every output. */
	private static List<WeakReference<Object>> round() throws Exception {
		List<WeakReference<Object>> refs = new ArrayList<>();
		ImagePlus a = IJ.createImage("a", "16-bit random", 160, 120, 5);
		a.setRoi(new Roi(50, 40, 16, 16));
		ImagePlus t = a.crop();
		a.deleteRoi();
		refs.add(new WeakReference<>(a));
		refs.add(new WeakReference<>(t));
		List<CommandModule> ms = new ArrayList<>();
		ms.add(commands.run(GaussianBlurCommand.class, true, "image", a, "sigma", 2.0).get());
		ms.add(commands.run(GaussianBlur3DCommand.class, true, "image", a).get());
		ms.add(commands.run(BoxStatisticsCommand.class, true, "image", a, "radius", 2).get());
		ms.add(commands.run(LocalThresholdCommand.class, true, "image", a, "radius", 5).get());
		ms.add(commands.run(IntegralImageCommand.class, true, "image", a).get());
		ms.add(commands.run(TemplateMatchingCommand.class, true, "image", a, "template", t, "stack", true, "scoreMap",
			true).get());
		ms.add(commands.run(AlignSlicesCommand.class, true, "image", a, "x", 60, "y", 40, "width", 24, "height", 24,
			"margin", 6).get());
		for (CommandModule m : ms) {
			assertFalse(m.isCanceled(), m.getCancelReason());
			for (Object o : m.getOutputs().values())
				if (o != null && o != a) refs.add(new WeakReference<>(o));
		}
		return refs;
	}

	@Test
	void commandsRunImageAfterImageKeepNoImageOutputOrThread() throws Exception {
		round(); // what stays for the session: the CPU path's pool, SciJava's threads
		java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
		int warm = before.size();
		List<WeakReference<Object>> refs = new ArrayList<>();
		for (int i = 0; i < 15; i++)
			refs.addAll(round());
		java.util.Set<Thread> now = Thread.getAllStackTraces().keySet();
		int after = now.size();
		// 15 rounds of 7 commands: a pool made per call and never shut down would add at least a
		// thread per call, 105 here. Shared pools may still grow a little after the first round
		// (the CPU path's and the common pool up to a core each, SciJava's cached pool when a
		// finished task's thread has not yet gone back to it), which on a 2-core CI machine once
		// came to 3 threads past warm + cores: the bound leaves them room and still fails a leak.
		int cores = Runtime.getRuntime().availableProcessors();
		List<String> added = new ArrayList<>();
		for (Thread th : now)
			if (!before.contains(th)) added.add(th.getName());
		assertTrue(after <= warm + 2 * cores + 8,
			"threads piled up: " + warm + " after the first round, " + after + " after 16; new: " + added);
		// the image, the template, the results, score maps, integral images and tables
		assertTrue(refs.size() >= 15 * 8, "too few outputs watched: " + refs.size());
		long alive = 0;
		for (WeakReference<Object> r : refs)
			if (!collected(r)) alive++;
		assertEquals(0, alive, "images or outputs of earlier rounds are still reachable");
	}
}
