/*
 * clip.h - shortening the user's text that an error line echoes.
 *
 * Error lines go through fixed-size buffers.  An argument of 4,000 characters
 * (a long path, a pasted file) would push the explanation - the part the user
 * needs - off the end of the line.  So the echoed text is clipped to its first
 * and last characters, and the explanation always fits.
 *
 *   snprintf(err, len, "cannot open '%s': %s", clip(path).text, strerror(errno));
 *
 * clip() returns a struct by value: it lives until the end of the statement
 * that uses it, so it needs no buffer of the caller's.
 */
#ifndef COMMON_CLIP_H
#define COMMON_CLIP_H

#include <string.h>

#define CLIP_KEEP 30 /* characters kept at each end */

typedef struct {
    char text[2 * CLIP_KEEP + 4];
} clipped;

/* Moves a cut point back to the start of a UTF-8 character. */
static inline size_t clip_boundary(const char *s, size_t i)
{
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
        i--;
    return i;
}

static inline clipped clip(const char *s)
{
    clipped c;
    size_t len = s ? strlen(s) : 0;
    if (len <= 2 * CLIP_KEEP + 3) {
        memcpy(c.text, s ? s : "", len + 1);
        return c;
    }
    size_t head = clip_boundary(s, CLIP_KEEP), tail = clip_boundary(s, len - CLIP_KEEP);
    memcpy(c.text, s, head);
    memcpy(c.text + head, "...", 3);
    memcpy(c.text + head + 3, s + tail, len - tail + 1);
    return c;
}

#endif
