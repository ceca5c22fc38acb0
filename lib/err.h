/* lib/err.h: errors that can point into a source file, and lists of
 * diagnostics (style.md 2.4, 2.7, 2.8).
 *
 * Diagnostics print as `path:line:col: message` (GNU style). Lines and
 * columns are 1-based; 0 means unknown and is then left out.
 */
#ifndef LIB_ERR_H
#define LIB_ERR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct pos {
	const char *path; /* borrowed; NULL when not from a file */
	unsigned line;    /* 1-based; 0 when unknown */
	unsigned col;     /* 1-based; 0 when unknown */
};

struct err {
	char *path; /* owned copy of pos->path, or NULL */
	unsigned line, col;
	char *msg; /* owned; NULL while no error is recorded */
};

/* Record the first error only; later calls are ignored. pos may be NULL.
 * Returns -1 so that `return err_setf(...)` reads naturally. */
int err_setf(struct err *err, const struct pos *pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* True when an error is recorded. */
bool err_is_set(const struct err *err);
/* Leaves *err zeroed and reusable. */
void err_release(struct err *err);
/* `path:line:col: msg` (or fewer parts when unknown); owned by the caller. */
char *err_render(const struct err *err);

enum diag_severity {
	DIAG_ERROR = 0,
	DIAG_WARNING = 1,
};

struct diag {
	enum diag_severity severity;
	char *path; /* owned, or NULL */
	unsigned line, col;
	char *msg; /* owned */
};

#define ERRLIST_CAP 50 /* diagnostics kept per run (style.md 2.8) */

/* A list of diagnostics, valid when zeroed. Past `cap` (ERRLIST_CAP when
 * 0) further diagnostics are counted in `dropped` but not kept. */
struct errlist {
	struct diag *items;
	size_t n, alloc;
	size_t cap;
	size_t dropped;
	size_t nerrors, nwarnings; /* counted, dropped ones included */
};

/* Append a diagnostic. Returns -1 for DIAG_ERROR, 0 for a warning. */
int errlist_add(struct errlist *l, enum diag_severity sev,
    const struct pos *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with the arguments as a va_list, for wrappers. */
int errlist_vadd(struct errlist *l, enum diag_severity sev,
    const struct pos *pos, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
/* Move the recorded error of err (if any) into l as DIAG_ERROR and release
 * err. */
void errlist_add_err(struct errlist *l, struct err *err);
/* Stable sort by path, line, col. */
void errlist_sort(struct errlist *l);
bool errlist_has_errors(const struct errlist *l);
/* `path:line:col: [warning: ]message` for item i; owned by the caller. */
char *errlist_render_item(const struct errlist *l, size_t i);
/* Item i as one GitHub Actions workflow command (an annotation), owned by
 * the caller, without a newline:
 *   ::error file=PATH,line=L,col=C,title=TITLE::MESSAGE
 * (::warning for a warning). file, line and col are left out when
 * unknown, title when NULL. The message is escaped as GitHub's toolkit
 * escapes data ('%' %25, CR %0D, LF %0A), the properties as it escapes
 * properties (also ':' %3A and ',' %2C), so that no path or message can
 * end the command early or start another one. */
char *errlist_render_github(const struct errlist *l, size_t i,
    const char *title);
void errlist_release(struct errlist *l);

#endif
