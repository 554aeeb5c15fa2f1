/* gpu_spin.cu - a kernel that keeps the GPU busy for a known time, to test the
 * device timers against the GPU's own nanosecond clock. */
#include "cuda_check.h"
#include "gpu_spin.h"

__global__ void spin_kernel(unsigned long long nanoseconds)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < nanoseconds);
}

extern "C" void gpu_spin(double ms)
{
    spin_kernel<<<1, 1>>>((unsigned long long)(ms * 1e6));
    CUDA_CHECK_LAUNCH();
}
