/*
 * fuzz_pattern.c — libFuzzer target for the front's regular expressions
 * (server/pattern.c).
 *
 * The first byte chooses the dialect (its low bit: PATTERN_ECMA) and,
 * with the second, where the pattern ends and the line begins; the line
 * is also matched repeated up to 4 KiB, so a pattern meets long lines. Every
 * compile and match runs under the server's limits: each must end with a
 * result or an error naming the limit (a crash, a hang or a leak is the
 * failure libFuzzer reports).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_LONG	4096	/* the line repeated to this many bytes */

/* One match: a result, or a cause naming a limit. */
static void
fuzz_match(struct pattern *p, const char *s, size_t len)
{
	char	*cause = NULL;
	int	 rc;

	rc = pattern_match(p, s, len, &cause);
	if (rc == -1) {
		if (cause == NULL)
			abort();
		free(cause);
	} else if ((rc != 0 && rc != 1) || cause != NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pattern	*p;
	char		*cause = NULL, *longer;
	size_t		 split, n, i;
	int		 flags;

	if (size < 2)
		return (0);
	flags = (data[0] & 1) ? PATTERN_ECMA : 0;
	split = (((size_t)data[0] >> 1) << 8 | data[1]) % (size - 1);
	data += 2;
	size -= 2;
	if (split > size)
		split = size;
	p = pattern_compile((const char *)data, split, flags, &cause);
	if (p == NULL) {
		if (cause == NULL)
			abort();
		free(cause);
		return (0);
	}
	if (cause != NULL)
		abort();
	n = size - split;
	fuzz_match(p, (const char *)data + split, n);
	if (n > 0) {
		longer = malloc(FUZZ_LONG);
		if (longer == NULL)
			abort();
		for (i = 0; i < FUZZ_LONG; i++)
			longer[i] = (char)data[split + i % n];
		fuzz_match(p, longer, FUZZ_LONG);
		free(longer);
	}
	pattern_free(p);
	return (0);
}
