/*
 * fuzz_marker.c — libFuzzer target for the marker scanner
 * (reaper/marker.c).
 *
 * The first byte chooses where to split the rest. The rest is scanned in
 * one piece, in two pieces split there, and byte by byte: the text handed
 * on and the markers found must be the same each way, and the text can
 * only be shorter than the input by what the markers took.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "marker.h"

#define NONCE	"0123456789abcdef0123456789abcdef"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct fuzz_seen {
	struct buf	text;
	struct buf	marks;	/* kind and value of each marker found */
};

/* Text callback. */
static void
fuzz_text(void *arg, const char *p, size_t len)
{
	buf_add(&((struct fuzz_seen *)arg)->text, p, len);
}

/* Scan p in pieces: at cut, or every step bytes (step 0: at cut only). */
static void
fuzz_scan(const char *p, size_t len, size_t cut, size_t step,
    struct fuzz_seen *s)
{
	struct marker_scan	ms;
	struct marker		m, c;
	size_t			off = 0, end, n;
	bool			found;

	marker_scan_init(&ms, NONCE);
	while (off < len) {
		if (step > 0)
			end = off + step;
		else
			end = off < cut ? cut : len;
		while (off < end) {
			n = marker_scan(&ms, p + off, end - off, fuzz_text, s,
			    &m, &found);
			if (n > end - off)
				abort();
			off += n;
			if (found) {
				memset(&c, 0, sizeof c);	/* no padding */
				c.kind = m.kind;
				c.value = m.value;
				buf_add(&s->marks, &c, sizeof c);
			}
			else if (off != end)
				abort();
		}
	}
	marker_scan_flush(&ms, fuzz_text, s);
}

/* Are two results the same? */
static int
fuzz_same(const struct fuzz_seen *a, const struct fuzz_seen *b)
{
	return (a->text.len == b->text.len && a->marks.len == b->marks.len &&
	    (a->text.len == 0 || memcmp(a->text.data, b->text.data,
	    a->text.len) == 0) && (a->marks.len == 0 ||
	    memcmp(a->marks.data, b->marks.data, a->marks.len) == 0));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_seen	one, two, each;
	const char		*p;
	size_t			 len, cut;

	if (size < 1)
		return (0);
	p = (const char *)data + 1;
	len = size - 1;
	cut = len == 0 ? 0 : data[0] % (len + 1);
	memset(&one, 0, sizeof one);
	memset(&two, 0, sizeof two);
	memset(&each, 0, sizeof each);
	fuzz_scan(p, len, len, 0, &one);
	fuzz_scan(p, len, cut, 0, &two);
	fuzz_scan(p, len, 0, 1, &each);
	if (!fuzz_same(&one, &two) || !fuzz_same(&one, &each) ||
	    one.text.len > len)
		abort();
	buf_free(&one.text);
	buf_free(&one.marks);
	buf_free(&two.text);
	buf_free(&two.marks);
	buf_free(&each.text);
	buf_free(&each.marks);
	return (0);
}
