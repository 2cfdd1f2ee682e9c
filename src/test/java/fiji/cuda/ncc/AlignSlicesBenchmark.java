package fiji.cuda.ncc;

import static fiji.cuda.ncc.TemplateMatchingBenchmark.CPU;
import static fiji.cuda.ncc.TemplateMatchingBenchmark.GPU;
import static fiji.cuda.ncc.TemplateMatchingBenchmark.cut;
import static fiji.cuda.ncc.TemplateMatchingBenchmark.fmt;
import static fiji.cuda.ncc.TemplateMatchingBenchmark.millis;
import static fiji.cuda.ncc.TemplateMatchingBenchmark.random;
import static fiji.cuda.ncc.TemplateMatchingBenchmark.row;
import static fiji.cuda.ncc.TemplateMatchingBenchmark.typeName;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;

import fiji.cuda.BenchmarkArgs;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuException;
import fiji.cuda.runtime.HostBuffer;
import ij.ImagePlus;
import ij.ImageStack;

/**
 * Benchmark of "GPU Align Slices..." (not a test): prints, in the table of
 * {@link TemplateMatchingBenchmark} (whose timing and rows it shares), the one match Align Slices
 * makes per slice (a 128² landmark in its 168² search area) on the device, on the GPU and on the
 * CPU path, then Align Slices of drifting 8 and 16-bit 1024×1024×500 stacks end to end, GPU
 * (forced) against the CPU path, with the GPU's phases and the host copies alone above each row.
 * Run on the GPU machine with {@code .device/run java fiji.cuda.ncc.AlignSlicesBenchmark} and
 * record the table in docs/benchmarks.md. Locally: {@code mvn -q -B test-compile exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=fiji.cuda.ncc.AlignSlicesBenchmark
 * -Dexec.args=quick}. Where the GPU cannot be used at all, the GPU column says "no GPU".
 * <p>
 * Arguments: {@code quick} (50 slices), {@code nocpu} (GPU column only). Properties:
 * {@code -DalignTypes=u8} (or u16) for one stack only, {@code -DalignModes=false} to leave out
 * the slice-by-slice and previous-slice timings, {@code -DalignWarmups=N} for N warm-up runs
 * before the 5 timed ones (2 by default), and {@code -DalignGroups=4,8,...} for the grouped path
 * with at most that many slices per group.
 */
public final class AlignSlicesBenchmark {

	private AlignSlicesBenchmark() {}

