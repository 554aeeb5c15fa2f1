/*
 * gpu.h - finding the GPU, its name, and device memory for the stages.
 */
#ifndef COMMON_GPU_H
#define COMMON_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What looking for a GPU found.  Only GPU_ABSENT is a reason to skip: a
 * driver or a device that is there but fails is an error, never a skip, so
 * that a broken GPU machine cannot pass its tests by skipping them. */
typedef enum {
    GPU_READY = 0,  /* a CUDA device answers */
    GPU_ABSENT = 1, /* no NVIDIA driver loaded, or the driver sees no device */
    GPU_BROKEN = 2, /* a driver or a device is there, but CUDA fails to start */
} gpu_state;

/* Looks for a CUDA device; the reason, in plain words, goes to why. */
gpu_state gpu_probe(char *why, size_t whylen);

/* The decision of gpu_probe, apart from the calls that feed it (tested on
 * any machine): the status of cudaGetDeviceCount (a cudaError_t) and the
 * count it gave, whether the driver's library (libcuda.so.1) can be loaded,
 * and whether the driver's device files (/dev/nvidia*) exist. */
gpu_state gpu_classify(int status, int count, int driver_library, int device_files, char *why,
                       size_t whylen);

/* For a main(): returns if there is a GPU.  Otherwise prints one line and
 * exits: "SKIP: no CUDA device: <who> needs one (<why>)" on stdout with 77
 * when there is none, "<who>: error: ..." on stderr with 3 when it fails. */
void gpu_require(const char *who);

/* The median time in ms, by CUDA events, of `runs` calls of work(run, state) after one
 * warm-up call (run = 0 for the warm-up, then 1 .. runs); at most 100 runs. */
double gpu_median_ms(void (*work)(int run, void *state), void *state, int runs);

/* The device's copy bandwidth in GB/s: a device-to-device cudaMemcpy of up to
 * 256 MiB, bytes read plus bytes written over its time, median of 5 after a
 * warm-up.  What "% of copy" is measured against. */
double gpu_copy_gbs(void);

/* The name of device 0, or "none". */
void gpu_name(char *buf, size_t len);

/* 0 if `bytes` of device memory are free; otherwise -1 and one line in err. */
int gpu_require_memory(size_t bytes, const char *what, char *err, size_t errlen);

/* cudaMalloc that checks the call; with poison set the buffer is filled with
 * garbage (0xA5 bytes) so that a kernel that forgets to write something, or
 * reads what nobody wrote, gives a wrong answer instead of a lucky zero. */
void *gpu_alloc(size_t bytes, int poison);
void gpu_free(void *p);

/* Bytes of shared memory a block may use without opting in: 48 KiB on every
 * GPU since Kepler, so a stage can check its tiles against it before it has
 * looked for a GPU. */
#define SHARED_MEMORY_PER_BLOCK (48 * 1024)

/* The same, as the device reports it. */
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
