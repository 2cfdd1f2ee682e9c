// GPU Integral Image of the current image, every slice: its summed-area tables (the sum of
// the pixels and the sum of their squares over the rectangle from the corner to each pixel),
// as a new 32-bit image whose channels are the two tables of each slice, sum first (each channel
// with its own display range, as the sums of squares are far larger). 32-bit holds every whole number only
// up to 2^24: the Log says so where a table passes it (the SciJava command gives exact 64-bit
// tables). Given "open=[path]" it opens that file; otherwise it takes the current image, or,
// with none open, makes a small test stack. Optional "table=[Sum]" (or "Sum of squares", or "Both", the default) and
// "save=[path]" (saved as TIFF).
//   ImageJ -batch integral_image.ijm "open=[/data/in.tif] table=Sum save=[/data/sum.tif]"
arg = getArgument();
input = call("ij.Macro.getValue", arg, "open", "");
output = call("ij.Macro.getValue", arg, "save", "");
output = absolute(output);
if (output != "")
	checkOutput(output);
table = call("ij.Macro.getValue", arg, "table", "Both");
if (input != "") {
	// ImageJ's open() throws on a TIFF cut short in its header, which a macro cannot catch, and
	// opens one cut short in its pixels incomplete: the plug-in's check reads the file first.
	// In a -batch run, call() finds the plug-in's classes only once its commands are loaded.
	List.setCommands;
	List.clear();
	// saved over the file it came from, the original would be gone: refused before the work,
	// however the two paths are written (a link, "..")
	if (output != "" && call("fiji.cuda.ij.TiffFiles.sameFile", absolute(input), output) == "true")
		exit("save=" + output + " is the file opened, which the result would replace; give another file to save");
	if (call("fiji.cuda.ij.TiffFiles.readable", input) != "true")
		exit("Could not open " + input + ": the TIFF file is cut short");
	opened = nImages;
	open(input);
	// otherwise the test image below would be processed, and saved, in place of the file
	if (nImages == opened)
		exit("Could not open " + input);
	sourceId = getImageID();
}
if (nImages == 0) {
	newImage("Test", "8-bit ramp", 64, 48, 2);
	run("Add Specified Noise...", "stack standard=20");
}
run("GPU Integral Image...", "table=[" + table + "] stack");
if (output != "")
	saveTiff(output);
print("GPU Integral Image done: " + getTitle() + " (" + nSlices + " slices, " + bitDepth() + "-bit)");
// given a file to open and one to save, it works file to file: what it opened and made is closed
if (input != "" && output != "")
	closeOpened(sourceId);

// Saves the current image as a TIFF under exactly this path, or stops the macro saying why.
// saveAs alone would rename A.TIF to A.tif, and it reports a failed save without stopping the
// macro, which then printed "done". The image goes to a fresh name beside the path first: that
// file appearing proves the save.
function saveTiff(path) {
	// a folder of that name was deleted when empty, and otherwise left the result under a hidden
	// name; one not there yet, given with a separator at the end, became a file of that name
	if (endsWith(path, "/") || endsWith(path, "\\") || File.isDirectory(path)) {
		folder = path;
		if (!endsWith(folder, "/") && !endsWith(folder, "\\"))
			folder = folder + File.separator;
		exit(path + " is a folder: give the name of the file to save, e.g. " + folder + "result.tif");
	}
	fresh = File.getDirectory(path) + ".fiji-cuda-saving-" + d2s(getTime(), 0) + ".tif";
	saveAs("Tiff", fresh);
	if (!File.exists(fresh))
		exit("Could not save " + path);
	// Windows renames nothing over an existing file
	if (!File.rename(fresh, path) && File.exists(path))
		deleted = File.delete(path); // assigned: alone, File.delete prints its result ("1") to the Log
	if (File.exists(fresh) && !File.rename(fresh, path))
		exit("Saved as " + fresh + ", which could not be renamed to " + path);
	rename(File.getName(path));
}

// Refuses, before any work, an output that names a folder, and makes the folder that will hold
// it: saved into a folder not there yet, the result was lost after the work.
function checkOutput(path) {
	if (endsWith(path, "/") || endsWith(path, "\\") || File.isDirectory(path)) {
		folder = path;
		if (!endsWith(folder, "/") && !endsWith(folder, "\\"))
			folder = folder + File.separator;
		exit(path + " is a folder: give the name of the file to save, e.g. " + folder + "result.tif");
	}
	folder = File.getParent(path);
	if (folder == "null") return;
	makeFolders(folder);
	if (!File.isDirectory(folder))
		exit("Could not create the folder " + folder + " for " + path);
}

// A relative path names a file or folder of the working directory, where File.*, open and saveAs
// look for it. Made absolute, every folder of it has a parent: File.getParent gives a relative
// path's first folder none (read as 0, not "null"), and makeFolders then never ended.
function absolute(path) {
	if (path == "" || startsWith(path, "/") || startsWith(path, "\\") || matches(path, "[A-Za-z]:.*"))
		return path;
	return getInfo("user.dir") + File.separator + path;
}

// File.makeDirectory makes only the last folder of a path
function makeFolders(path) {
	if (path == "null" || File.isDirectory(path)) return;
	makeFolders(File.getParent(path));
	File.makeDirectory(path);
}

// The current image, and the one opened, if that is another (the source of a new image), are
// closed. A batch-mode image still open when the macro ends is shown, and stays in memory: run
// file after file by another macro, each run left its images behind.
function closeOpened(sourceId) {
	close();
	if (isOpen(sourceId)) {
		selectImage(sourceId);
		close();
	}
}
