/*
 * cub_baseline.cu - CUB's radix sort as the reference for speed (see cub_baseline.h).
 * This is the only C++ in the sort course: CUB is a C++ template library, so it
 * lives in its own file behind a C function.
 */
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cub_baseline.h"
#include "cuda_check.h"
#include "gpu.h"
#include "stats.h"

/* The time of one call of sort(), by the CUDA events start and stop around it. */
template <typename Sort> static double timed_ms(cudaEvent_t start, cudaEvent_t stop, Sort sort)
{
    CUDA_CHECK(cudaEventRecord(start));
    sort();
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

/* The median of `runs` timed calls of sort(), after one untimed warm-up call,
 * each measured with CUDA events around it; prepare() runs before each call,
 * outside the time. */
template <typename Prepare, typename Sort>
static double median_of_runs(int runs, Prepare prepare, Sort sort)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> times(runs);
    for (int r = -1; r < runs; r++) { /* r = -1 is the warm-up */
        prepare();
        double ms = timed_ms(start, stop, sort);
        if (r >= 0)
            times[r] = ms;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return times[median_index(times.data(), runs)];
}

/* One sort in both of CUB's count types: sort(count) with count an int and an int64_t,
 * `runs` timed rounds after a warm-up round, each round one call of each, who goes first
 * alternating, so that neither always runs on a GPU the other has just warmed.  Where n
 * is more than an int counts, the int64_t form alone.  Both forms write the same sorted
 * output. */
template <typename Sort> static void time_both_counts(size_t n, int runs, Sort sort, cub_times *t)
{
    const bool narrow = n <= (size_t)INT32_MAX;
    std::vector<double> i32(runs), i64(runs);
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = -1; r < runs; r++) { /* r = -1 is the warm-up */
        for (int turn = 0; turn < 2; turn++) {
            bool wide = ((r + turn) & 1) == 1;
            if (!wide && !narrow)
                continue;
            double ms = wide ? timed_ms(start, stop, [&] { sort((int64_t)n); })
                             : timed_ms(start, stop, [&] { sort((int)n); });
            if (r >= 0)
                (wide ? i64 : i32)[r] = ms;
        }
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    t->i64_ms = i64[median_index(i64.data(), runs)];
    t->i32_ms = narrow ? i32[median_index(i32.data(), runs)] : -1.0;
    t->ms = narrow && t->i32_ms < t->i64_ms ? t->i32_ms : t->i64_ms;
}

/* CUB's temporary bytes for a sort in either count type: the larger. */
template <typename Query> static size_t temp_bytes_both(size_t n, Query query)
{
    size_t wide = 0, narrow = 0;
    query((int64_t)n, wide);
    if (n <= (size_t)INT32_MAX)
        query((int)n, narrow);
    return wide > narrow ? wide : narrow;
}

extern "C" int cub_sort_keys(const uint32_t *keys, size_t n, int runs, uint32_t *out,
                             cub_times *t, char *err, size_t errlen)
{
    size_t temp_bytes = temp_bytes_both(n, [](auto count, size_t &bytes) {
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, (const uint32_t *)nullptr,
                                                  (uint32_t *)nullptr, count));
    });
    if (gpu_require_memory(2 * n * sizeof(uint32_t) + temp_bytes, "the CUB baseline", err,
                           errlen) != 0)
        return -1;

    uint32_t *d_in = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 0);
    uint32_t *d_out = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 0);
    void *d_temp = gpu_alloc(temp_bytes, 0);
    CUDA_CHECK(cudaMemcpy(d_in, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));

    time_both_counts(n, runs, [&](auto count) {
        size_t bytes = temp_bytes;
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, bytes, d_in, d_out, count));
    }, t);

    if (out)
        CUDA_CHECK(cudaMemcpy(out, d_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_temp);
    gpu_free(d_out);
    gpu_free(d_in);
    return 0;
}

