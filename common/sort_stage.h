/*
 * sort_stage.h - the contract between a sort stage and the shared driver.
 *
 * Every sort stage (01..05) implements the functions at the bottom of this
 * file in its ONE algorithm file and describes itself with a `stage_info`; a
 * stage of several steps (05) has one such file per step (STAGE_STEPS below).  The
 * driver (common/driver.c), the tests and the benchmarks only ever call these,
 * so the CPU stage and the GPU stages are used in exactly the same way: host
 * arrays in, host arrays out.  A GPU stage allocates, uploads, sorts and
 * downloads by itself and reports the time of each step apart from the
 * allocation and the transfers.
 */
#ifndef COMMON_SORT_STAGE_H
#define COMMON_SORT_STAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_STEPS 6   /* steps per pass a stage may report (histogram, scan, ...) */
#define MAX_PASSES 32 /* 32 passes of 1-bit digits is the most any stage makes */

/* The in-block scan algorithms the course compares. */
enum scan_variant { SCAN_HILLIS_STEELE = 1, SCAN_BLELLOCH = 2 };

/* How the 4-byte keys are read (--type): as unsigned, signed or IEEE float numbers. */
enum key_type { KEY_U32 = 0, KEY_I32 = 1, KEY_F32 = 2 };

/* Stage 01 runs either the textbook LSD sort or the blocked layout of the paper. */
enum sort_mode { MODE_PLAIN = 0, MODE_BLOCKED = 1 };

/* Every knob that the course reports' tables vary.  A stage uses some of them
 * (stage_info.uses) and rejects the values it cannot honour. */
typedef struct {
    int bits;         /* digit width k: each pass sorts by k bits */
    int block;        /* histogram / local-sort block size (stage 01 blocked mode: keys per block) */
    int scan_block;   /* block size of the multi-block scan */
    int kpt;          /* keys per thread */
    int hist_variant; /* stage 02: 1 sectioned, 2 interleaved, 3 privatised in shared memory */
    int scan_variant; /* enum scan_variant */
    int mode;         /* enum sort_mode (stage 01) */
    int no_skip;      /* stage 07: run every pass, also one whose digit is the same for all keys */
    int key_type;     /* enum key_type (--type) */
    int pairs;        /* sort key-value pairs (--pairs): stage_sort_pairs */
    int descending;   /* largest key first (--descending); equal keys keep their input order */
    int begin_bit;    /* order by bits [begin_bit, end_bit) of the key's radix form only */
    int end_bit;      /* (--begin-bit, --end-bit); 0 stands for 32 */
    int poison;       /* fill the stage's own buffers with garbage first (tests) */
} sort_options;

/* Bits of stage_info.uses: which of the options above a stage reads. */
enum {
    USES_BITS = 1u << 0,
    USES_BLOCK = 1u << 1,
    USES_SCAN_BLOCK = 1u << 2,
    USES_KPT = 1u << 3,
    USES_HIST = 1u << 4,
    USES_SCAN = 1u << 5,
    USES_MODE = 1u << 6,
    USES_SKIP = 1u << 7,
    USES_TYPE = 1u << 8,       /* --type u32|i32|f32 */
    USES_PAIRS = 1u << 9,      /* --pairs, --output-values: the stage defines stage_sort_pairs */
    USES_DESCENDING = 1u << 10,
    USES_BIT_RANGE = 1u << 11, /* --begin-bit, --end-bit */
};

/* The values a stage accepts for a numeric option: min..max, and only powers
 * of two when pow2 is set.  Declared in stage_info and checked by common/
 * (check_sort_options), so that a stage file holds its algorithm, not its
 * argument checking; a rule that ties options together stays in the stage
 * (stage_check_options). */
typedef struct {
    int min, max, pow2;
} option_range;

/* What one call of stage_sort measured. */
typedef struct {
    int npasses;
    double pass_ms[MAX_PASSES][MAX_STEPS]; /* time of each step of each pass */
    double setup_ms; /* allocation, upload and download: reported apart, not in the sort time */
    uint32_t skipped; /* bit p: pass p was skipped, its digit the same for every key (stage 07) */
    double span_ms;   /* the sort from its first event to its last, none between (timer.h) */
    int host_gaps;    /* host work between two timed steps: the sort has no one span */
} sort_report;

typedef struct {
    const char *name;    /* directory name, e.g. "01_sequential" */
    const char *title;   /* one line for tables */
    int needs_gpu;       /* 0 for the CPU stage */
    int nsteps;          /* how many entries of step_name are used */
    const char *step_name[MAX_STEPS];
    unsigned uses;       /* USES_* bits */
    sort_options defaults;
    struct {
        option_range bits, block, scan_block, kpt;
    } range;             /* accepted values of the numeric options in uses */
    size_t max_keys;     /* the most keys it sorts, where fewer than -n accepts (0: no limit of
                            its own); --help says so, stage_check_options explains it */
} stage_info;

/* Defined by each stage. */
extern const stage_info STAGE;

/* The stage's own rules beyond the declared ranges (a tile that must fit in
 * shared memory, a table that must not grow too large): 0 if the stage can
 * sort n keys with these options; otherwise -1 and one line in err saying what
 * is wrong and what would work.  Needs no GPU, so that bad options are
 * reported on any machine before the GPU is looked for. */