	/** @param args {@code quick} and {@code nocpu}, in any order; see the class comment */
	public static void main(String[] args) {
		Set<String> given = BenchmarkArgs.of(args, "quick", "nocpu");
		boolean quick = given.contains("quick"), cpu = !given.contains("nocpu");
		TemplateMatchingBenchmark.printMachine();
		TemplateMatchingBenchmark.warmUp();
		double[] peaks = TemplateMatchingBenchmark.printPeaksAndHeader();
		// one match of Align Slices: the landmark in its search area
		for (String type : new String[] {"8-bit", "16-bit"}) {
			ImagePlus area = random(type, 168, 168, 1, 9);
			TemplateMatchingBenchmark.matchRow(area, List.of(cut(area, 128, 10)), typeName(type)
				+ " 168², template 128² (one Align Slices match)", 128, peaks, cpu);
		}
		// -DalignTypes=u8 or u16: one of the two stacks only
		String alignTypes = System.getProperty("alignTypes", "u8,u16");
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16 })
			if (alignTypes.contains(t == PixelType.UINT8 ? "u8" : "u16")) alignRow(t, 1024, 1024, quick ? 50 : 500, cpu);
		System.exit(0);
	}

	/**
	 * Align Slices of a drifting 8 or 16-bit stack to its first slice by a 128² landmark, margin
	 * 20, on the GPU and, when {@code timeCpu}, on the CPU path; the GPU's phases, the host copies
	 * alone and the other modes and group sizes the properties ask for are printed above the row.
	 */
	static void alignRow(PixelType type, int w, int h, int d, boolean timeCpu) {
		Random r = new Random(4);
		double[] sx = new double[d], sy = new double[d];
		for (int z = 1; z < d; z++) {
			sx[z] = Math.round((r.nextDouble() * 16 - 8) * 4) / 4.0;
			sy[z] = Math.round((r.nextDouble() * 16 - 8) * 4) / 4.0;
		}
		Planes drifting = DriftingStack.make(type, w, h, sx, sy, 5);
		ImageStack st = new ImageStack(w, h);
		for (int z = 0; z < d; z++)
			st.addSlice(null, drifting.plane(z));
		ImagePlus imp = new ImagePlus("drifting", st);
		AlignSlices.Settings s = new AlignSlices.Settings().landmark(w / 2 - 64, h / 2 - 64, 128, 128);
		// each run aligns a fresh copy, as a user's stack is aligned in place once; the copy is
		// made before the clock starts
		String gpuMs;
		try {
			gpuMs = fmt(alignMillis(imp, s, GPU));
		} catch (GpuException e) {
			gpuMs = "no GPU";
		}
		AlignSlicesGpu.phaseNanos = new long[10];
		try {
			Planes p = copy(imp);
			AlignSlices.align(p, s, GPU);
			long[] ph = AlignSlicesGpu.phaseNanos;
			System.out.printf("(one grouped alignment, timed, host thread ms: wait for staging %.1f, queue upload and "
				+ "start next fill %.1f, queue cut to translate %.1f, wait for copy out %.1f, queue down %.1f, wait for down %.1f, "
				+ "start copy out %.1f; device ms: cut + match + pick %.1f, translate %.1f)%n", ph[0] / 1e6, ph[1] / 1e6,
				ph[2] / 1e6, ph[3] / 1e6, ph[4] / 1e6, ph[5] / 1e6, ph[6] / 1e6, ph[8] / 1e6, ph[9] / 1e6);
		} catch (GpuException e) {
			// reported in the row
		} finally {
			AlignSlicesGpu.phaseNanos = null;
		}
		hostCopyFloor(imp);
		// -DalignGroups=4,8,16: the grouped path with at most that many slices per group
		for (String gs : System.getProperty("alignGroups", "").split(",")) {
			if (gs.isEmpty()) continue;
			AlignSlicesGpu.groupSlicesForTest = Integer.parseInt(gs.trim());
			try {
				System.out.printf("(groups of at most %s slices: %s ms)%n", gs, fmt(alignMillis(imp, s, GPU)));
			} catch (GpuException e) {
				System.out.println("(groups of " + gs + ": " + e.getMessage() + ")");
			} finally {
				AlignSlicesGpu.groupSlicesForTest = 0;
			}
		}
		// -DalignModes=false: not the slice-by-slice and previous-slice modes
		if (Boolean.parseBoolean(System.getProperty("alignModes", "true"))) try {
			AlignSlicesGpu.groupSlicesForTest = -1;
			double one = alignMillis(imp, s, GPU);
			AlignSlicesGpu.groupSlicesForTest = 0;
			s.previous = true;
			double previous = alignMillis(imp, s, GPU);
			s.previous = false;
			System.out.printf("(Align Slices on the GPU: in groups %s ms, one slice at a time %s ms, previous-slice mode %s ms)%n",
				gpuMs, fmt(one), fmt(previous));
		} catch (GpuException e) {
			// reported in the row
		} finally {
			AlignSlicesGpu.groupSlicesForTest = 0;
			s.previous = false;
		}
		String cpuMs = timeCpu ? fmt(alignMillis(imp, s, CPU)) : "skipped";
		row(String.format("Align Slices %s %dx%dx%d, landmark 128², margin %d", type == PixelType.UINT8 ? "u8" : "u16", w, h,
			d, s.margin),
			String.valueOf(d - 1), "", "", gpuMs, cpuMs);
	}

	/**
	 * Prints what the grouped alignment's host copies alone take: every slice into pinned
	 * staging and back out of it, 16 MiB at a time, the copy into one half overlapping the copy
	 * out of the other, as the pipeline does, with no device work (median of 5 after 2 warm-ups).
	 */
	static void hostCopyFloor(ImagePlus imp) {
		try {
			Planes p = copy(imp);
			long n = (long) p.width() * p.height(), slice = n * p.type().bytesPerPixel();
			for (boolean wc : new boolean[] { false, true }) {
				double[] t = Gpu.get().run("benchmark", g -> {
					long half = g.stagingBytes() / 2;
					int group = (int) Math.max(1, half / slice), groups = (p.depth() + group - 1) / group;
					// the up side in write-combined pinned memory: no cache line read before it is written
					HostBuffer wcUp = wc ? g.pinned(2 * half, true) : null;
					HostBuffer up = wc ? wcUp : g.stagingBuffer(0), down = g.stagingBuffer(1);
					double[] ms = new double[7];
					for (int r = 0; r < ms.length; r++) {
						long t0 = System.nanoTime();
						HostBuffer.Copy out = null;
						for (int k = 0; k < groups; k++) {
							Object[] planes = new Object[Math.min(group, p.depth() - k * group)];
							for (int i = 0; i < planes.length; i++)
								planes[i] = p.plane(k * group + i);
							HostBuffer.Copy in = up.view((k & 1) * half, half).fillAsync(planes, n);
							if (out != null) out.await();
							out = down.view((k & 1) * half, half).drainAsync(planes, n);
							in.await();
						}
						if (out != null) out.await();
						ms[r] = (System.nanoTime() - t0) / 1e6;
					}
					if (wcUp != null) wcUp.close();
					return ms;
				});
				double[] timed = Arrays.copyOfRange(t, 2, t.length);
				Arrays.sort(timed);
				System.out.printf("(host copies alone, every slice into staging%s and out, in groups: %s ms; runs %s)%n",
					wc ? " (write-combined)" : "", fmt(timed[timed.length / 2]), Arrays.toString(t));
			}
		} catch (GpuException e) {
			System.out.println("(host copies alone: " + e.getMessage() + ")");
		}
	}

	/** @return the median of 5 alignments of fresh copies, after two warm-ups */
	static double alignMillis(ImagePlus imp, AlignSlices.Settings s, ExecutionOptions opts) {
		// -DalignWarmups=N: more warm-up runs before the 5 timed ones
		double[] t = new double[5 + Integer.getInteger("alignWarmups", 2)];
		for (int i = 0; i < t.length; i++) {
			Planes p = copy(imp);
			System.gc(); // the copies of earlier runs are collected now, not while the clock runs
			t[i] = millis(() -> AlignSlices.align(p, s, opts));
		}
		double[] timed = Arrays.copyOfRange(t, t.length - 5, t.length);
		Arrays.sort(timed);
		System.out.println("(alignment runs, ms, the first " + (t.length - 5) + " warm-ups: " + Arrays.toString(t) + ")");
		return timed[2];
	}

	static Planes copy(ImagePlus imp) {
		ImageStack st = imp.getStack();
		Object[] planes = new Object[st.getSize()];
		for (int z = 0; z < planes.length; z++)
			planes[z] = st.getPixels(z + 1) instanceof byte[] ? ((byte[]) st.getPixels(z + 1)).clone()
				: ((short[]) st.getPixels(z + 1)).clone();
		return Planes.wrap(st.getWidth(), st.getHeight(), planes);
	}
}
