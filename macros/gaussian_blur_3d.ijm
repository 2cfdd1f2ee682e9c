// GPU Gaussian Blur 3D of the current image (per channel and frame of a hyperstack).
// With no image open it opens the file given as "open=[path]", or makes a noisy test stack.
// Optional "save=[path]" saves the result as TIFF.
//   ImageJ -batch gaussian_blur_3d.ijm "open=[/data/in.tif] save=[/data/out.tif]"
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
	newImage("Test", "8-bit ramp", 128, 128, 16);
	run("Add Specified Noise...", "stack standard=30");
}
run("GPU Gaussian Blur 3D...", "x=2 y=2 z=2");
if (output != "")
	saveAs("Tiff", output);
print("GPU Gaussian Blur 3D done: " + getTitle() + " (" + nSlices + " slices)");
