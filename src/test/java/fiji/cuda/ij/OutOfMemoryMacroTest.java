package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Running out of Java memory stops a {@code -batch} macro with the command's message, as any
 * other failure does. ImageJ's own handler logged "&lt;Out of memory&gt;" and let the macro go
 * on: a batch macro then saved the unchanged image (or, for a command that makes a new image,
 * the source) as the result, and went on to the next. Real ImageJ 1 under Xvfb with 100 MB of
 * heap (see {@link ImageJProcess}).
 */
class OutOfMemoryMacroTest {

	@TempDir
	static Path dir;
	static ImageJProcess imagej;

	@BeforeAll
	static void install() throws Exception {
		imagej = ImageJProcess.create(dir);
	}

	@Test
	void boxStatisticsStopsTheMacro() throws Exception {
		// the image, its centred copy and the 32-bit result of 3300x3300 pixels take 131 MB (the
		// tables, built in bands of rows, 28 MB more)
		stopsTheMacro("GPU Box Statistics", "newImage('a', '32-bit random', 3300, 3300, 1);\n"
			+ "run('GPU Box Statistics...', 'radius=3 statistic=Variance');");
	}

	@Test
	void localThresholdStopsTheMacro() throws Exception {
		// the image of 4200x4200 pixels takes 71 MB, the tables' bands 36 MB and the result 18 MB
		stopsTheMacro("GPU Local Threshold", "newImage('a', '32-bit random', 4200, 4200, 1);\n"
			+ "run('GPU Local Threshold...', 'method=Sauvola radius=15');");
	}

	@Test
	void integralImageStopsTheMacro() throws Exception {
		// the two 64-bit tables of 2500x2500 pixels take 100 MB, with 50 MB of 32-bit tables beside them
		stopsTheMacro("GPU Integral Image", "newImage('a', '16-bit random', 2500, 2500, 1);\n"
			+ "run('GPU Integral Image...', 'table=Both');");
	}

	@Test
	void gaussianBlurStopsTheMacro() throws Exception {
		// the image and ImageJ's snapshot of it fit (64 MB); the CPU path's float copy does not
		stopsTheMacro("GPU Gaussian Blur", "newImage('a', '16-bit random', 4000, 4000, 1);\n"
			+ "run('GPU Gaussian Blur...', 'sigma=2');");
	}

	@Test
	void gaussianBlurWhoseUndoCopyDoesNotFitStopsTheMacro() throws Exception {
		// the image fits (50 MB), ImageJ's Undo copy of it, taken by its filter runner before the
		// plug-in runs, does not: ImageJ logged its own message and the macro went on unblurred
		stopsTheMacro("GPU Gaussian Blur", "newImage('a', '16-bit random', 5000, 5000, 1);\n"
			+ "run('GPU Gaussian Blur...', 'sigma=2');");
	}

	@Test
	void localThresholdOfAStackStopsTheMacro() throws Exception {
		// the 8-bit result planes are made on several threads: a pool thread that ran out of
		// memory printed its own OutOfMemoryError, and now and then the report found no room and
		// ImageJ's handler let the macro go on
		stopsTheMacro("GPU Local Threshold", "newImage('a', '16-bit random', 1000, 1000, 32);\n"
			+ "run('GPU Local Threshold...', 'method=Sauvola radius=15 stack');");
	}

	@Test
	void localThresholdOfAStackOnSixteenCoresStopsTheMacro() throws Exception {
		// on the GPU machine's 16 cores, about one run in four hung for good: a pool thread's task
		// was lost or its completion failed for want of memory, and the caller waited for it
		for (int run = 0; run < 5; run++)
			stopsTheMacro("GPU Local Threshold", "newImage('a', '16-bit random', 1000, 1000, 32);\n"
				+ "run('GPU Local Threshold...', 'method=Sauvola radius=15 stack');", "-XX:ActiveProcessorCount=16");
	}

	@Test
	void boxStatisticsOfAStackStopsTheMacro() throws Exception {
		stopsTheMacro("GPU Box Statistics", "newImage('a', '8-bit random', 1000, 1000, 60);\n"
			+ "run('GPU Box Statistics...', 'radius=3 statistic=Mean stack');");
	}

	private static void stopsTheMacro(String command, String code, String... jvmArgs) throws Exception {
		Path macro = Files.writeString(dir.resolve(command.replace(' ', '_') + ".ijm"),
			"setBatchMode(true);\n" + code + "\nprint('still running');\n");
		List<String> args = new ArrayList<>(List.of("-Xmx100m", "-Dfiji.cuda.device=cpu"));
		args.addAll(List.of(jvmArgs));
		ImageJProcess.Result r = imagej.run(macro, null, args.toArray(new String[0]));
		assertTrue(r.output.contains(command + ": out of memory: the "), r::toString);
		assertFalse(r.output.contains("still running"), r::toString);
		assertFalse(r.output.contains("OutOfMemoryError"), r::toString);
	}
}
