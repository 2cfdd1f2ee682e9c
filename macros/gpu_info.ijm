// Prints the CUDA devices, the driver and the self-check to the Log (in batch mode).
// An optional argument chooses where operations run, e.g. "use=[CPU only]" or "use=[GPU 0]".
arg = getArgument();
if (arg == "")
	run("GPU Info...");
else
	run("GPU Info...", arg);
