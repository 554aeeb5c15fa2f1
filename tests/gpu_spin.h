/* gpu_spin.h - launch a kernel that spins for `ms` milliseconds of the GPU's
 * nanosecond clock (asynchronously); it writes to ran (2 words of device memory) the
 * nanoseconds it ran by that clock and the smallest step it saw the clock take. */
#ifndef TESTS_GPU_SPIN_H
#define TESTS_GPU_SPIN_H
#ifdef __cplusplus
extern "C" {
#endif
void gpu_spin(double ms, unsigned long long *ran);
#ifdef __cplusplus
}
#endif
#endif
