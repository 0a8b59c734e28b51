/*
 * fuzz_textbuf.c — libFuzzer target for the pager (server/textbuf.c).
 *
 * The first bytes choose a ceiling, max_lines, max_chars, a chunk size
 * and a stray cursor; the rest is stripped (so the text is what the reaper
 * would keep) and appended in chunks. Then: the text kept is a prefix of
 * the text offered, cut on a character boundary; pages read from cursor 0
 * laid end to end give the kept text (ended) or all of it but a short
 * unfinished line (not ended), each page within its limits; the tail is a
 * suffix within its limits; a stray cursor gives a page or a clean error.
 * The raw bytes, invalid UTF-8 and all, are also paged, for memory safety.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strip.h"
#include "textbuf.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Walk every page from cursor 0 and check them; returns where it stopped. */
static size_t
fuzz_walk(const struct textbuf *tb, size_t ml, size_t mc, bool ended,
    bool strict)
{
	struct page	 pg;
	char		*cause = NULL;
	size_t		 cur = 0;

	for (;;) {
		if (textbuf_page(tb, cur, ml, mc, ended, &pg, &cause) != 0)
			abort();
		if (pg.end < pg.start || pg.end > tb->len || pg.start < cur)
			abort();
		if (strict && (pg.start != cur || pg.lines > ml ||
		    pg.chars > mc || pg.chars != utf8_count(tb->data +
		    pg.start, pg.end - pg.start)))
			abort();
		if (pg.end == pg.start)
			return (pg.start);
		cur = pg.end;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct textbuf	 tb, raw;
	struct strip	 sp;
	struct page	 pg;
	char		*text, *cause = NULL;
	size_t		 len, tlen, max, ml, mc, step, off, n, stray, end;

	if (size < 6)
		return (0);
	max = data[0] * 4;
	ml = data[1] % 16;
	mc = data[2] % 64;
	step = 1 + data[3] % 32;
	stray = data[4] * 3;
	data += 5;
	len = size - 5;

	text = malloc(STRIP_MAX_OUT(len) + 16);
	strip_init(&sp);
	tlen = strip_feed(&sp, data, len, text);
	tlen += strip_finish(&sp, text + tlen);

	textbuf_init(&tb, max);
	for (off = 0; off < tlen; off += n) {
		n = tlen - off < step ? tlen - off : step;
		textbuf_append(&tb, text + off, n);
	}
	if (tb.len > max || tb.len + tb.dropped != tlen ||
	    tb.chars != utf8_count(tb.data, tb.len) ||
	    memcmp(tb.data, text, tb.len) != 0 ||
	    tb.cut != (tlen > max) ||
	    (tb.len < tlen && (text[tb.len] & 0xc0) == 0x80))
		abort();

	if (ml > 0 && mc > 0) {
		if (fuzz_walk(&tb, ml, mc, true, true) != tb.len)
			abort();
		end = fuzz_walk(&tb, ml, mc, false, true);
		if (memchr(tb.data + end, '\n', tb.len - end) != NULL ||
		    utf8_count(tb.data + end, tb.len - end) >= mc)
			abort();
	}
	textbuf_tail(&tb, ml, mc, &pg);
	if (pg.end != tb.len || pg.start > tb.len || pg.lines > ml ||
	    pg.chars > mc)
		abort();

	if (textbuf_page(&tb, stray, ml, mc, stray % 2, &pg, &cause) != 0) {
		if (cause == NULL || stray <= tb.len)
			abort();
		free(cause);
	} else if (stray > tb.len || pg.start < stray)
		abort();

	/* Raw bytes, not UTF-8 at all: nothing may crash. */
	textbuf_init(&raw, max);
	textbuf_append(&raw, (const char *)data, len);
	if (ml > 0 && mc > 0) {
		fuzz_walk(&raw, ml, mc, true, false);
		fuzz_walk(&raw, ml, mc, false, false);
	}
	textbuf_tail(&raw, ml, mc, &pg);
	textbuf_free(&raw);

	textbuf_free(&tb);
	free(text);
	return (0);
}
