// Headless batch job: finds a template in every .tif/.tiff image of a folder with
// GPU Template Matching and writes all detections to one CSV table.
//   xvfb-run -a ImageJ -batch template_matching_folder.ijm "input=[/data/in] template=[/data/cell.tif] output=[/data/detections.csv] score_threshold=0.5 max_objects=20 nms=0.3"
// Optional: angles=[0 90 180 270] (rotated copies of the template) and flip (mirrored ones too).
// An area selection saved with the template image restricts (and masks) the template. The
// template file may be a stack of templates; the CSV's last columns say which template (its
// slice number), at which angle and whether mirrored (Flip 1) each detection matched.
arg = getArgument();
inDir = call("ij.Macro.getValue", arg, "input", "");
templatePath = call("ij.Macro.getValue", arg, "template", "");
output = call("ij.Macro.getValue", arg, "output", "");
threshold = call("ij.Macro.getValue", arg, "score_threshold", "0.5");
maxObjects = call("ij.Macro.getValue", arg, "max_objects", "20");
nms = call("ij.Macro.getValue", arg, "nms", "0.3");
// rotated copies of the template, e.g. angles=[0 90 180 270], and "flip" for mirrored ones too
angles = call("ij.Macro.getValue", arg, "angles", "0");
// ImageJ reads a value without brackets up to the first space: angles=0 270 gave 0 alone, and the
// turned copies were never searched, without a word
if (matches(" " + arg + " ", ".*\\sangles=[^\\[\\s]+\\s+[-+.0-9][^=\\s]*\\s.*"))
	exit("Several angles must be in brackets, as angles=[0 90 180 270]: without them only the first would be read");
flip = indexOf(" " + outsideBrackets(arg) + " ", " flip ") >= 0;
inDir = absolute(inDir);
templatePath = absolute(templatePath);
output = absolute(output);
if (inDir == "" || templatePath == "" || output == "")
	exit("Usage: input=[folder] template=[file] output=[file.csv] score_threshold=0.5 max_objects=20 nms=0.3");
if (!endsWith(inDir, File.separator)) inDir = inDir + File.separator;
// getFileList gives a missing folder no files, which read as a folder without images
if (!File.isDirectory(inDir))
	exit("The input folder " + inDir + " does not exist");
// Table.save into a folder that does not exist opens an error dialog, which nobody can close in
// batch mode: the folder is made now, before the work
outFolder = File.getParent(output);
if (outFolder != "null") {
	makeFolders(outFolder);
	if (!File.isDirectory(outFolder))
		exit("Could not create the folder " + outFolder + " for " + output);
}
// the same dialog, for an output that is a folder or a folder that takes no files: ImageJ hung
// after the work, with every detection lost
// (and one not there yet, given with a separator at the end, became a file of that name)
if (endsWith(output, "/") || endsWith(output, "\\") || File.isDirectory(output)) {
	folder = output;
	if (!endsWith(folder, "/") && !endsWith(folder, "\\"))
		folder = folder + File.separator;
	exit(output + " is a folder: give the CSV file to write, e.g. " + folder + "detections.csv");
}
setBatchMode(true);
checkWritable(output);
// ImageJ started with -batch loads its plug-ins at the first command it runs; call() below needs
// this plug-in's classes before that
List.setCommands;
List.clear();
// Table.save writes its text under any name: output= naming the template, or an image of the
// folder (template= and output= swapped, say), replaced that image with the table
lowerOutput = toLowerCase(output);
if (call("fiji.cuda.ij.TiffFiles.sameFile", output, templatePath) == "true")
	exit("The output " + output + " is the template, which the CSV would replace; give the CSV file to write, e.g. detections.csv");
if (endsWith(lowerOutput, ".tif") || endsWith(lowerOutput, ".tiff"))
	exit("The output " + output + " names a TIFF image, which the CSV would replace; give the CSV file to write, e.g. detections.csv");
start = getTime();
// the same check as for the images below: ImageJ's open() throws on a TIFF cut short in its header
if (call("fiji.cuda.ij.TiffFiles.readable", templatePath) != "true")
	exit("Could not open the template " + templatePath + ": the TIFF file is cut short");
