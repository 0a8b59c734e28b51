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

void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("fatal: ", fmt, ap);
	va_end(ap);
	abort();
}
