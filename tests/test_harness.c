/*
 * test_harness.c - tests of common/: the exact check, the reference sort, the
 * key files, the option parser, the distributions and the median.  CPU only.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "clip.h"
#include "files.h"
#include "test_util.h"
#include "keys.h"
#include "options.h"
#include "reference.h"
#include "stats.h"

static const stage_info FAKE_STAGE = {
    .name = "fake_stage",
    .title = "a stage that reads every option",
    .needs_gpu = 1,
    .nsteps = 1,
    .step_name = {"sort"},
    .uses = USES_BITS | USES_BLOCK | USES_SCAN_BLOCK | USES_KPT | USES_HIST | USES_SCAN,
    .defaults = {.bits = 4, .block = 256, .scan_block = 512, .kpt = 2, .hist_variant = 3,
                 .scan_variant = SCAN_BLELLOCH},
    .range = {.bits = {1, 8}, .block = {32, 1024, 1}, .scan_block = {1, 1024}, .kpt = {1, 8}},
};

static const stage_info CPU_STAGE = {
    .name = "cpu_stage",
    .title = "a stage with --bits, --mode, and --block in blocked mode",
    .nsteps = 1,
    .step_name = {"sort"},
    .uses = USES_BITS | USES_MODE | USES_BLOCK,
    .defaults = {.bits = 8, .block = 256},
    .range = {.bits = {1, 16}, .block = {1, 1 << 24}},
};

/* A stage that forgot to declare the range of an option it reads. */
static const stage_info UNDECLARED_STAGE = {
    .name = "undeclared_stage",
    .nsteps = 1,
    .step_name = {"sort"},
    .uses = USES_BITS | USES_KPT,
    .defaults = {.bits = 8, .kpt = 1},
    .range = {.bits = {1, 8}},
};

/* ---- the exact check ---------------------------------------------------- */

static void test_verify(void)
{
    const uint32_t ref[] = {1, 2, 3, 4, 5};
    char msg[512];

    const uint32_t good[] = {1, 2, 3, 4, 5};
    CHECK(verify_sorted(good, ref, 5, msg, sizeof msg) == 0);
    CHECK(verify_sorted(good, ref, 0, msg, sizeof msg) == 0);

    const uint32_t unsorted[] = {1, 3, 2, 4, 5};
    CHECK(verify_sorted(unsorted, ref, 5, msg, sizeof msg) != 0);
    CHECK_MSG(strstr(msg, "not sorted") && strstr(msg, "out[1] = 3") && strstr(msg, "out[2] = 2"),
              "message was: %s", msg);

    const uint32_t changed[] = {1, 2, 3, 4, 6}; /* sorted, but 5 became 6 */
    CHECK(verify_sorted(changed, ref, 5, msg, sizeof msg) != 0);
    CHECK_MSG(strstr(msg, "not a permutation") && strstr(msg, "index 4") &&
                  strstr(msg, "got 6") && strstr(msg, "expected 5"),
              "message was: %s", msg);

    const uint32_t dropped[] = {1, 2, 4, 4, 5}; /* 3 dropped, 4 duplicated */
    CHECK(verify_sorted(dropped, ref, 5, msg, sizeof msg) != 0);
    CHECK_MSG(strstr(msg, "index 2") && strstr(msg, "got 4") && strstr(msg, "expected 3"),
              "message was: %s", msg);

    const uint32_t first_wrong[] = {0, 2, 3, 4, 5};
    CHECK(verify_sorted(first_wrong, ref, 5, msg, sizeof msg) != 0);
    CHECK_MSG(strstr(msg, "index 0"), "message was: %s", msg);
}

/* ---- the reference sort, against qsort --------------------------------- */

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void test_reference_sort(void)
{
    const size_t sizes[] = {0, 1, 2, 31, 32, 33, 64, 100, 1000, 4097, 100003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int d = 0; d < DIST_COUNT; d++) {
            size_t n = sizes[s];
            uint32_t *keys = malloc((n + 1) * 4), *out = malloc((n + 1) * 4),
                     *expect = malloc((n + 1) * 4);
            make_keys(keys, n, (key_dist)d, 7 + n);
            fill_garbage(out, n, 1);
            memcpy(expect, keys, n * 4);
            qsort(expect, n, 4, compare_u32);
            CHECK(reference_sort(keys, out, n) == 0);
            CHECK_MSG(memcmp(out, expect, n * 4) == 0, "n=%zu dist=%s", n, dist_name(d));
            free(keys);
            free(out);
            free(expect);
        }
    }
}

