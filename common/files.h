/* files.h - checking an input file before reading it, and an output file before the work. */
#ifndef COMMON_FILES_H
#define COMMON_FILES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 0 and *size (bytes) if `path` is a regular file; otherwise -1 and one line
 * in err naming it as `what` ("input file", ".fvecs file"): missing,
 * unreadable, or not a regular file (a directory, say). */
int stat_regular_file(const char *path, const char *what, long long *size, char *err,
                      size_t errlen);

/* 0 if `path` can be written (it is created and removed again to find out;
 * an existing file is left as it is); otherwise -1 and one line in err.
 * Called before any work, so that a run does not end by failing to save. */
int check_output_file(const char *path, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
