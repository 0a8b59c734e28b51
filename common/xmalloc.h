/*
 * xmalloc.h — allocation that never returns NULL.
 *
 * Out of memory is the one failure progmux does not try to survive: these
 * wrappers print a line to stderr and abort, so callers need no NULL checks.
 */
#ifndef PROGMUX_XMALLOC_H
#define PROGMUX_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
void	*xmemdup(const void *, size_t);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
