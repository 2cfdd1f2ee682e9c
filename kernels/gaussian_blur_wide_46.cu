// Gaussian blur kernels for Fiji CUDA: the float radius classes 46 to 54 of the wide
// radii (radius 45 to 54). The kernels, their launch table and why they come in four
// modules are in gauss_wide.cuh.

#include "gauss_wide.cuh"

GAUSS_FIX_ENTRIES(46) GAUSS_FIX_ENTRIES(48) GAUSS_FIX_ENTRIES(50) GAUSS_FIX_ENTRIES(52) GAUSS_FIX_ENTRIES(54)
