/* lib/afile.h: atomic file writes and bounded file reads.
 *
 * afile_write writes a temporary file in the same directory, fsyncs it,
 * renames it over path and fsyncs the directory, so a reader sees either
 * the old or the new content, never a mix, and the new content survives a
 * crash once the call returned 0.
 */
#ifndef LIB_AFILE_H
#define LIB_AFILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"

int afile_write(const char *path, const void *data, size_t len, mode_t mode,
    struct err *err);
/* Append data to path (created with mode) and fsync before returning. */
int afile_append_sync(const char *path, const void *data, size_t len,
    mode_t mode, struct err *err);
/* Read the whole file, refusing files larger than max bytes. On success
 * *out owns a NUL-terminated copy and *len_out (if not NULL) its length. */
int afile_read(char **out, size_t *len_out, const char *path, size_t max,
    struct err *err);
/* The same for path itself: a symbolic link is refused (not followed),
 * and *st_out is what fstat said of the very file that was read (its
 * owner, its links), so that a check of it and the text read cannot
 * disagree. */
int afile_read_nofollow(char **out, size_t *len_out, struct stat *st_out,
    const char *path, size_t max, struct err *err);
/* mkdir -p with mode for every created component; the folder holding each
 * created component is fsync'd after its mkdir. */
int afile_mkdirs(const char *path, mode_t mode, struct err *err);

#endif
