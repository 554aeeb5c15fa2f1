/*
 * 06_nn_histogram/vecs.h - the data of stage 06: SIFT1M's .fvecs files in,
 * .ivecs histograms out, and SIFT-like data generated from a seed.
 *
 * .fvecs: per vector, an int32 dimension d (little-endian) and d float32s.
 * .ivecs: per vector, an int32 count K and K int32s.
 */
#ifndef STAGE06_VECS_H
#define STAGE06_VECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NN_MAX_DIMS 65536

/* Reads every vector of an .fvecs file: *data (malloc'ed, count x dims floats,
 * row after row).  0, or -1 and one line in err: a missing file, an empty
 * one, a dimension that is not 1..NN_MAX_DIMS, vectors of different
 * dimensions, a truncated last vector. */
int read_fvecs(const char *path, float **data, int *count, int *dims, char *err, size_t errlen);

/* Writes count x dims floats as .fvecs. */
int write_fvecs(const char *path, const float *data, int count, int dims, char *err,
                size_t errlen);

/* Writes rows histograms of k counts each as .ivecs. */
int write_ivecs(const char *path, const uint32_t *counts, int rows, int k, char *err,
                size_t errlen);

/* SIFT-like vectors: integer components 0..255, many small values and a few
 * large ones, as in SIFT descriptors; reproducible from the seed. */
void make_sift_like(float *data, int count, int dims, uint64_t seed);

/* 1 if every component is an integer from 0 to 255. */
int is_byte_data(const float *data, size_t values);

#ifdef __cplusplus
}
#endif
#endif
