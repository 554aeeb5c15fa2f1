/* files.c - checking an input file before reading it (see files.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clip.h"
#include "files.h"

int stat_regular_file(const char *path, const char *what, long long *size, char *err,
                      size_t errlen)
{
    struct stat info;
    if (stat(path, &info) != 0) {
        snprintf(err, errlen, "cannot open %s '%s': %s", what, clip(path).text, strerror(errno));
        return -1;
    }
    if (!S_ISREG(info.st_mode)) {
        snprintf(err, errlen, "%s '%s' is not a regular file", what, clip(path).text);
        return -1;
    }
    *size = (long long)info.st_size;
    return 0;
}

int check_output_file(const char *path, char *err, size_t errlen)
{
    struct stat info;
    int existed = stat(path, &info) == 0;
    if (existed && S_ISDIR(info.st_mode)) {
        snprintf(err, errlen, "cannot create output file '%s': it is a directory",
                 clip(path).text);
        return -1;
    }
    /* no O_TRUNC: a file that exists keeps its contents until the work is done;
     * O_NONBLOCK: a FIFO with no reader fails here instead of hanging */
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create output file '%s': %s", clip(path).text,
                 strerror(errno));
        return -1;
    }
    close(fd);
    if (!existed)
        unlink(path); /* made only to try: the real one is written at the end */
    return 0;
}
