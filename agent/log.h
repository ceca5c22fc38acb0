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
enum agent_log_prio {
	AGENT_LOG_CRIT = 2,
	AGENT_LOG_ERR = 3,
	AGENT_LOG_WARNING = 4,
	AGENT_LOG_NOTICE = 5,
	AGENT_LOG_INFO = 6,
	AGENT_LOG_DEBUG = 7,
};

/* Detect the output style of stderr (journal or not). Call once at start;
 * without it, plain lines with timestamps are written. */
void agent_log_init(void);
/* Write to f instead of stderr; journal selects the `<N>` format. For
 * tests; f is borrowed. */
void agent_log_set_output(FILE *f, bool journal);
/* Events above max (less important) are dropped; default AGENT_LOG_INFO. */
void agent_log_set_level(enum agent_log_prio max);
enum agent_log_prio agent_log_get_level(void);
/* "err", "warning", "notice", "info", "debug" (also "warn"). */
int agent_log_level_parse(const char *s, enum agent_log_prio *out);
const char *agent_log_level_name(enum agent_log_prio p);

/* Format and write one event. errno is preserved, so `%m` may follow the
 * failing call directly. */
void agent_log_msg(enum agent_log_prio prio, const char *module,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Log at AGENT_LOG_CRIT and exit(1). */
void agent_log_fatal(const char *module, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Append s to the buffer out of outlen bytes with control bytes escaped;
 * always NUL-terminates; returns the length written. */
size_t agent_log_escape(char *out, size_t outlen, const char *s);

#define log_err(...)    agent_log_msg(AGENT_LOG_ERR, LOG_MODULE, __VA_ARGS__)
#define log_warn(...)   agent_log_msg(AGENT_LOG_WARNING, LOG_MODULE, __VA_ARGS__)
#define log_notice(...) agent_log_msg(AGENT_LOG_NOTICE, LOG_MODULE, __VA_ARGS__)
#define log_info(...)   agent_log_msg(AGENT_LOG_INFO, LOG_MODULE, __VA_ARGS__)
#define log_debug(...)  agent_log_msg(AGENT_LOG_DEBUG, LOG_MODULE, __VA_ARGS__)
#define fatal(...)      agent_log_fatal(LOG_MODULE, __VA_ARGS__)

#endif
