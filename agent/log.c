/* agent/log.c: see log.h. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOG_LINE_MAX 4096 /* bytes of one formatted event */

static FILE *log_out;
static bool log_journal;
static enum agent_log_prio log_level = AGENT_LOG_INFO;

static const char *const prio_names[] = {
    "emerg",
    "alert",
    "crit",
    "err",
    "warning",
    "notice",
    "info",
    "debug",
};

/* True when stderr is the stream $JOURNAL_STREAM (`dev:ino`) names. */
static bool
stderr_is_journal(void)
{
	const char *e;
	unsigned long long dev, ino;
	struct stat st;

	e = getenv("JOURNAL_STREAM");
	if (e == NULL || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void
agent_log_init(void)
{
	log_out = stderr;
	log_journal = stderr_is_journal();
}

void
agent_log_set_output(FILE *f, bool journal)
{
	log_out = f;
	log_journal = journal;
}

void
agent_log_set_level(enum agent_log_prio max)
{
	log_level = max;
}

enum agent_log_prio
agent_log_get_level(void)
{
	return log_level;
}

int
agent_log_level_parse(const char *s, enum agent_log_prio *out)
{
	int i;

	if (strcmp(s, "warn") == 0) {
		*out = AGENT_LOG_WARNING;
		return 0;
	}
	for (i = AGENT_LOG_ERR; i <= AGENT_LOG_DEBUG; i++) {
		if (strcmp(s, prio_names[i]) == 0) {
			*out = (enum agent_log_prio)i;
			return 0;
		}
	}
	return -1;
}

const char *
agent_log_level_name(enum agent_log_prio p)
{
	if ((int)p < 0 || (int)p > AGENT_LOG_DEBUG)
		return "?";
	return prio_names[p];
}

size_t
agent_log_escape(char *out, size_t outlen, const char *s)
{
	size_t n = 0;
	const unsigned char *p;
	char tmp[5];
	const char *add;
	size_t alen;

	if (outlen == 0)
		return 0;
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '\n')
			add = "\\n";
		else if (*p == '\t')
			add = "\\t";
		else if (*p == '\r')
			add = "\\r";
		else if (*p == '\\')
			add = "\\\\";
		else if (*p < 0x20 || *p == 0x7f) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
			add = tmp;
		} else {
			tmp[0] = (char)*p;
			tmp[1] = '\0';
			add = tmp;
		}
		alen = strlen(add);
		if (n + alen >= outlen)
			break;
		memcpy(out + n, add, alen);
		n += alen;
	}
	out[n] = '\0';
	return n;
}

static void emit(enum agent_log_prio prio, const char *module, const char *fmt,
    va_list ap) __attribute__((format(printf, 3, 0)));

static void
emit(enum agent_log_prio prio, const char *module, const char *fmt, va_list ap)
{
	char esc[LOG_LINE_MAX];
	char stamp[16] = "";
	char *raw = NULL;
	struct timespec ts;
	struct tm tm;
	FILE *f = log_out != NULL ? log_out : stderr;

	/* vasprintf, not vsnprintf into a stack buffer: clang-analyzer takes
	 * a va_list parameter for uninitialized in the latter. The escaped
	 * line is cut at LOG_LINE_MAX bytes either way. */
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	agent_log_escape(esc, sizeof(esc),
	    raw != NULL ? raw : "(out of memory)");
	free(raw);
	if (log_journal) {
		fprintf(f, "<%d>%s: %s\n", (int)prio, module, esc);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
		fprintf(f, "%s %s %s: %s\n", stamp, agent_log_level_name(prio),
		    module, esc);
	}
	fflush(f);
}

void
agent_log_msg(enum agent_log_prio prio, const char *module, const char *fmt,
    ...)
{
	va_list ap;
	int saved = errno;

	if (prio <= log_level) {
		va_start(ap, fmt);
		emit(prio, module, fmt, ap);
		va_end(ap);
	}
	errno = saved;
}

void
agent_log_fatal(const char *module, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(AGENT_LOG_CRIT, module, fmt, ap);
	va_end(ap);
	exit(1);
}
