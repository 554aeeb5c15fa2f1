/* parallel.h - running a few jobs in threads (the CPU references use it). */
#ifndef COMMON_PARALLEL_H
#define COMMON_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PARALLEL_MAX_JOBS 64

/* The number of online CPUs, at least 1. */
int cpu_count(void);

/* Runs fn on each of `count` (at most PARALLEL_MAX_JOBS) jobs laid out
 * job_size bytes apart from `jobs`, one thread each, and waits for all; a job
 * whose thread could not start is run by the caller instead. */
void run_parallel(void *(*fn)(void *), void *jobs, size_t job_size, int count);

#ifdef __cplusplus
}
#endif
#endif
