/*
 * no_gpu.c - the CPU build's stand-in for the files that call CUDA (gpu.c,
 * step_timer.c, cub_baseline.cu).
 *
 * The CPU build (make CUDA=0, and what make builds where nvcc is missing, or what
 * make run builds on a machine without a GPU) compiles the CPU stage and its tests
 * with the C compiler alone, with no CUDA header or library: a student's laptop
 * without CUDA can build and run stage 01.  Its programs find no GPU, as they would
 * on any machine without one: the GPU stages skip (77), and the CPU stage runs
 * without the CUB baseline.  Only the functions those programs reach are here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cub_baseline.h"
#include "gpu.h"
#include "timer.h"

enum { EXIT_SKIP = 77 };

static const char WHY[] = "this program is the CPU build, made without CUDA";

gpu_state gpu_probe(char *why, size_t whylen)
{
    snprintf(why, whylen, "%s", WHY);
    return GPU_ABSENT;
}

void gpu_require(const char *who)
{
    printf("SKIP: no CUDA device: %s needs one (%s)\n", who, WHY);
    exit(EXIT_SKIP);
}

void gpu_name(char *buf, size_t len) { snprintf(buf, len, "none"); }

/* Reached only where gpu_probe found a GPU, which it never does here. */
int gpu_require_memory(size_t bytes, const char *what, char *err, size_t errlen)
{
    (void)bytes;
    snprintf(err, errlen, "%s needs a GPU: %s", what, WHY);
    return -1;
}

double gpu_copy_gbs(void) { return -1.0; }

/* The driver turns the marks off only for a GPU stage on a GPU. */
void step_timer_marks(int on) { (void)on; }

int cub_sort_keys(const uint32_t *keys, size_t n, int runs, uint32_t *out, cub_times *t,
                  char *err, size_t errlen)
{
    (void)keys, (void)n, (void)runs, (void)out;
    t->ms = t->i32_ms = t->i64_ms = -1.0;
    snprintf(err, errlen, "CUB needs a GPU: %s", WHY);
    return -1;
}

int thrust_sort_keys(const uint32_t *keys, size_t n, int runs, uint32_t *out, double *median_ms,
                     char *err, size_t errlen)
{
    (void)keys, (void)n, (void)runs, (void)out;
    *median_ms = -1.0;
    snprintf(err, errlen, "Thrust needs a GPU: %s", WHY);
    return -1;
}

int cub_sort_ordered(const uint32_t *keys, const uint32_t *values, size_t n, int key_type,
                     int descending, int begin_bit, int end_bit, int runs, uint32_t *out_keys,
                     uint32_t *out_values, cub_times *t, char *err, size_t errlen)
{
    (void)values, (void)key_type, (void)descending, (void)begin_bit, (void)end_bit;
    (void)out_values;
    return cub_sort_keys(keys, n, runs, out_keys, t, err, errlen);
}