extern "C" int thrust_sort_keys(const uint32_t *keys, size_t n, int runs, uint32_t *out,
                                double *median_ms, char *err, size_t errlen)
{
    /* thrust::sort needs, besides the two arrays here, its own second array of n keys
     * and CUB's temporary storage: about 4n words in all */
    if (gpu_require_memory(4 * n * sizeof(uint32_t) + (1u << 20), "the Thrust baseline", err,
                           errlen) != 0)
        return -1;
    uint32_t *d_in = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 0);
    uint32_t *d_work = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 0);
    CUDA_CHECK(cudaMemcpy(d_in, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));

    /* thrust::sort sorts in place: each run starts from a fresh copy of the input.  It
     * reports a failure (its allocation, a launch) by a C++ exception: caught here and
     * turned into the one line of err. */
    std::string failure;
    *median_ms = median_of_runs(
        runs,
        [&] {
            CUDA_CHECK(cudaMemcpy(d_work, d_in, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
        },
        [&] {
            try {
                thrust::sort(thrust::device, d_work, d_work + n);
            } catch (const std::exception &e) {
                failure = e.what();
            }
        });
    if (!failure.empty()) {
        snprintf(err, errlen, "Thrust baseline: thrust::sort failed: %s", failure.c_str());
        gpu_free(d_work);
        gpu_free(d_in);
        return -1;
    }

    if (out)
        CUDA_CHECK(cudaMemcpy(out, d_work, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_work);
    gpu_free(d_in);
    return 0;
}

/* One CUB call for every combination: keys or pairs, ascending or descending, with a
 * count of either type.  temp NULL asks for the temporary bytes only. */
template <typename Key, typename Count>
static void cub_call(void *temp, size_t &temp_bytes, const Key *d_keys_in, Key *d_keys_out,
                     const uint32_t *d_values_in, uint32_t *d_values_out, Count count, bool pairs,
                     bool descending, int begin_bit, int end_bit)
{
    using cub::DeviceRadixSort;
    if (!pairs && !descending)
        CUDA_CHECK(DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys_in, d_keys_out, count,
                                             begin_bit, end_bit));
    else if (!pairs)
        CUDA_CHECK(DeviceRadixSort::SortKeysDescending(temp, temp_bytes, d_keys_in, d_keys_out,
                                                       count, begin_bit, end_bit));
    else if (!descending)
        CUDA_CHECK(DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys_in, d_keys_out,
                                              d_values_in, d_values_out, count, begin_bit,
                                              end_bit));
    else
        CUDA_CHECK(DeviceRadixSort::SortPairsDescending(temp, temp_bytes, d_keys_in, d_keys_out,
                                                        d_values_in, d_values_out, count,
                                                        begin_bit, end_bit));
}

/* cub_sort_ordered with the keys read as Key (uint32_t, int32_t or float). */
template <typename Key>
static int sort_ordered_as(const uint32_t *keys, const uint32_t *values, size_t n,
                           int descending, int begin_bit, int end_bit, int runs,
                           uint32_t *out_keys, uint32_t *out_values, cub_times *t,
                           char *err, size_t errlen)
{
    const size_t bytes = n * sizeof(uint32_t);
    const bool pairs = values != nullptr;
    size_t temp_bytes = temp_bytes_both(n, [&](auto count, size_t &query_bytes) {
        cub_call<Key>(nullptr, query_bytes, (const Key *)nullptr, (Key *)nullptr, nullptr, nullptr,
                      count, pairs, descending, begin_bit, end_bit);
    });
    if (gpu_require_memory((pairs ? 4 : 2) * bytes + temp_bytes, "the CUB baseline", err,
                           errlen) != 0)
        return -1;

    Key *d_keys_in = (Key *)gpu_alloc(bytes, 0), *d_keys_out = (Key *)gpu_alloc(bytes, 0);
    uint32_t *d_values_in = nullptr, *d_values_out = nullptr;
    void *d_temp = gpu_alloc(temp_bytes, 0);
    CUDA_CHECK(cudaMemcpy(d_keys_in, keys, bytes, cudaMemcpyHostToDevice));
    if (pairs) {
        d_values_in = (uint32_t *)gpu_alloc(bytes, 0);
        d_values_out = (uint32_t *)gpu_alloc(bytes, 0);
        CUDA_CHECK(cudaMemcpy(d_values_in, values, bytes, cudaMemcpyHostToDevice));
    }

    time_both_counts(n, runs, [&](auto count) {
        size_t call_bytes = temp_bytes;
        cub_call<Key>(d_temp, call_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, count,
                      pairs, descending, begin_bit, end_bit);
    }, t);

    if (out_keys)
        CUDA_CHECK(cudaMemcpy(out_keys, d_keys_out, bytes, cudaMemcpyDeviceToHost));
    if (pairs && out_values)
        CUDA_CHECK(cudaMemcpy(out_values, d_values_out, bytes, cudaMemcpyDeviceToHost));
    gpu_free(d_temp);
    if (pairs) {
        gpu_free(d_values_out);
        gpu_free(d_values_in);
    }
    gpu_free(d_keys_out);
    gpu_free(d_keys_in);
    return 0;
}

extern "C" int cub_sort_ordered(const uint32_t *keys, const uint32_t *values, size_t n,
                                int key_type, int descending, int begin_bit, int end_bit,
                                int runs, uint32_t *out_keys, uint32_t *out_values,
                                cub_times *t, char *err, size_t errlen)
{
    switch (key_type) {
    case CUB_KEYS_I32:
        return sort_ordered_as<int32_t>(keys, values, n, descending, begin_bit, end_bit, runs,
                                        out_keys, out_values, t, err, errlen);
    case CUB_KEYS_F32:
        return sort_ordered_as<float>(keys, values, n, descending, begin_bit, end_bit, runs,
                                      out_keys, out_values, t, err, errlen);
    default:
        return sort_ordered_as<uint32_t>(keys, values, n, descending, begin_bit, end_bit, runs,
                                         out_keys, out_values, t, err, errlen);
    }
}