/* Large inputs take the parallel path (chunks sorted by threads, then merged). */
static void test_reference_sort_parallel(void)
{
    const size_t sizes[] = {(size_t)1 << 20, 3000017};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_REVERSED};
    for (int s = 0; s < 2; s++) {
        for (int d = 0; d < 3; d++) {
            size_t n = sizes[s];
            uint32_t *keys = malloc(n * 4), *out = malloc(n * 4), *expect = malloc(n * 4);
            make_keys(keys, n, dists[d], 99 + n);
            fill_garbage(out, n, 1);
            memcpy(expect, keys, n * 4);
            qsort(expect, n, 4, compare_u32);
            CHECK(reference_sort(keys, out, n) == 0);
            CHECK_MSG(memcmp(out, expect, n * 4) == 0, "n=%zu dist=%s", n, dist_name(dists[d]));
            free(keys);
            free(out);
            free(expect);
        }
    }
}

/* ---- key files ---------------------------------------------------------- */

static void test_key_files(void)
{
    char dir[] = "/tmp/test_harness_XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp failed\n");
        exit(2);
    }
    char path[512], err[512];
    uint32_t *keys = NULL;
    size_t n = 99;

    snprintf(path, sizeof path, "%s/missing.bin", dir);
    CHECK(read_keys_file(path, N_MAX, &keys, &n, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "cannot open") && strstr(err, "missing.bin"), "message was: %s", err);
    CHECK(keys == NULL);

    snprintf(path, sizeof path, "%s/five.bin", dir);
    write_bytes(path, "abcde", 5);
    CHECK(read_keys_file(path, N_MAX, &keys, &n, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "not a multiple of 4") && strstr(err, "5 bytes"), "message was: %s",
              err);

    CHECK(read_keys_file(dir, N_MAX, &keys, &n, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "not a regular file"), "message was: %s", err);

    snprintf(path, sizeof path, "%s/big.bin", dir);
    write_bytes(path, "abcdefghijkl", 12);
    CHECK(read_keys_file(path, 2, &keys, &n, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "holds 3 keys"), "message was: %s", err);

    /* a little-endian file reads back as the numbers it encodes */
    const unsigned char le[8] = {0x01, 0x00, 0x00, 0x00, 0x78, 0x56, 0x34, 0x12};
    snprintf(path, sizeof path, "%s/le.bin", dir);
    write_bytes(path, le, sizeof le);
    CHECK(read_keys_file(path, N_MAX, &keys, &n, err, sizeof err) == 0);
    CHECK(n == 2 && keys && keys[0] == 1u && keys[1] == 0x12345678u);
    free(keys);

    /* round trip */
    uint32_t data[1000];
    make_keys(data, 1000, DIST_UNIFORM, 5);
    snprintf(path, sizeof path, "%s/round.bin", dir);
    CHECK(write_keys_file(path, data, 1000, err, sizeof err) == 0);
    CHECK(read_keys_file(path, N_MAX, &keys, &n, err, sizeof err) == 0);
    CHECK(n == 1000 && keys && memcmp(keys, data, sizeof data) == 0);
    free(keys);

    /* an empty file is zero keys, not an error */
    snprintf(path, sizeof path, "%s/empty.bin", dir);
    write_bytes(path, "", 0);
    CHECK(read_keys_file(path, N_MAX, &keys, &n, err, sizeof err) == 0);
    CHECK(n == 0);
    free(keys);

    snprintf(path, sizeof path, "%s/no/such/dir/out.bin", dir);
    CHECK(write_keys_file(path, data, 10, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "cannot create"), "message was: %s", err);

    const char *names[] = {"missing.bin", "five.bin", "big.bin", "le.bin", "round.bin",
                           "empty.bin"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* ---- the option parser -------------------------------------------------- */

/* A command line of words: argv[0] "prog", then the words of args (in buf). */
typedef struct {
    char buf[512];
    char *argv[32];
    int argc;
} command_line;

static void split_words(command_line *c, const char *args)
{
    c->argv[0] = "prog";
    c->argc = 1;
    snprintf(c->buf, sizeof c->buf, "%s", args);
    for (char *tok = strtok(c->buf, " "); tok && c->argc < 31; tok = strtok(NULL, " "))
        c->argv[c->argc++] = tok;
}

static int parse(const stage_info *stage, run_config *cfg, char *err, size_t errlen,
                 const char *args)
{
    command_line c;
    split_words(&c, args);
    return parse_sort_args(c.argc, c.argv, stage, cfg, err, errlen);
}

static void expect_rejected(const stage_info *stage, const char *args, const char *needle)
{
    run_config cfg;
    char err[512] = "";
    int rc = parse(stage, &cfg, err, sizeof err, args);
    CHECK_MSG(rc != 0, "'%s' was accepted", args);
    CHECK_MSG(strstr(err, needle) != NULL, "'%s': message '%s' lacks '%s'", args, err, needle);
    CHECK_MSG(strchr(err, '\n') == NULL, "'%s': message is not one line", args);
}

static void test_options(void)
{
    run_config cfg;
    char err[512];

    CHECK(parse(&FAKE_STAGE, &cfg, err, sizeof err, "") == 0);
    CHECK(cfg.n == N_DEFAULT && cfg.dist == DIST_UNIFORM && cfg.runs == RUNS_DEFAULT);
    CHECK(cfg.sort.bits == 4 && cfg.sort.block == 256 && cfg.sort.kpt == 2);

    CHECK(parse(&FAKE_STAGE, &cfg, err, sizeof err,
                "-n 1000 --dist few --seed 9 --bits=6 --block 128 --scan-block 64 --kpt 4 "
                "--hist 1 --scan hs --runs 3 -v --no-cub") == 0);
    CHECK(cfg.n == 1000 && cfg.dist == DIST_FEW && cfg.seed == 9 && cfg.sort.bits == 6);
    CHECK(cfg.sort.block == 128 && cfg.sort.scan_block == 64 && cfg.sort.kpt == 4);
    CHECK(cfg.sort.hist_variant == 1 && cfg.sort.scan_variant == SCAN_HILLIS_STEELE);
    CHECK(cfg.runs == 3 && cfg.verbose && cfg.no_cub);
    CHECK(cfg.given == (USES_BITS | USES_BLOCK | USES_SCAN_BLOCK | USES_KPT | USES_HIST | USES_SCAN));

    CHECK(parse(&FAKE_STAGE, &cfg, err, sizeof err, "-n 0 --scan blelloch") == 0);
    CHECK(cfg.n == 0 && cfg.sort.scan_variant == SCAN_BLELLOCH);
    CHECK(parse(&CPU_STAGE, &cfg, err, sizeof err, "--mode blocked") == 0);
    CHECK(cfg.sort.mode == MODE_BLOCKED);
    CHECK(parse(&FAKE_STAGE, &cfg, err, sizeof err, "--input keys.bin --output out.bin") == 0);
    CHECK(cfg.input && !strcmp(cfg.input, "keys.bin") && !strcmp(cfg.output, "out.bin"));

    expect_rejected(&FAKE_STAGE, "-n -5", "-n '-5'");
    expect_rejected(&FAKE_STAGE, "-n abc", "whole number");
    expect_rejected(&FAKE_STAGE, "-n 12k", "whole number");
    expect_rejected(&FAKE_STAGE, "-n 99999999999999999999999", "whole number");
    expect_rejected(&FAKE_STAGE, "-n 4294967296", "from 0 to");
    expect_rejected(&FAKE_STAGE, "-n", "needs a value");
    expect_rejected(&FAKE_STAGE, "--bits 0", "--bits 0: fake_stage accepts 1..8 (see --help)");
    expect_rejected(&FAKE_STAGE, "--bits 17", "--bits 17: fake_stage accepts 1..8 (see --help)");
    expect_rejected(&FAKE_STAGE, "--bits 4.5", "--bits '4.5'");
    expect_rejected(&FAKE_STAGE, "--bits= ", "--bits ''");
    expect_rejected(&FAKE_STAGE, "--runs 0", "--runs");
    expect_rejected(&FAKE_STAGE, "--scan-block 2048", "--scan-block");
    expect_rejected(&FAKE_STAGE, "--kpt 0", "--kpt");
    expect_rejected(&FAKE_STAGE, "--hist 4", "--hist");
    expect_rejected(&FAKE_STAGE, "--scan sideways", "--scan 'sideways'");
    expect_rejected(&FAKE_STAGE, "--dist gaussian", "unknown distribution");
    expect_rejected(&FAKE_STAGE, "--seed -1", "--seed");
    expect_rejected(&FAKE_STAGE, "--frobnicate", "unknown option '--frobnicate'");
    expect_rejected(&FAKE_STAGE, "--verbose=yes", "takes no value");
    expect_rejected(&FAKE_STAGE, "--mode blocked", "not an option of fake_stage");
    expect_rejected(&CPU_STAGE, "--kpt 2", "--kpt is not an option of cpu_stage");
    expect_rejected(&CPU_STAGE, "--mode sideways", "plain or blocked");
    expect_rejected(&FAKE_STAGE, "--input a.bin -n 5", "cannot be combined with -n");
    expect_rejected(&FAKE_STAGE, "--dist few --input a.bin", "cannot be combined with --dist");

    /* the stage's declared ranges, checked while parsing */
    expect_rejected(&FAKE_STAGE, "--bits 9", "--bits 9: fake_stage accepts 1..8 (see --help)");
    expect_rejected(&FAKE_STAGE, "--block 33", "accepts 32..1024, powers of two (see --help)");
    expect_rejected(&FAKE_STAGE, "--block=16", "accepts 32..1024, powers of two (see --help)");
    expect_rejected(&FAKE_STAGE, "--kpt 9", "--kpt 9: fake_stage accepts 1..8 (see --help)");
    CHECK(parse(&FAKE_STAGE, &cfg, err, sizeof err, "--scan-block 3 --kpt 7 --block 32") == 0);
    expect_rejected(&UNDECLARED_STAGE, "", "declares no range for --kpt");
    /* stage 01 reads --block only in blocked mode */
    expect_rejected(&CPU_STAGE, "--block 33", "read only in blocked mode");
    CHECK(parse(&CPU_STAGE, &cfg, err, sizeof err, "--block=33 --mode=blocked") == 0);
    CHECK(cfg.sort.block == 33 && cfg.sort.mode == MODE_BLOCKED);
    CHECK(sort_options_in_use(&CPU_STAGE, &cfg.sort) & USES_BLOCK);
    cfg.sort.mode = MODE_PLAIN;
    CHECK(!(sort_options_in_use(&CPU_STAGE, &cfg.sort) & USES_BLOCK));
    expect_rejected(&FAKE_STAGE, "--mode blocked", "--mode is not an option of fake_stage");
}

/* step_from_args on a command line of words (args) for a stage of nsteps steps. */
static int step_of(const char *args, int nsteps, char *err, size_t errlen)
{
    command_line c;
    split_words(&c, args);
    err[0] = '\0';
    return step_from_args(c.argc, c.argv, "fake_stage", nsteps, err, errlen);
}

/* --step K: the last step without it; 1..nsteps with it; one line for anything else, and
 * for any --step at all in a stage of one step (its --help lists none); parse_sort_args
 * then passes over it. */
static void test_steps_option(void)
{
    char err[512];
    run_config cfg;
    CHECK(step_of("-n 5 --bits 4", 3, err, sizeof err) == 3);
    CHECK(step_of("--step 1 -n 5", 3, err, sizeof err) == 1);
    CHECK(step_of("--step=2", 3, err, sizeof err) == 2);
    CHECK(step_of("-n 5", 1, err, sizeof err) == 1);
    CHECK(step_of("--step 1", 1, err, sizeof err) < 0 && strstr(err, "is a stage of one step"));
    CHECK(step_of("--step 4", 3, err, sizeof err) < 0 && strstr(err, "--step 4: fake_stage accepts 1..3"));
    CHECK(step_of("--step 0", 3, err, sizeof err) < 0 && strstr(err, "accepts 1..3"));
    CHECK(step_of("--step two", 3, err, sizeof err) < 0 && strstr(err, "--step 'two'"));
    CHECK(step_of("--step", 3, err, sizeof err) < 0 && strstr(err, "needs a value"));
    CHECK(step_of("--step 2", 1, err, sizeof err) < 0 && strstr(err, "is a stage of one step"));
    CHECK(step_of("--rank split", 3, err, sizeof err) < 0 && strstr(err, "with --step K"));
    CHECK(parse(&FAKE_STAGE, &cfg, err, sizeof err, "--step 2 --bits 5") == 0 && cfg.sort.bits == 5);
}

/* An echoed argument is clipped, so the explanation after it always fits. */
static void test_clipped_messages(void)
{
    static char arg[4000], line[600];
    memset(arg, '7', sizeof arg - 1);
    run_config cfg;
    char err[512];
    char *argv[] = {"prog", "-n", arg};
    CHECK(parse_sort_args(3, argv, &FAKE_STAGE, &cfg, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "expected a whole number of keys from 0 to") != NULL, "got: %s", err);
    CHECK_MSG(strlen(err) < 200, "message of %zu characters", strlen(err));
    CHECK(strlen(clip(arg).text) <= 2 * CLIP_KEEP + 3);
    CHECK(!strcmp(clip("short").text, "short") && !strcmp(clip("").text, ""));
    snprintf(line, sizeof line, "%s", clip(arg).text);
    CHECK(strstr(line, "...") == line + CLIP_KEEP);
    /* a cut never splits a UTF-8 character: "é" is two bytes */
    char utf8[200] = "";
    for (int i = 0; i < 40; i++)
        strcat(utf8, "\xC3\xA9");
    clipped c = clip(utf8);
    CHECK(((unsigned char)c.text[strlen(c.text) - 1] & 0xC0) == 0x80);
    CHECK(strncmp(strstr(c.text, "...") - 2, "\xC3\xA9", 2) == 0);
}

/* Only "there is no GPU" is a skip; a GPU or a driver that fails is an error. */
static void test_gpu_classification(void)
{
    char why[256];
    CHECK(gpu_classify(cudaSuccess, 1, 1, 1, why, sizeof why) == GPU_READY);
    CHECK(gpu_classify(cudaSuccess, 0, 1, 1, why, sizeof why) == GPU_ABSENT);
    CHECK(gpu_classify(cudaErrorNoDevice, 0, 1, 1, why, sizeof why) == GPU_ABSENT);
    /* no libcuda.so.1: the runtime says "insufficient driver", the truth is "no driver" */
    CHECK(gpu_classify(cudaErrorInsufficientDriver, 0, 0, 0, why, sizeof why) == GPU_ABSENT);
    CHECK_MSG(strstr(why, "no NVIDIA driver is loaded") != NULL, "why: %s", why);
    CHECK(gpu_classify(cudaErrorInsufficientDriver, 0, 1, 0, why, sizeof why) == GPU_ABSENT);
    /* a driver and a device, but CUDA fails: an error, never a skip */
    CHECK(gpu_classify(cudaErrorInsufficientDriver, 0, 1, 1, why, sizeof why) == GPU_BROKEN);
    CHECK_MSG(strstr(why, "older than") != NULL, "why: %s", why);
    CHECK(gpu_classify(cudaErrorDevicesUnavailable, 0, 1, 1, why, sizeof why) == GPU_BROKEN);
    CHECK(gpu_classify(cudaErrorInitializationError, 0, 1, 1, why, sizeof why) == GPU_BROKEN);
    CHECK(gpu_classify(cudaErrorUnknown, 0, 1, 1, why, sizeof why) == GPU_BROKEN);
}

/* The output path is tried before any work, and an existing file is left alone. */
static void test_output_check(void)
{
    char dir[] = "/tmp/test_harness_outXXXXXX", path[600], err[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/new.bin", dir);
    CHECK(check_output_file(path, err, sizeof err) == 0);
    CHECK_MSG(access(path, F_OK) != 0, "the trial file was left behind");
    write_bytes(path, "abcd", 4);
    CHECK(check_output_file(path, err, sizeof err) == 0);
    struct stat info;
    CHECK(stat(path, &info) == 0 && info.st_size == 4);
    CHECK(check_output_file(dir, err, sizeof err) != 0 && strstr(err, "directory"));
    snprintf(path, sizeof path, "%s/missing/new.bin", dir);
    CHECK(check_output_file(path, err, sizeof err) != 0 && strstr(err, "cannot create"));
    snprintf(path, sizeof path, "%s/new.bin", dir);
    unlink(path);
    rmdir(dir);
}

/* ---- distributions ------------------------------------------------------ */

static int popcount(uint32_t x)
{
    int c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

static void test_distributions(void)
{
    enum { N = 10000 };
    static uint32_t a[N], b[N];
    for (int d = 0; d < DIST_COUNT; d++) {
        make_keys(a, N, (key_dist)d, 42);
        make_keys(b, N, (key_dist)d, 42);
        CHECK_MSG(memcmp(a, b, sizeof a) == 0, "%s is not reproducible from its seed",
                  dist_name(d));
        key_dist back;
        CHECK(dist_from_name(dist_name(d), &back) == 0 && back == (key_dist)d);
    }
    make_keys(a, N, DIST_EQUAL, 1);
    int ok = 1;
    for (int i = 1; i < N; i++)
        ok &= a[i] == a[0];
    CHECK_MSG(ok, "equal keys differ");

    make_keys(a, N, DIST_SORTED, 1);
    ok = 1;
    for (int i = 1; i < N; i++)
        ok &= a[i - 1] <= a[i];
    CHECK_MSG(ok && a[N - 1] > (1u << 31), "sorted keys are not sorted over the whole range");

    make_keys(a, N, DIST_REVERSED, 1);
    ok = 1;
    for (int i = 1; i < N; i++)
        ok &= a[i - 1] >= a[i];
    CHECK_MSG(ok, "reversed keys are not in reverse order");

    make_keys(a, N, DIST_FEW, 1);
    int distinct = 0;
    for (int i = 0; i < N; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = a[j] == a[i];
        distinct += !seen;
    }
    CHECK_MSG(distinct > 1 && distinct <= 16, "few: %d distinct values", distinct);

    make_keys(a, N, DIST_HIGH, 1);
    ok = 1;
    for (int i = 1; i < N; i++)
        ok &= (a[i] & 0xFFFFFFu) == (a[0] & 0xFFFFFFu);
    CHECK_MSG(ok, "high: the low 24 bits vary");

    make_keys(a, N, DIST_LOW, 1);
    ok = 1;
    for (int i = 1; i < N; i++)
        ok &= (a[i] >> 8) == (a[0] >> 8);
    CHECK_MSG(ok, "low: the high 24 bits vary");

    make_keys(a, N, DIST_AND4, 1);
    long bits = 0;
    for (int i = 0; i < N; i++)
        bits += popcount(a[i]);
    CHECK_MSG(bits > N * 1.5 && bits < N * 2.5, "and4: %.2f bits set per key (expected about 2)",
              (double)bits / N);

    fill_garbage(a, N, 3);
    ok = 1;
    for (int i = 0; i < N; i++)
        ok &= a[i] != 0;
    CHECK_MSG(ok, "garbage contains zeros");
}

static void test_median(void)
{
    const double odd[] = {5.0, 1.0, 3.0};
    CHECK(median_index(odd, 3) == 2);
    const double even[] = {4.0, 2.0, 8.0, 6.0};
    CHECK(odd[median_index(odd, 3)] == 3.0 && even[median_index(even, 4)] == 4.0);
    const double ties[] = {2.0, 2.0, 2.0};
    CHECK(ties[median_index(ties, 3)] == 2.0);
    const double one[] = {7.0};
    CHECK(median_index(one, 1) == 0);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    TEST_GROUP(test_verify);
    TEST_GROUP(test_reference_sort);
    TEST_GROUP(test_reference_sort_parallel);
    TEST_GROUP(test_key_files);
    TEST_GROUP(test_options);
    TEST_GROUP(test_steps_option);
    TEST_GROUP(test_clipped_messages);
    TEST_GROUP(test_gpu_classification);
    TEST_GROUP(test_output_check);
    TEST_GROUP(test_distributions);
    TEST_GROUP(test_median);
    return check_summary("test_harness");
}
