/* lib/afile.h: atomic file writes and bounded file reads.
 *
 * afile_write writes a temporary file in the same directory, fsyncs it,
 * renames it over path and fsyncs the directory, so a reader sees either
 * the old or the new content, never a mix, and the new content survives a
 * crash once the call returned 0.
 *
 * Every file the project reads is opened by afile_open: the one
 * regular-file rule. It opens with O_NONBLOCK | O_NOCTTY | O_CLOEXEC, so
 * that neither a FIFO nor a terminal or other device can block the open
 * or become a controlling terminal, then refuses, before a byte is read,
 * anything fstat does not call a regular file, naming the path and what it
 * is ("'x' is a FIFO, not a regular file"). A symbolic link is followed
 * unless AFILE_NOFOLLOW says; a dangling one is named as such.
 */
#ifndef LIB_AFILE_H
#define LIB_AFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"

int afile_write(const char *path, const void *data, size_t len, mode_t mode,
    struct err *err);
/* afile_write in pieces, for a text too large to hold whole: open
 * creates the temporary file (0, or -1 with err set), add appends (an
 * error is kept and reported by commit), commit fsyncs, renames it over
 * path and fsyncs the folder (0 or -1, the temporary file removed either
 * way); abort removes it. After commit or abort w holds nothing. */
struct afile_writer {
	char *path, *tmp;
	int fd;
	int errnum; /* the first write's errno, 0: none */
};
int afile_writer_open(struct afile_writer *w, const char *path, mode_t mode,
    struct err *err);
void afile_writer_add(struct afile_writer *w, const void *data, size_t len);
int afile_writer_commit(struct afile_writer *w, struct err *err);
void afile_writer_abort(struct afile_writer *w);
/* Append data to path (created with mode) and fsync before returning. */
int afile_append_sync(const char *path, const void *data, size_t len,
    mode_t mode, struct err *err);
enum afile_open_flags {
	AFILE_NOFOLLOW = 1 << 0, /* a symbolic link is refused, not followed */
	AFILE_AT_PATH = 1 << 1,  /* err: at {path}, the message without it */
};

/* Open path for reading as a regular file (the rule above). On success
 * *fd_out is the descriptor (the caller closes it) and *st_out (if not
 * NULL) its fstat. On failure nothing is left open and err says why:
 * "cannot open 'P': <errno text>", "'P' is a dangling symbolic link",
 * "'P' is a symbolic link loop (...)", "'P' is a symbolic link, not a
 * regular file" (AFILE_NOFOLLOW), "'P' is a FIFO, not a regular file" (a
 * folder, a character device, ...). With AFILE_AT_PATH err's
 * position is {P} and the message leaves the path out ("a FIFO, not a
 * regular file"), for callers that report at a file's position. */
int afile_open(int *fd_out, struct stat *st_out, const char *path,
    unsigned flags, struct err *err);
/* What a file of this mode is, for messages: "a regular file", "a
 * folder", "a FIFO", "a character device", "a block device", "a socket",
 * "a symbolic link", else "not a regular file". Static. */
const char *afile_mode_name(mode_t mode);
/* Read fd (opened by afile_open as path, for messages) to its end,
 * refusing more than max bytes. On success *out owns a NUL-terminated
 * copy and *len_out (if not NULL) its length. fd stays open. */
int afile_read_fd(char **out, size_t *len_out, int fd, const char *path,
    size_t max, struct err *err);
/* afile_open + afile_read_fd + close: the whole regular file path, at
 * most max bytes. */
int afile_read(char **out, size_t *len_out, const char *path, size_t max,
    struct err *err);
/* The same for path itself (AFILE_NOFOLLOW: a symbolic link is refused),
 * and *st_out is what fstat said of the very file that was read (its
 * owner, its links), so that a check of it and the text read cannot
 * disagree. */
int afile_read_nofollow(char **out, size_t *len_out, struct stat *st_out,
    const char *path, size_t max, struct err *err);
/* Remove every entry of folder dir whose name match(name, ctx) accepts
 * (regular files: an entry unlink refuses is an error). A missing dir
 * holds nothing to remove: 0. -1 with err naming the first failure; the
 * others are still tried. */
int afile_unlink_matching(const char *dir,
    bool (*match)(const char *name, void *ctx), void *ctx, struct err *err);
/* mkdir -p with mode for every created component; the folder holding each
 * created component is fsync'd after its mkdir. */
int afile_mkdirs(const char *path, mode_t mode, struct err *err);

#endif
