/*
 * log.c — one-line diagnostics on stderr (see log.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static const char	*log_name = "progmux";
static log_sink_cb	 log_sink;
int			 log_debug_on;

void
log_init(const char *name)
{
	const char	*v;

	log_name = name;
	v = getenv("PROGMUX_DEBUG");
	log_debug_on = (v != NULL && *v != '\0' && strcmp(v, "0") != 0);
}

/* Format one line and write it with a single write(2). */
static void
log_vwrite(const char *level, const char *fmt, va_list ap)
{
	char	line[2048];
	int	n, m;

	n = snprintf(line, sizeof line, "%s[%ld]: %s", log_name,
	    (long)getpid(), level);
	if (n < 0 || (size_t)n >= sizeof line)
		return;
	m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n > sizeof line - 2)
		n = sizeof line - 2;
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, (size_t)n);
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("warning: ", fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("", fmt, ap);
	va_end(ap);
}

void
log_debug_(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("debug: ", fmt, ap);
	va_end(ap);
}

/* Where log_notify() sends its messages; NULL for nowhere. */
void
log_set_sink(log_sink_cb cb)
{
	log_sink = cb;
}

/* A message for the process's client, through the sink, if there is one. */
void
log_notify(int level, const char *logger, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 n;

	if (log_sink == NULL)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	log_sink(level, logger, n == -1 ? "" : s);
	if (n != -1)
		free(s);
}

void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("fatal: ", fmt, ap);
	va_end(ap);
	abort();
}
