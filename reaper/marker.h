/*
 * marker.h — the launcher's markers in the pane's byte stream (proto.h).
 *
 * A marker is ESC ] 5522 ; <nonce> ; <kind> ; <value> BEL: the launcher
 * writes one to the terminal once the program runs (kind "run") and once
 * it and all its descendants are gone (exit, signal, noexec). The reaper
 * scans the pane's bytes for them as they come, in pieces of any size: a
 * marker may be split anywhere across reads. Bytes that are not a marker
 * of this nonce are text and are handed on unchanged, in order.
 */
#ifndef PROGMUX_MARKER_H
#define PROGMUX_MARKER_H

#include <stdbool.h>
#include <stddef.h>

#include "proto.h"

enum marker_kind {
	MARKER_K_RUN,		/* value: the program's pid (its group) */
	MARKER_K_EXIT,		/* value: exit status */
	MARKER_K_SIGNAL,	/* value: signal number */
	MARKER_K_NOEXEC		/* value: 127 not found, 126 otherwise */
};

struct marker {
	enum marker_kind kind;
	long		 value;
};

/* Where the scan is; no allocation. */
struct marker_scan {
	char	prefix[sizeof MARKER_PREFIX + MARKER_NONCE_LEN + 1];
	size_t	prefix_len;
	size_t	matched;		/* bytes of the prefix matched so far */
	bool	in_body;
	bool	too_long;		/* the body outgrew body[]: dropped */
	char	body[MARKER_MAX];
	size_t	body_len;
};

typedef void (*marker_text_cb)(void *arg, const char *, size_t);

/* A fresh nonce of MARKER_NONCE_LEN hex digits; -1 (errno) on failure. */
int	marker_nonce(char out[MARKER_NONCE_LEN + 1]);
/* Format a marker into buf (at least MARKER_MAX + 64 bytes); its length. */
size_t	marker_format(char *buf, size_t size, const char *nonce,
	    enum marker_kind, long value);

void	marker_scan_init(struct marker_scan *, const char *nonce);
/*
 * Scan p[0..len): text goes to text(arg, ...) in order. Stops after the
 * first whole marker (*found true, *out set) or at the end of the input.
 * Returns the bytes consumed; call again with the rest. A marker with
 * this nonce but a body too long or not understood is dropped.
 */
size_t	marker_scan(struct marker_scan *, const char *p, size_t len,
	    marker_text_cb text, void *arg, struct marker *out, bool *found);
/* The input has ended: bytes held as a possible marker start are text. */
void	marker_scan_flush(struct marker_scan *, marker_text_cb text,
	    void *arg);

#endif
