/* gpu_spin.cu - a kernel that keeps the GPU busy for about a known time, to
 * test the device timers.  It counts SM clock cycles (clock64) for `ms` times
 * the peak clock rate: the SM never runs faster than its peak, so the kernel
 * takes at least `ms` milliseconds (longer if the clock is lower). */
#include "cuda_check.h"
#include "gpu_spin.h"

__global__ void spin_kernel(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

extern "C" void gpu_spin(double ms)
{
    int device = 0, khz = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
    spin_kernel<<<1, 1>>>((long long)(ms * khz));
    CUDA_CHECK_LAUNCH();
}
