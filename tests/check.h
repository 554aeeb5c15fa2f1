/*
 * check.h - the tests' tiny assertion header: no framework, just file:line.
 *
 *   CHECK(cond)                    counts a check; on failure prints file:line and the condition
 *   CHECK_MSG(cond, fmt, ...)      the same, with a message
 *   TEST_GROUP(test_function);     runs a test function as a group (below)
 *   if (!test_group(name)) return; the first line of a battery: a group of its own
 *   return check_summary("name");  prints the count and returns the exit status
 *
 * Groups, for the grader (tools/grade.sh): a test program is a sequence of groups - the
 * test functions main runs with TEST_GROUP, and each battery - numbered from 0 in the order
 * they start, the same in every run whatever the code under test does.  Each prints
 * "GROUP k name" as it starts and "GROUPEND k checks=N failed=M" as it ends; a failed check
 * prints "CHECKFAIL k:line:n" (the n-th check of that line in group k) on stdout beside its
 * message on stderr, so that the grader can tell which checks a file fails.  With
 * --from-group K the groups before K are passed over, their work not done: the grader runs a
 * program again from the group after one that crashed or hung, so that one bad case does not
 * erase the others.  --group-timeout S ends the program when one group runs longer than S
 * seconds ("TIMEOUT group k after S s", exit 124): a look-back that spins.  (A test program
 * defines _POSIX_C_SOURCE before its first include, for alarm and sigaction.)
 *
 * A GPU test starts with REQUIRE_GPU(): without a CUDA device it prints
 * "SKIP: no CUDA device: ..." and exits 77, the "skipped" status of automake
 * and CTest, so that it is counted as skipped - never as passed.  A GPU that
 * is there but fails is an error (exit 3), never a skip.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H


#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu.h"

static int check_count, check_failures;
static int test_group_index = -1, test_group_checks, test_group_failed;
static int test_from_group, test_group_timeout;

#define CHECK_MAX_PRINTED 30

/* Each CHECK site counts its own checks in the current group: the n of "CHECKFAIL k:line:n". */
#define CHECK_MSG(cond, ...)                                                              \
    do {                                                                                  \
        static int check_site_group_ = -2, check_site_seen_;                             \
        if (check_site_group_ != test_group_index) {                                      \
            check_site_group_ = test_group_index;                                         \
            check_site_seen_ = 0;                                                         \
        }                                                                                 \
        check_site_seen_++;                                                               \
        check_count++;                                                                    \
        test_group_checks++;                                                              \
        if (!(cond)) {                                                                    \
            test_group_failed++;                                                          \
            printf("CHECKFAIL %d:%d:%d\n", test_group_index, __LINE__, check_site_seen_);  \
            if (++check_failures <= CHECK_MAX_PRINTED) {                                  \
                fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);  \
                fprintf(stderr, __VA_ARGS__);                                             \
                fprintf(stderr, "\n");                                                    \
            }                                                                             \
        }                                                                                 \
    } while (0)

#define CHECK(cond) CHECK_MSG(cond, "%s", "")

static inline void test_group_end(void)
{
    if (test_group_index >= test_from_group)
        printf("GROUPEND %d checks=%d failed=%d\n", test_group_index, test_group_checks,
               test_group_failed);
    test_group_checks = test_group_failed = 0;
}

/* Starts the next group: 1 if it is to run, 0 if --from-group passes over it. */
static inline int test_group(const char *name)
{
    if (test_group_index >= 0)
        test_group_end();
    test_group_index++;
    if (test_group_index < test_from_group)
        return 0;
    printf("GROUP %d %s\n", test_group_index, name);
    if (test_group_timeout)
        alarm((unsigned)test_group_timeout);
    return 1;
}

#define TEST_GROUP(test_function)                                                         \
    do {                                                                                  \
        if (test_group(#test_function))                                                   \
            test_function();                                                              \
    } while (0)

static inline int check_summary(const char *name)
{
    if (test_group_index >= 0)
        test_group_end();
    alarm(0);
    printf("GROUPS %d\n", test_group_index + 1);
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

/* --group-timeout: the group that ran too long is named, and the program ends. */
static void test_group_timed_out(int signal_number)
{
    (void)signal_number;
    char line[96];
    int len = snprintf(line, sizeof line, "TIMEOUT group %d after %d s\n", test_group_index,
                       test_group_timeout);
    if (write(STDOUT_FILENO, line, (size_t)len) < 0)
        _exit(125);
    _exit(124);
}

/* The checks before it need no GPU: where one of them failed, the program ends as a
 * failure here, not as "skipped" (exit 77 means no GPU, and nothing else). */
#define REQUIRE_GPU()                                                                             \
    do {                                                                                          \
        if (check_failures)                                                                       \
            exit(check_summary(test_name));                                                       \
        gpu_require(test_name);                                                                   \
    } while (0)

/* How much a test runs.  "--small": a short run for compute-sanitizer's memcheck and
 * synccheck; "--tiny": shorter still, for racecheck and initcheck, which watch every
 * shared-memory access and run a kernel tens to hundreds of times slower - every kernel
 * and variant that --small runs, on fewer inputs (the sort battery: 3 sorts, not 24); no
 * option: the default of make test, a few minutes for the whole course; "--full" (make
 * test FULL=1): the long batteries, every size up to three tiles.  "--no-poison": leave
 * the stage's device buffers as cudaMalloc gives them, for initcheck.  --tiny implies
 * --small: a test that asks test_small gets the short run's cuts too. */
static int test_small, test_tiny, test_full, test_poison = 1;

/* The scale a sort battery runs at (tests/sort_battery.h): test_scale(). */
enum test_scale { TEST_TINY = -2, TEST_SMALL = -1, TEST_DEFAULT = 0, TEST_FULL = 1 };
static const char *test_name = "this test";

static inline void parse_test_args(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a killed test still shows how far it got */
    const char *slash = strrchr(argv[0], '/');
    test_name = slash ? slash + 1 : argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--small"))
            test_small = 1;
        else if (!strcmp(argv[i], "--tiny"))
            test_small = test_tiny = 1;
        else if (!strcmp(argv[i], "--full"))
            test_full = 1;
        else if (!strcmp(argv[i], "--no-poison"))
            test_poison = 0;
        else if (!strcmp(argv[i], "--from-group") && i + 1 < argc)
            test_from_group = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--group-timeout") && i + 1 < argc)
            test_group_timeout = atoi(argv[++i]);
        else {
            fprintf(stderr, "%s: unknown test option '%s' (known: --small --tiny --full --no-poison "
                            "--from-group K --group-timeout S)\n", argv[0], argv[i]);
            exit(2);
        }
    }
    if (test_group_timeout > 0) {
        struct sigaction on_alarm;
        memset(&on_alarm, 0, sizeof on_alarm);
        on_alarm.sa_handler = test_group_timed_out;
        sigaction(SIGALRM, &on_alarm, NULL);
    }
    if (test_small && test_full) {
        fprintf(stderr, "%s: --small or --tiny, and --full: one or the other\n", argv[0]);
        exit(2);
    }
}

static inline int test_scale(void)
{
    return test_tiny ? TEST_TINY : test_small ? TEST_SMALL : test_full ? TEST_FULL : TEST_DEFAULT;
}

#endif
