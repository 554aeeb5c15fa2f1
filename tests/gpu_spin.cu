/* gpu_spin.cu - a kernel that keeps the GPU busy for a known time, to test the
 * device timers.  It waits on the GPU's own nanosecond clock (%globaltimer, which
 * counts wall time whatever the multiprocessor's clock rate) until `ms` have
 * passed, and writes down how long it ran by that clock: the test then compares
 * the events around the kernel with the kernel's own account of its time. */
#include "cuda_check.h"
#include "gpu_spin.h"

static __device__ unsigned long long global_ns(void)
{
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

/* ran[0]: nanoseconds from the first reading to the last; ran[1]: the smallest step
 * the clock was seen to take (its resolution as this kernel saw it). */
__global__ void spin_kernel(unsigned long long ns, unsigned long long *ran)
{
    unsigned long long start = global_ns(), now = start, last = start, step = ~0ull;
    while (now - start < ns) {
        now = global_ns();
        if (now != last && now - last < step)
            step = now - last;
        last = now;
    }
    ran[0] = now - start;
    ran[1] = step;
}

extern "C" void gpu_spin(double ms, unsigned long long *ran)
{
    spin_kernel<<<1, 1>>>((unsigned long long)(ms * 1e6), ran);
    CUDA_CHECK_LAUNCH();
}
