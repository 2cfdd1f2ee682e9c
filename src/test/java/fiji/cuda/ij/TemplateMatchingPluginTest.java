package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import fiji.cuda.TestProgress;
import fiji.cuda.ncc.Detection;
import fiji.cuda.ncc.TemplateGroups;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.Gpu;
import ij.IJ;
import ij.ImagePlus;
import ij.gui.OvalRoi;
import ij.gui.Roi;
import ij.measure.ResultsTable;
import ij.process.ImageProcessor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plug-in's work without its dialog: tables, selections, stacks and score maps. */
class TemplateMatchingPluginTest {

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	static ImagePlus noise(String type, int w, int h, int slices, long seed) {
		ImagePlus imp = IJ.createImage("noise" + seed, type + " black", w, h, slices);
		Random r = new Random(seed);
		for (int s = 1; s <= slices; s++)
			for (int i = 0; i < w * h; i++)
				imp.getStack().getProcessor(s).setf(i, r.nextInt(256));
		return imp;
	}

	static void plant(ImagePlus image, int slice, ImageProcessor tpl, int x, int y) {
		ImageProcessor ip = image.getStack().getProcessor(slice);
		for (int v = 0; v < tpl.getHeight(); v++)
			for (int u = 0; u < tpl.getWidth(); u++)
				ip.setf(x + u, y + v, tpl.getf(u, v));
	}

	@Test
	void valuesAreNotReadFromInsideBracketedValues() {
		// a title holding "max_objects=1" set the number of objects, and the macro's own
		// max_objects=3 after it was never read
		String o = "image=[well max_objects=1 A1] template=tpl score_threshold=0.9 max_objects=3";
		assertEquals(3, TemplateMatchingPlugin.macroMaxObjects(o, 5));
		assertEquals("tpl", IjBridge.macroValue(o, "template", ""));
		assertEquals("well max_objects=1 A1", IjBridge.macroValue(o, "image", null));
		assertEquals("t2", IjBridge.macroValue("image=[template=tpl] template=t2", "template", ""));
		assertEquals("d", IjBridge.macroValue("image=[a score_threshold=0.9]", "score_threshold", "d"));
		assertEquals("0 90", IjBridge.macroValue("image=[a angles=5] angles=[0 90]", "angles", ""));
		assertEquals("7", IjBridge.macroValue("template_folder=[/a b] template=7", "template", ""));
		assertEquals(0.5, IjBridge.macroNumber("image=[nms=0.9] nms=0.5", TemplateMatchingPlugin.NMS, 0.3), 0.0);
		assertEquals(0.3, IjBridge.macroNumber("image=[nms=0.9]", TemplateMatchingPlugin.NMS, 0.3), 0.0);
		// as ImageJ's own reading elsewhere: a [ inside an unbracketed value, a key after a tab
		// or a comma, a key given with capitals
		assertEquals("3", IjBridge.getValue("image=a[1 max_objects=3", "max_objects", null));
		assertEquals("2", IjBridge.getValue("x=1\ty=2", "y", null));
		assertEquals("2", IjBridge.getValue("sigma=2 ", "Sigma", null));
		assertEquals("5", IjBridge.getValue("ymax=4 max=5", "max", null));
		// brackets nested in a bracketed value pair up, as ImageJ reads them; a quoted value
		assertEquals("0.5", IjBridge.getValue("image=[scan[1] nms=0.9] nms=0.5", "nms", null));
		assertEquals("scan[1] nms=0.9", IjBridge.getValue("image=[scan[1] nms=0.9] nms=0.5", "image", null));
		assertEquals("0.5", IjBridge.getValue("image='a nms=0.9' nms=0.5", "nms", null));
	}

	@Test
	void theMacroFlagSameSizeGivesAScoreMapOfTheImagesSize() {
		Display.required();
		// score_map alone gives one score per position the template fits (26x17 for a 5x4 template in
		// a 30x20 image), with same_size the image's own size. A mutation test found that a macro's
		// same_size not read (the flag taken as "same") passed every test
		ImagePlus tpl = IJ.createImage("same size tpl", "8-bit ramp", 5, 4, 1);
		tpl.show();
		try {
			for (boolean same : new boolean[] { false, true }) {
				ImagePlus scene = ImageJReference.noise("8-bit", 30, 20, 1, 78);
				int[] before = ij.WindowManager.getIDList();
				String log = LocalThresholdPluginTest.asMacro(new TemplateMatchingPlugin(), scene,
					"template=[same size tpl] score_threshold=0.5 score_map" + (same ? " same_size" : ""));
				java.util.List<ImagePlus> made = new java.util.ArrayList<>();
				for (int id : ij.WindowManager.getIDList())
					if (before == null || java.util.Arrays.stream(before).noneMatch(b -> b == id))
						made.add(ij.WindowManager.getImage(id));
				try {
					assertEquals(1, made.size(), log);
					assertEquals(same ? 30 : 26, made.get(0).getWidth(), "same_size " + same + ": " + log);
					assertEquals(same ? 20 : 17, made.get(0).getHeight(), "same_size " + same + ": " + log);
				} finally {
					for (ImagePlus m : made) {
						m.changes = false;
						m.close();
					}
				}
			}
		} finally {
			tpl.changes = false;
			tpl.close();
		}
	}

	@Test
	void aMacroWithoutMaxObjectsKeepsTheDialogsTenBestPerSlice() {
		Display.required();
		// max_objects left out is the dialog's first value, 10: twelve exact copies of the template
		// give ten rectangles, the rest left out as the dialog's default leaves them. A mutation
		// test found that another default passed every test
		ImagePlus tpl = noise("8-bit", 9, 7, 1, 88);
		tpl.setTitle("ten tpl");
		ImagePlus scene = noise("8-bit", 160, 100, 1, 89);
		for (int k = 0; k < 12; k++)
			plant(scene, 1, tpl.getProcessor(), 5 + 25 * (k % 6), 10 + 45 * (k / 6));
		tpl.show();
		try {
			String log = LocalThresholdPluginTest.asMacro(new TemplateMatchingPlugin(), scene,
				"template=[ten tpl] score_threshold=0.99");
			assertFalse(log.contains("GPU Template Matching:"), log);
			assertEquals(10, scene.getOverlay().size(), "rectangles on the image");
		} finally {
			closeAll(ij.plugin.frame.RoiManager.getInstance(), tpl);
		}
	}

	@Test
	void flagsAreNotReadFromInsideBracketedValues() {
		assertFalse(TemplateMatchingPlugin.flag("image=[cells stack 1] template=t.tif", "stack"));
		assertFalse(TemplateMatchingPlugin.flag("image=a template=[/data/my flip set]", "flip"));
		assertTrue(TemplateMatchingPlugin.flag("image=[cells stack 1] template=t.tif stack", "stack"));
		assertTrue(TemplateMatchingPlugin.flag("stack image=[x]", "stack"));
		assertFalse(TemplateMatchingPlugin.flag("image=a score_map=1", "score_map"));
	}

	@Test
	void theDialogsTemplateFolderIsRecordedEvenWhenEmptyAndStartsEmptyEveryTime(@TempDir Path dir) throws Exception {
		Display.required();
		// a menu user could give no folder of templates at all; one remembered from the last run
		// would silently replace the Template image of the next
		String[] titles = {"scene.tif", "cell.tif"};
		String folder = dir.toString();
		Object[] filled = throughTheDialog(titles, "image=scene.tif template=cell.tif template_folder=[" + folder + "]");
		TemplateMatchingPlugin.Answer a = (TemplateMatchingPlugin.Answer) filled[0];
		assertEquals(folder, a.folder);
		assertEquals(1, a.template);
		assertTrue(((String) filled[1]).contains("template=cell.tif template_folder=" + folder + " "), (String) filled[1]);
		Object[] empty = throughTheDialog(titles, "image=scene.tif template=cell.tif");
		a = (TemplateMatchingPlugin.Answer) empty[0];
		assertEquals("", a.folder);
		assertTrue(((String) empty[1]).contains("template=cell.tif template_folder=[] "), (String) empty[1]);
	}

