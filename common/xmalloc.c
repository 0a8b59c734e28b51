/*
 * xmalloc.c — allocation wrappers that abort on exhaustion (see xmalloc.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmalloc.h"

/* Say why on stderr and abort: stdout belongs to the protocol. */
static void
xmalloc_die(size_t n)
{
	char	line[96];
	int	len;

	len = snprintf(line, sizeof line, "progmux: out of memory (%zu bytes)\n", n);
	if (len > 0)
		(void)!write(STDERR_FILENO, line, (size_t)len);
	abort();
}

void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = malloc(n == 0 ? 1 : n)) == NULL)
		xmalloc_die(n);
	return (p);
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	*p;

	if ((p = calloc(nmemb == 0 ? 1 : nmemb, size == 0 ? 1 : size)) == NULL)
		xmalloc_die(nmemb * size);
	return (p);
}

void *
xrealloc(void *old, size_t n)
{
	void	*p;

	if ((p = realloc(old, n == 0 ? 1 : n)) == NULL)
		xmalloc_die(n);
	return (p);
}

void *
xreallocarray(void *old, size_t nmemb, size_t size)
{
	void	*p;

	if (size != 0 && nmemb > (size_t)-1 / size)
		xmalloc_die((size_t)-1);
	if ((p = realloc(old, nmemb * size == 0 ? 1 : nmemb * size)) == NULL)
		xmalloc_die(nmemb * size);
	return (p);
}

char *
xstrdup(const char *s)
{
	return (xmemdup(s, strlen(s) + 1));
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p;

	p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return (p);
}

void *
xmemdup(const void *s, size_t n)
{
	void	*p;

	p = xmalloc(n);
	if (n != 0)
		memcpy(p, s, n);
	return (p);
}

int
xasprintf(char **out, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0)
		xmalloc_die(0);
	return (n);
}
