/*
 * marker.c — write and scan the launcher's markers (marker.h).
 *
 * The prefix (ESC ] 5522 ; nonce ;) starts with ESC, which appears nowhere
 * else in it, so when a partial match fails only the bytes held so far are
 * text, and the failing byte is tried again as a new start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "marker.h"

static const char *const marker_kinds[] = {
	[MARKER_K_RUN] = MARKER_RUN,
	[MARKER_K_EXIT] = MARKER_EXIT,
	[MARKER_K_SIGNAL] = MARKER_SIGNAL,
	[MARKER_K_NOEXEC] = MARKER_NOEXEC
};

/* A nonce: random bytes in hex. */
int
marker_nonce(char out[MARKER_NONCE_LEN + 1])
{
	unsigned char	rnd[MARKER_NONCE_LEN / 2];
	size_t		i;

	if (getentropy(rnd, sizeof rnd) == -1)
		return (-1);
	for (i = 0; i < sizeof rnd; i++)
		snprintf(out + 2 * i, 3, "%02x", rnd[i]);
	return (0);
}

/* The marker's bytes, as the launcher writes them. */
size_t
marker_format(char *buf, size_t size, const char *nonce,
    enum marker_kind kind, long value)
{
	int	n;

	n = snprintf(buf, size, "%s%s;%s;%ld\007", MARKER_PREFIX, nonce,
	    marker_kinds[kind], value);
	if (n < 0)
		return (0);
	return ((size_t)n < size ? (size_t)n : size - 1);
}

/* Start scanning for markers of this nonce. */
void
marker_scan_init(struct marker_scan *ms, const char *nonce)
{
	memset(ms, 0, sizeof *ms);
	ms->prefix_len = (size_t)snprintf(ms->prefix, sizeof ms->prefix,
	    "%s%.*s;", MARKER_PREFIX, MARKER_NONCE_LEN, nonce);
}

/* Parse a whole body, "kind;value": 0, or -1 if not understood. */
static int
marker_parse(const char *body, struct marker *out)
{
	const char	*semi;
	char		*end;
	size_t		 i, n;

	if ((semi = strchr(body, ';')) == NULL || semi[1] == '\0')
		return (-1);
	n = (size_t)(semi - body);
	for (i = 0; i < sizeof marker_kinds / sizeof marker_kinds[0]; i++)
		if (strlen(marker_kinds[i]) == n &&
		    memcmp(body, marker_kinds[i], n) == 0)
			break;
	if (i == sizeof marker_kinds / sizeof marker_kinds[0])
		return (-1);
	errno = 0;
	out->value = strtol(semi + 1, &end, 10);
	if (*end != '\0' || errno != 0)
		return (-1);
	out->kind = (enum marker_kind)i;
	return (0);
}

/* One byte of a body; true when the marker is complete and understood. */
static int
marker_body_byte(struct marker_scan *ms, char c, struct marker *out)
{
	if (c != '\007') {
		if (ms->body_len < sizeof ms->body - 1)
			ms->body[ms->body_len++] = c;
		else
			ms->too_long = true;
		return (0);
	}
	ms->in_body = false;
	ms->body[ms->body_len] = '\0';
	if (ms->too_long || marker_parse(ms->body, out) == -1)
		return (0);	/* ours, but not understood: dropped */
	return (1);
}

size_t
marker_scan(struct marker_scan *ms, const char *p, size_t len,
    marker_text_cb text, void *arg, struct marker *out, bool *found)
{
	const char	*esc;
	size_t		 i = 0, run;

	*found = false;
	while (i < len) {
		if (ms->in_body) {
			if (marker_body_byte(ms, p[i++], out)) {
				*found = true;
				break;
			}
			continue;
		}
		if (ms->matched == 0) {
			esc = memchr(p + i, '\033', len - i);
			run = esc == NULL ? len - i : (size_t)(esc - (p + i));
			if (run > 0)
				text(arg, p + i, run);
			if ((i += run) == len)
				break;
		}
		if (p[i] == ms->prefix[ms->matched]) {
			i++;
			if (++ms->matched == ms->prefix_len) {
				ms->matched = 0;
				ms->in_body = true;
				ms->too_long = false;
				ms->body_len = 0;
			}
			continue;
		}
		/* Not the marker: what was held is text; retry this byte. */
		text(arg, ms->prefix, ms->matched);
		ms->matched = 0;
	}
	return (i);
}

void
marker_scan_flush(struct marker_scan *ms, marker_text_cb text, void *arg)
{
	if (ms->matched > 0)
		text(arg, ms->prefix, ms->matched);
	ms->matched = 0;
}
