// Gaussian blur kernels for Fiji CUDA: the float radius classes 26 to 34 of the wide
// radii (radius 25 to 34). The kernels, their launch table and why they come in four
// modules are in gauss_wide.cuh.

#include "gauss_wide.cuh"

GAUSS_FIX_ENTRIES(26) GAUSS_FIX_ENTRIES(28) GAUSS_FIX_ENTRIES(30) GAUSS_FIX_ENTRIES(32) GAUSS_FIX_ENTRIES(34)
