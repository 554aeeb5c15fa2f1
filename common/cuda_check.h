/*
 * cuda_check.h - checking every CUDA call and every kernel launch.
 *
 * A CUDA runtime call returns an error code that is easy to ignore, and a kernel
 * launch returns nothing at all: its errors surface at the next call, far from
 * their cause.  So every call goes through CUDA_CHECK, and every launch is
 * followed by CUDA_CHECK_LAUNCH().  On failure we print one line -
 * file:line, the error's name, its description and the failing call as text -
 * and exit, because a sort that has lost its device state cannot go on.
 *
 * Build with DEBUG=1 (make DEBUG=1) and CUDA_CHECK_LAUNCH() also waits for the
 * kernel, so that an error inside it is reported at its own launch.
 */
#ifndef COMMON_CUDA_CHECK_H
#define COMMON_CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit status for a CUDA error (distinct from a failed check, 1, and a skip, 77). */
#define EXIT_CUDA_ERROR 3

static inline void cuda_check_impl(cudaError_t status, const char *call,
                                   const char *file, int line)
{
    if (status != cudaSuccess) {
        fprintf(stderr, "%s:%d: CUDA error %s (%s) in `%s`\n", file, line,
                cudaGetErrorName(status), cudaGetErrorString(status), call);
        exit(EXIT_CUDA_ERROR);
    }
}

#define CUDA_CHECK(call) cuda_check_impl((call), #call, __FILE__, __LINE__)

#ifdef SORT_DEBUG_SYNC
#define CUDA_CHECK_LAUNCH()                                                      \
    do {                                                                         \
        CUDA_CHECK(cudaGetLastError());                                          \
        CUDA_CHECK(cudaDeviceSynchronize());                                     \
    } while (0)
#else
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
#endif

#ifdef __cplusplus
}
#endif
#endif
