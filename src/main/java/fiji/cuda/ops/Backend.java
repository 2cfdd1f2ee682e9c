package fiji.cuda.ops;

/** Where an operation runs. */
public enum Backend {
	/** The GPU when one is usable, else the CPU path, with one log line saying why. */
	AUTO,
	/** The GPU only; failing to use it is an error. For tests and benchmarks. */
	GPU,
	/** The multithreaded CPU path only. */
	CPU
}
