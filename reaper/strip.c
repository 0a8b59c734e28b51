/*
 * strip.c — turn a terminal's byte stream into clean text (see strip.h).
 *
 * Two stages run on every byte. A UTF-8 decoder (utf8.h's streaming one)
 * turns bytes into code points, and a parser in the manner of the
 * DEC/ECMA-48 one (as in tmux's input.c) turns code points into text,
 * dropping every sequence and control.
 * The decoder runs in every state, so a sequence split across chunks, or a
 * multi-byte character inside an OSC title, costs nothing special.
 *
 * Decisions, each pinned by tests/unit/test_strip.c:
 *
 * - UTF-8 follows the Unicode "maximal subpart" practice: overlongs (C0 80,
 *   E0 80 80), surrogates (ED A0 80) and code points past U+10FFFF
 *   (F4 90 80 80) are invalid; each maximal invalid subpart becomes one
 *   U+FFFD. A sequence cut short by a byte that cannot continue it becomes
 *   U+FFFD, then that byte is read afresh. A sequence still open at
 *   strip_finish() becomes U+FFFD.
 * - U+0080..U+009F, the C1 controls as UTF-8 code points (C2 80..C2 9F),
 *   are text, as tmux 3.5a and later show them: they start no sequence
 *   and end none (tmux 3.3a shows nothing for them, and no version takes
 *   them as controls). Inside a sequence they are like any other
 *   non-ASCII code point. Double-encoded text and binary output produce
 *   them from ordinary characters, so reading U+009D as OSC would swallow
 *   everything after it. A raw byte 0x80..0x9F where a character should
 *   start is invalid UTF-8 and becomes U+FFFD, like any other stray
 *   continuation byte.
 * - Strings, as tmux's parser ends them: OSC ends at BEL or ST; DCS, SOS,
 *   PM, APC and tmux's ESC k (window name) at ST only (ESC \). CAN and
 *   SUB abort any sequence; ESC inside one starts a new one (which is how
 *   ESC \ ends a string). Inside a string every other control is part of
 *   it, but for LF: a string never swallows a line break. At an LF the
 *   string is abandoned (its bytes counted as dropped) and the LF is a
 *   line break, so an unterminated string costs at most its own line.
 * - Inside ESC and CSI sequences, C0 controls act as in ground, as a
 *   terminal executes them there: TAB and LF are kept, CR counts, the rest
 *   are removed, and the sequence goes on.
 * - Line rule: a CR starts a held run of CRs. The first code point after it
 *   that gives text (or TAB), or an LF, decides: an LF makes the run and
 *   itself one line break; text makes the run one line break before it.
 *   Escape sequences and removed controls in between do not decide, so
 *   "50%\r\033[K60%\r\n" reads "50%\n60%\n" and "a\r\033[K\n" reads "a\n".
 *   A run held at strip_finish() becomes one line break. But a CR run at
 *   the start of a line (nothing but sequences and removed controls since
 *   the last line break, or since the stream began) gives nothing, as a
 *   CR there moves nothing on a screen: "\rx" reads "x", and the
 *   "\r\033[2K" redraws of progress bars, bash's "\r\n\033[?2004l\r" and
 *   less's opening "\r" add no empty lines. "a\n\r\n" still reads
 *   "a\n\n": an LF is always a line break.
 * - A sequence still open after STRIP_SEQ_MAX bytes (controls executed
 *   inside it not counted) is abandoned, its bytes counted as dropped, and
 *   the next byte is ground again; so is one still open at
 *   strip_finish(). Bytes dropped are the only input, besides complete
 *   sequences and controls, that gives no text: the reaper reports them.
 * - DEL and VT/FF/NUL/BS/BEL and the other C0 controls are removed.
 *
 * Ground text is copied eight bytes at a time while every byte is printable
 * ASCII, which is what most output is.
 */
#include <stdint.h>
#include <string.h>

#include "strip.h"

/* Parser states. */
#define STRIP_GROUND	0
#define STRIP_ESC	1	/* after ESC */
#define STRIP_ESC_INT	2	/* ESC and intermediates (ESC ( B) */
#define STRIP_CSI	3	/* CSI parameters and intermediates */
#define STRIP_STR_BEL	4	/* OSC: ends at BEL or ST */
#define STRIP_STR_ST	5	/* DCS, SOS, PM, APC, ESC k: ends at ST */

#define STRIP_ONES	0x0101010101010101ULL
#define STRIP_HIGHS	0x8080808080808080ULL

/* Start a sequence in state st, its introducer n bytes long. */
static inline void
strip_enter(struct strip *sp, int st, uint32_t n)
{
	sp->state = st;
	sp->seqlen = n;
}

/* Text follows: write the line break a held CR run stands for, if any. */
static inline char *
strip_flush_cr(struct strip *sp, char *o)
{
	if (sp->pending_cr && !sp->bol)
		*o++ = '\n';
	sp->pending_cr = 0;
	sp->bol = 0;
	return (o);
}

/* A C0 control in ground, ESC or CSI state: executed as a terminal would. */
static char *
strip_c0(struct strip *sp, uint32_t c, char *o)
{
	switch (c) {
	case '\n':
		sp->pending_cr = 0;
		sp->bol = 1;
		*o++ = '\n';
		break;
	case '\t':
		o = strip_flush_cr(sp, o);
		*o++ = '\t';
		break;
	case '\r':
		sp->pending_cr = 1;
		break;
	case 0x1b:
		strip_enter(sp, STRIP_ESC, 1);
		break;
	case 0x18:
	case 0x1a:
		sp->state = STRIP_GROUND;
		break;
	}
	return (o);
}