opened = nImages;
open(templatePath);
// rename() with no image open would wait on a dialog
if (nImages == opened)
	exit("Could not open the template " + templatePath);
// an image of the folder with the template's file name would share its title: template= could
// then name that image, and closing it would close the template.
// Every image opened below has a title ending in .tif or .tiff; this one does not.
templateTitle = "Template";
rename(templateTitle);
templateId = getImageID();
// the template's size: its area selection's, if it has one, which is what the command matches
template = areaSize();
// the size of each turned copy of the template, as the command makes it: the bounding box of
// the turned rectangle
turns = split(angles, " ,;");
// an empty list is the upright template alone, as the command takes it
if (turns.length == 0)
	turns = newArray("0");
else if (turns.length == 1 && turns[0] == "")
	turns = newArray("0");
turnedWidth = newArray(turns.length);
turnedHeight = newArray(turns.length);
for (a = 0; a < turns.length; a++) {
	rad = parseFloat(turns[a]) * PI / 180;
	c = abs(snap(cos(rad)));
	s = abs(snap(sin(rad)));
	turnedWidth[a] = maxOf(1, -floor(-(template[0] * c + template[1] * s - 1e-6)));
	turnedHeight[a] = maxOf(1, -floor(-(template[0] * s + template[1] * c - 1e-6)));
}
Table.create("Detections");
files = getFileList(inDir);
images = 0;
row = 0;
skipped = 0;
for (i = 0; i < files.length; i++) {
	// copy the element first: ImageJ 1.54p fails concatenating array elements in some expressions
	name = files[i];
	lower = toLowerCase(name);
	// the template itself, if it lies in the folder, by what the file system calls the same file: the
	// macro language's != ignores letter case, and CELL.tif beside the template cell.tif was left
	// out without a word, while text compared with case kept the template where the file system
	// ignores case (Windows, macOS) and the two paths were spelt differently
	if ((endsWith(lower, ".tif") || endsWith(lower, ".tiff"))
		&& call("fiji.cuda.ij.TiffFiles.sameFile", inDir + name, templatePath) != "true") {
		// ImageJ's open() throws on a TIFF cut short in its header, which would end the macro
		// here with the rest of the folder undone: the plug-in's check reads the header first
		if (call("fiji.cuda.ij.TiffFiles.readable", inDir + name) != "true") {
			print("Skipped " + name + ": could not open it");
			skipped++;
			continue;
		}
		opened = nImages;
		open(inDir + name);
		// a file that does not open (not really a TIFF, cut short) is skipped: the template
		// would still be the current image, and be searched for itself under this file's name
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
		// nor can the template be found in an image (or in the area selection saved with it, which
		// bounds the search) smaller than itself, nor a turned copy in one smaller than that copy:
		// the command's error would stop the macro likewise. Only the angles asked for count: with
		// angles=[90] a tall template is searched for lying, and a wide image holds it
		searched = areaSize();
		tooSmall = "";
		for (a = 0; a < turns.length && tooSmall == ""; a++) {
			if (searched[0] < turnedWidth[a] || searched[1] < turnedHeight[a]) {
				tooSmall = "its " + searched[0] + "x" + searched[1] + " pixels are smaller than the ";
				if (turnedWidth[a] == template[0] && turnedHeight[a] == template[1])
					tooSmall = tooSmall + template[0] + "x" + template[1] + " template";
				else
					tooSmall = tooSmall + "template turned by " + turns[a] + " degrees (" + turnedWidth[a] + "x"
						+ turnedHeight[a] + ")";
			}
		}
		if (tooSmall != "") {
			print("Skipped " + name + ": " + tooSmall);
			close();
			skipped++;
			continue;
		}
		id = getImageID();
		// the image just opened is the current one, which the command searches when image= is
		// left out: a title given there was cut short by an unbalanced bracket in the file's name
		// ("scan[2.tif"), and the command's error stopped the macro before the CSV was written
		options = "template=[" + templateTitle + "] score_threshold=" + threshold
			+ " max_objects=" + maxObjects + " nms=" + nms + " angles=[" + angles + "] stack";
		if (flip) options = options + " flip";
		run("GPU Template Matching...", options);
		for (r = 0; r < nResults; r++) {
			Table.set("File", row, name, "Detections");
			Table.set("Slice", row, getResult("Slice", r), "Detections");
			Table.set("X", row, getResult("X", r), "Detections");
			Table.set("Y", row, getResult("Y", r), "Detections");
			Table.set("Centre X", row, getResult("Centre X", r), "Detections");
			Table.set("Centre Y", row, getResult("Centre Y", r), "Detections");
			// as text with 4 decimals, as the Results table shows it: saved, a number column takes
			// ImageJ's 3, and 0.9996 read 1.000
			Table.set("Score", row, d2s(getResult("Score", r), 4), "Detections");
			// which template of a stack of templates: last, so that the columns before keep their places
			Table.set("Template", row, getResult("Template", r), "Detections");
			Table.set("Angle", row, getResult("Angle", r), "Detections");
			Table.set("Flip", row, getResult("Flip", r), "Detections");
			row++;
		}
		// by its ID: close(title) closes every window of that title (and reads "*" as a wildcard)
		selectImage(id);
		close();
		images++;
	}
}
if (row == 0) {
	// a table without columns saves as an empty file: give the CSV its header line
	columns = newArray("File", "Slice", "X", "Y", "Centre X", "Centre Y", "Score", "Template", "Angle", "Flip");
	for (c = 0; c < columns.length; c++)
		Table.set(columns[c], 0, 0, "Detections");
	Table.deleteRows(0, 0, "Detections");
}
Table.save(output, "Detections");
// the template was opened here, so it is closed here too: in a Fiji session, or run by another
// macro folder after folder, each run left one more image open, shown when batch mode ended
selectImage(templateId);
close();
seconds = (getTime() - start) / 1000;
summary = "Found " + count(row, "object") + " in " + count(images, "image") + " from " + inDir + " in " + d2s(seconds, 1) + " s";
if (skipped > 0) summary = summary + "; skipped " + skipped + " (see above)";
print(summary);

