// Gaussian blur kernels for Fiji CUDA: the float radius classes 56 to 64 of the wide
// radii (radius 55 to 64). The kernels, their launch table and why they come in four
// modules are in gauss_wide.cuh.

#include "gauss_wide.cuh"

GAUSS_FIX_ENTRIES(56) GAUSS_FIX_ENTRIES(58) GAUSS_FIX_ENTRIES(60) GAUSS_FIX_ENTRIES(62) GAUSS_FIX_ENTRIES(64)
