/* files.c - checking an input file before reading it (see files.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"

int stat_regular_file(const char *path, const char *what, long long *size, char *err,
                      size_t errlen)
{
    struct stat info;
    if (stat(path, &info) != 0) {
        snprintf(err, errlen, "cannot open %s '%s': %s", what, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(info.st_mode)) {
        snprintf(err, errlen, "%s '%s' is not a regular file", what, path);
        return -1;
    }
    *size = (long long)info.st_size;
    return 0;
}
