/* agent/log.h: one log event per line on stderr (style.md 2.7).
 *
 * Under systemd (stderr connected to the journal, detected through
 * $JOURNAL_STREAM as systemd's own stderr_is_journal() does) each line is
 * `<N>module: message` with the sd-daemon.h priority N and no timestamp;
 * journald adds time and program name. Otherwise each line is
 * `HH:MM:SS level module: message`. Control bytes in the formatted message
 * are escaped (\n, \t, \xNN), so untrusted YAML or HTTP text can never
 * forge a second log line. Only agent/ logs.
 *
 * A source file names its module before including this header:
 *     #define LOG_MODULE "watch"
 * The level and the output are this module's only global state.
 */
#ifndef AGENT_LOG_H
#define AGENT_LOG_H

#include <stdbool.h>
#include <stdio.h>

#ifndef LOG_MODULE
#define LOG_MODULE "agent"
#endif

/* Priorities as in syslog(3) and sd-daemon.h. */
enum log_prio {
	LOGP_CRIT = 2,
	LOGP_ERR = 3,
	LOGP_WARNING = 4,
	LOGP_NOTICE = 5,
	LOGP_INFO = 6,
	LOGP_DEBUG = 7,
};

/* Detect the output style of stderr (journal or not). Call once at start;
 * without it, plain lines with timestamps are written. */
void log_init(void);
/* Write to f instead of stderr; journal selects the `<N>` format. For
 * tests; f is borrowed. */
void log_set_output(FILE *f, bool journal);
/* Events above max (less important) are dropped; default LOGP_INFO. */
void log_set_level(enum log_prio max);
enum log_prio log_get_level(void);
/* "err", "warning", "notice", "info", "debug" (also "warn"). */
int log_level_parse(const char *s, enum log_prio *out);
const char *log_level_name(enum log_prio p);

/* Format and write one event. errno is preserved, so `%m` may follow the
 * failing call directly. */
void log_msg(enum log_prio prio, const char *module, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Log at LOGP_CRIT and exit(1). */
void log_fatal(const char *module, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Append s to the buffer out of outlen bytes with control bytes escaped;
 * always NUL-terminates; returns the length written. */
size_t log_escape(char *out, size_t outlen, const char *s);

#define log_err(...)    log_msg(LOGP_ERR, LOG_MODULE, __VA_ARGS__)
#define log_warn(...)   log_msg(LOGP_WARNING, LOG_MODULE, __VA_ARGS__)
#define log_notice(...) log_msg(LOGP_NOTICE, LOG_MODULE, __VA_ARGS__)
#define log_info(...)   log_msg(LOGP_INFO, LOG_MODULE, __VA_ARGS__)
#define log_debug(...)  log_msg(LOGP_DEBUG, LOG_MODULE, __VA_ARGS__)
#define fatal(...)      log_fatal(LOG_MODULE, __VA_ARGS__)

#endif
