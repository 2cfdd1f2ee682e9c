// Gaussian blur kernels for Fiji CUDA: the float radius classes 36 to 44 of the wide
// radii (radius 35 to 44). The kernels, their launch table and why they come in four
// modules are in gauss_wide.cuh.

#include "gauss_wide.cuh"

GAUSS_FIX_ENTRIES(36) GAUSS_FIX_ENTRIES(38) GAUSS_FIX_ENTRIES(40) GAUSS_FIX_ENTRIES(42) GAUSS_FIX_ENTRIES(44)
