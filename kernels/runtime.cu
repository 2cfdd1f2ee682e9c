// Kernels of the device runtime itself: the self-check behind "GPU Info..." and the
// deliberate fault that tests use to prove a poisoned context is reset and recovered.
// Not used by any image operation.

// ============================================================================
// Self-check
// ============================================================================

// d_y[i] = a * d_x[i] + d_y[i]; a grid-stride loop so any n works with any grid.
extern "C" __global__ void runtime_saxpy(const float* __restrict__ d_x, float* __restrict__ d_y, float a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        d_y[i] = a * d_x[i] + d_y[i];
}

// ============================================================================
// Fault injection (tests only)
// ============================================================================

// Writes through whatever address it is given. Tests pass an address that is not mapped,
// which raises CUDA_ERROR_ILLEGAL_ADDRESS and poisons the context.
extern "C" __global__ void runtime_fault(int* d_p)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        *d_p = 1;
}
