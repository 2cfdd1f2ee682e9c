// Shared by the standalone kernel checkers in kernels/bench/ (not part of the jar): the CUDA
// error check and the event timer, so every checker reports and times the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Exit with status 2 and the CUDA error's name on any failed runtime call.
#define CK(call)                                                                                \
	do {                                                                                        \
		cudaError_t e_ = (call);                                                                \
		if (e_ != cudaSuccess) {                                                                \
			std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, \
				__LINE__, cudaGetErrorString(e_));                                              \
			std::exit(2);                                                                       \
		}                                                                                       \
	} while (0)

// Median of 20 timed runs of launch() on the default stream, after one warm-up, in ms.
template <typename F>
static float medianMs(F launch) {
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	launch();  // warm-up
	CK(cudaDeviceSynchronize());
	std::vector<float> ms;
	for (int i = 0; i < 20; ++i) {
		CK(cudaEventRecord(a));
		launch();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		float t;
		CK(cudaEventElapsedTime(&t, a, b));
		ms.push_back(t);
	}
	CK(cudaGetLastError());
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	std::sort(ms.begin(), ms.end());
	return 0.5f * (ms[9] + ms[10]);
}

// 2R + 1 taps of a Gaussian of this sigma, normalised to sum 1 (the checkers' stand-in for
// ImageJ's kernel: the GPU and the CPU reference of a checker share them)
static std::vector<float> gaussianTaps(int R, double sigma) {
	std::vector<double> g(2 * R + 1);
	double sum = 0;
	for (int d = -R; d <= R; ++d) sum += (g[d + R] = std::exp(-0.5 * d * d / (sigma * sigma)));
	std::vector<float> w(2 * R + 1);
	for (int i = 0; i <= 2 * R; ++i) w[i] = (float)(g[i] / sum);
	return w;
}
