// GPU Gaussian Blur of the current image, every slice, as the macro recorder writes it.
// With no image open it opens the file given as "open=[path]", or makes a noisy test stack.
// Optional "save=[path]" saves the result as TIFF.
//   ImageJ -batch gaussian_blur.ijm "open=[/data/in.tif] save=[/data/out.tif]"
arg = getArgument();
input = call("ij.Macro.getValue", arg, "open", "");
output = call("ij.Macro.getValue", arg, "save", "");
if (input != "") {
	opened = nImages;
	open(input);
	// otherwise the test image below would be processed, and saved, in place of the file
	if (nImages == opened)
		exit("Could not open " + input);
}
if (nImages == 0) {
	newImage("Test", "16-bit ramp", 256, 256, 3);
	run("Add Specified Noise...", "stack standard=2000");
}
run("GPU Gaussian Blur...", "sigma=2 stack");
if (output != "")
	saveAs("Tiff", output);
print("GPU Gaussian Blur done: " + getTitle() + " (" + nSlices + " slices)");
