#!/usr/bin/env bash
# Builds and runs the standalone kernel experiments on the GPU machine in one go, each into its
# own file under the folder given (the device tool's $OUT), so that one device call measures
# them all. Each step has its own time limit; a failing step does not stop the others.
#
#   bash kernels/bench/run_experiments.sh "$OUT" [step ...]
#
# Steps (all when none is named):
#   sat        sat_check: the four summed-area-table builds, 332 checks, then the timings;
#              then the FUSED u8 timings with 2 and 3 blocks per SM (SAT_FUSED_MIN_BLOCKS_U8; 4 is the default)
#   imma       ncc_imma: exact tensor-core sums and scores, then the 4096^2 timings
#   gauss      gauss_tf32 (one row pass, CUDA cores against tensor cores) and gauss_tf32_2d
#   sanitize   memcheck and racecheck over `sat_check small` and `ncc_imma small`
set -u
out=${1:?usage: run_experiments.sh OUTDIR [step ...]}
shift
steps=${*:-sat imma gauss sanitize}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
arch=-arch=sm_90

build() {   # build NAME SOURCE [nvcc flags...]
	local name=$1 src=$2
	shift 2
	nvcc -O3 -std=c++17 $arch "$@" -o "/tmp/$name" "$src" > "$out/build_$name.txt" 2>&1 || echo "build of $name failed" >> "$out/summary.txt"
}

for step in $steps; do
	case $step in
	sat)
		build sat_check kernels/bench/sat_check.cu
		timeout 240 /tmp/sat_check > "$out/sat_check.txt" 2>&1; echo "sat_check rc $?" >> "$out/summary.txt"
		for mb in 2 3; do
			build "sat_check_mb$mb" kernels/bench/sat_check.cu -DSAT_FUSED_MIN_BLOCKS_U8=$mb
			timeout 120 "/tmp/sat_check_mb$mb" bench > "$out/sat_bench_mb$mb.txt" 2>&1
			echo "sat_check bench (u8 FUSED at $mb blocks per SM) rc $?" >> "$out/summary.txt"
		done
		;;
	imma)
		build ncc_imma kernels/bench/ncc_imma.cu
		timeout 120 /tmp/ncc_imma > "$out/ncc_imma.txt" 2>&1; echo "ncc_imma rc $?" >> "$out/summary.txt"
		;;
	gauss)
		build gauss_tf32 kernels/bench/gauss_tf32.cu
		timeout 120 /tmp/gauss_tf32 > "$out/gauss_tf32.txt" 2>&1; echo "gauss_tf32 rc $?" >> "$out/summary.txt"
		build gauss_tf32_2d kernels/bench/gauss_tf32_2d.cu
		timeout 120 /tmp/gauss_tf32_2d > "$out/gauss_tf32_2d.txt" 2>&1; echo "gauss_tf32_2d rc $?" >> "$out/summary.txt"
		;;
	sanitize)
		for tool in memcheck racecheck; do
			[ -x /tmp/sat_check ] || build sat_check kernels/bench/sat_check.cu
			timeout 150 compute-sanitizer --tool $tool /tmp/sat_check small > "$out/san_sat_$tool.txt" 2>&1
			echo "sat_check small under $tool rc $?" >> "$out/summary.txt"
			[ -x /tmp/ncc_imma ] || build ncc_imma kernels/bench/ncc_imma.cu
			timeout 100 compute-sanitizer --tool $tool /tmp/ncc_imma small > "$out/san_imma_$tool.txt" 2>&1
			echo "ncc_imma small under $tool rc $?" >> "$out/summary.txt"
		done
		;;
	*)
		echo "unknown step $step" >> "$out/summary.txt"
		;;
	esac
done
cat "$out/summary.txt"
