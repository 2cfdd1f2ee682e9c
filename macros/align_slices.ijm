// Headless batch job: aligns the slices of a stack with GPU Align Slices, saves the aligned
// stack and the shifts (Slice, dX, dY, Score) as a CSV table, and prints the shifts.
//   xvfb-run -a ImageJ -batch align_slices.ijm "input=[/data/drift.tif] output=[/data/aligned.tif] shifts=[/data/shifts.csv] x=100 y=80 width=64 height=64 margin=20 reference=1 interpolation=Bilinear"
// Without x/y/width/height, a rectangle saved with the stack (TIFF keeps the selection) is the landmark.
// Add "whole" for whole-pixel shifts, "previous" to compare each slice with its aligned neighbour.
arg = getArgument();
input = call("ij.Macro.getValue", arg, "input", "");
output = call("ij.Macro.getValue", arg, "output", "");
shiftsFile = call("ij.Macro.getValue", arg, "shifts", "");
x = call("ij.Macro.getValue", arg, "x", "");
y = call("ij.Macro.getValue", arg, "y", "");
width = call("ij.Macro.getValue", arg, "width", "");
height = call("ij.Macro.getValue", arg, "height", "");
margin = call("ij.Macro.getValue", arg, "margin", "20");
reference = call("ij.Macro.getValue", arg, "reference", "1");
interpolation = call("ij.Macro.getValue", arg, "interpolation", "Bilinear");
input = absolute(input);
output = absolute(output);
shiftsFile = absolute(shiftsFile);
if (input == "" || output == "")
	exit("Usage: input=[stack.tif] output=[aligned.tif] shifts=[shifts.csv] x= y= width= height= margin=20 reference=1 interpolation=Bilinear");
// a stack or table saved into a missing folder stops the macro after the work, with the shifts
// lost: both folders are made now
makeFolderFor(output);
if (shiftsFile != "")
	makeFolderFor(shiftsFile);
setBatchMode(true);
// and both must take files: a folder that exists but is read-only stopped the macro after the
// work, with the aligned stack and the shifts lost
checkWritable(output);
if (shiftsFile != "")
	checkWritable(shiftsFile);
// ImageJ's open() throws on a TIFF cut short in its header, which a macro cannot catch, and
// opens one cut short in its pixels incomplete (slices missing): the plug-in's check reads it first.
// In a -batch run, call() finds the plug-in's classes only once its commands are loaded.
List.setCommands;
List.clear();
// the aligned stack saved over the input, or the shifts table over either, replaced that file
// without a word (the table even over the aligned stack just saved)
if (call("fiji.cuda.ij.TiffFiles.sameFile", input, output) == "true")
	exit("The output " + output + " is the input stack, which the aligned stack would replace; choose another output file");
if (shiftsFile != "") {
	if (call("fiji.cuda.ij.TiffFiles.sameFile", input, shiftsFile) == "true")
		exit("The shifts file " + shiftsFile + " is the input stack, which the table would replace; choose another shifts file");
	if (call("fiji.cuda.ij.TiffFiles.sameFile", output, shiftsFile) == "true")
		exit("The shifts file " + shiftsFile + " is the output, where the table would replace the aligned stack; choose another shifts file");
}
if (call("fiji.cuda.ij.TiffFiles.readable", input) != "true")
	exit("Could not open " + input + ": the TIFF file is cut short");
opened = nImages;
open(input);
if (nImages == opened)
	exit("Could not open " + input);
options = "reference=" + reference + " margin=" + margin + " interpolation=" + interpolation;
// each one given, so that the command can name those missing
keys = newArray("x", "y", "width", "height");
values = newArray(x, y, width, height);
for (i = 0; i < 4; i++)
	if (values[i] != "")
		options = options + " " + keys[i] + "=" + values[i];
flags = " " + outsideBrackets(arg) + " ";
if (indexOf(flags, " whole ") < 0)
	options = options + " subpixel";
if (indexOf(flags, " previous ") >= 0)
	options = options + " previous";
start = getTime();
run("GPU Align Slices...", options);
seconds = (getTime() - start) / 1000;
saveTiff(output);
for (i = 0; i < nResults; i++)
	print("Slice " + getResult("Slice", i) + ": dX=" + d2s(getResult("dX", i), 3) + " dY="
		+ d2s(getResult("dY", i), 3) + " score=" + d2s(getResult("Score", i), 4));
if (shiftsFile != "")
	saveShifts(shiftsFile);
print("Aligned " + nSlices + " slices of " + input + " in " + d2s(seconds, 1) + " s");
// opened here and saved, the stack is closed here: a batch-mode image still open when the macro
// ends is shown, and stays in memory, and run stack after stack by another macro, each run left
// one more behind
close();

// Saves the shifts as a table of their own: ImageJ saves its Results table with the row numbers
// first, in a column headed " ", which a script reading the columns by name then meets.
function saveShifts(path) {
	slices = Table.getColumn("Slice", "Results");
	dx = Table.getColumn("dX", "Results");
	dy = Table.getColumn("dY", "Results");
	scores = Table.getColumn("Score", "Results");
	Table.create("Shifts");
	Table.setColumn("Slice", slices, "Shifts");
	// as text with 4 decimals, as the Results table shows them: saved, a number column takes
	// ImageJ's 3, and a score of 0.9996 read 1.000
	for (i = 0; i < slices.length; i++) {
		Table.set("dX", i, d2s(dx[i], 4), "Shifts");
		Table.set("dY", i, d2s(dy[i], 4), "Shifts");
		Table.set("Score", i, d2s(scores[i], 4), "Shifts");
	}
	Table.save(path, "Shifts");
	close("Shifts");
}

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

// The argument without its [bracketed] values: a path such as [/data/the previous run/a.tif]
// must not read as the flag "previous".
function outsideBrackets(s) {
	// values as ij.Macro.getValue reads them: a [ or ' right after = opens one, brackets nest
	out = "";
	depth = 0;
	quoted = false;
	for (i = 0; i < lengthOf(s); i++) {
		c = substring(s, i, i + 1);
		opens = false;
		if (i > 0) {
			if (substring(s, i - 1, i) == "=")
				opens = true;
		}
		if (quoted) {
			if (c == "'") quoted = false;
		} else if (depth > 0) {
			if (c == "[") depth++;
			else if (c == "]") depth--;
		} else if (c == "[" && opens)
			depth = 1;
		else if (c == "'" && opens)
			quoted = true;
		else
			out = out + c;
	}
	return out;
}

// Stops the macro, before any work, when no file can be saved in the folder of this path: a
// 1x1 image is saved there under a fresh name, as saveTiff saves, then deleted.
function checkWritable(path) {
	// Table.save onto a folder opens an error dialog, which nobody can close in batch mode, and
	// saveTiff refuses one: the shifts or the aligned stack were lost after the work
	if (endsWith(path, "/") || endsWith(path, "\\") || File.isDirectory(path))
		exit(path + " is a folder, not a file to save; nothing was aligned");
	probe = File.getDirectory(path) + ".fiji-cuda-probe-" + d2s(getTime(), 0) + ".tif";
	newImage("fiji-cuda-probe", "8-bit black", 1, 1, 1);
	saveAs("Tiff", probe);
	close();
	if (!File.exists(probe))
		exit("Cannot save files in the folder of " + path + "; nothing was aligned");
	deleted = File.delete(probe); // assigned: alone, File.delete prints its result ("1") to the Log
}

// Makes the folder that will hold the file at path, or stops the macro saying why.
function makeFolderFor(path) {
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
