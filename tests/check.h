/*
 * check.h - the tests' tiny assertion header: no framework, just file:line.
 *
 *   CHECK(cond)                    counts a check; on failure prints file:line and the condition
 *   CHECK_MSG(cond, fmt, ...)      the same, with a message
 *   return check_summary("name");  prints the count and returns the exit status
 *
 * A GPU test starts with REQUIRE_GPU(): without a CUDA device it prints
 * "SKIP: no CUDA device: ..." and exits 77, the "skipped" status of automake
 * and CTest, so that it is counted as skipped - never as passed.  A GPU that
 * is there but fails is an error (exit 3), never a skip.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

static int check_count, check_failures;

#define CHECK_MAX_PRINTED 30

#define CHECK_MSG(cond, ...)                                                              \
    do {                                                                                  \
        check_count++;                                                                    \
        if (!(cond)) {                                                                    \
            if (++check_failures <= CHECK_MAX_PRINTED) {                                  \
                fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);  \
                fprintf(stderr, __VA_ARGS__);                                             \
                fprintf(stderr, "\n");                                                    \
            }                                                                             \
        }                                                                                 \
    } while (0)

#define CHECK(cond) CHECK_MSG(cond, "%s", "")

static inline int check_summary(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#define REQUIRE_GPU() gpu_require(test_name)

/* How much a test runs.  "--small": a short run for compute-sanitizer; no option: the
 * default of make test, a few minutes for the whole course; "--full" (make test FULL=1):
 * the long batteries, every size up to three tiles.  "--no-poison": leave the stage's
 * device buffers as cudaMalloc gives them, for initcheck. */
static int test_small, test_full, test_poison = 1;

/* The scale a sort battery runs at (tests/sort_battery.h): test_scale(). */
enum test_scale { TEST_SMALL = -1, TEST_DEFAULT = 0, TEST_FULL = 1 };
static const char *test_name = "this test";

static inline void parse_test_args(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a killed test still shows how far it got */
    const char *slash = strrchr(argv[0], '/');
    test_name = slash ? slash + 1 : argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--small"))
            test_small = 1;
        else if (!strcmp(argv[i], "--full"))
            test_full = 1;
        else if (!strcmp(argv[i], "--no-poison"))
            test_poison = 0;
        else {
            fprintf(stderr, "%s: unknown test option '%s' (known: --small --full --no-poison)\n",
                    argv[0], argv[i]);
            exit(2);
        }
    }
    if (test_small && test_full) {
        fprintf(stderr, "%s: --small and --full: one or the other\n", argv[0]);
        exit(2);
    }
}

static inline int test_scale(void) { return test_small ? TEST_SMALL : test_full ? TEST_FULL : TEST_DEFAULT; }

#endif
