/* gpu_spin.h - launch a kernel that spins for `ms` milliseconds (asynchronously). */
#ifndef TESTS_GPU_SPIN_H
#define TESTS_GPU_SPIN_H
#ifdef __cplusplus
extern "C" {
#endif
void gpu_spin(double ms);
#ifdef __cplusplus
}
#endif
#endif
