/*
 * strip.c — turn a terminal's byte stream into clean text (see strip.h).
 *
 * A byte-level parser in the manner of the DEC/ECMA-48 one, with tmux's
 * states and transitions (input.c), so that the text has what tmux puts
 * on the screen; tests/integration/test_strip_tmux.c compares the two on
 * random streams through real panes. Characters are decoded in ground
 * state only, as tmux decodes them; inside a sequence every byte is the
 * sequence's.
 *
 * Decisions, each pinned by tests/unit/test_strip.c:
 *
 * - UTF-8 as tmux reads it: a byte C2..F4 starts a character of the
 *   length it announces, and the next bytes of 80..FF that reach ground
 *   state complete it, whatever they are; the character is U+FFFD unless
 *   they form valid UTF-8 (no overlong, no surrogate, nothing past
 *   U+10FFFF, which tmux 3.4 and later show as a character but UTF-8
 *   cannot hold). Any other byte of 80..FF is one U+FFFD. A character
 *   is cut short, and is one U+FFFD, by printable ASCII and by the
 *   controls executed in ground, ESC and CSI states (and by CAN and SUB
 *   in any state but a DCS's data); ESC does not cut it, so a character
 *   split by an escape sequence is joined, as on tmux's screen. DEL in
 *   ground is ignored and cuts nothing. One open at strip_finish() is
 *   U+FFFD. tmux 3.6 and later show U+FFFD just there; earlier versions
 *   show nothing for invalid UTF-8.
 * - U+0080..U+009F (C2 80..C2 9F) are text, as tmux 3.4 and later show
 *   them (3.3a shows nothing for them, and no version takes them as
 *   controls). Double-encoded text and binary output produce them from
 *   ordinary characters, so reading U+009D as OSC would swallow
 *   everything after it.
 * - Strings, as tmux's parser ends them: OSC at BEL or ST; SOS, PM, APC
 *   and tmux's ESC k (window name) at ST. In these, and in a DCS until
 *   its final byte, CAN and SUB abort it and ESC starts a new sequence
 *   (which is how ESC \ ends a string); other controls are part of it.
 *   A DCS's data, after its final byte, ends only at ESC \: an ESC
 *   followed by anything else, CAN, SUB and BEL are data. A DCS whose
 *   parameters hold ':' (or '<' to '?' past the first byte) is ignored
 *   up to the next ESC, CAN or SUB, as tmux ignores it.
 * - A string never swallows a line break: at an LF it is abandoned (its
 *   bytes counted as dropped) and the LF is a line break, so an
 *   unterminated string costs at most its own line. tmux's swallows the
 *   line break and what follows up to its end.
 * - Inside ESC and CSI sequences, C0 controls act as in ground, as a
 *   terminal executes them there: TAB and LF are kept, CR counts, the rest
 *   are removed, and the sequence goes on. CAN and SUB abort it and ESC
 *   starts a new one.
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
#define STRIP_DCS_ENTER	4	/* after ESC P */
#define STRIP_DCS_PARAM	5	/* DCS parameters */
#define STRIP_DCS_INT	6	/* DCS intermediates */
#define STRIP_DCS_IGN	7	/* a DCS tmux ignores: ends as OSC does */
#define STRIP_OSC	8	/* OSC: ends at BEL or ST */
#define STRIP_STR	9	/* SOS, PM, APC, ESC k: end at ST */
#define STRIP_DCS	10	/* a DCS's data: ends at ESC \ only */
#define STRIP_DCS_ESC	11	/* an ESC in a DCS's data */

/* States from STRIP_DCS_ENTER on are strings: an LF abandons them. */
#define STRIP_IS_STRING(st)	((st) >= STRIP_DCS_ENTER)

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

/* Write code point c as text. */
static inline char *
strip_text(struct strip *sp, uint32_t c, char *o)
{
	o = strip_flush_cr(sp, o);
	return (o + utf8_encode(c, o));
}

/* A character still open is cut short: it is one U+FFFD. */
static inline char *
strip_cut_u8(struct strip *sp, char *o)
{
	if (sp->u8len == 0)
		return (o);
	sp->u8len = 0;
	return (strip_text(sp, UTF8_REPLACEMENT, o));
}

/* A byte 80..FF in ground: starts, goes on with or ends a character. */
static char *
strip_u8(struct strip *sp, uint8_t c, char *o)
{
	uint32_t	cp;

	if (sp->u8len == 0) {
		sp->u8want = utf8_seq_len((char)c);
		if (sp->u8want == 1)		/* 80..C1, F5..FF */
			return (strip_text(sp, UTF8_REPLACEMENT, o));
		sp->u8[sp->u8len++] = c;
		return (o);
	}
	sp->u8[sp->u8len++] = c;
	if (sp->u8len < sp->u8want)
		return (o);
	if (utf8_decode((char *)sp->u8, sp->u8len, &cp) != sp->u8len)
		cp = UTF8_INVALID;
	sp->u8len = 0;
	return (strip_text(sp, cp == UTF8_INVALID ? UTF8_REPLACEMENT : cp, o));
}