int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen);

/* Bytes of device memory the stage allocates to sort n keys (0 for the CPU
 * stage): the driver compares it with the GPU's free memory before it starts. */
size_t stage_device_bytes(const sort_options *opt, size_t n);

/* The bytes step `step` must move through device memory to sort n keys, summed
 * over the passes: every key, count and offset it reads or writes, once (a
 * model, written next to the steps in the stage's file; 0 for work that is
 * not on the GPU).  The driver divides it by the step's time: the GB/s it
 * reached, and the share of the device's copy bandwidth. */
double stage_step_bytes(const sort_options *opt, size_t n, int step);

/* Sort n keys from keys_in into keys_out (distinct arrays), filling rep.
 * Options must have passed check_sort_options (common/options.h).  Returns 0, or -1 with a
 * message in err (for example: not enough device memory). */
int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n,
               const sort_options *opt, sort_report *rep, char *err, size_t errlen);

/* A stage of several steps (stage 05: 05.1 to 05.4) keeps each step in a
 * file of its own, each a whole stage as above, and builds them into one
 * program: the build renames each step's STAGE and functions stepK_... (so
 * that the files need not know), and the stage's steps.c lists them with
 * STEP_ENTRY.  The driver sorts with the last step, or the one --step K names.
 * A stage of one step gets its one-entry list from common/one_step.c. */
typedef struct {
    const stage_info *info;
    int (*check_options)(const sort_options *opt, size_t n, char *err, size_t errlen);
    size_t (*device_bytes)(const sort_options *opt, size_t n);
    double (*step_bytes)(const sort_options *opt, size_t n, int step);
    int (*sort)(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
                sort_report *rep, char *err, size_t errlen);
    int (*sort_pairs)(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                      uint32_t *values_out, size_t n, const sort_options *opt, sort_report *rep,
                      char *err, size_t errlen); /* NULL: the step sorts keys only */
} stage_step;

extern const stage_step STAGE_STEPS[];
extern const int STAGE_STEP_COUNT;

/* The declarations and the list entry of step K's renamed STAGE and functions. */
#define STEP_DECLARE(K)                                                                          \
    extern const stage_info step##K##_STAGE;                                                     \
    int step##K##_stage_check_options(const sort_options *, size_t, char *, size_t);             \
    size_t step##K##_stage_device_bytes(const sort_options *, size_t);                           \
    double step##K##_stage_step_bytes(const sort_options *, size_t, int);                        \
    int step##K##_stage_sort(const uint32_t *, uint32_t *, size_t, const sort_options *,          \
                             sort_report *, char *, size_t);
#define STEP_ENTRY(K)                                                                            \
    {&step##K##_STAGE, step##K##_stage_check_options, step##K##_stage_device_bytes,              \
     step##K##_stage_step_bytes, step##K##_stage_sort, NULL}
/* ... of a step that also sorts key-value pairs (stage_sort_pairs, USES_PAIRS) */
#define STEP_DECLARE_PAIRS(K)                                                                    \
    STEP_DECLARE(K)                                                                              \
    int step##K##_stage_sort_pairs(const uint32_t *, const uint32_t *, uint32_t *, uint32_t *,   \
                                   size_t, const sort_options *, sort_report *, char *, size_t);
#define STEP_ENTRY_PAIRS(K)                                                                      \
    {&step##K##_STAGE, step##K##_stage_check_options, step##K##_stage_device_bytes,              \
     step##K##_stage_step_bytes, step##K##_stage_sort, step##K##_stage_sort_pairs}

/* A stage that sorts key-value pairs (USES_PAIRS) defines this too: the keys as
 * stage_sort sorts them, and values_out[i] the value that came with keys_out[i]
 * (values_in[j] travels with keys_in[j]).  The driver calls it when --pairs. */
int stage_sort_pairs(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                     uint32_t *values_out, size_t n, const sort_options *opt, sort_report *rep,
                     char *err, size_t errlen);

/* Helpers on a report (common/report.c). */
void report_clear(sort_report *rep, int npasses);
double report_total_ms(const sort_report *rep, int nsteps);
double report_step_ms(const sort_report *rep, int step);

/* Number of k-bit passes needed for 32-bit keys, and the width of pass p
 * (the last pass takes what remains when k does not divide 32). */
static inline int passes_for_bits(int bits) { return (32 + bits - 1) / bits; }
static inline int bits_in_pass(int bits, int pass)
{
    int shift = pass * bits;
    return (32 - shift < bits) ? 32 - shift : bits;
}

/* The bits [first_bit, last_bit) a sort orders by (--begin-bit, --end-bit), and the
 * passes of k-bit digits that takes. */
static inline int first_bit(const sort_options *opt) { return opt->begin_bit; }
static inline int last_bit(const sort_options *opt) { return opt->end_bit ? opt->end_bit : 32; }
static inline int passes_in_range(const sort_options *opt)
{
    return (last_bit(opt) - first_bit(opt) + opt->bits - 1) / opt->bits;
}

#ifdef __cplusplus
}
#endif
#endif
