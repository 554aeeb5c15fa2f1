/* parallel.c - jobs in threads (see parallel.h). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <unistd.h>

#include "parallel.h"

int cpu_count(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > 4096 ? 4096 : (int)cpus;
}

void run_parallel(void *(*fn)(void *), void *jobs, size_t job_size, int count)
{
    pthread_t threads[PARALLEL_MAX_JOBS];
    int started[PARALLEL_MAX_JOBS];
    char *job = jobs;
    if (count > PARALLEL_MAX_JOBS)
        count = PARALLEL_MAX_JOBS;
    for (int i = 0; i < count; i++) {
        started[i] = pthread_create(&threads[i], NULL, fn, job + (size_t)i * job_size) == 0;
        if (!started[i])
            fn(job + (size_t)i * job_size);
    }
    for (int i = 0; i < count; i++)
        if (started[i])
            pthread_join(threads[i], NULL);
}
