package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's install into a plain ImageJ 1: ij.jar, the plug-in jar in plugins/ and the JCuda
 * jars in plugins/jars/, without SciJava or ImgLib2. Every menu entry of plugins.config must
 * run there from a macro.
 */
class PlainImageJTest {

	@TempDir
	Path dir;

	/** Each menu command with options that make it run to the end on the image "img". */
	static final String MACRO = String.join("\n",
		"newImage('img', '16-bit ramp', 200, 150, 3);",
		"run('Add Noise', 'stack');",
		"run('GPU Gaussian Blur...', 'sigma=2 stack'); print('ran GPU Gaussian Blur...');",
		"run('GPU Gaussian Blur 3D...', 'x=2 y=2 z=1'); print('ran GPU Gaussian Blur 3D...');",
		"run('GPU Box Statistics...', 'radius=7 statistic=[Standard deviation] stack'); print('ran GPU Box Statistics...');",
		"selectImage('img');",
		"run('GPU Integral Image...', 'table=Both'); print('ran GPU Integral Image...');",
		"selectImage('img'); makeRectangle(50, 40, 30, 30); run('Duplicate...', 'title=tpl');",
		"selectImage('img'); run('Select None');",
		"run('GPU Template Matching...', 'image=img template=tpl score_threshold=0.5 max_objects=20 nms=0.3 score_map');",
		"print('ran GPU Template Matching... ' + nResults);",
		"selectImage('img');",
		"run('GPU Align Slices...', 'reference=1 x=50 y=40 width=30 height=30 margin=5 interpolation=Bilinear subpixel');",
		"print('ran GPU Align Slices...');",
		"selectImage('img');",
		"run('GPU Local Threshold...', 'method=Sauvola radius=15 parameter_1=0 parameter_2=0 white stack');",
		"print('ran GPU Local Threshold... ' + bitDepth());",
		"run('GPU Info...'); print('ran GPU Info...');",
		"");

	@Test
	void everyMenuCommandRunsWithoutSciJavaOrImgLib2() throws Exception {
		ImageJProcess imagej = ImageJProcess.create(dir);
		Path macro = Files.writeString(dir.resolve("all_commands.ijm"), MACRO.replace('\'', '"'));
		ImageJProcess.Result r = imagej.runPlainImageJ1(macro, null);
		for (String command : menuCommands())
			assertTrue(r.output.contains("ran " + command), () -> command + " did not run: " + r);
		assertTrue(r.output.contains("ran GPU Local Threshold... 8"), r::toString);
		// the JCuda jars in plugins/jars/ were found (without a GPU the reason is the driver)
		assertFalse(r.output.contains("JCuda is not installed"), r::toString);
		assertFalse(r.output.contains("NoClassDefFoundError") || r.output.contains("ClassNotFoundException"),
			r::toString);
	}

	/** @return the command names of plugins.config, as the menu shows them */
	static List<String> menuCommands() throws Exception {
		List<String> names = new ArrayList<>();
		Pattern entry = Pattern.compile("^Plugins>GPU, \"([^\"]+)\",");
		try (InputStream in = PlainImageJTest.class.getResourceAsStream("/plugins.config");
			BufferedReader br = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)))
		{
			for (String line; (line = br.readLine()) != null;) {
				Matcher m = entry.matcher(line);
				if (m.find()) names.add(m.group(1));
			}
		}
		assertTrue(names.size() >= 8, "plugins.config lists " + names);
		return names;
	}
}
