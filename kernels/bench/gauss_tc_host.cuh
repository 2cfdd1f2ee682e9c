// Host side shared by the tensor-core blur experiments (gauss_tf32.cu, gauss_tf32_2d.cu): the
// test plane, ImageJ-like taps and the TF32 band fragments, so both measure the same thing.
#pragma once

#include "bench_util.cuh"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

// cvt.rna.tf32.f32: round to nearest, ties away, to 10 mantissa bits
static uint32_t hostTf32(float x) {
	uint32_t u;
	std::memcpy(&u, &x, 4);
	return (u + 0x1000u) & 0xFFFFE000u;
}

static float asFloat(uint32_t u) {
	float f;
	std::memcpy(&f, &u, 4);
	return f;
}

// A normalized Gaussian of radius R with ImageJ's float accuracy (sigma = R / 4.13)
static std::vector<float> gaussTaps(int R) {
	const double sigma = R / 4.13;
	std::vector<double> wd(2 * R + 1);
	double sum = 0;
	for (int d = -R; d <= R; ++d) sum += wd[d + R] = std::exp(-0.5 * d * d / (sigma * sigma));
	std::vector<float> w(2 * R + 1);
	for (int i = 0; i <= 2 * R; ++i) w[i] = (float)(wd[i] / sum);
	return w;
}

// Band fragments B_kk(k, n) = w(8kk + k - n - R): per K step kk and lane L = 4g + t,
// { b0 big, b1 big, b0 small, b1 small } with b0 = B(t, g), b1 = B(t + 4, g)
static std::vector<uint32_t> bandFragments(const std::vector<float>& w, int R, int KS) {
	std::vector<uint32_t> bh((size_t)KS * 32 * 4);
	for (int kk = 0; kk < KS; ++kk)
		for (int lane = 0; lane < 32; ++lane) {
			const int g = lane >> 2, t = lane & 3;
			uint32_t* e = &bh[((size_t)kk * 32 + lane) * 4];
			for (int h = 0; h < 2; ++h) {
				const int d = 8 * kk + t + 4 * h - g - R;
				const float v = d >= -R && d <= R ? w[d + R] : 0.0f;
				e[h] = hostTf32(v);
				e[2 + h] = hostTf32(v - asFloat(e[h]));
			}
		}
	return bh;
}

// The largest |out - ref| / max(|ref|, 1) over the four corners and samples - 4 random pixels of
// the device plane d_out; ref(x, y) is the double-precision answer.
template <typename F>
static double worstRelativeError(const float* d_out, int W, int H, int samples, F ref) {
	std::vector<float> out((size_t)W * H);
	CK(cudaMemcpy(out.data(), d_out, 4 * out.size(), cudaMemcpyDeviceToHost));
	std::mt19937 rng(5);
	double worst = 0;
	for (int s = 0; s < samples; ++s) {
		const int x = s < 4 ? (s & 1) * (W - 1) : (int)(rng() % W), y = s < 4 ? (s >> 1) * (H - 1) : (int)(rng() % H);
		const double r = ref(x, y);
		worst = std::max(worst, std::fabs(out[(size_t)y * W + x] - r) / std::max(std::fabs(r), 1.0));
	}
	return worst;
}

// A W x H float plane of random values in [0, 1000) on the host and the device, plus an output
// plane; prints the device.
struct TestPlane {
	int W, H;
	std::vector<float> img;
	float *d_in = nullptr, *d_out = nullptr;
	TestPlane(int w, int h) : W(w), H(h), img((size_t)w * h) {
		cudaDeviceProp prop;
		CK(cudaGetDeviceProperties(&prop, 0));
		std::printf("Device: %s, sm_%d%d, %d SMs\n\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
		std::mt19937 rng(1);
		std::uniform_real_distribution<float> u(0.0f, 1000.0f);
		for (auto& v : img) v = u(rng);
		CK(cudaMalloc(&d_in, 4 * img.size()));
		CK(cudaMalloc(&d_out, 4 * img.size()));
		CK(cudaMemcpy(d_in, img.data(), 4 * img.size(), cudaMemcpyHostToDevice));
	}
	~TestPlane() {
		cudaFree(d_in);
		cudaFree(d_out);
	}
};
