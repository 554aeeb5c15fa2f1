/*
 * gpu.h - finding the GPU, its name, and device memory for the stages.
 */
#ifndef COMMON_GPU_H
#define COMMON_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if a CUDA device can be used; otherwise 0 and the reason in why. */
int gpu_available(char *why, size_t whylen);

/* The name of device 0, or "none". */
void gpu_name(char *buf, size_t len);

/* 0 if `bytes` of device memory are free; otherwise -1 and one line in err. */
int gpu_require_memory(size_t bytes, const char *what, char *err, size_t errlen);

/* cudaMalloc that checks the call; with poison set the buffer is filled with
 * garbage (0xA5 bytes) so that a kernel that forgets to write something, or
 * reads what nobody wrote, gives a wrong answer instead of a lucky zero. */
void *gpu_alloc(size_t bytes, int poison);
void gpu_free(void *p);

/* Bytes of shared memory a block may use without opting in (48 KiB on every
 * GPU the course targets). */
size_t gpu_shared_memory_per_block(void);

/* Bytes of shared memory a kernel may use after opting in with
 * cudaFuncSetAttribute (227 KiB on an H100). */
size_t gpu_shared_memory_optin(void);

/* The compute capability of the current device as 10 x major + minor (90 for
 * an H100). */
int gpu_compute_capability(void);

#ifdef __cplusplus
}
#endif
#endif