// A relative path names a file or folder of the working directory, where File.*, open and saveAs
// look for it. Made absolute, every folder of it has a parent: File.getParent gives a relative
// path's first folder none (read as 0, not "null"), and makeFolders then never ended.
function absolute(path) {
	if (path == "" || startsWith(path, "/") || startsWith(path, "\\") || matches(path, "[A-Za-z]:.*"))
		return path;
	return getInfo("user.dir") + File.separator + path;
}

// The argument without its [bracketed] values: a path such as [/data/flip side/] must not read
// as the flag "flip".
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

// A cosine or sine within 1e-9 of a whole number is that number, as in the command, so that a
// quarter turn of a 40x20 template is 20x40, not 21x41.
function snap(v) {
	r = round(v);
	if (abs(v - r) < 1e-9) return r;
	return v;
}

// File.makeDirectory makes only the last folder of a path
function makeFolders(path) {
	if (path == "null" || File.isDirectory(path)) return;
	makeFolders(File.getParent(path));
	File.makeDirectory(path);
}

// The width and height of the current image's area selection clipped to the image (as the
// command clips it), or of the whole image when it has none (or a line or point selection).
function areaSize() {
	type = selectionType();
	if (type < 0 || (type > 4 && type != 9))
		return newArray(getWidth(), getHeight());
	getSelectionBounds(x, y, w, h);
	return newArray(minOf(x + w, getWidth()) - maxOf(x, 0), minOf(y + h, getHeight()) - maxOf(y, 0));
}

// Stops the macro, before any work, when no file can be saved in the folder of this path: a 1x1
// image is saved there under a fresh name, then deleted. Table.save into a folder that takes no
// files opens an error dialog, which nobody can close in batch mode.
function checkWritable(path) {
	probe = File.getDirectory(path) + ".fiji-cuda-probe-" + d2s(getTime(), 0) + ".tif";
	newImage("fiji-cuda-probe", "8-bit black", 1, 1, 1);
	saveAs("Tiff", probe);
	close();
	if (!File.exists(probe))
		exit("Cannot save files in the folder of " + path + "; nothing was matched");
	deleted = File.delete(probe); // assigned: alone, File.delete prints its result ("1") to the Log
}

// "1 image", "2 images"
function count(n, word) {
	if (n == 1) return "1 " + word;
	return "" + n + " " + word + "s";
}
