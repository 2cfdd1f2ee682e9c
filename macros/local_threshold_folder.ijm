// Headless batch job: GPU Local Threshold of every .tif/.tiff file of a folder (all slices),
// saving the 8-bit binary results under the same names in another folder.
//   xvfb-run -a ImageJ -batch local_threshold_folder.ijm "input=[/data/in] output=[/data/out] method=Sauvola radius=15"
// The window is the square of side 2*radius+1; parameter_1 and parameter_2 (0 = default) as in
// Auto Local Threshold.
arg = getArgument();
inDir = call("ij.Macro.getValue", arg, "input", "");
outDir = call("ij.Macro.getValue", arg, "output", "");
method = call("ij.Macro.getValue", arg, "method", "Sauvola");
radius = call("ij.Macro.getValue", arg, "radius", "15");
p1 = call("ij.Macro.getValue", arg, "parameter_1", "0");
p2 = call("ij.Macro.getValue", arg, "parameter_2", "0");
if (inDir == "" || outDir == "")
	exit("Usage: input=[folder] output=[folder] method=Sauvola radius=15 parameter_1=0 parameter_2=0");
inDir = absolute(inDir);
outDir = absolute(outDir);
if (!endsWith(inDir, File.separator)) inDir = inDir + File.separator;
// getFileList gives a missing folder no files, which read as a folder without images
if (!File.isDirectory(inDir))
	exit("The input folder " + inDir + " does not exist");
if (!endsWith(outDir, File.separator)) outDir = outDir + File.separator;
// the results keep the images' names: in the input folder they would replace the originals
// (compared with case: the macro language's == ignores it, and refused data/IN for data/in on Linux;
// where the file system ignores case, the save's own check below still catches the same folder)
if (sameText(replace(outDir, "\\", "/"), replace(inDir, "\\", "/")))
	exit("The output folder is the input folder, whose images the results would replace; choose another output folder");
makeFolders(outDir);
// otherwise every save fails, each with its own error, and the summary counts them as done
if (!File.isDirectory(outDir))
	exit("Could not create the output folder " + outDir);
setBatchMode(true);
// ImageJ started with -batch loads its plug-ins at the first command it runs; call() below needs
// this plug-in's classes before that
List.setCommands;
List.clear();
start = getTime();
files = getFileList(inDir);
n = 0;
skipped = 0;
failed = 0;
for (i = 0; i < files.length; i++) {
	// copy the element first: ImageJ 1.54p fails concatenating array elements in some expressions
	name = files[i];
	lower = toLowerCase(name);
	if (endsWith(lower, ".tif") || endsWith(lower, ".tiff")) {
		// ImageJ's open() throws on a TIFF cut short in its header, which would end the macro
		// here with the rest of the folder undone: the plug-in's check reads the header first
		if (call("fiji.cuda.ij.TiffFiles.readable", inDir + name) != "true") {
			print("Skipped " + name + ": could not open it");
			skipped++;
			continue;
		}
		opened = nImages;
		open(inDir + name);
		// a file that does not open (not really a TIFF, cut short) is skipped: the next command
		// would stop the macro with "There is no image open" and leave the rest of the folder
		if (nImages == opened) {
			print("Skipped " + name + ": could not open it");
			skipped++;
			continue;
		}
		// the command refuses RGB images, and its error would stop the macro with the rest of the
		// folder left undone
		if (bitDepth() == 24) {
			print("Skipped " + name + ": an RGB image (convert it to 8-bit or split its channels first)");
			close();
			skipped++;
			continue;
		}
		run("GPU Local Threshold...", "method=" + method + " radius=" + radius + " parameter_1=" + p1 + " parameter_2=" + p2 + " white stack");
		why = saveResult(inDir, outDir, name);
		close();
		if (why != "") {
			print("Not saved " + name + ": " + why);
			failed++;
			continue;
		}
		n++;
	}
}
seconds = (getTime() - start) / 1000;
summary = "Thresholded " + count(n, "image") + " (" + method + ", radius " + radius + ") from " + inDir + " to " + outDir + " in " + d2s(seconds, 1) + " s";
if (skipped > 0) summary = summary + "; skipped " + skipped + " (see above)";
if (failed > 0) summary = summary + "; " + failed + " not saved (see above)";
print(summary);

// A relative path names a folder of the working directory, where File.*, open and saveAs look
// for it. Made absolute, every folder of it has a parent: File.getParent gives a relative
// path's first folder none (read as 0, not "null"), and makeFolders then never ended.
function absolute(path) {
	if (startsWith(path, "/") || startsWith(path, "\\") || matches(path, "[A-Za-z]:.*"))
		return path;
	return getInfo("user.dir") + File.separator + path;
}

// File.makeDirectory makes only the last folder of a path
function makeFolders(path) {
	if (path == "null" || File.isDirectory(path)) return;
	makeFolders(File.getParent(path));
	File.makeDirectory(path);
}

// Saves the current image as a TIFF named exactly name in outDir; returns "" or why it did not.
// saveAs alone would rename A.TIF and A.tiff to A.tif, so two inputs could share one result,
// and it reports a failed save without stopping the macro. So the image goes to a fresh name
// first: that file appearing proves the save, and its absence from inDir proves the folders
// differ, however their paths are written (links, "..", letter case), before any original
// could be replaced.
function saveResult(inDir, outDir, name) {
	fresh = ".fiji-cuda-saving-" + d2s(getTime(), 0) + ".tif";
	saveAs("Tiff", outDir + fresh);
	if (!File.exists(outDir + fresh))
		return "could not save it in " + outDir;
	if (File.exists(inDir + fresh)) {
		deleted = File.delete(outDir + fresh); // assigned: alone, File.delete prints its result ("1") to the Log
		exit("The output folder " + outDir + " is the input folder " + inDir + ", whose images the results would replace; choose another output folder");
	}
	// Windows renames nothing over an existing file, such as an earlier run's result
	if (!File.rename(outDir + fresh, outDir + name) && File.exists(outDir + name))
		deleted = File.delete(outDir + name); // assigned: alone, File.delete prints its result ("1") to the Log
	if (File.exists(outDir + fresh) && !File.rename(outDir + fresh, outDir + name))
		return "saved as " + outDir + fresh + ", which could not be renamed";
	return "";
}

// Whether two texts are the same, letter case included (the macro language's == ignores case).
// Spelled out in ifs: a comparison after return gave 0 for equal texts, and one joined by && in
// the caller's if stopped the macro.
function sameText(s, t) {
	if (lengthOf(s) != lengthOf(t))
		return false;
	if (indexOf(s, t) != 0)
		return false;
	return true;
}

// "1 image", "2 images"
function count(n, word) {
	if (n == 1) return "1 " + word;
	return "" + n + " " + word + "s";
}