	@Test
	void maxObjectsThatIsNotAWholeNumberIsRefusedNotCutDown() throws Exception {
		// max_objects=2.7 ran as 2 without a word, from a macro and from the dialog (which records the
		// 2.7 typed); GPU Align Slices refuses such numbers
		IllegalArgumentException macro = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.macroMaxObjects("image=a template=b max_objects=2.7", 10));
		assertEquals("Max objects must be a whole number of at least 1, not max_objects=2.7.", macro.getMessage());
		assertEquals(3, TemplateMatchingPlugin.macroMaxObjects("image=a max_objects=3", 10));
		assertEquals(10, TemplateMatchingPlugin.macroMaxObjects("image=a", 10));
		// a count past int's range still means no limit
		assertEquals(Integer.MAX_VALUE, TemplateMatchingPlugin.macroMaxObjects("max_objects=1e12", 10));
		Display.required();
		String[] titles = {"scene.tif", "cell.tif"};
		IllegalArgumentException dialog = assertThrows(IllegalArgumentException.class,
			() -> throughTheDialog(titles, "image=scene.tif template=cell.tif max_objects=2.7"));
		assertEquals(macro.getMessage(), dialog.getMessage());
		Object[] whole = throughTheDialog(titles, "image=scene.tif template=cell.tif max_objects=3");
		assertEquals(3, ((TemplateMatchingPlugin.Answer) whole[0]).settings.maxObjects);
	}

	@Test
	void onlyAnUnbracketedListOfAnglesIsRefused() {
		for (String fine : new String[] { "angles=0", "angles=[0 90]", "angles=0,90 stack", "angles=0 flip stack",
			"image=[scene angles=0 90.tif] angles=0", "angles=0 max_objects=3", "angles=&a stack" })
			TemplateMatchingPlugin.checkBracketed(fine);
		for (String lost : new String[] { "angles=0 90", "score_threshold=0.5 angles=90 180 stack", "angles=-45 +45" })
			assertThrows(IllegalArgumentException.class, () -> TemplateMatchingPlugin.checkBracketed(lost), lost);
	}

	@Test
	void theDialogOffersTheCurrentImageAsTheTemplateWhenItFitsInALargerOne() {
		// Image>Duplicate of a selection leaves the copy current: the dialog offered it as the
		// Image and, being the second image opened, as the Template too
		int[][] sceneThenCell = { { 500, 400 }, { 20, 20 } };
		assertArrayEquals(new int[] { 0, 1 }, TemplateMatchingPlugin.defaultChoices(sceneThenCell, 1));
		assertArrayEquals(new int[] { 0, 1 }, TemplateMatchingPlugin.defaultChoices(sceneThenCell, 0));
		// two scenes and a cell: the current scene is the Image, the cell the Template; the cell
		// current goes with the largest scene it fits in
		int[][] scenesAndCell = { { 300, 200 }, { 500, 400 }, { 20, 20 } };
		assertArrayEquals(new int[] { 0, 2 }, TemplateMatchingPlugin.defaultChoices(scenesAndCell, 0));
		assertArrayEquals(new int[] { 1, 2 }, TemplateMatchingPlugin.defaultChoices(scenesAndCell, 2));
		// the template opened before the scene, and the scene current
		assertArrayEquals(new int[] { 1, 0 }, TemplateMatchingPlugin.defaultChoices(new int[][] { { 9, 9 }, { 64, 64 } }, 1));
		// images of one size: the current one and the first other; one image: itself twice
		assertArrayEquals(new int[] { 1, 2 }, TemplateMatchingPlugin.defaultChoices(new int[][] { { 50, 50 },
			{ 50, 50 }, { 50, 50 } }, 1));
		assertArrayEquals(new int[] { 0, 0 }, TemplateMatchingPlugin.defaultChoices(new int[][] { { 50, 50 } }, 0));
		// a scene, its template, and the score map of a run with same_size (the image's size,
		// opened last): the map was offered as the Template
		int[][] withMap = { { 80, 60 }, { 9, 7 }, { 80, 60 } };
		boolean[] maps = { false, false, true };
		assertArrayEquals(new int[] { 0, 1 }, TemplateMatchingPlugin.defaultChoices(withMap, 0, maps));
		assertArrayEquals(new int[] { 0, 2 }, TemplateMatchingPlugin.defaultChoices(withMap, 0));
		// nothing else open: the map after all
		assertArrayEquals(new int[] { 0, 1 }, TemplateMatchingPlugin.defaultChoices(new int[][] { { 80, 60 },
			{ 80, 60 } }, 0, new boolean[] { false, true }));
		// nothing fits inside the current image: the first other image, as before
		assertArrayEquals(new int[] { 0, 1 }, TemplateMatchingPlugin.defaultChoices(new int[][] { { 30, 30 },
			{ 10, 60 } }, 0));
	}

	/**
	 * @return the dialog's answer (or what it threw) and the options ImageJ's recorder wrote,
	 *         with the dialog answered from macro options
	 */
	private static Object[] throughTheDialog(String[] titles, String options) throws InterruptedException {
		Object[] got = new Object[2];
		// GenericDialog reads macro options kept for a thread named as ImageJ names macro threads
		Thread t = new Thread(() -> {
			ij.Macro.setOptions(options);
			ij.plugin.frame.Recorder.record = true;
			ij.plugin.frame.Recorder.recordInMacros = true;
			ij.plugin.frame.Recorder.resetCommandOptions();
			try {
				got[0] = TemplateMatchingPlugin.dialog(titles, 0, titles.length > 1 ? 1 : 0);
				got[1] = ij.plugin.frame.Recorder.getCommandOptions();
			} catch (RuntimeException e) {
				got[0] = e;
			} finally {
				ij.plugin.frame.Recorder.record = false;
				ij.plugin.frame.Recorder.recordInMacros = false;
				ij.plugin.frame.Recorder.resetCommandOptions();
				ij.Macro.setOptions(null);
			}
		}, "Run$_dialog");
		t.start();
		t.join();
		if (got[0] instanceof RuntimeException) throw (RuntimeException) got[0];
		return got;
	}

	@Test
	void aCancelBetweenTemplateGroupsOfASliceKeepsOnlyTheSlicesMatchedInFull() {
		// with many templates a slice is matched in several groups; an Esc between two listed the
		// slice's objects of the templates done and silently missed the others
		cancelBetweenTemplateGroups(CPU, true);
	}

	@Test
	void theShownSliceOfAVirtualStackIsMatchedWithItsChanges(@TempDir Path dir) {
		// the current slice was read from its file: a template cut from the slice as shown (after an
		// Invert, which a virtual stack keeps in the image until the slice changes) was not found there
		for (int i = 1; i <= 4; i++)
			IJ.saveAsTiff(noise("8-bit", 40, 30, 1, 60 + i), dir.resolve("s" + i + ".tif").toString());
		ImagePlus stack = ij.plugin.FolderOpener.open(dir.toString(), "virtual");
		assertTrue(stack.getStack().isVirtual());
		stack.setSlice(2);
		stack.getProcessor().invert();
		stack.setRoi(10, 8, 12, 10);
		ImagePlus template = new ImagePlus("tmpl", stack.getProcessor().crop());
		stack.deleteRoi();
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.threshold = -1;
		s.maxObjects = 1;
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(stack, template, s, CPU);
		assertEquals(1, out.detections.size());
		Detection d = out.detections.get(0);
		assertEquals(10, d.x);
		assertEquals(8, d.y);
		assertTrue(d.score > 0.9999, "score " + d.score);
		// and the shown slice of a virtual template is the one matched
		ImagePlus virtualTemplate = ij.plugin.FolderOpener.open(dir.toString(), "virtual");
		virtualTemplate.setSlice(3);
		virtualTemplate.getProcessor().invert();
		ImagePlus image = new ImagePlus("image", virtualTemplate.getProcessor().duplicate());
		virtualTemplate.setRoi(5, 6, 9, 7);
		out = TemplateMatchingPlugin.run(image, virtualTemplate, s, CPU);
		boolean found = false;
		for (Detection e : out.detections)
			found |= e.x == 5 && e.y == 6 && e.score > 0.9999;
		assertTrue(found, out.detections::toString);
	}

	@Test
	void aFlatTemplateIsNamedInTheLogAsOneThatCanFindNothing() {
		// a flat or 1x1 template scored 0 everywhere: no detection and no word on why
		ImagePlus image = noise("8-bit", 50, 40, 1, 44);
		List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, noise("8-bit", 6, 5, 1, 45), s, CPU);
		fiji.cuda.ops.OpLog.setSink(lines::add);
		try {
			out = TemplateMatchingPlugin.run(image, IJ.createImage("black", "8-bit black", 5, 5, 1), s, CPU);
			assertTrue(out.detections.isEmpty());
			out = TemplateMatchingPlugin.run(image, noise("8-bit", 1, 1, 1, 46), s, CPU);
			assertTrue(out.detections.isEmpty());
			ImagePlus stack = noise("8-bit", 6, 5, 3, 47);
			stack.getStack().getProcessor(2).setValue(9);
			stack.getStack().getProcessor(2).fill();
			TemplateMatchingPlugin.run(image, stack, s, CPU);
			String tail = " flat (all its pixels are equal, as in any 1x1 template), so it scores 0 everywhere and can find "
				+ "nothing; choose a template with structure.";
			assertEquals(List.of("GPU Template Matching: The template is" + tail, "GPU Template Matching: The template is"
				+ tail, "GPU Template Matching: Template 2 is" + tail), lines);
		} finally {
			fiji.cuda.ops.OpLog.setSink(IJ::log);
		}
	}

	@Test
	void aSearchSelectionOfTheTemplatesSizeIsNamedInTheLog() {
		// Image>Duplicate... of a selection leaves it on the image: matching next searched that one
		// position, found the template itself and nothing else, and said nothing
		ImagePlus image = noise("8-bit", 60, 50, 1, 48);
		ImagePlus tpl = noise("8-bit", 9, 7, 1, 49);
		plant(image, 1, tpl.getProcessor(), 5, 6);
		plant(image, 1, tpl.getProcessor(), 40, 30);
		image.setRoi(5, 6, 9, 7);
		List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.threshold = 0.9;
		fiji.cuda.ops.OpLog.setSink(lines::add);
		try {
			TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, tpl, s, CPU);
			assertEquals(1, out.detections.size(), "the selection is still the search area");
			assertEquals(List.of("GPU Template Matching: the selection on \"noise48\" (9x7 at 5,6) is the template's size, "
				+ "so only that one position was searched. To search the whole image, remove the selection first "
				+ "(Edit>Selection>Select None)."), lines);
			lines.clear();
			image.setRoi(0, 0, 30, 30); // a larger search area: nothing to say
			TemplateMatchingPlugin.run(image, tpl, s, CPU);
			image.deleteRoi();
			assertEquals(2, TemplateMatchingPlugin.run(image, tpl, s, CPU).detections.size());
			assertTrue(lines.isEmpty(), lines::toString);
		} finally {
			fiji.cuda.ops.OpLog.setSink(IJ::log);
		}
	}

	@Test
	void aTemplateWithNaNIsNamedWithWhatToDo() {
		// "the template contains NaN or infinite values." named none of a stack's templates
		ImagePlus image = noise("32-bit", 60, 50, 1, 52), tpl = noise("32-bit", 8, 8, 3, 53);
		tpl.getStack().getProcessor(3).setf(2, 2, Float.NaN);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, tpl, new TemplateMatchingPlugin.Settings(), CPU));
		assertEquals("The template 3 holds NaN or infinite pixels, which would make every score NaN; replace them "
			+ "(Process>Math>Remove NaNs...), or leave them out with a selection on the template.", e.getMessage());
	}

	@Test
	void aZeroAreaSelectionOnTheTemplateIsNamedAsTheTemplates() {
		assertTemplateSelectionRefused(new int[] {5, 10, 15}, new int[] {5, 5, 5}, "The selection of the template \"tpl\" "
			+ "has no area (10x0); select a part of the template, or none for all of it.");
	}

	@Test
	void aSelectionOnTheTemplateThatEnclosesNoPixelIsNamedAsTheTemplates() {
		// points on one slanted line have bounds but a mask of no pixel: "the template mask is
		// empty", a mask the user never made, named neither the selection nor the template
		assertTemplateSelectionRefused(new int[] {2, 9, 16}, new int[] {3, 10, 17}, "The selection of the template "
			+ "\"tpl\" encloses no pixel (points on one line); select a part of the template, or none for all of it.");
	}

	/** A polygon through (xs, ys) on a 20x20 template titled "tpl" is refused with {@code message}. */
	private static void assertTemplateSelectionRefused(int[] xs, int[] ys, String message) {
		ImagePlus image = noise("8-bit", 60, 50, 1, 50), tpl = noise("8-bit", 20, 20, 1, 51);
		tpl.setTitle("tpl");
		tpl.setRoi(new ij.gui.PolygonRoi(xs, ys, xs.length, ij.gui.Roi.POLYGON));
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, tpl, new TemplateMatchingPlugin.Settings(), CPU));
		assertEquals(message, e.getMessage());
	}

	@Test
	void anEscWithinOneScoreMapOnTheCpuStopsTheRunAndListsNothingOfThatSlice() {
		// one template, one slice: the CPU's map was one step, with no Esc heard until its end
		ImagePlus image = noise("8-bit", 80, 60, 2, 42);
		ImagePlus tpl = noise("8-bit", 9, 7, 1, 43);
		plant(image, 1, tpl.getProcessor(), 20, 30);
		plant(image, 2, tpl.getProcessor(), 50, 10);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.stack = true;
		s.scoreMap = true;
		TemplateGroups.limitBandWork(72 * 63); // a row of the 72x54 map a band, on one thread
		ExecutionOptions oneThread = CPU.withThreads(1);
		try {
			// slice 1 in full (54 updates), then Esc part way through slice 2's map
			TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, tpl, s,
				oneThread.withProgress(TestProgress.cancelAfter(70)));
			assertTrue(out.canceled);
			assertEquals(1, out.slicesMatched);
			assertEquals(1, out.detections.size(), out.detections::toString);
			assertEquals(20, out.detections.get(0).x);
			assertEquals(1, out.scoreMap.getStackSize());
			out = TemplateMatchingPlugin.run(image, tpl, s, oneThread.withProgress(TestProgress.cancelAfter(2)));
			assertTrue(out.canceled);
			assertEquals(0, out.slicesMatched);
			assertTrue(out.detections.isEmpty(), out.detections::toString);
			assertNull(out.scoreMap);
		} finally {
			TemplateGroups.clear();
		}
	}

	@Test
	@Tag("gpu")
	void aCancelBetweenTemplateGroupsOfASliceKeepsOnlyTheSlicesMatchedInFullOnTheGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
		ExecutionOptions gpu = ExecutionOptions.defaults().withBackend(Backend.GPU);
		cancelBetweenTemplateGroups(gpu, true);  // the maps come back
		cancelBetweenTemplateGroups(gpu, false); // only the peaks come back
	}

	private static void cancelBetweenTemplateGroups(ExecutionOptions opts, boolean scoreMap) {
		ImagePlus image = noise("8-bit", 80, 60, 3, 40);
		ImagePlus tpl = noise("8-bit", 9, 7, 4, 41); // four templates
		for (int z = 1; z <= 3; z++)
			for (int k = 1; k <= 4; k++)
				plant(image, z, tpl.getStack().getProcessor(k), 4 + 18 * (k - 1), 10 + 12 * (z - 1));
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.stack = true;
		s.scoreMap = scoreMap;
		s.threshold = 0.8;
		TemplateGroups.limitBytes(1); // one template a group: four progress updates a slice
		try {
			// slice 1 is matched in full; Esc comes after the second template of slice 2
			TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, tpl, s,
				opts.withProgress(TestProgress.cancelAfter(6)));
			assertEquals(4, out.detections.size(), out.detections::toString);
			for (Detection d : out.detections)
				assertEquals(0, d.plane, d::toString);
			assertTrue(out.canceled);
			assertEquals(1, out.slicesMatched);
			assertEquals(4, out.table.size());
			if (scoreMap) assertEquals(4, out.scoreMap.getStackSize());
			assertEquals("canceled; 1 of 3 slices matched (slice 1), only their detections are listed",
				TemplateMatchingResults.canceled(out));
			// Esc within the first slice: nothing is listed
			out = TemplateMatchingPlugin.run(image, tpl, s, opts.withProgress(TestProgress.cancelAfter(2)));
			assertTrue(out.canceled);
			assertEquals(0, out.slicesMatched);
			assertTrue(out.detections.isEmpty(), out.detections::toString);
			assertNull(out.scoreMap);
			assertEquals("canceled; nothing was matched (0 of 3 slices), so the earlier results are kept: the Results "
				+ "table, the ROI Manager and the overlay are as they were", TemplateMatchingResults.canceled(out));
			// the current slice only, interrupted
			s.stack = false;
			image.setSlice(2);
			out = TemplateMatchingPlugin.run(image, tpl, s, opts.withProgress(TestProgress.cancelAfter(3)));
			assertTrue(out.detections.isEmpty(), out.detections::toString);
			assertEquals("canceled; nothing was matched (slice 2), so the earlier results are kept: the Results table, "
				+ "the ROI Manager and the overlay are as they were", TemplateMatchingResults.canceled(out));
			// Esc after the last group of the last slice stops nothing
			s.stack = true;
			out = TemplateMatchingPlugin.run(image, tpl, s, opts.withProgress(TestProgress.cancelAfter(12)));
			assertFalse(out.canceled);
			assertEquals(3, out.slicesMatched);
			assertEquals(12, out.detections.size(), out.detections::toString);
			// two slices in full, the third interrupted
			out = TemplateMatchingPlugin.run(image, tpl, s, opts.withProgress(TestProgress.cancelAfter(9)));
			assertEquals(8, out.detections.size(), out.detections::toString);
			assertEquals("canceled; 2 of 3 slices matched (slices 1-2), only their detections are listed",
				TemplateMatchingResults.canceled(out));
		} finally {
			TemplateGroups.clear();
		}
	}

	@Test
	void aCancelBeforeAnySliceIsMatchedKeepsTheEarlierResults() throws Exception {
		// Esc before the first slice was matched emptied the Results table and took this image's
		// earlier matches out of the ROI Manager and the overlay, for a run that found nothing
		Display.required();
		ij.plugin.frame.RoiManager rm = freshRoiManager();
		ImagePlus image = noise("8-bit", 80, 60, 3, 40);
		ImagePlus tpl = noise("8-bit", 9, 7, 4, 41); // four templates
		for (int z = 1; z <= 3; z++)
			for (int k = 1; k <= 4; k++)
				plant(image, z, tpl.getStack().getProcessor(k), 4 + 18 * (k - 1), 10 + 12 * (z - 1));
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.stack = true;
		s.threshold = 0.8;
		TemplateGroups.limitBytes(1); // one template a group: four progress updates a slice
		try {
			image.show();
			shownWith(rm, image, TemplateMatchingPlugin.run(image, tpl, s, CPU));
			ResultsTable rt = ResultsTable.getResultsTable();
			assertEquals(12, rt.size());
			String table = rows(rt);
			String[] names = names(rm.getRoisAsArray());
			assertEquals(12, names.length);
			String overlay = java.util.Arrays.toString(names(image.getOverlay().toArray()));
			// Esc before slice 1, then within slice 1 (after its second template), then on the current slice only
			int[] escAfter = { 0, 2, 1 };
			for (int e : escAfter) {
				s.stack = e != 1;
				String log = LocalThresholdPluginTest.log(() -> shownWith(rm, image,
					TemplateMatchingPlugin.run(image, tpl, s, CPU.withProgress(TestProgress.cancelAfter(e)))));
				String said = s.stack ? "0 of 3 slices" : "slice " + image.getCurrentSlice();
				assertTrue(log.contains("GPU Template Matching: canceled; nothing was matched (" + said + "), so the earlier "
					+ "results are kept"), log);
				assertEquals(rt, ResultsTable.getResultsTable());
				assertEquals(table, rows(rt), "the Results table changed (Esc after " + e + ")");
				assertArrayEquals(names, names(rm.getRoisAsArray()), "the ROI Manager changed (Esc after " + e + ")");
				assertEquals(overlay, java.util.Arrays.toString(names(image.getOverlay().toArray())),
					"the overlay changed (Esc after " + e + ")");
			}
			// a cancel after a slice was matched lists that slice's matches only, as before
			s.stack = true;
			String log = LocalThresholdPluginTest.log(() -> shownWith(rm, image,
				TemplateMatchingPlugin.run(image, tpl, s, CPU.withProgress(TestProgress.cancelAfter(6)))));
			assertTrue(log.contains("canceled; 1 of 3 slices matched (slice 1), only their detections are listed"), log);
			assertEquals(4, ResultsTable.getResultsTable().size());
			assertEquals(4, rm.getCount());
			assertEquals(4, image.getOverlay().size());
		} finally {
			TemplateGroups.clear();
			closeAll(rm, image);
		}
	}

	private static String rows(ResultsTable rt) {
		StringBuilder b = new StringBuilder(rt.getColumnHeadings());
		for (int i = 0; i < rt.size(); i++)
			b.append('\n').append(rt.getRowAsString(i));
		return b.toString();
	}

	private static String[] names(Roi[] rois) {
		String[] out = new String[rois.length];
		for (int i = 0; i < rois.length; i++)
			out[i] = rois[i].getName() + "@" + rois[i].getBounds() + "/" + rois[i].getPosition();
		return out;
	}

	@Test
	void theResultsGiveTheAngleAsAskedAndOneRowForTheSameRotationGivenTwice() {
		// angles=0,90,360 listed a match of the unturned template at angle 0 whichever was meant,
		// and matched it twice (two rows of it with nms=1)
		ImagePlus image = noise("8-bit", 100, 80, 1, 50);
		ImagePlus tpl = noise("8-bit", 13, 8, 1, 51);
		plant(image, 1, tpl.getProcessor(), 20, 30);
		plant(image, 1, tpl.getProcessor().rotateLeft(), 70, 20);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.threshold = 0.9;
		s.angles = TemplateMatchingPlugin.parseAngles("90, 360");
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, tpl, s, CPU);
		assertEquals(2, out.table.size(), () -> out.detections.toString());
		for (int i = 0; i < 2; i++)
			assertEquals(out.table.getValue("X", i) == 20 ? 360 : 90, out.table.getValue("Angle", i), "row " + i);
		s.angles = TemplateMatchingPlugin.parseAngles("0,90,360");
		s.nms = 1;
		s.scoreMap = true;
		TemplateMatchingPlugin.Outcome all = TemplateMatchingPlugin.run(image, tpl, s, CPU);
		assertEquals(2, all.table.size(), () -> all.detections.toString());
		assertEquals(2, all.scoreMap.getStackSize(), "one map per distinct rotation");
		for (int i = 0; i < 2; i++)
			assertEquals(all.table.getValue("X", i) == 20 ? 0 : 90, all.table.getValue("Angle", i), "row " + i);
	}

	@Test
	void rectanglesGoOnTheirPlaneOfAHyperstackAndTheUsersOverlayStays() {
		ImagePlus hyper = IJ.createHyperStack("h", 20, 20, 2, 3, 1, 8);  // c = 2, z = 3
		ij.gui.Roi r = new ij.gui.Roi(1, 1, 5, 5);
		TemplateMatchingResults.placeOn(r, hyper, 3);  // stack index 4: c 2, z 2
		assertEquals(2, r.getCPosition());
		assertEquals(2, r.getZPosition());
		assertEquals(1, r.getTPosition());
		ImagePlus plain = IJ.createImage("p", "8-bit black", 20, 20, 3);
		ij.gui.Roi q = new ij.gui.Roi(1, 1, 5, 5);
		TemplateMatchingResults.placeOn(q, plain, 2);
		assertEquals(3, q.getPosition());
		ij.gui.Overlay o = new ij.gui.Overlay();
		ij.gui.Roi mine = new ij.gui.OvalRoi(2, 2, 4, 4);
		mine.setName("my nucleus");
		o.add(mine);
		ij.gui.Roi old = new ij.gui.Roi(0, 0, 3, 3);
		old.setName("Match 1 (0.950)");
		o.add(old);
		ij.gui.Overlay kept = TemplateMatchingResults.withoutMatches(o);
		assertEquals(1, kept.size());
		assertEquals("my nucleus", kept.get(0).getName());
	}

	/** @return a template planted twice in shown[0] and once in shown[1], made here */
	private static ImagePlus twoImagesWithMatches(ImagePlus[] shown) {
		shown[0] = noise("8-bit", 60, 40, 1, 11);
		shown[1] = noise("8-bit", 60, 40, 1, 12);
		ImagePlus tpl = noise("8-bit", 9, 7, 1, 13);
		plant(shown[0], 1, tpl.getProcessor(), 5, 6);
		plant(shown[0], 1, tpl.getProcessor(), 40, 20);
		plant(shown[1], 1, tpl.getProcessor(), 30, 30);
		return tpl;
	}

	@Test
	void aManagerWithOtherEntriesKeepsThemInOrderUnderTheirNames() throws Exception {
		// the earlier matches went entry by entry (on a shown list, a repaint each), and by a
		// RoiManager.delete(int) that ImageJ before 1.54 lacks (Debian's 1.53t stopped with a
		// NoSuchMethodError); now the manager is cleared and refilled with the other entries
		Display.required();
		// a manager another test left open would make this one an empty shell
		ij.plugin.frame.RoiManager rm = freshRoiManager();
		ImagePlus[] shown = new ImagePlus[2];
		try {
			Roi mine = new Roi(0, 0, 4, 4), cell = new ij.gui.OvalRoi(5, 6, 7, 8);
			rm.addRoi(mine);
			ImagePlus tpl = twoImagesWithMatches(shown);
			ImagePlus a = shown[0], b = shown[1];
			TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
			s.threshold = 0.99;
			shownWith(rm, a, TemplateMatchingPlugin.run(a, tpl, s, CPU));
			cell.setName("cell 1");
			cell.setPosition(3);
			rm.addRoi(cell); // between a's matches and b's
			shownWith(rm, b, TemplateMatchingPlugin.run(b, tpl, s, CPU));
			String mineName = rm.getName(0);
			String recorded = Interactive.recorded(() -> shownWith(rm, a, TemplateMatchingPlugin.run(a, tpl, s, CPU)));
			assertFalse(recorded.contains("roiManager"), recorded);
			assertEquals(5, rm.getCount(), "the user's two entries, b's match and a's two");
			assertEquals(mineName, rm.getName(0));
			assertEquals(new java.awt.Rectangle(0, 0, 4, 4), rm.getRoi(0).getBounds());
			assertEquals("cell 1", rm.getName(1));
			assertEquals(ij.gui.Roi.OVAL, rm.getRoi(1).getType());
			assertEquals(3, rm.getRoi(1).getPosition());
			assertEquals(java.util.Arrays.asList(2), TemplateMatchingResults.earlierMatches(rm, b));
			assertEquals(java.util.Arrays.asList(3, 4), TemplateMatchingResults.earlierMatches(rm, a));
		} finally {
			closeAll(rm, shown);
		}
	}

	@Test
	void aNewRunReplacesOnlyThatImagesMatchesInTheRoiManager() throws Exception {
		// the ROI Manager is shared by all images: a run on a second image deleted the first's
		// matches, so a batch or two images compared side by side kept only the last image's.
		// And the old matches were selected to be deleted: one stayed on the shown image as its
		// selection (the next run searched only inside it), and the Recorder wrote every selection
		Display.required();
		ij.plugin.frame.RoiManager rm = new ij.plugin.frame.RoiManager();
		ImagePlus[] shown = new ImagePlus[2];
		try {
			Roi mine = new Roi(0, 0, 4, 4);
			mine.setName("Match 9 (0.500)"); // the user's own entry, named like a match
			rm.addRoi(mine);
			ImagePlus tpl = twoImagesWithMatches(shown);
			ImagePlus a = shown[0], b = shown[1];
			b.show();
			a.show(); // the current image, where a selected match would land
			TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
			s.threshold = 0.99;
			String recorded = Interactive.recorded(() -> {
				shownWith(rm, a, TemplateMatchingPlugin.run(a, tpl, s, CPU));
				shownWith(rm, a, TemplateMatchingPlugin.run(a, tpl, s, CPU));
			});
			assertFalse(recorded.contains("roiManager"), recorded);
			java.awt.EventQueue.invokeAndWait(() -> {}); // what the manager's list did on the event thread is done
			assertNull(a.getRoi(), "a selection left on the image");
			shownWith(rm, b, TemplateMatchingPlugin.run(b, tpl, s, CPU));
			assertEquals(4, rm.getCount(), "the user's entry, a's two matches and b's one");
			assertEquals(2, TemplateMatchingResults.earlierMatches(rm, a).size());
			assertEquals(1, TemplateMatchingResults.earlierMatches(rm, b).size());
			b.getProcessor().setColor(0);
			b.getProcessor().fill(); // nothing to find in b any more
			shownWith(rm, b, TemplateMatchingPlugin.run(b, tpl, s, CPU));
			assertEquals(3, rm.getCount(), "b's earlier match went, a's stayed");
			assertEquals(0, TemplateMatchingResults.earlierMatches(rm, b).size());
			shownWith(rm, a, TemplateMatchingPlugin.run(a, tpl, s, CPU));
			assertEquals(3, rm.getCount(), "a's two matches replaced by the same two");
			assertEquals("Match 9 (0.500)", rm.getRoi(0).getName());
			assertEquals(2, TemplateMatchingResults.earlierMatches(rm, a).size());
			java.awt.EventQueue.invokeAndWait(() -> {});
			assertNull(a.getRoi(), "a selection left on the image");
			assertNull(b.getRoi(), "a selection left on the other image");
		} finally {
			closeAll(rm, shown);
		}
	}

	@Test
	void aManagerHoldingOnlyEarlierMatchesIsClearedAndRefilled() throws Exception {
		// such a manager is now reset in one step instead of deleted entry by entry, which
		// repainted a shown list each time: the result must be the same
		Display.required();
		ij.plugin.frame.RoiManager rm = freshRoiManager();
		ImagePlus image = noise("8-bit", 70, 50, 6, 31);
		try {
			ImagePlus tpl = noise("8-bit", 9, 7, 1, 32);
			for (int z = 1; z <= 6; z++) {
				plant(image, z, tpl.getProcessor(), 3 * z, 5);
				plant(image, z, tpl.getProcessor(), 40, 10 + 4 * z);
			}
			image.show();
			TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
			s.threshold = 0.99;
			s.stack = true;
			String recorded = Interactive.recorded(() -> {
				shownWith(rm, image, TemplateMatchingPlugin.run(image, tpl, s, CPU));
				shownWith(rm, image, TemplateMatchingPlugin.run(image, tpl, s, CPU));
			});
			assertFalse(recorded.contains("roiManager"), recorded);
			assertEquals(12, rm.getCount(), "two matches on each of 6 slices, once");
			assertEquals(12, TemplateMatchingResults.earlierMatches(rm, image).size());
			for (int i = 0; i < 12; i++) {
				Roi r = rm.getRoi(i);
				int z = i / 2 + 1;
				assertEquals(z, r.getPosition(), "entry " + i);
				int x = r.getBounds().x;
				assertTrue(x == 3 * z || x == 40, "entry " + i + " at x " + x);
			}
			// a slice with nothing left to find: its matches go, the others are listed again
			image.getStack().getProcessor(6).setColor(0);
			image.getStack().getProcessor(6).fill();
			shownWith(rm, image, TemplateMatchingPlugin.run(image, tpl, s, CPU));
			assertEquals(10, rm.getCount());
			for (int z = 1; z <= 5; z++) { // nothing at all: the manager is left empty
				image.getStack().getProcessor(z).setColor(0);
				image.getStack().getProcessor(z).fill();
			}
			shownWith(rm, image, TemplateMatchingPlugin.run(image, tpl, s, CPU));
			assertEquals(0, rm.getCount());
			java.awt.EventQueue.invokeAndWait(() -> {});
			assertNull(image.getRoi(), "a selection left on the image");
		} finally {
			closeAll(rm, image);
		}
	}

	@Test
	void matchesOfImagesClosedGoAndThoseOfASavedSetStay() {
		// a batch closes each image: their matches piled up in the manager, every run scanning
		// them all; and image IDs start again each session, so a ROI set saved with its matches
		// and opened later carried IDs of other images
		Display.required();
		ij.plugin.frame.RoiManager rm = new ij.plugin.frame.RoiManager();
		ImagePlus a = noise("8-bit", 60, 40, 1, 21), c = noise("8-bit", 60, 40, 1, 22);
		try {
			ImagePlus tpl = noise("8-bit", 9, 7, 1, 23);
			plant(a, 1, tpl.getProcessor(), 5, 6);
			plant(c, 1, tpl.getProcessor(), 30, 20);
			Roi saved = new Roi(1, 1, 9, 7);
			saved.setName("Match 1 (0.990)");
			saved.setProperty(TemplateMatchingResults.MATCH_OF, "an-earlier-session:" + a.getID());
			rm.addRoi(saved);
			a.show();
			c.show();
			TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
			s.threshold = 0.99;
			shownWith(rm, c, TemplateMatchingPlugin.run(c, tpl, s, CPU));
			shownWith(rm, a, TemplateMatchingPlugin.run(a, tpl, s, CPU));
			assertEquals(3, rm.getCount(), "the saved entry, c's match and a's");
			c.changes = false;
			c.close();
			shownWith(rm, a, TemplateMatchingPlugin.run(a, tpl, s, CPU));
			assertEquals(2, rm.getCount(), "c's match went with c; the saved entry stayed");
			// a script's images, never shown, are not taken for closed ones
			ImagePlus x = noise("8-bit", 60, 40, 1, 24), y = noise("8-bit", 60, 40, 1, 25);
			plant(x, 1, tpl.getProcessor(), 3, 3);
			plant(y, 1, tpl.getProcessor(), 40, 20);
			shownWith(rm, x, TemplateMatchingPlugin.run(x, tpl, s, CPU));
			shownWith(rm, y, TemplateMatchingPlugin.run(y, tpl, s, CPU));
			assertEquals(4, rm.getCount(), "the unshown x lost its match to y's run");
			shownWith(rm, x, TemplateMatchingPlugin.run(x, tpl, s, CPU));
			assertEquals(4, rm.getCount(), "x's match replaced by the same");
			x.changes = false;
			x.close();
			y.changes = false;
			y.close();
			assertEquals(4, rm.getCount());
			assertEquals("an-earlier-session:" + a.getID(), rm.getRoi(0).getProperty(TemplateMatchingResults.MATCH_OF));
			assertEquals(1, TemplateMatchingResults.earlierMatches(rm, a).size());
		} finally {
			closeAll(rm, a, c);
		}
	}

	@Test
	void aMatchOfAOnePlaneImageIsNotPlacedOnTheFrontStacksSlice() throws Exception {
		// the manager's list is changed on the event thread, whose current image is the front
		// window's: RoiManager.addRoi gave a match of a single image that stack's slice
		Display.required();
		ij.plugin.frame.RoiManager rm = new ij.plugin.frame.RoiManager();
		ImagePlus a = noise("8-bit", 60, 40, 1, 31), front = IJ.createImage("front", "8-bit ramp", 50, 50, 5);
		try {
			ImagePlus tpl = noise("8-bit", 9, 7, 1, 32);
			plant(a, 1, tpl.getProcessor(), 5, 6);
			front.show();
			front.setSlice(4);
			ij.WindowManager.setCurrentWindow(front.getWindow());
			TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
			s.threshold = 0.99;
			TemplateMatchingResults.show(a, TemplateMatchingPlugin.run(a, tpl, s, CPU));
			java.awt.EventQueue.invokeAndWait(() -> {});
			assertEquals(1, rm.getCount());
			assertEquals(0, rm.getRoi(0).getPosition(), "placed on a slice of the front stack");
		} finally {
			closeAll(rm, front);
		}
	}

	/**
	 * After a test that showed matches: closes the images (unchanged), empties and closes the
	 * ROI Manager, and closes the Results window, so that the next test starts without them.
	 */
	@Test
	void anImageThatIsItsOwnTemplateIsCutFromTheSliceShownOnly() {
		// a time-lapse with a cell selected in frame 1: the selection was cut from every frame,
		// and each frame's own cut matched itself there, score 1, on plain background
		ImagePlus image = noise("8-bit", 100, 80, 3, 50);
		for (int z = 1; z <= 3; z++)
			for (int i = 0; i < 100 * 80; i++)
				image.getStack().getProcessor(z).setf(i, 0.2f * image.getStack().getProcessor(z).getf(i));
		ImagePlus cell = noise("8-bit", 15, 15, 1, 51);
		int[][] at = { { 10, 10 }, { 35, 25 }, { 60, 40 } };
		for (int z = 0; z < 3; z++)
			plant(image, z + 1, cell.getProcessor(), at[z][0], at[z][1]);
		image.setSlice(1);
		image.setRoi(new Roi(10, 10, 15, 15));
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.stack = true;
		s.threshold = 0.9;
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, image, s, CPU);
		assertEquals(3, out.detections.size(), out.detections::toString);
		for (fiji.cuda.ncc.Detection d : out.detections) {
			assertEquals(at[d.plane][0], d.x, out.detections::toString);
			assertEquals(at[d.plane][1], d.y, out.detections::toString);
		}
	}

	@Test
	void anImageThatIsItsOwnTemplateNumbersItAsTheSliceItWasCutFrom() {
		// cut from slice 2, it was listed as Template 1, which read as cut from slice 1
		ImagePlus image = noise("8-bit", 60, 50, 3, 52);
		ImagePlus cell = noise("8-bit", 12, 12, 1, 53);
		plant(image, 2, cell.getProcessor(), 30, 20);
		image.setSlice(2);
		image.setRoi(new Roi(30, 20, 12, 12));
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.threshold = 0.99;
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, image, s, CPU);
		assertEquals(1, out.detections.size(), out.detections::toString);
		assertEquals(30, out.detections.get(0).x);
		assertEquals(2, out.table.getValue("Template", 0), 0);
		assertEquals(2, out.table.getValue("Slice", 0), 0);
	}

	@Test
	void aRunRightAfterOneWithAScoreMapSearchesTheImageNotTheMapAndTheMapsTitlesDiffer() throws Exception {
		// the map is in front after such a run: the next dialog offered it as the Image, and a
		// second map of the image took the first's title, which selectImage then found
		Display.required();
		ImagePlus scene = noise("8-bit", 100, 80, 1, 60);
		ImagePlus cell = noise("8-bit", 15, 15, 1, 61);
		plant(scene, 1, cell.getProcessor(), 30, 20);
		scene.setTitle("scene");
		cell.setTitle("cell");
		scene.show();
		cell.show();
		java.util.function.BooleanSupplier reset = IjBridge.resultsReset;
		IjBridge.resultsReset = () -> true;
		boolean map = TemplateMatchingPlugin.LAST.scoreMap;
		try {
			Runnable menu = () -> new TemplateMatchingPlugin().run("");
			String command = "GPU Template Matching...";
			Interactive.run(command, scene, menu, "+Score map", "OK");
			ImagePlus first = ij.WindowManager.getImage("Score map of scene");
			assertTrue(first != null, "no score map");
			String recorded = Interactive.recorded(() -> Interactive.run(command, first, menu, "OK"));
			assertTrue(recorded.contains("image=scene "), recorded);
			assertEquals("scene", ij.measure.ResultsTable.getResultsTable().getStringValue("Image", 0));
			java.util.List<String> maps = new java.util.ArrayList<>();
			for (int id : ij.WindowManager.getIDList())
				if (ij.WindowManager.getImage(id).getTitle().startsWith("Score map of")) maps.add(
					ij.WindowManager.getImage(id).getTitle());
			assertEquals(java.util.List.of("Score map of scene", "Score map of scene-1"), maps);
		} finally {
			IjBridge.resultsReset = reset;
			TemplateMatchingPlugin.LAST.scoreMap = map;
			for (int id : ij.WindowManager.getIDList() == null ? new int[0] : ij.WindowManager.getIDList()) {
				ImagePlus imp = ij.WindowManager.getImage(id);
				if (imp != null && imp.getTitle().startsWith("Score map")) {
					imp.changes = false;
					imp.close();
				}
			}
			closeAll(ij.plugin.frame.RoiManager.getInstance(), scene, cell);
		}
	}

	static void closeAll(ij.plugin.frame.RoiManager rm, ImagePlus... images) {
		for (ImagePlus imp : images)
			if (imp != null) {
				imp.changes = false;
				imp.close();
			}
		if (rm != null) {
			rm.reset();
			rm.close();
		}
		java.awt.Window results = ij.WindowManager.getWindow("Results");
		if (results instanceof ij.text.TextWindow) ((ij.text.TextWindow) results).close(false);
	}

	/** Shows an outcome as the command does; {@code rm} is the ROI Manager's window, which it uses. */
	@Test
	void theMatchesOfAScriptsImageWithoutAWindowGoOnceItIsCollected() throws Exception {
		// a script's IJ.openImage images have no window, and their matches stayed in the manager
		// for good: 10,000 entries more every 1000 images, each run slower than the one before
		Display.required();
		ij.plugin.frame.RoiManager rm = new ij.plugin.frame.RoiManager();
		try {
			ImagePlus tpl = noise("8-bit", 9, 7, 1, 13);
			TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
			s.threshold = 0.99;
			java.lang.ref.WeakReference<ImagePlus> first = matchedWithoutAWindow(rm, tpl, s, 21);
			ImagePlus second = noise("8-bit", 60, 40, 1, 22);
			plant(second, 1, tpl.getProcessor(), 30, 30);
			// while the first image lives, a script may still look at its matches
			assertEquals(2, rm.getCount(), "the first image's two matches");
			for (int k = 0; k < 50 && first.get() != null; k++) {
				System.gc();
				Thread.sleep(20);
			}
			org.junit.jupiter.api.Assumptions.assumeTrue(first.get() == null, "the JVM did not collect the image");
			shownWith(rm, second, TemplateMatchingPlugin.run(second, tpl, s, CPU));
			assertEquals(1, rm.getCount(), "the collected image's matches stayed");
			assertEquals(1, TemplateMatchingResults.earlierMatches(rm, second).size());
		} finally {
			closeAll(rm);
		}
	}

	/** Matches a new image that is never shown, two planted copies, and drops it; @return a reference to it */
	private static java.lang.ref.WeakReference<ImagePlus> matchedWithoutAWindow(ij.plugin.frame.RoiManager rm,
		ImagePlus tpl, TemplateMatchingPlugin.Settings s, int seed)
	{
		ImagePlus image = noise("8-bit", 60, 40, 1, seed);
		plant(image, 1, tpl.getProcessor(), 5, 6);
		plant(image, 1, tpl.getProcessor(), 40, 20);
		shownWith(rm, image, TemplateMatchingPlugin.run(image, tpl, s, CPU));
		return new java.lang.ref.WeakReference<>(image);
	}

	private static void shownWith(ij.plugin.frame.RoiManager rm, ImagePlus image, TemplateMatchingPlugin.Outcome out) {
		assertEquals(rm, ij.plugin.frame.RoiManager.getInstance());
		TemplateMatchingResults.show(image, out);
	}

	@Test
	void everySliceIsSearchedAndTheTableHasEveryColumn() {
		ImagePlus image = noise("16-bit", 120, 90, 3, 1);
		ImagePlus tpl = noise("8-bit", 11, 7, 1, 2);
		plant(image, 1, tpl.getProcessor(), 10, 20);
		plant(image, 3, tpl.getProcessor(), 80, 60);
		plant(image, 3, tpl.getProcessor(), 30, 70);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.stack = true;
		s.scoreMap = true;
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, tpl, s, CPU);
		ResultsTable rt = out.table;
		assertEquals(3, rt.size(), () -> out.detections.toString());
		for (String h : new String[] {"Image", "Slice", "Template", "Angle", "Flip", "Score", "X", "Y", "Centre X",
			"Centre Y"})
			assertTrue(rt.columnExists(h), "no column " + h);
		assertEquals(1, rt.getValue("Slice", 0));
		assertEquals(10, rt.getValue("X", 0));
		assertEquals(20 + 3, rt.getValue("Centre Y", 0));
		assertEquals(image.getTitle(), rt.getStringValue("Image", 0));
		assertTrue(rt.getValue("Score", 2) > 0.99);
		assertEquals(3, rt.getValue("Slice", 2));
		assertEquals("Score map of " + image.getTitle(), out.scoreMap.getTitle());
		assertEquals(3, out.scoreMap.getStackSize());
		assertEquals(120 - 11 + 1, out.scoreMap.getWidth());
		assertEquals(1.0, out.scoreMap.getStack().getProcessor(1).getf(10, 20), 1e-6);
		// rows 1 and 2 are slice 3's copies, in either order
		assertEquals(java.util.Set.of(List.of(80, 60), List.of(30, 70)), java.util.Set.of(
			List.of((int) rt.getValue("X", 1), (int) rt.getValue("Y", 1)),
			List.of((int) rt.getValue("X", 2), (int) rt.getValue("Y", 2))), () -> out.detections.toString());
		// every slice's map, not only the first: against the formula computed the plain way
		for (int z = 0; z < 3; z++) {
			double[] want = fiji.cuda.ncc.NccReference.valid(ImagePlusPlanes.wrap(image), z, ImagePlusPlanes.wrap(tpl), 0,
				null);
			float[] got = (float[]) out.scoreMap.getStack().getPixels(z + 1);
			assertEquals(want.length, got.length, "map of slice " + (z + 1));
			for (int i = 0; i < want.length; i++)
				assertEquals(want[i], got[i], 1e-5, "map of slice " + (z + 1) + " at " + i);
		}
		s.sameSize = true;
		s.stack = false;
		image.setSlice(3);
		TemplateMatchingPlugin.Outcome same = TemplateMatchingPlugin.run(image, tpl, s, CPU);
		assertEquals(2, same.detections.size());
		assertEquals(120, same.scoreMap.getWidth());
		assertEquals(1.0, same.scoreMap.getProcessor().getf(80 + 5, 60 + 3), 1e-6);
	}

	@Test
	void aSelectionOnTheImageBoundsTheSearchAndOneOnTheTemplateMasksIt() {
		ImagePlus image = noise("32-bit", 100, 80, 1, 3);
		ImagePlus tpl = noise("8-bit", 15, 15, 1, 4);
		plant(image, 1, tpl.getProcessor(), 10, 10);
		plant(image, 1, tpl.getProcessor(), 70, 50);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		image.setRoi(new Roi(50, 40, 50, 40));
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, tpl, s, CPU);
		assertEquals(1, out.detections.size());
		assertEquals(70, out.detections.get(0).x);
		assertEquals(50, out.detections.get(0).y);
		// an oval on the template: garbage in its corners no longer matters
		image.deleteRoi();
		ImagePlus masked = tpl.duplicate();
		masked.getProcessor().setf(0, 0, 255 - masked.getProcessor().getf(0, 0));
		masked.getProcessor().setf(14, 14, 255 - masked.getProcessor().getf(14, 14));
		masked.setRoi(new OvalRoi(0, 0, 15, 15));
		out = TemplateMatchingPlugin.run(image, masked, s, CPU);
		assertEquals(2, out.detections.size());
		for (Detection d : out.detections)
			assertTrue(d.score > 0.999, d::toString);
		// the image as its own template: the selection is the template, the whole image is searched
		image.setRoi(new Roi(70, 50, 15, 15));
		TemplateMatchingPlugin.Outcome self = TemplateMatchingPlugin.run(image, image, s, CPU);
		assertEquals(2, self.detections.size(), self.detections::toString);
		assertNull(self.scoreMap);
	}

	@Test
	void badInputIsRefusedWithAMessage() {
		ImagePlus image = noise("8-bit", 30, 20, 1, 5);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, noise("8-bit", 31, 5, 1, 6), s, CPU));
		assertTrue(e.getMessage().contains("larger than the image"), e.getMessage());
		e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, IJ.createImage("rgb", "RGB black", 5, 5, 1), s, CPU));
		assertTrue(e.getMessage().contains("RGB"), e.getMessage());
		image.setRoi(new Roi(-20, -20, 10, 10));
		e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, noise("8-bit", 3, 3, 1, 7), s, CPU));
		assertTrue(e.getMessage().contains("no area"), e.getMessage());
		assertThrows(IllegalArgumentException.class, () -> TemplateMatchingPlugin.parseAngles("0 ninety"));
		assertEquals(3, TemplateMatchingPlugin.parseAngles("0, 90 180").length);
		assertEquals(2, TemplateMatchingPlugin.parseAngles("0; 22.5").length);
		// a decimal comma was read as two angles, 22 and 5, without a word
		assertEquals("Angles (degrees) must be numbers separated by spaces, not angles=[0 -22,5] "
			+ "('-22,5' has a decimal comma: write -22.5).", assertThrows(IllegalArgumentException.class,
				() -> TemplateMatchingPlugin.parseAngles("0 -22,5")).getMessage());
		assertEquals("Angles (degrees) must be numbers separated by spaces, not angles=22,5 ('22,5' could be 22.5 or "
			+ "the two angles 22 5: write the one meant).", assertThrows(IllegalArgumentException.class,
				() -> TemplateMatchingPlugin.parseAngles("22,5")).getMessage());
		// lists of commas stay lists
		assertEquals("[0.0, 90.0, 180.0, 270.0]", java.util.Arrays.toString(TemplateMatchingPlugin.parseAngles("0,90,180,270")));
		assertEquals("[0.0, -90.0, 45.0]", java.util.Arrays.toString(TemplateMatchingPlugin.parseAngles("0,-90 45")));
	}

	@Test
	void aTemplateLargerThanTheSearchSelectionIsReportedAsSuch() {
		// the message said "larger than the image (20x20)" of a 100x100 image: the selection's
		// size, called the image's, with no word of the selection
		ImagePlus image = noise("8-bit", 100, 100, 1, 30);
		image.setRoi(new Roi(10, 10, 20, 20));
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, noise("8-bit", 30, 10, 1, 31), s, CPU));
		assertEquals("The template (30x10) is larger than the search selection (20x20); enlarge the selection, "
			+ "or remove it to search the whole image.", e.getMessage());
		image.setRoi(new Roi(10, 10, 30, 20));
		s.angles = new double[] {0, 90};
		e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, noise("8-bit", 25, 8, 1, 32), s, CPU));
		assertEquals("The template rotated by 90 degrees (8x25) is larger than the search selection (30x20); enlarge "
			+ "the selection, or remove it to search the whole image.", e.getMessage());
		// a template that fits the selection is still matched, and the image keeps its selection
		s.angles = new double[] {0};
		TemplateMatchingPlugin.run(image, noise("8-bit", 25, 8, 1, 33), s, CPU);
		assertEquals(new java.awt.Rectangle(10, 10, 30, 20), image.getRoi().getBounds());
	}

	@Test
	void aFolderOfTemplatesOfDifferentSizesIsMatchedAndNamed(@TempDir Path dir) {
		ImagePlus image = noise("16-bit", 110, 90, 1, 8);
		ImagePlus a = noise("8-bit", 11, 7, 1, 9);
		ImagePlus b = noise("32-bit", 9, 13, 2, 10); // a stack: each slice is a template
		plant(image, 1, a.getProcessor(), 10, 20);
		plant(image, 1, b.getStack().getProcessor(2), 60, 40);
		ImageJProcess.save(b, dir.resolve("b.tiff"));
		ImageJProcess.save(a, dir.resolve("a.tif"));
		TemplateMatchingPlugin.NamedTemplates t = TemplateMatchingPlugin.folderTemplates(dir);
		assertEquals(List.of("a.tif", "b.tiff:1", "b.tiff:2"), t.names);
		assertEquals(9, t.templates.get(2).width());
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.threshold = 0.8;
		s.scoreMap = true;
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, t, s, CPU);
		ResultsTable rt = out.table;
		assertEquals(2, rt.size(), () -> out.detections.toString());
		assertEquals("a.tif", rt.getStringValue("Template", 0));
		assertEquals("b.tiff:2", rt.getStringValue("Template", 1));
		assertEquals(10, rt.getValue("X", 0));
		assertEquals(20, rt.getValue("Y", 0));
		assertEquals(60, rt.getValue("X", 1));
		assertEquals(40, rt.getValue("Y", 1));
		assertEquals(9, rt.getValue("Width", 1));
		assertEquals(13, rt.getValue("Height", 1));
		// the sizes differ, so the score map has the image's size; each slice names its file
		assertEquals(110, out.scoreMap.getWidth());
		assertEquals(3, out.scoreMap.getStackSize());
		assertEquals("slice 1, b.tiff:2", out.scoreMap.getStack().getSliceLabel(3));
	}

	@Test
	void aTemplateTooLargeIsRefusedAtTheFirstAngleThatFailsAndAFolderFileByItsName(@TempDir Path dir) {
		// with angles 0 and 90, a template too wide as it is was refused for its 90-degree copy,
		// "leave that angle out", which only led to the same refusal at 0
		ImagePlus image = noise("8-bit", 30, 20, 1, 50);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.angles = new double[] {0, 90};
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, noise("8-bit", 40, 10, 1, 51), s, CPU));
		assertEquals("Template Matching: the template (40x10) is larger than the image (30x20); use a smaller template, "
			+ "or a smaller selection on it.", e.getMessage());
		// a folder's file too large was given by its size alone, not by which file it was
		ImageJProcess.save(noise("8-bit", 5, 5, 1, 52), dir.resolve("a.tif"));
		ImageJProcess.save(noise("8-bit", 40, 10, 1, 53), dir.resolve("big.tif"));
		TemplateMatchingPlugin.NamedTemplates t = TemplateMatchingPlugin.folderTemplates(dir);
		s.angles = new double[] {90, 0};
		e = assertThrows(IllegalArgumentException.class, () -> TemplateMatchingPlugin.run(image, t, s, CPU));
		assertEquals("Template Matching: the template 'big.tif' rotated by 90 degrees (10x40) is larger than the image "
			+ "(30x20); leave that angle out, or use a smaller template.", e.getMessage());
		s.angles = new double[] {0};
		e = assertThrows(IllegalArgumentException.class, () -> TemplateMatchingPlugin.run(image, t, s, CPU));
		assertEquals("Template Matching: the template 'big.tif' (40x10) is larger than the image (30x20); use a smaller "
			+ "template, or a smaller selection on it.", e.getMessage());
		// and one that fits the image but not the search selection
		Path other = dir.resolve("other");
		assertTrue(other.toFile().mkdir());
		ImageJProcess.save(noise("8-bit", 5, 5, 1, 54), other.resolve("a.tif"));
		ImageJProcess.save(noise("8-bit", 25, 10, 1, 55), other.resolve("wide.tif"));
		TemplateMatchingPlugin.NamedTemplates u = TemplateMatchingPlugin.folderTemplates(other);
		image.setRoi(new Roi(0, 0, 20, 20));
		e = assertThrows(IllegalArgumentException.class, () -> TemplateMatchingPlugin.run(image, u, s, CPU));
		assertEquals("The template 'wide.tif' (25x10) is larger than the search selection (20x20); enlarge the "
			+ "selection, or remove it to search the whole image.", e.getMessage());
	}

	@Test
	void aSelectionSavedWithATemplateFileCutsAndMasksItInAFolderAsOnTheTemplateImage(@TempDir Path dir) {
		// the folder ignored the oval the Opener restores: the corners outside it, garbage in the
		// file, counted, and the copies planted in the image scored well below 1
		ImagePlus image = noise("8-bit", 100, 80, 1, 30);
		ImagePlus tpl = noise("8-bit", 15, 15, 1, 31);
		plant(image, 1, tpl.getProcessor(), 10, 10);
		plant(image, 1, tpl.getProcessor(), 70, 50);
		ImagePlus file = tpl.duplicate();
		file.getProcessor().setf(0, 0, 255 - file.getProcessor().getf(0, 0));
		file.getProcessor().setf(14, 14, 255 - file.getProcessor().getf(14, 14));
		file.setRoi(new OvalRoi(0, 0, 15, 15));
		ImageJProcess.save(file, dir.resolve("cell.tif"));
		// a rectangle cuts: this file's template is the 5x4 block at 3, 6
		ImagePlus part = tpl.duplicate();
		part.setRoi(new Roi(3, 6, 5, 4));
		ImageJProcess.save(part, dir.resolve("part.tif"));
		TemplateMatchingPlugin.NamedTemplates t = TemplateMatchingPlugin.folderTemplates(dir);
		assertEquals(List.of("cell.tif", "part.tif"), t.names);
		assertEquals(5, t.templates.get(1).width());
		assertEquals(4, t.templates.get(1).height());
		assertEquals(1, t.templates.get(1).index);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.threshold = 0.999;
		s.nms = 1; // the block lies inside each oval's box: both are listed
		TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(image, t, s, CPU);
		assertEquals(4, out.detections.size(), out.detections::toString);
		for (Detection d : out.detections)
			assertEquals(d.template == 0 ? List.of(15, 15) : List.of(5, 4), List.of(d.width, d.height), d::toString);
		assertEquals(2, out.detections.stream().filter(d -> d.template == 0 && (d.x == 10 && d.y == 10 || d.x == 70
			&& d.y == 50)).count(), out.detections::toString);
		assertEquals(2, out.detections.stream().filter(d -> d.template == 1 && (d.x == 13 && d.y == 16 || d.x == 73
			&& d.y == 56)).count(), out.detections::toString);
		// a saved selection that masks out every pixel left names the file
		ImagePlus outside = tpl.duplicate();
		outside.setRoi(new OvalRoi(20, 20, 10, 10));
		ImageJProcess.save(outside, dir.resolve("bad.tif"));
		String msg = assertThrows(IllegalArgumentException.class, () -> TemplateMatchingPlugin.folderTemplates(dir))
			.getMessage();
		assertEquals("The template 'bad.tif' in '" + dir + "' (template): The selection of the template \"bad.tif\" lies "
			+ "outside it; select a part of the template, or none for all of it.", msg);
	}

	@Test
	void theNoteOnTemplatesOfDifferentSizesIsSaidOncePerSessionNotForEveryImageOfABatch() {
		// a batch of 1000 images matched with score_map against templates of two sizes wrote it 1000 times
		ImagePlus tpl = IJ.createImage("two sizes", "8-bit black", 9, 9, 1);
		tpl.setRoi(new OvalRoi(0, 0, 9, 7)); // cut to 9x7 and masked: with a 90 degree turn, 7x9
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.scoreMap = true;
		s.angles = new double[] {0, 90};
		TemplateMatchingResults.sizesNoted = false;
		String log = LocalThresholdPluginTest.log(() -> {
			for (long seed = 0; seed < 3; seed++) {
				TemplateMatchingPlugin.Outcome out = TemplateMatchingPlugin.run(noise("8-bit", 40, 30, 1, seed), tpl, s, CPU);
				assertEquals(40, out.scoreMap.getWidth(), "the image's size");
			}
		});
		assertEquals(1, log.split("the templates differ in size", -1).length - 1, log);
		assertTrue(log.contains("said once per session"), log);
	}

	@Test
	void aBadTemplateFolderIsRefusedWithAMessage(@TempDir Path dir) throws Exception {
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.folderTemplates(dir.resolve("missing")));
		assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
		Files.writeString(dir.resolve("notes.txt"), "no image");
		ImageJProcess.save(noise("8-bit", 5, 5, 1, 11), dir.resolve(".hidden.tif"));
		e = assertThrows(IllegalArgumentException.class, () -> TemplateMatchingPlugin.folderTemplates(dir));
		assertTrue(e.getMessage().contains("holds no .tif or .tiff image"), e.getMessage());
		e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.folderTemplates(dir.resolve(".hidden.tif")));
		assertTrue(e.getMessage().contains("is a file, not a folder"), e.getMessage());
		Files.writeString(dir.resolve("broken.tif"), "not a tiff");
		e = assertThrows(IllegalArgumentException.class, () -> TemplateMatchingPlugin.folderTemplates(dir));
		assertTrue(e.getMessage().contains("'broken.tif'"), e.getMessage());
		assertFalse(e.getMessage().contains("Exception"), e.getMessage());
	}

	@Test
	void theScoreMapHasTheImagesPixelSizeAndItsPixelsLieOverTheSearchedOnes() {
		// the score map came out uncalibrated, in pixels, though its pixels are the image's
		ImagePlus image = noise("16-bit", 120, 90, 1, 5);
		ij.measure.Calibration cal = image.getCalibration();
		cal.pixelWidth = 0.5;
		cal.pixelHeight = 0.25;
		cal.setUnit("um");
		cal.xOrigin = 3;
		cal.setFunction(ij.measure.Calibration.STRAIGHT_LINE, new double[] {0, 2}, "OD");
		ImagePlus tpl = noise("8-bit", 11, 7, 1, 6);
		plant(image, 1, tpl.getProcessor(), 40, 30);
		image.setRoi(20, 10, 60, 50);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.scoreMap = true;
		for (boolean same : new boolean[] {false, true}) {
			s.sameSize = same;
			ij.measure.Calibration map = TemplateMatchingPlugin.run(image, tpl, s, CPU).scoreMap.getCalibration();
			assertEquals(0.5, map.pixelWidth);
			assertEquals(0.25, map.pixelHeight);
			assertEquals(cal.getUnit(), map.getUnit());
			assertFalse(map.calibrated(), "the scores are no grey values of the image");
			// map pixel (0, 0) is image pixel (20, 10): the window's corner, or with same_size its centre
			assertEquals(cal.getX(20), map.getX(0), 1e-12);
			assertEquals(cal.getY(10), map.getY(0), 1e-12);
		}
	}

	@Test
	void theMatchesOfAnImageOfChannelsAloneGoOnTheirChannel() {
		// a composite of 3 channels has three dimensions, so it is no "hyperstack", and its
		// rectangles got plain positions; ImageJ draws any image of several channels as a
		// hyperstack, where a plain position 2 is frame 2: the matches of channels 2 and 3 never showed
		ImagePlus channels = IJ.createImage("c", "8-bit composite-mode black", 20, 20, 3, 1, 1);
		assertTrue(channels.isComposite() && !channels.isHyperStack());
		for (int plane = 0; plane < 3; plane++) {
			Roi r = new Roi(1, 1, 5, 5);
			TemplateMatchingResults.placeOn(r, channels, plane);
			assertEquals(plane + 1, r.getCPosition(), "plane " + plane);
			assertEquals(1, r.getZPosition());
			assertEquals(1, r.getTPosition());
		}
		// a time series of one channel is drawn as a plain stack: a plain position is its frame
		ImagePlus series = IJ.createImage("t", "8-bit black", 20, 20, 1, 1, 4);
		Roi q = new Roi(1, 1, 5, 5);
		TemplateMatchingResults.placeOn(q, series, 2);
		assertEquals(3, q.getPosition());
	}

	@Test
	void theDetectionsOfAHyperstackSayTheirChannelZAndFrame() {
		// Slice alone was the plane's index in the stack: c2 z2 t2 of 2x3x2 read as slice 10
		ImagePlus tpl = noise("8-bit", 7, 6, 1, 24);
		ResultsTable rt = matchesInAHyperstack(23, tpl, new int[] { 10, 12, 9 });
		assertEquals(1, rt.size());
		assertEquals(List.of(10.0, 2.0, 2.0, 2.0), List.of(rt.getValue("Slice", 0), rt.getValue("Channel", 0),
			rt.getValue("Z", 0), rt.getValue("Frame", 0)));
		// a plain stack has no such columns
		ImagePlus plain = noise("8-bit", 40, 30, 3, 25);
		plant(plain, 2, tpl.getProcessor(), 12, 9);
		rt = TemplateMatchingPlugin.run(plain, tpl, everySliceAbove99(), CPU).table;
		assertEquals(2, rt.getValue("Slice", 0));
		assertFalse(rt.columnExists("Channel"));
	}

	@Test
	void theDetectionsOfATimeSeriesSayTheirFrame() {
		// a time series of one channel is no "hyperstack" to ImageJ (three dimensions), yet its
		// slices are frames: its rows carry Channel, Z and Frame as a hyperstack's do. A mutation
		// test found that giving those columns to hyperstacks only passed every test
		ImagePlus tpl = noise("8-bit", 7, 6, 1, 90);
		ImagePlus series = noise("8-bit", 40, 30, 4, 91);
		series.setDimensions(1, 1, 4);
		assertFalse(series.isHyperStack(), "the test image");
		plant(series, 3, tpl.getProcessor(), 12, 9);
		ResultsTable rt = TemplateMatchingPlugin.run(series, tpl, everySliceAbove99(), CPU).table;
		assertEquals(1, rt.size());
		assertEquals(List.of(3.0, 1.0, 1.0, 3.0), List.of(rt.getValue("Slice", 0), rt.getValue("Channel", 0),
			rt.getValue("Z", 0), rt.getValue("Frame", 0)));
	}

	@Test
	void theScoreMapShowsScoresFromMinusOneToOne() {
		// scores lie between -1 and 1 whatever the image's values: the map shows that range, so
		// that a weak best match does not look as bright as a perfect one, nor one map's grey another
		// map's. A mutation test found that the map's own minimum and maximum passed every test
		ImagePlus image = noise("16-bit", 60, 40, 2, 92);
		ImagePlus tpl = noise("8-bit", 9, 7, 1, 93);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.scoreMap = true;
		for (boolean stack : new boolean[] { false, true }) {
			s.stack = stack;
			ImagePlus map = TemplateMatchingPlugin.run(image, tpl, s, CPU).scoreMap;
			assertEquals(-1, map.getDisplayRangeMin(), "stack " + stack);
			assertEquals(1, map.getDisplayRangeMax(), "stack " + stack);
		}
	}

	@Test
	void nanOutsideTheTemplatesSelectionIsLeftOutNotRefused() {
		// the refusal of a template with NaN pixels says to leave them out with a selection: NaN
		// outside the selection must then be matched as the selection's template. A mutation test
		// found that refusing it all the same passed every test
		ImagePlus image = noise("32-bit", 60, 50, 1, 94), tpl = noise("32-bit", 12, 12, 1, 95);
		tpl.getProcessor().setf(0, 0, Float.NaN); // a corner outside the oval
		plant(image, 1, tpl.getProcessor(), 30, 20);
		image.getProcessor().setf(30, 20, 5); // where the corner lies: NaN in the image would be matched over
		tpl.setRoi(new OvalRoi(0, 0, 12, 12));
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.threshold = 0.99;
		List<Detection> found = TemplateMatchingPlugin.run(image, tpl, s, CPU).detections;
		assertEquals(1, found.size(), String.valueOf(found));
		assertEquals(30, found.get(0).x);
		assertEquals(20, found.get(0).y);
	}

	@Test
	void theZAndFrameOfAHyperstackDetectionAreEachTheirOwn() {
		// theDetectionsOfAHyperstackSayTheirChannelZAndFrame plants at c2 z2 t2, where Z and Frame
		// agree: here c2 z3 t1 (stack index 6) and c1 z1 t2 (7) of 2x3x2 (mutant: the Z and
		// Frame columns taken from each other's place in the position)
		ResultsTable rt = matchesInAHyperstack(28, noise("8-bit", 7, 6, 1, 29), new int[] { 6, 12, 9 },
			new int[] { 7, 20, 15 });
		assertEquals(2, rt.size());
		for (int row = 0; row < 2; row++) {
			List<Double> want = rt.getValue("Slice", row) == 6 ? List.of(6.0, 2.0, 3.0, 1.0, 12.0)
				: List.of(7.0, 1.0, 1.0, 2.0, 20.0);
			assertEquals(want, List.of(rt.getValue("Slice", row), rt.getValue("Channel", row), rt.getValue("Z", row),
				rt.getValue("Frame", row), rt.getValue("X", row)), "row " + row);
		}
	}

	/** @return a new, empty ROI Manager, any one shown before closed */
	private static ij.plugin.frame.RoiManager freshRoiManager() {
		if (ij.plugin.frame.RoiManager.getInstance() != null) ij.plugin.frame.RoiManager.getInstance().close();
		return new ij.plugin.frame.RoiManager();
	}

	/** @return whole-stack matching with a threshold of 0.99 */
	private static TemplateMatchingPlugin.Settings everySliceAbove99() {
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.stack = true;
		s.threshold = 0.99;
		return s;
	}

	/**
	 * @param plants {stack index, x, y} of each copy of the template planted in a 2x3x2 8-bit
	 *               hyperstack of noise
	 * @return the detections of the whole hyperstack on the CPU
	 */
	private static ResultsTable matchesInAHyperstack(long seed, ImagePlus tpl, int[]... plants) {
		ImagePlus hyper = noise("8-bit", 40, 30, 12, seed);
		hyper.setDimensions(2, 3, 2);
		hyper.setOpenAsHyperStack(true);
		for (int[] p : plants)
			plant(hyper, p[0], tpl.getProcessor(), p[1], p[2]);
		return TemplateMatchingPlugin.run(hyper, tpl, everySliceAbove99(), CPU).table;
	}

	@Test
	void theScoreMapOfAWholeHyperstackKeepsItsChannelsSlicesAndFrames() {
		// its maps were one z-series of 12 (or 24) slices, the channels, slices and frames to be
		// counted out from the slice labels
		ImagePlus hyper = noise("16-bit", 40, 30, 12, 21);
		hyper.setDimensions(2, 3, 2);
		hyper.setOpenAsHyperStack(true);
		hyper.getCalibration().pixelWidth = 0.5;
		ImagePlus tpl = noise("8-bit", 7, 7, 1, 22);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.scoreMap = true;
		s.stack = true;
		ImagePlus map = TemplateMatchingPlugin.run(hyper, tpl, s, CPU).scoreMap;
		assertArrayEquals(new int[] { 34, 24, 2, 3, 2 }, map.getDimensions());
		assertTrue(map.isHyperStack());
		assertEquals(0.5, map.getCalibration().pixelWidth);
		assertEquals("slice 4, template", map.getStack().getSliceLabel(4));
		// two rotations: each channel twice, as the integral images give each channel two tables
		s.angles = new double[] { 0, 90 };
		assertArrayEquals(new int[] { 34, 24, 4, 3, 2 }, TemplateMatchingPlugin.run(hyper, tpl, s, CPU).scoreMap.getDimensions());
		// the current plane alone stays a plain stack; a plain z-stack's maps of each slice are
		// channels (they made twice the slices, interleaved, at the stack's slice spacing)
		s.stack = false;
		assertArrayEquals(new int[] { 34, 24, 1, 2, 1 }, TemplateMatchingPlugin.run(hyper, tpl, s, CPU).scoreMap.getDimensions());
		s.stack = true;
		ImagePlus zs = noise("8-bit", 40, 30, 3, 23);
		assertArrayEquals(new int[] { 34, 24, 2, 3, 1 }, TemplateMatchingPlugin.run(zs, tpl, s, CPU).scoreMap.getDimensions());
		s.angles = new double[] { 0 };
		assertArrayEquals(new int[] { 34, 24, 1, 3, 1 }, TemplateMatchingPlugin.run(zs, tpl, s, CPU).scoreMap.getDimensions());
	}

	@Test
	void aRotationLargerThanTheImageIsRefusedBeforeItsPixelsAreMade() {
		// a 65536x1 template at 45 degrees (a 46342x46342 box, past 2^31 pixels) failed with a
		// NegativeArraySizeException, and smaller boxes still larger than the image were made,
		// gigabytes of them, before the refusal
		ImagePlus image = noise("8-bit", 65536, 4, 1, 41), tpl = noise("8-bit", 65536, 1, 1, 42);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		s.angles = new double[] { 0, 45 };
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> TemplateMatchingPlugin.run(image, tpl, s, CPU));
		assertEquals("Template Matching: the template rotated by 45 degrees (46342x46342) is larger than the image "
			+ "(65536x4); leave that angle out, or use a smaller template.", e.getMessage());
		// and the operation itself, called with such a template, says so too
		fiji.cuda.ncc.Template t = new fiji.cuda.ncc.Template(ImagePlusPlanes.wrap(tpl), null, 0, 0, false);
		e = assertThrows(IllegalArgumentException.class, () -> t.rotated(45));
		assertTrue(e.getMessage().startsWith("Template Matching: the template rotated by 45 degrees would be "
			+ "46342x46342 pixels, more than an image can hold"), e.getMessage());
	}
}
