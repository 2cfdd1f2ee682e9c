package fiji.cuda.ij;

import static fiji.cuda.ij.TemplateMatchingPluginTest.noise;
import static fiji.cuda.ij.TemplateMatchingPluginTest.plant;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.process.ImageProcessor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * macros/template_matching_folder.ijm and error handling, in real ImageJ 1.54p run in
 * {@code -batch} mode under Xvfb (see {@link ImageJProcess}).
 */
class TemplateMatchingMacroTest {

	@TempDir
	static Path dir;
	static ImageJProcess imagej;

	@BeforeAll
	static void install() throws Exception {
		imagej = ImageJProcess.create(dir);
	}

	@Test
	void folderMacroFindsEveryPlantedCopyInEveryImage() throws Exception {
		Path in = Files.createDirectories(dir.resolve("in"));
		ImagePlus tpl = noise("8-bit", 13, 9, 1, 100);
		ImageJProcess.save(tpl, dir.resolve("template.tif"));
		ImagePlus a = noise("8-bit", 150, 100, 1, 101), b = noise("16-bit", 90, 120, 2, 102);
		ImagePlus c = noise("32-bit", 80, 70, 1, 103);
		plant(a, 1, tpl.getProcessor(), 5, 7);
		plant(a, 1, tpl.getProcessor(), 120, 80);
		plant(b, 2, tpl.getProcessor(), 40, 100);
		plant(c, 1, tpl.getProcessor(), 60, 3);
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.save(b, in.resolve("b.tif"));
		ImageJProcess.save(c, in.resolve("c.tiff"));
		Files.writeString(in.resolve("notes.txt"), "not an image");
		Path csv = dir.resolve("detections.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("template.tif"), csv, "score_threshold=0.8 max_objects=5");
		assertTrue(r.output.contains("Found 4 objects in 3 images"), r::toString);
		assertFalse(r.output.contains("Exception"), r::toString);
		List<String> rows = new ArrayList<>();
		for (String line : Files.readAllLines(csv).subList(1, 5)) {
			String[] f = line.split(",");
			// File, Slice, X, Y, Centre X, Centre Y, Score (a leading row number column if any is skipped)
			int o = f[0].endsWith("tif") || f[0].endsWith("tiff") ? 0 : 1;
			assertTrue(Double.parseDouble(f[o + 6]) > 0.99, line);
			// with the Results table's 4 decimals: a number column is saved with 3, and 0.9996 read 1.000
			assertTrue(f[o + 6].matches("\\d\\.\\d{4}"), line);
			rows.add(f[o] + " " + f[o + 1] + " " + f[o + 2] + " " + f[o + 3] + " " + f[o + 4] + " " + f[o + 5]);
		}
		assertEquals(List.of("a.tif 1 5 7 11 11", "a.tif 1 120 80 126 84", "b.tif 2 40 100 46 104",
			"c.tiff 1 60 3 66 7"), rows, "detections");
	}

	@Test
	void aMacroRunAgainWithoutImageSearchesTheImageNotItsScoreMap() throws Exception {
		// the map is the current image after a run with score_map: a second run without image=
		// searched the map, found nothing and made "Score map of Score map of scene"
		Path macro = Files.writeString(dir.resolve("again.ijm"), "setBatchMode(true);\n"
			+ "newImage('scene', '8-bit random', 120, 90, 1);\n"
			+ "makeRectangle(40, 30, 17, 13); run('Duplicate...', 'title=tpl');\n"
			+ "selectImage('scene'); run('Select None');\n"
			+ "for (i = 0; i < 2; i++) {\n"
			+ "  run('GPU Template Matching...', 'template=tpl score_threshold=0.9 max_objects=3 score_map');\n"
			+ "  print('run ' + i + ': ' + nResults + ' ' + getResultString('Image', 0) + ' ' + getResult('X', 0) + ' ' + getTitle());\n"
			+ "}\n");
		ImageJProcess.Result r = imagej.run(macro, "");
		assertTrue(r.output.contains("run 0: 1 scene 40 Score map of scene\n"), r::toString);
		assertTrue(r.output.contains("run 1: 1 scene 40 Score map of scene-1"), r::toString);
	}

	@Test
	void folderMacroCopesWithATemplateFileNamedLikeAnImageOfTheFolder() throws Exception {
		// the template took the title "a.tif" of the first image: that image was searched for
		// itself or the template, closing it closed the template too, and the next image
		// stopped the macro with "no open image called 'a.tif' (template)"
		Path in = Files.createDirectories(dir.resolve("in-same-name"));
		Path tplDir = Files.createDirectories(dir.resolve("template-same-name"));
		ImagePlus tpl = noise("8-bit", 11, 8, 1, 110);
		ImageJProcess.save(tpl, tplDir.resolve("a.tif"));
		ImagePlus a = noise("8-bit", 70, 60, 1, 111), b = noise("8-bit", 70, 60, 1, 112);
		plant(a, 1, tpl.getProcessor(), 30, 20);
		plant(b, 1, tpl.getProcessor(), 4, 40);
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.save(b, in.resolve("b.tif"));
		Path csv = dir.resolve("same-name.csv");
		ImageJProcess.Result r = runFolderMacro(in, tplDir.resolve("a.tif"), csv, "score_threshold=0.8 max_objects=5");
		assertTrue(r.output.contains("Found 2 objects in 2 images"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertTrue(lines.get(1).contains("a.tif,1,30,20,"), lines::toString);
		assertTrue(lines.get(2).contains("b.tif,1,4,40,"), lines::toString);
	}

	@Test
	void folderMacroMatchesFilesWithABracketInTheirName() throws Exception {
		// the image's title went into image=[...], where an unbalanced bracket cut the options
		// short: "Please give the template", or "no open image called 'well'", stopped the
		// macro, and the CSV was never written, with the images before lost too
		Path in = Files.createDirectories(dir.resolve("in-brackets"));
		ImagePlus tpl = noise("8-bit", 11, 8, 1, 130);
		ImageJProcess.save(tpl, dir.resolve("template-brackets.tif"));
		String[] names = { "a.tif", "scan[2.tif", "well]A1.tif" };
		for (int i = 0; i < names.length; i++) {
			ImagePlus img = noise("8-bit", 70, 60, 1, 131 + i);
			plant(img, 1, tpl.getProcessor(), 10 + 10 * i, 20);
			ImageJProcess.save(img, in.resolve(names[i]));
		}
		// angles without brackets: ImageJ read the first alone, and the turned copies were never searched
		Path unread = dir.resolve("unbracketed.csv");
		ImageJProcess.Result u = runFolderMacro(in, dir.resolve("template-brackets.tif"), unread, "angles=0 270");
		assertTrue(u.output.contains("Several angles must be in brackets, as angles=[0 90 180 270]"), u::toString);
		assertFalse(Files.exists(unread), u::toString);
		Path csv = dir.resolve("brackets.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("template-brackets.tif"), csv,
			"score_threshold=0.8 max_objects=5");
		assertTrue(r.output.contains("Found 3 objects in 3 images"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertEquals(4, lines.size(), lines::toString);
		for (int i = 0; i < names.length; i++)
			assertTrue(lines.get(i + 1).contains(names[i] + ",1," + (10 + 10 * i) + ",20,"), lines::toString);
	}

	@Test
	void folderMacroRefusesAFolderForItsCsvAndSearchesAFileNamedAsTheTemplateButForCase() throws Exception {
		// an output that is a folder hung ImageJ at Table.save's error dialog, after the work, with
		// every detection lost; and CELL.tif, another file than the template cell.tif beside it,
		// was left out without a word (the macro language's != ignores letter case)
		Path in = Files.createDirectories(dir.resolve("in-case"));
		ImagePlus tpl = noise("8-bit", 11, 8, 1, 140);
		ImageJProcess.save(tpl, in.resolve("cell.tif"));
		ImagePlus img = noise("8-bit", 70, 60, 1, 141);
		plant(img, 1, tpl.getProcessor(), 30, 20);
		ImageJProcess.save(img, in.resolve("CELL.tif"));
		Path folder = Files.createDirectories(dir.resolve("a folder.csv"));
		ImageJProcess.Result r = runFolderMacro(in, in.resolve("cell.tif"), folder, "score_threshold=0.8");
		assertTrue(r.output.contains(folder + " is a folder: give the CSV file to write"), r::toString);
		assertFalse(r.output.contains("ran on the"), "the macro matched before stopping: " + r);
		// nor one not there yet, with a separator at the end: the CSV became a file of that name
		Path newFolder = dir.resolve("new folder for csv");
		r = imagej.run(ImageJProcess.macro("template_matching_folder.ijm"), "input=[" + in + "] template=["
			+ in.resolve("cell.tif") + "] output=[" + newFolder + java.io.File.separator + "] score_threshold=0.8",
			"-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains(" is a folder: give the CSV file to write"), r::toString);
		assertFalse(Files.isRegularFile(newFolder), r::toString);
		Path csv = dir.resolve("case.csv");
		r = runFolderMacro(in, in.resolve("cell.tif"), csv, "score_threshold=0.8");
		assertTrue(r.output.contains("Found 1 object in 1 image"), r::toString);
		assertTrue(Files.readAllLines(csv).get(1).contains("CELL.tif,1,30,20,"), r::toString);
		// the template named through another spelling of its path (a link here; letter case on
		// Windows and macOS) is still the template, not an image of the folder to search
		Path link = Files.createSymbolicLink(dir.resolve("In-case-link"), in);
		r = runFolderMacro(in, link.resolve("cell.tif"), csv, "score_threshold=0.8");
		assertTrue(r.output.contains("Found 1 object in 1 image"), r::toString);
	}

	@Test
	void folderMacroSkipsAFileThatDoesNotOpenInsteadOfSearchingTheTemplate() throws Exception {
		// the template stayed the current image: it was searched for itself and listed under the
		// broken file's name (a score of 1 at 0,0), then closed, and the next image stopped the
		// macro with "There is no open image called 'Template'"
		Path in = Files.createDirectories(dir.resolve("in-broken"));
		ImagePlus tpl = noise("8-bit", 11, 8, 1, 120);
		ImageJProcess.save(tpl, dir.resolve("template-broken.tif"));
		ImagePlus c = noise("8-bit", 70, 60, 1, 121);
		plant(c, 1, tpl.getProcessor(), 30, 20);
		Files.writeString(in.resolve("b.tif"), "not a TIFF");
		ImageJProcess.save(c, in.resolve("c.tif"));
		// and a TIFF cut short in its header: ImageJ's open() threw there, which ended the macro
		Files.write(in.resolve("b2.tif"), java.util.Arrays.copyOf(Files.readAllBytes(in.resolve("c.tif")), 100));
		Path csv = dir.resolve("broken.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("template-broken.tif"), csv, "score_threshold=0.8");
		assertTrue(r.output.contains("Skipped b.tif: could not open it"), r::toString);
		assertTrue(r.output.contains("Skipped b2.tif: could not open it"), r::toString);
		assertTrue(r.output.contains("Found 1 object in 1 image from " + in), r::toString);
		assertTrue(r.output.contains("; skipped 2 (see above)"), r::toString);
		assertFalse(r.output.contains("Exception"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertEquals(2, lines.size(), lines::toString);
		assertTrue(lines.get(1).contains("c.tif,1,30,20,"), lines::toString);
	}

	@Test
	void folderMacroMakesTheCsvFolderAndStopsOnATemplateThatDoesNotOpenInsteadOfHanging() throws Exception {
		// Table.save into a missing folder, and rename() after a failed open(), waited on dialogs
		// until the timeout killed ImageJ (the first after every image had been matched)
		Path in = plantedFolder("in-csv-folder", "template-csv.tif", 130, 12, 34);
		Path csv = dir.resolve("new results").resolve("run [1]").resolve("detections.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("template-csv.tif"), csv, "score_threshold=0.8");
		assertTrue(r.output.contains("Found 1 object in 1 image"), r::toString);
		assertTrue(Files.readAllLines(csv).get(1).contains("a.tif,1,12,34,"), r::toString);
		Path missing = dir.resolve("no-template.tif");
		r = imagej.run(ImageJProcess.macro("template_matching_folder.ijm"), "input=[" + in + "] template=[" + missing
			+ "] output=[" + dir.resolve("never.csv") + "]");
		assertTrue(r.output.contains("Could not open the template " + missing), r::toString);
		assertFalse(Files.exists(dir.resolve("never.csv")));
	}

	@Test
	void folderMacroTakesRelativePathsAsTheWorkingDirectorysInsteadOfHanging() throws Exception {
		// a CSV in a relative new folder: File.getParent gives the first folder of a relative path
		// no parent, and the macro made the folders of ever the same non-path until killed
		plantedFolder("relative-tm-in", "template-relative.tif", 132, 20, 15);
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("template_matching_folder.ijm"),
			"input=[relative-tm-in] template=[template-relative.tif] output=[tm new/run/detections.csv] "
				+ "score_threshold=0.8", "-Dfiji.cuda.device=cpu"); // ImageJ runs in dir
		assertTrue(r.output.contains("Found 1 object in 1 image"), r::toString);
		assertTrue(Files.readAllLines(dir.resolve("tm new").resolve("run").resolve("detections.csv")).get(1)
			.contains("a.tif,1,20,15,"), r::toString);
	}

	@Test
	void folderMacroSaysWhichTemplateOfAStackEachDetectionMatched() throws Exception {
		// with a stack of templates the CSV had no column for the template: two kinds of object
		// could not be told apart
		Path in = Files.createDirectories(dir.resolve("two-kinds-in"));
		ImagePlus one = noise("8-bit", 11, 8, 1, 140), two = noise("8-bit", 11, 8, 1, 141);
		ImageStack templates = new ImageStack(11, 8);
		templates.addSlice(one.getProcessor());
		templates.addSlice(two.getProcessor());
		ImageJProcess.save(new ImagePlus("kinds", templates), dir.resolve("two-kinds.tif"));
		ImagePlus a = noise("8-bit", 70, 60, 1, 142);
		plant(a, 1, one.getProcessor(), 12, 34);
		plant(a, 1, two.getProcessor(), 45, 10);
		ImageJProcess.save(a, in.resolve("a.tif"));
		Path csv = dir.resolve("two-kinds.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("two-kinds.tif"), csv, "score_threshold=0.9");
		assertTrue(r.output.contains("Found 2 objects in 1 image"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertTrue(lines.get(0).endsWith(",Score,Template,Angle,Flip"), lines::toString);
		assertTrue(lines.stream().anyMatch(l -> l.startsWith("a.tif,1,12,34,") && l.endsWith(",1,0,0")), lines::toString);
		assertTrue(lines.stream().anyMatch(l -> l.startsWith("a.tif,1,45,10,") && l.endsWith(",2,0,0")), lines::toString);
	}

	@Test
	void folderMacroMatchesRotatedAndMirroredCopiesAndSaysWhich() throws Exception {
		// the folder macro passed no angles and no flip: a batch job could not find objects lying
		// turned or mirrored. The folder's name holds the word flip, which is no flag in brackets.
		Path in = Files.createDirectories(dir.resolve("a flip folder"));
		ImagePlus tpl = noise("8-bit", 11, 11, 1, 150);
		ImageJProcess.save(tpl, dir.resolve("turned.tif"));
		ImageProcessor turned = tpl.getProcessor().duplicate().rotateLeft();
		ImageProcessor mirrored = tpl.getProcessor().duplicate();
		mirrored.flipHorizontal();
		ImagePlus a = noise("8-bit", 70, 60, 1, 151);
		plant(a, 1, tpl.getProcessor(), 12, 34);
		plant(a, 1, turned, 45, 10);
		plant(a, 1, mirrored, 40, 45);
		ImageJProcess.save(a, in.resolve("a.tif"));
		Path csv = dir.resolve("turned.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("turned.tif"), csv,
			"score_threshold=0.9 angles=[0 90 180 270] flip");
		assertTrue(r.output.contains("Found 3 objects in 1 image"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertTrue(lines.stream().anyMatch(l -> l.startsWith("a.tif,1,12,34,") && l.endsWith(",1,0,0")), lines::toString);
		assertTrue(lines.stream().anyMatch(l -> l.startsWith("a.tif,1,45,10,") && (l.endsWith(",1,90,0")
			|| l.endsWith(",1,270,0"))), lines::toString);
		assertTrue(lines.stream().anyMatch(l -> l.startsWith("a.tif,1,40,45,") && l.endsWith(",1")), lines::toString);
		// without flip the mirrored copy is not found; without angles only the upright one
		r = runFolderMacro(in, dir.resolve("turned.tif"), dir.resolve("unflipped.csv"),
			"score_threshold=0.9 angles=[0 90 180 270]");
		assertTrue(r.output.contains("Found 2 objects in 1 image"), r::toString);
		r = runFolderMacro(in, dir.resolve("turned.tif"), dir.resolve("upright.csv"), "score_threshold=0.9");
		assertTrue(r.output.contains("Found 1 object in 1 image"), r::toString);
	}

	@Test
	void folderMacroSkipsAnImageTooSmallForATurnedTemplateAndSearchesTheRest() throws Exception {
		// a 60x30 image holds a 40x20 template but not its quarter turn: the command's "larger than
		// the image" stopped the macro, the images after it were not searched and no CSV was written
		ImageJProcess.Result r = quarterTurnFolder("turned-small", 40, 20, new int[] { 60, 30 }, new int[] { 90, 80 },
			"b.tif", 50, 12, "angles=[0, 90]");
		assertTrue(r.output.contains("Skipped a.tif: its 60x30 pixels are smaller than the template turned by 90 degrees "
			+ "(20x40)"), r::toString);
	}

	@Test
	void folderMacroSearchesAnImageThatHoldsOnlyTheTurnedCopiesAskedFor() throws Exception {
		// with angles=[90] the upright template is not searched for, yet a 200x40 image was skipped
		// as "smaller than the 10x60 template", though the command finds the template lying in it;
		// the image too small for the copy asked for is still skipped, and named for that copy
		ImageJProcess.Result r = quarterTurnFolder("lying", 10, 60, new int[] { 200, 40 }, new int[] { 30, 20 }, "a.tif",
			50, 10, "angles=[90]");
		assertTrue(r.output.contains("Skipped b.tif: its 30x20 pixels are smaller than the template turned by 90 degrees "
			+ "(60x10)"), r::toString);
	}

	/**
	 * Runs the folder macro over a.tif and b.tif (8-bit noise of the sizes given), the template
	 * (tw x th) planted turned a quarter at (x, y) in the one named {@code holder}, and checks that
	 * the other is skipped and the turned copy found there, alone.
	 */
	private ImageJProcess.Result quarterTurnFolder(String name, int tw, int th, int[] a, int[] b, String holder, int x,
		int y, String angles) throws Exception
	{
		Path in = Files.createDirectories(dir.resolve("in-" + name));
		ImagePlus tpl = noise("8-bit", tw, th, 1, 170);
		Path template = ImageJProcess.save(tpl, dir.resolve("template-" + name + ".tif"));
		ImagePlus ia = noise("8-bit", a[0], a[1], 1, 171), ib = noise("8-bit", b[0], b[1], 1, 172);
		plant(holder.equals("a.tif") ? ia : ib, 1, tpl.getProcessor().duplicate().rotateLeft(), x, y);
		ImageJProcess.save(ia, in.resolve("a.tif"));
		ImageJProcess.save(ib, in.resolve("b.tif"));
		Path csv = dir.resolve(name + ".csv");
		ImageJProcess.Result r = runFolderMacro(in, template, csv, "score_threshold=0.9 " + angles);
		assertTrue(r.output.contains("Found 1 object in 1 image"), r::toString);
		assertTrue(r.output.contains("; skipped 1 (see above)"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertEquals(2, lines.size(), lines::toString);
		assertTrue(lines.get(1).startsWith(holder + ",1," + x + "," + y + ",") && lines.get(1).endsWith(",1,90,0"),
			lines::toString);
		return r;
	}

	@Test
	void folderMacroSkipsAnRgbImageAndSearchesTheRest() throws Exception {
		// the command's "RGB images are not supported" stopped the macro, and no CSV was written
		Path in = Files.createDirectories(dir.resolve("in-rgb"));
		ImagePlus tpl = noise("8-bit", 11, 8, 1, 140);
		ImageJProcess.save(tpl, dir.resolve("template-rgb.tif"));
		ImagePlus b = noise("16-bit", 70, 60, 1, 141);
		plant(b, 1, tpl.getProcessor(), 22, 9);
		ImageJProcess.save(IJ.createImage("a", "RGB noise", 70, 60, 1), in.resolve("a.tif"));
		ImageJProcess.save(b, in.resolve("b.tif"));
		Path csv = dir.resolve("rgb.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("template-rgb.tif"), csv, "score_threshold=0.8");
		assertTrue(r.output.contains("Skipped a.tif: an RGB image"), r::toString);
		assertTrue(r.output.contains("Found 1 object in 1 image"), r::toString);
		assertTrue(Files.readAllLines(csv).get(1).contains("b.tif,1,22,9,"), r::toString);
	}

	@Test
	void folderMacroSkipsAnImageSmallerThanTheTemplateAndSearchesTheRest() throws Exception {
		// one thumbnail, or one image saved with a selection smaller than the template, stopped
		// the macro with "the template (20x15) is larger than the image": the images after it were
		// not searched and no CSV was written
		Path in = Files.createDirectories(dir.resolve("in-small"));
		ImagePlus tpl = noise("8-bit", 20, 15, 1, 150);
		// the template's selection is the template: 12x10, which a 14x12 image can hold
		tpl.setRoi(3, 2, 12, 10);
		ImageJProcess.save(tpl, dir.resolve("template-small.tif"));
		ImagePlus a = noise("8-bit", 11, 40, 1, 151), b = noise("8-bit", 14, 12, 1, 152);
		ImagePlus c = noise("8-bit", 70, 60, 1, 153), d = noise("8-bit", 70, 60, 1, 154);
		ImageProcessor cut = tpl.getProcessor().crop();
		plant(b, 1, cut, 1, 2);
		plant(c, 1, cut, 40, 30);
		d.setRoi(50, 52, 30, 30); // 20x8 inside the image
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.save(b, in.resolve("b.tif"));
		ImageJProcess.save(c, in.resolve("c.tif"));
		ImageJProcess.save(d, in.resolve("d.tif"));
		Path csv = dir.resolve("small.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("template-small.tif"), csv, "score_threshold=0.8");
		assertTrue(r.output.contains("Skipped a.tif: its 11x40 pixels are smaller than the 12x10 template"), r::toString);
		assertTrue(r.output.contains("Skipped d.tif: its 20x8 pixels are smaller than the 12x10 template"), r::toString);
		assertTrue(r.output.contains("Found 2 objects in 2 images"), r::toString);
		assertTrue(r.output.contains("; skipped 2 (see above)"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertTrue(lines.get(1).contains("b.tif,1,1,2,"), lines::toString);
		assertTrue(lines.get(2).contains("c.tif,1,40,30,"), lines::toString);
	}

	@Test
	void badTemplateStopsTheMacroWithAMessageInsteadOfHanging() throws Exception {
		ImageJProcess.save(noise("8-bit", 20, 20, 1, 104), dir.resolve("small.tif"));
		ImageJProcess.save(noise("8-bit", 30, 10, 1, 105), dir.resolve("wide.tif"));
		Path macro = Files.writeString(dir.resolve("bad.ijm"), "dir = getArgument();\n"
			+ "open(dir + \"/small.tif\");\nopen(dir + \"/wide.tif\");\n"
			+ "run(\"GPU Template Matching...\", \"image=small.tif template=wide.tif score_threshold=0.5\");\n"
			+ "print(\"still running\");\n");
		ImageJProcess.Result r = imagej.run(macro, dir.toString());
		assertTrue(r.output.contains("GPU Template Matching: the template (30x10) is larger than the image (20x20); use a "
			+ "smaller template, or a smaller selection on it."), r::toString);
		assertFalse(r.output.contains("still running"), r::toString);
		r = imagej.run(Files.writeString(dir.resolve("missing.ijm"), "open(getArgument());\n"
			+ "run(\"GPU Template Matching...\", \"image=small.tif template=nothere.tif\");\nprint(\"still running\");\n"),
			dir.resolve("small.tif").toString());
		assertTrue(r.output.contains("GPU Template Matching: There is no open image called 'nothere.tif' (template)."),
			r::toString);
		assertFalse(r.output.contains("still running"), r::toString);
	}

	@Test
	void macroVariablesAreTakenAsGenericDialogTakesThem() throws Exception {
		// "image=&img" was looked up as an image called "&img", and "score_threshold=&t" refused
		// as not a number, where ImageJ's own dialogs read both as the variables' values
		ImagePlus tpl = noise("8-bit", 9, 7, 1, 120);
		ImagePlus image = noise("8-bit", 60, 40, 1, 121);
		plant(image, 1, tpl.getProcessor(), 21, 13);
		ImageJProcess.save(tpl, dir.resolve("var-tpl.tif"));
		ImageJProcess.save(image, dir.resolve("var-scene.tif"));
		Path macro = Files.writeString(dir.resolve("vars.ijm"), "dir = getArgument();\n"
			+ "open(dir + \"/var-scene.tif\");\nopen(dir + \"/var-tpl.tif\");\n"
			+ "img = \"var-scene.tif\"; tp = \"var-tpl.tif\"; t = 0.9; n = 1; a = \"0\";\n"
			+ "run(\"GPU Template Matching...\", \"image=&img template=&tp score_threshold=&t max_objects=&n nms=&t angles=&a\");\n"
			+ "print(\"found \" + nResults + \" \" + getResultString(\"Image\", 0) + \" \" + getResult(\"X\", 0) + \" \" + getResult(\"Y\", 0));\n"
			+ "run(\"GPU Template Matching...\", \"image=&img template=&tp score_threshold=t max_objects=n\");\n"
			+ "print(\"bare \" + nResults);\n"
			// a number names a title as GenericDialog writes it: 7, not 7.0
			+ "selectImage(\"var-scene.tif\"); rename(\"7\"); k = 7;\n"
			+ "run(\"GPU Template Matching...\", \"image=&k template=&tp score_threshold=0.9\");\n"
			+ "print(\"numbered \" + nResults + \" \" + getResultString(\"Image\", 0));\n");
		ImageJProcess.Result r = imagej.run(macro, dir.toString(), "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("found 1 var-scene.tif 21 13"), r::toString);
		assertTrue(r.output.contains("bare 1"), r::toString);
		assertTrue(r.output.contains("numbered 1 7"), r::toString);
	}

	@Test
	void maxObjectsThatIsNotAWholeNumberStopsTheMacroWithAMessage() throws Exception {
		// max_objects=2.7 was cut to 2 without a word, and the macro went on with two detections
		ImagePlus tpl = noise("8-bit", 9, 7, 1, 130);
		ImagePlus image = noise("8-bit", 60, 40, 1, 131);
		plant(image, 1, tpl.getProcessor(), 21, 13);
		plant(image, 1, tpl.getProcessor(), 40, 5);
		plant(image, 1, tpl.getProcessor(), 3, 28);
		ImageJProcess.save(tpl, dir.resolve("whole-tpl.tif"));
		ImageJProcess.save(image, dir.resolve("whole-scene.tif"));
		String open = "dir = getArgument();\nopen(dir + \"/whole-scene.tif\");\nopen(dir + \"/whole-tpl.tif\");\n";
		String after = "selectImage(\"whole-scene.tif\");\nprint(\"went on: \" + nResults + \" rows, overlay \" + Overlay.size);\n";
		ImageJProcess.Result r = imagej.run(Files.writeString(dir.resolve("fraction.ijm"), open
			+ "run(\"GPU Template Matching...\", \"image=whole-scene.tif template=whole-tpl.tif score_threshold=0.9 "
			+ "max_objects=2.7\");\n" + after), dir.toString(), "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("GPU Template Matching: Max objects must be a whole number of at least 1, not max_objects=2.7."), r::toString);
		assertFalse(r.output.contains("went on"), r::toString);
		// a macro variable's value is quoted, not its name
		r = imagej.run(Files.writeString(dir.resolve("fraction-variable.ijm"), open + "n = 2.5;\n"
			+ "run(\"GPU Template Matching...\", \"image=whole-scene.tif template=whole-tpl.tif score_threshold=0.9 "
			+ "max_objects=&n\");\n" + after), dir.toString(), "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("GPU Template Matching: Max objects must be a whole number of at least 1, not max_objects=2.5."), r::toString);
		assertFalse(r.output.contains("went on"), r::toString);
		// a whole number runs, with at most that many detections
		r = imagej.run(Files.writeString(dir.resolve("whole.ijm"), open
			+ "run(\"GPU Template Matching...\", \"image=whole-scene.tif template=whole-tpl.tif score_threshold=0.9 "
			+ "max_objects=2\");\n" + after), dir.toString(), "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("went on: 2 rows, overlay 2"), r::toString);
	}

	@Test
	void aFolderOfTemplatesIsMatchedAndTheResultsNameTheFiles() throws Exception {
		Path templates = Files.createDirectories(dir.resolve("templates"));
		ImagePlus big = noise("8-bit", 15, 11, 1, 106), small = noise("16-bit", 7, 9, 1, 107);
		ImageJProcess.save(big, templates.resolve("big.tif"));
		ImageJProcess.save(small, templates.resolve("small.tiff"));
		Files.writeString(templates.resolve("readme.txt"), "not an image");
		ImagePlus image = noise("16-bit", 120, 80, 1, 108);
		plant(image, 1, big.getProcessor(), 12, 30);
		plant(image, 1, small.getProcessor(), 90, 50);
		ImageJProcess.save(image, dir.resolve("scene.tif"));
		Path macro = Files.writeString(dir.resolve("folder.ijm"), "dir = getArgument();\n"
			+ "open(dir + \"/scene.tif\");\n"
			+ "run(\"GPU Template Matching...\", \"image=scene.tif template=[\" + dir + \"/templates] score_threshold=0.8\");\n"
			+ "for (r = 0; r < nResults; r++)\n"
			+ "  print(\"row \" + getResultString(\"Template\", r) + \" \" + getResult(\"X\", r) + \" \" + getResult(\"Y\", r)"
			+ " + \" \" + getResult(\"Width\", r) + \" \" + getResult(\"Score\", r));\n"
			+ "print(\"rows \" + nResults);\n");
		ImageJProcess.Result r = imagej.run(macro, dir.toString(), "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("rows 2"), r::toString);
		List<String> rows = new ArrayList<>();
		for (String line : r.output.split("\\R"))
			if (line.startsWith("row ")) {
				String[] f = line.split(" ");
				assertTrue(Double.parseDouble(f[5]) > 0.99, line);
				rows.add(f[1] + " " + f[2] + " " + f[3] + " " + f[4]);
			}
		assertEquals(List.of("big.tif 12 30 15", "small.tiff 90 50 7"), rows, r::toString);
		// a folder without images: a message, and the macro stops
		Path empty = Files.createDirectories(dir.resolve("no-images"));
		Files.writeString(empty.resolve("notes.txt"), "nothing");
		r = imagej.run(Files.writeString(dir.resolve("empty.ijm"), "dir = getArgument();\n"
			+ "open(dir + \"/scene.tif\");\n"
			+ "run(\"GPU Template Matching...\", \"image=scene.tif template=[\" + dir + \"/no-images]\");\n"
			+ "print(\"still running\");\n"), dir.toString());
		assertTrue(r.output.contains("GPU Template Matching: The folder '" + empty + "' holds no .tif or .tiff image"),
			r::toString);
		assertFalse(r.output.contains("still running"), r::toString);
	}

	@Test
	void theDialogsTemplateFolderReplaysEmptyOrFilledAsRecorded() throws Exception {
		// the folder could be given only as template=<folder>; the dialog's new field records
		// template_folder=[] when left empty (the Template image counts) or the folder (it wins)
		Path templates = Files.createDirectories(dir.resolve("dialog-templates"));
		ImagePlus big = noise("8-bit", 15, 11, 1, 150), small = noise("16-bit", 7, 9, 1, 151);
		ImagePlus cell = noise("8-bit", 10, 10, 1, 152);
		ImageJProcess.save(big, templates.resolve("big.tif"));
		ImageJProcess.save(small, templates.resolve("small.tif"));
		ImagePlus image = noise("16-bit", 120, 80, 1, 153);
		plant(image, 1, big.getProcessor(), 12, 30);
		plant(image, 1, small.getProcessor(), 90, 50);
		plant(image, 1, cell.getProcessor(), 50, 10);
		ImageJProcess.save(image, dir.resolve("dialog-scene.tif"));
		ImageJProcess.save(cell, dir.resolve("dialog-cell.tif"));
		String settings = " score_threshold=0.80 max_objects=10 nms=0.30 angles=0";
		Path macro = Files.writeString(dir.resolve("dialog-folder.ijm"), "dir = getArgument();\n"
			+ "open(dir + \"/dialog-scene.tif\");\nopen(dir + \"/dialog-cell.tif\");\n"
			+ "run(\"GPU Template Matching...\", \"image=dialog-scene.tif template=dialog-cell.tif template_folder=[]"
			+ settings + "\");\nrows(\"empty\");\n"
			// as recorded after a Browse: the folder with its separator, no brackets without spaces
			+ "run(\"GPU Template Matching...\", \"image=dialog-scene.tif template=dialog-cell.tif template_folder=\" + dir"
			+ " + \"/dialog-templates/" + settings + "\");\nrows(\"filled\");\n"
			+ "run(\"GPU Template Matching...\", \"image=dialog-scene.tif template_folder=[\" + dir"
			+ " + \"/dialog-templates]\");\nrows(\"alone\");\n"
			+ "function rows(tag) {\n"
			+ "  for (r = 0; r < nResults; r++)\n"
			+ "    print(tag + \" \" + getResultString(\"Template\", r) + \" \" + getResult(\"X\", r) + \" \" + getResult(\"Y\", r));\n"
			+ "  print(tag + \" rows \" + nResults);\n"
			+ "}\n");
		ImageJProcess.Result r = imagej.run(macro, dir.toString(), "-Dfiji.cuda.device=cpu");
		List<String> empty = new ArrayList<>(), filled = new ArrayList<>(), alone = new ArrayList<>();
		for (String line : r.output.split("\\R")) {
			if (line.startsWith("empty ")) empty.add(line);
			if (line.startsWith("filled ")) filled.add(line);
			if (line.startsWith("alone ")) alone.add(line);
		}
		assertEquals(List.of("empty 1 50 10", "empty rows 1"), empty, r::toString);
		assertEquals(List.of("filled big.tif 12 30", "filled small.tif 90 50", "filled rows 2"), filled, r::toString);
		assertEquals(List.of("alone big.tif 12 30", "alone small.tif 90 50", "alone rows 2"), alone, r::toString);
		// a bad folder stops the macro with the folder key's message
		Path none = Files.createDirectories(dir.resolve("dialog-no-images"));
		String[][] bad = {
			{dir.resolve("dialog-missing").toString(), "The template folder '" + dir.resolve("dialog-missing")
				+ "' does not exist (template_folder)."},
			{none.toString(), "The folder '" + none + "' holds no .tif or .tiff image (template_folder)."},
			{dir.resolve("dialog-cell.tif").toString(), "'" + dir.resolve("dialog-cell.tif")
				+ "' is a file, not a folder: open it and give its title, or give a folder of templates (template_folder)."}};
		for (String[] b : bad) {
			r = imagej.run(Files.writeString(dir.resolve("dialog-bad.ijm"), "open(getArgument());\n"
				+ "run(\"GPU Template Matching...\", \"image=dialog-scene.tif template=dialog-scene.tif template_folder=["
				+ b[0] + "]\");\nprint(\"still running\");\n"), dir.resolve("dialog-scene.tif").toString());
			assertTrue(r.output.contains("GPU Template Matching: " + b[1]), r::toString);
			assertFalse(r.output.contains("still running"), r::toString);
		}
	}

	@Test
	void aTemplateFolderWithAFileThatIsNoTiffStopsTheMacroWithAMessageInsteadOfHanging() throws Exception {
		// ImageJ's Opener answered a .tif it could not read with an error dialog, on which a batch
		// run waited until it was killed: bytes of no known format, and a TIFF cut short in its header
		ImagePlus cell = noise("8-bit", 10, 10, 1, 160);
		ImagePlus image = noise("8-bit", 60, 50, 1, 161);
		plant(image, 1, cell.getProcessor(), 20, 15);
		ImageJProcess.save(image, dir.resolve("junk-scene.tif"));
		// and a TIFF cut short in its IFD, on which ImageJ's decoder threw (an "unexpected error")
		byte[][] junk = { "junk\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
			{ 'I', 'I', 42, 0, (byte) 0xF0, (byte) 0xFF, 0, 0 },
			java.util.Arrays.copyOf(Files.readAllBytes(dir.resolve("junk-scene.tif")), 100) };
		for (int k = 0; k < junk.length; k++) {
			Path templates = Files.createDirectories(dir.resolve("junk-templates-" + k));
			ImageJProcess.save(cell, templates.resolve("a.tif"));
			Files.write(templates.resolve("b.tif"), junk[k]);
			ImageJProcess.Result r = imagej.run(Files.writeString(dir.resolve("junk.ijm"), "dir = getArgument();\n"
				+ "open(dir + \"/junk-scene.tif\");\n"
				+ "run(\"GPU Template Matching...\", \"image=junk-scene.tif template=[\" + dir + \"/junk-templates-" + k
				+ "]\");\n"
				+ "print(\"still running\");\n"), dir.toString());
			assertTrue(r.output.contains("GPU Template Matching: The template 'b.tif' in '" + templates
				+ "' cannot be opened (template)."), r::toString);
			assertFalse(r.output.contains("still running"), r::toString);
		}
	}

	@Test
	void folderMacroWithoutDetectionsWritesTheHeaderLine() throws Exception {
		// the CSV of a run that found nothing was an empty file, which a spreadsheet or R reads
		// as having no columns at all
		Path in = Files.createDirectories(dir.resolve("in-nothing"));
		ImageJProcess.save(ImageJReference.noise("8-bit", 60, 40, 1, 21), in.resolve("a.tif"));
		ImageJProcess.save(ImageJReference.noise("8-bit", 9, 9, 1, 22), dir.resolve("template-nothing.tif"));
		Path csv = dir.resolve("nothing.csv");
		ImageJProcess.Result r = runFolderMacro(in, dir.resolve("template-nothing.tif"), csv, "score_threshold=0.99");
		assertTrue(r.output.contains("Found 0 objects in 1 image"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertEquals(1, lines.size(), lines.toString());
		assertTrue(lines.get(0).contains("File") && lines.get(0).endsWith("Score,Template,Angle,Flip"), lines.get(0));
	}

	@Test
	void folderMacroRefusesAnOutputThatIsTheTemplateOrAnImageBeforeTheWork() throws Exception {
		// Table.save wrote the CSV over whatever output= named: the template (a PNG here), or an
		// image of the folder when template= and output= were swapped
		Path in = plantedFolder("in-swapped", "template-swapped.tif", 61, 20, 30);
		Path png = dir.resolve("template-swapped.png");
		IJ.saveAs(IJ.openImage(dir.resolve("template-swapped.tif").toString()), "png", png.toString());
		assertTrue(Files.exists(png), "could not write " + png);
		byte[] template = Files.readAllBytes(png), image = Files.readAllBytes(in.resolve("a.tif"));
		ImageJProcess.Result r = runFolderMacro(in, png, png, "");
		assertTrue(r.output.contains("The output " + png + " is the template, which the CSV would replace"), r::toString);
		assertFalse(r.output.contains("Found "), r::toString);
		assertArrayEquals(template, Files.readAllBytes(png), "the template was replaced");
		r = runFolderMacro(in, dir.resolve("template-swapped.tif"), in.resolve("a.tif"), "");
		assertTrue(r.output.contains("The output " + in.resolve("a.tif") + " names a TIFF image, which the CSV would replace"),
			r::toString);
		assertFalse(r.output.contains("Found "), r::toString);
		assertArrayEquals(image, Files.readAllBytes(in.resolve("a.tif")), "the image was replaced");
	}

	/**
	 * Makes folder {@code folder} of {@code dir} holding a.tif, 70x60 8-bit noise with an 11x8
	 * template planted at (x, y), and saves the template beside it as {@code template}.
	 *
	 * @return the folder
	 */
	private static Path plantedFolder(String folder, String template, int seed, int x, int y) throws Exception {
		Path in = Files.createDirectories(dir.resolve(folder));
		ImagePlus tpl = noise("8-bit", 11, 8, 1, seed);
		ImageJProcess.save(tpl, dir.resolve(template));
		ImagePlus a = noise("8-bit", 70, 60, 1, seed + 1);
		plant(a, 1, tpl.getProcessor(), x, y);
		ImageJProcess.save(a, in.resolve("a.tif"));
		return in;
	}

	/** Runs template_matching_folder.ijm on the CPU path. */
	private static ImageJProcess.Result runFolderMacro(Path in, Path template, Path csv, String settings) throws Exception {
		return imagej.run(ImageJProcess.macro("template_matching_folder.ijm"), "input=[" + in + "] template=[" + template
			+ "] output=[" + csv + "] " + settings, "-Dfiji.cuda.device=cpu");
	}
}
