/*
 * 06_nn_histogram/imma_layout.h - how versions 8-14 lay bytes out for the
 * integer tensor-core instruction mma.sync.m16n8k32.row.col.s32.u8.u8.s32,
 * written once for the kernels (v8_*.cu .. v10_*.cu) and the CPU test that checks it
 * against the PTX manual's fragment tables (tests/test_06_nn_cpu.c).
 *
 * One mma multiplies a 16 x 32 byte matrix A (16 references, 32 dimensions) by
 * a 32 x 8 byte matrix B (32 dimensions, 8 queries) into 16 x 8 int32 dot
 * products.  Each of the 32 threads of the warp holds a piece of every matrix;
 * with groupID g = lane / 4 and t = lane % 4 (PTX ISA, "Matrix Fragments for
 * mma.m16n8k32", .u8):
 *   A: a0 = row g,     dims 4t .. 4t+3      a1 = row g + 8, dims 4t .. 4t+3
 *      a2 = row g,     dims 16+4t .. 16+4t+3 a3 = row g + 8, dims 16+4t ..
 *   B: b0 = query g,   dims 4t .. 4t+3      b1 = query g,   dims 16+4t ..
 *   C: c0, c1 = reference g,     queries 2t, 2t+1
 *      c2, c3 = reference g + 8, queries 2t, 2t+1
 * (each 32-bit register holds four bytes, the lowest dimension in the lowest byte).
 *
 * So for each chunk of 32 dimensions a thread needs, from a vector, the 4-byte
 * words t and 4 + t of the chunk.  Versions 8-10 store every vector with its
 * words reordered, per block of 128 dimensions (4 chunks), so that the 8 words
 * thread t needs for the whole block are contiguous - 32 bytes, two 16-byte
 * loads:  packed word 8t + 2c + h  <-  original word 8c + 4h + t   (c the chunk
 * 0..3, h 0 or 1).  Queries and references are reordered alike, so their dot
 * products are unchanged.  Vectors are padded with zero bytes to a multiple
 * of 128 dimensions.
 */
#ifndef STAGE06_IMMA_LAYOUT_H
#define STAGE06_IMMA_LAYOUT_H

#include <stdint.h>

#ifdef __CUDACC__
#define IMMA_HD __host__ __device__
#else
#define IMMA_HD
#endif

#define IMMA_BLOCK_DIMS 128 /* dimensions (bytes) per block of the packed layout */
#define IMMA_BLOCK_WORDS 32 /* 32-bit words per block */

/* The original word (within its block) that packed word p (0..31) holds. */
IMMA_HD static inline int imma_source_word(int p)
{
    int t = p / 8, c = (p % 8) / 2, h = p % 2;
    return 8 * c + 4 * h + t;
}

/* Packed word w of a vector of d float components (integers 0..255), as four
 * bytes; dimensions beyond d are zeros. */
IMMA_HD static inline uint32_t imma_pack_word(const float *vector, int d, int w)
{
    int dim0 = (w / IMMA_BLOCK_WORDS) * IMMA_BLOCK_DIMS +
               4 * imma_source_word(w % IMMA_BLOCK_WORDS);
    uint32_t word = 0;
    for (int j = 0; j < 4; j++)
        if (dim0 + j < d)
            word |= (uint32_t)vector[dim0 + j] << (8 * j);
    return word;
}

/* A thread's A fragment for chunk c (0..3) of a block, from the 8 packed words
 * it loaded of reference rows g (row_g) and g + 8 (row_g8). */
IMMA_HD static inline void imma_a_fragment(const uint32_t row_g[8], const uint32_t row_g8[8],
                                           int c, uint32_t a[4])
{
    a[0] = row_g[2 * c];
    a[1] = row_g8[2 * c];
    a[2] = row_g[2 * c + 1];
    a[3] = row_g8[2 * c + 1];
}

/* ... and its B fragment for chunk c, from the 8 packed words of query g. */
IMMA_HD static inline void imma_b_fragment(const uint32_t query_g[8], int c, uint32_t b[2])
{
    b[0] = query_g[2 * c];
    b[1] = query_g[2 * c + 1];
}

/* Which reference (0..15) and query (0..7) of the tile accumulator c_i of
 * `lane` holds. */
IMMA_HD static inline int imma_c_ref(int lane, int i) { return lane / 4 + 8 * (i / 2); }
IMMA_HD static inline int imma_c_query(int lane, int i) { return 2 * (lane % 4) + i % 2; }

#ifdef __CUDACC__
/* Turing (compute capability 7.5) has integer mma in the m8n8k16 shape alone: an 8 x 16
 * byte A (a word a thread: row g, dims 4t .. 4t+3, as a0 above) times a 16 x 8 B (b0's
 * word) into 8 x 8 sums (c0, c1).  The m16n8k32 tile is four of them: rows 0-7 (a0, a2)
 * and 8-15 (a1, a3), each times the first and last 16 dimensions (b0, b1).  Unused where
 * compute capability 8.0 multiplies a tile in one instruction. */
[[maybe_unused]] static __device__ __forceinline__ void mma_u8_m8n8k16(int c[2], uint32_t a,
                                                                       uint32_t b)
{
    asm("mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+r"(c[0]), "+r"(c[1])
        : "r"(a), "r"(b));
}
#endif

#endif