/* A C0 control inside a string: only BEL, CAN, SUB and ESC matter. */
static void
strip_c0_string(struct strip *sp, uint32_t c)
{
	switch (c) {
	case 0x07:
		if (sp->state == STRIP_STR_BEL)
			sp->state = STRIP_GROUND;
		break;
	case 0x1b:
		strip_enter(sp, STRIP_ESC, 1);
		break;
	case 0x18:
	case 0x1a:
		sp->state = STRIP_GROUND;
		break;
	}
}

/* A sequence is abandoned: its bytes are dropped, and ground resumes. */
static inline void
strip_abandon(struct strip *sp)
{
	sp->dropped += sp->seqlen;
	sp->state = STRIP_GROUND;
}

/* The byte after ESC (not a control): what kind of sequence this is. */
static void
strip_esc(struct strip *sp, uint32_t c)
{
	if (c >= 0x20 && c <= 0x2f) {
		sp->state = STRIP_ESC_INT;
		return;
	}
	switch (c) {
	case '[':
		sp->state = STRIP_CSI;
		break;
	case ']':
		sp->state = STRIP_STR_BEL;
		break;
	case 'P':
	case 'X':
	case '^':
	case '_':
	case 'k':
		sp->state = STRIP_STR_ST;
		break;
	default:
		/* A final byte ends it; DEL and non-ASCII are ignored. */
		if (c >= 0x30 && c <= 0x7e)
			sp->state = STRIP_GROUND;
		break;
	}
}

/* One code point c, n bytes long in the input, through the parser. */
static char *
strip_cp(struct strip *sp, uint32_t c, uint32_t n, char *o)
{
	if (sp->state == STRIP_GROUND) {
		if (c < 0x20)
			return (strip_c0(sp, c, o));
		if (c < 0x7f) {
			o = strip_flush_cr(sp, o);
			*o++ = c;
			return (o);
		}
		if (c == 0x7f)
			return (o);
		o = strip_flush_cr(sp, o);
		return (o + utf8_encode(c, o));
	}

	if (sp->state >= STRIP_STR_BEL) {
		if (c == '\n') {
			/* Never past a line break: the LF is one. */
			strip_abandon(sp);
			return (strip_c0(sp, c, o));
		}
		sp->seqlen += n;
		if (c < 0x20)
			strip_c0_string(sp, c);
	} else if (c < 0x20)
		o = strip_c0(sp, c, o);	/* executed: not the sequence's */
	else {
		sp->seqlen += n;
		if (sp->state == STRIP_ESC)
			strip_esc(sp, c);
		else if (c <= 0x7e &&
		    c >= (sp->state == STRIP_CSI ? 0x40U : 0x30U))
			sp->state = STRIP_GROUND;
	}

	if (sp->state != STRIP_GROUND && sp->seqlen >= STRIP_SEQ_MAX)
		strip_abandon(sp);
	return (o);
}

/* A byte that is not plain ASCII text, or any byte mid-sequence. */
static char *
strip_byte(struct strip *sp, uint8_t c, char *o)
{
	uint32_t	cp, n;
	int		r;

	while ((r = utf8_dec_byte(&sp->u8, c, &cp, &n)) != UTF8_MORE) {
		/* An invalid character (a maximal subpart) is one U+FFFD. */
		o = strip_cp(sp, cp == UTF8_INVALID ? UTF8_REPLACEMENT : cp, n,
		    o);
		if (r == UTF8_CHAR)
			break;
	}
	return (o);
}

/* Length of the run of printable ASCII at p, copied to o as it is found. */
static inline size_t
strip_run(const uint8_t *p, const uint8_t *end, char *o)
{
	const uint8_t	*q = p;
	uint64_t	 w;

	while (end - q >= 8) {
		memcpy(&w, q, 8);
		/* A byte below 0x20, or at or above 0x7f, sets its high bit. */
		if ((((w - STRIP_ONES * 0x20) & ~w) | (w + STRIP_ONES) | w) &
		    STRIP_HIGHS)
			break;
		memcpy(o, q, 8);
		o += 8;
		q += 8;
	}
	while (q < end && *q >= 0x20 && *q < 0x7f)
		*o++ = *q++;
	return (q - p);
}

/* A parser at the start of a stream, nothing dropped. */
void
strip_init(struct strip *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->state = STRIP_GROUND;
	sp->bol = 1;
}

/* Strip len bytes into out; runs of plain ASCII take the fast path. */
size_t
strip_feed(struct strip *sp, const void *in, size_t len, char *out)
{
	const uint8_t	*p = in, *end = p + len;
	char		*o = out;
	size_t		 n;
	uint8_t		 c;

	while (p < end) {
		if (sp->state == STRIP_GROUND && sp->u8.len == 0 &&
		    *p >= 0x20 && *p < 0x7f) {
			o = strip_flush_cr(sp, o);
			n = strip_run(p, end, o);
			o += n;
			p += n;
			continue;
		}
		c = *p++;
		if (sp->u8.len == 0 && c < 0x80)
			o = strip_cp(sp, c, 1, o);
		else
			o = strip_byte(sp, c, o);
	}
	return (o - out);
}

/* The end: a held partial character and a held CR run come out, and a
 * sequence still open is dropped; the count of dropped bytes stays. */
size_t
strip_finish(struct strip *sp, char *out)
{
	char		*o = out;
	uint64_t	 dropped;

	if (sp->u8.len != 0)
		o = strip_cp(sp, UTF8_REPLACEMENT, sp->u8.len, o);
	if (sp->state != STRIP_GROUND)
		strip_abandon(sp);
	if (sp->pending_cr && !sp->bol)
		*o++ = '\n';
	dropped = sp->dropped;
	strip_init(sp);
	sp->dropped = dropped;
	return (o - out);
}
