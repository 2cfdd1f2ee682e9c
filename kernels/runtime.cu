// Kernels of the device runtime itself: the self-check behind "GPU Info...", the
// deliberate fault that tests use to prove a poisoned context is reset and recovered, and the
// stream hold that keeps host launch gaps out of benchmark timings.
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

// ============================================================================
// Benchmark support
// ============================================================================

// Spins one thread for ns nanoseconds of the global timer. GpuSession.timeMillis queues it
// ahead of its start event, so that the host has queued all the timed launches before the device
// reaches them: otherwise the gaps while JCuda marshals each launch count as device time (0.02 ms
// on a 0.07 ms kernel, H200).
extern "C" __global__ void runtime_hold(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}