/* A C0 control executed (in ground, ESC or CSI state), or CAN or SUB. */
static char *
strip_c0(struct strip *sp, uint8_t c, char *o)
{
	o = strip_cut_u8(sp, o);
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
	case 0x18:
	case 0x1a:
		sp->state = STRIP_GROUND;
		break;
	}
	return (o);
}

/* A sequence is abandoned: its bytes are dropped, and ground resumes. */
static inline void
strip_abandon(struct strip *sp)
{
	sp->dropped += sp->seqlen;
	sp->state = STRIP_GROUND;
}

/* The byte after ESC (20..7E): what kind of sequence this is. */
static void
strip_esc(struct strip *sp, uint8_t c)
{
	if (c <= 0x2f) {
		sp->state = STRIP_ESC_INT;
		return;
	}
	switch (c) {
	case '[':
		sp->state = STRIP_CSI;
		break;
	case ']':
		sp->state = STRIP_OSC;
		break;
	case 'P':
		sp->state = STRIP_DCS_ENTER;
		break;
	case 'X':
	case '^':
	case '_':
	case 'k':
		sp->state = STRIP_STR;
		break;
	default:
		sp->state = STRIP_GROUND;	/* a final byte */
		break;
	}
}

/* A byte 20..7E of a DCS before its data (tmux's dcs_enter, _parameter
 * and _intermediate states). */
static void
strip_dcs_head(struct strip *sp, uint8_t c)
{
	if (c >= 0x40)
		sp->state = STRIP_DCS;
	else if (c <= 0x2f)
		sp->state = STRIP_DCS_INT;
	else if (sp->state == STRIP_DCS_INT || c == ':' ||
	    (c >= 0x3c && sp->state == STRIP_DCS_PARAM))
		sp->state = STRIP_DCS_IGN;
	else
		sp->state = STRIP_DCS_PARAM;
}

/* One byte in a sequence: where it leads. */
static char *
strip_seq(struct strip *sp, uint8_t c, char *o)
{
	int	st = sp->state;

	if (st == STRIP_DCS || st == STRIP_DCS_ESC) {
		if (c == '\n') {
			strip_abandon(sp);
			return (strip_c0(sp, c, o));
		}
		sp->seqlen++;
		if (st == STRIP_DCS_ESC)
			sp->state = c == '\\' ? STRIP_GROUND : STRIP_DCS;
		else if (c == 0x1b)
			sp->state = STRIP_DCS_ESC;
		goto out;
	}
	if (c == 0x1b) {
		strip_enter(sp, STRIP_ESC, 1);
		return (o);
	}
	if (c == 0x18 || c == 0x1a)
		return (strip_c0(sp, c, o));
	if (STRIP_IS_STRING(st)) {
		if (c == '\n') {
			/* Never past a line break: the LF is one. */
			strip_abandon(sp);
			return (strip_c0(sp, c, o));
		}
		sp->seqlen++;
		if (c == 0x07 && st == STRIP_OSC)
			sp->state = STRIP_GROUND;
		else if (c >= 0x20 && c <= 0x7e && st <= STRIP_DCS_INT)
			strip_dcs_head(sp, c);
		goto out;
	}
	if (c < 0x20)		/* executed, not the sequence's */
		return (strip_c0(sp, c, o));
	sp->seqlen++;
	if (c > 0x7e)
		;				/* ignored, as tmux does */
	else if (st == STRIP_ESC)
		strip_esc(sp, c);
	else if (c >= (st == STRIP_CSI ? 0x40 : 0x30))
		sp->state = STRIP_GROUND;
out:
	if (sp->state != STRIP_GROUND && sp->seqlen >= STRIP_SEQ_MAX)
		strip_abandon(sp);
	return (o);
}

/* One byte that is not a run of plain ASCII text in ground. */
static char *
strip_byte(struct strip *sp, uint8_t c, char *o)
{
	if (sp->state != STRIP_GROUND)
		return (strip_seq(sp, c, o));
	if (c >= 0x80)
		return (strip_u8(sp, c, o));
	if (c == 0x1b) {
		strip_enter(sp, STRIP_ESC, 1);
		return (o);
	}
	if (c < 0x20)
		return (strip_c0(sp, c, o));
	if (c == 0x7f)
		return (o);
	o = strip_cut_u8(sp, o);
	o = strip_flush_cr(sp, o);
	*o++ = c;
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

	while (p < end) {
		if (sp->state == STRIP_GROUND && sp->u8len == 0 &&
		    *p >= 0x20 && *p < 0x7f) {
			o = strip_flush_cr(sp, o);
			n = strip_run(p, end, o);
			o += n;
			p += n;
			continue;
		}
		o = strip_byte(sp, *p++, o);
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

	o = strip_cut_u8(sp, o);
	if (sp->state != STRIP_GROUND)
		strip_abandon(sp);
	if (sp->pending_cr && !sp->bol)
		*o++ = '\n';
	dropped = sp->dropped;
	strip_init(sp);
	sp->dropped = dropped;
	return (o - out);
}
