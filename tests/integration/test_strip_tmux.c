/*
 * test_strip_tmux.c — the stripped text against what tmux itself shows.
 *
 * A seeded generator writes a stream of 1,000 lines (printable ASCII,
 * valid UTF-8 of 2, 3 and 4 bytes with wide characters, combining marks,
 * emoji sequences and any other code point, U+0080..U+009F, invalid
 * UTF-8, C0 controls, every kind of sequence, complete and cut short) to
 * a file, and run_program runs ["cat", FILE] in a pane 400 columns wide
 * on the harness's private tmux server (its own, as robust mode's would
 * be, and one the test can run capture-pane on directly). The whole text
 * is read with read_program, the pane with its history is captured
 * (capture-pane -p -N -S - -E -, with -T from tmux 3.4 on, so neither
 * side's trailing spaces are trimmed), and the two are compared line by
 * line. The only differences allowed are the text rules (progmux(1),
 * Text) where the text deliberately differs from the screen, each a named
 * normalization below (st_normalize, st_normalize_tmux and the joining
 * of "cut string" lines); droppedBytes must be exactly the bytes of the
 * strings the generator cut at a line break. A difference prints the
 * round's seed, the line, its input bytes, our text and tmux's, and fails.
 *
 * Rounds go on for PMX_STRIP_TMUX_SECONDS (default 10; make test-long
 * runs 300); each prints its seed, PMX_STRIP_TMUX_SEED replays it (and
 * goes on from there), and the last line says how many rounds, lines and
 * bytes were compared.
 *
 * What the generator leaves out, because it changes the screen in ways no
 * stream of text can show, depends on timing, or makes tmux reply:
 * - cursor motion (CUU, CUD, CUF, CUB, CUP, HPA, VPA, CNL, CPL, CHT, CBT,
 *   DECSC, DECRC, IND, NEL, RI), erasing (ED, EL, ECH), insert and delete
 *   (ICH, DCH, IL, DL), scrolling and scroll regions (SU, SD, DECSTBM),
 *   REP (repeats the last character), DECALN (fills the screen), RIS,
 *   tab stops set or cleared (HTS, TBC): each moves or rewrites cells;
 * - BS, a CR anywhere but at the start of a line or before its LF, VT and
 *   FF: they move the cursor without a line break in the stream;
 * - modes that change where or whether text lands: the alternate screen
 *   (47, 1047, 1049), autowrap (7), origin (6), insert (IRM, 4), DECCOLM
 *   (3, clears the screen), synchronized output (2026); and DEC line
 *   drawing (ESC ( 0, ESC ) 0, SO, SI), which capture-pane shows as the
 *   letters tmux stores but the screen shows as other glyphs;
 * - what tmux answers into the pane, which its terminal would echo back
 *   as output: DA, DSR, DECRQM, XTVERSION, window reports, DECRQSS, OSC
 *   colour queries; and a DCS whose final byte is q (a sixel image, which
 *   also takes cells);
 * - placements that depend on the cells around the cursor, not on the
 *   stream: a zero-width character right after a TAB (tmux 3.6 and later
 *   drop it into the tab's cells) or on a cell that may be full (21
 *   bytes in 3.3a) or that joins what follows (an emoji ZWJ sequence);
 *   a TAB after a character whose width tmux 3.4 and 3.5 see otherwise
 *   (an emoji sequence, a sequence past U+10FFFF); Hangul jamo and
 *   U+3164 (tmux 3.6 and later compose, drop or ignore them), emoji
 *   modifiers and regional indicators (joined and forced wide), a literal
 *   U+FFFD (it cannot be told from the one the text has for invalid
 *   UTF-8, which tmux before 3.6 does not show); from tmux 3.6 on, code
 *   points the test's wcwidth does not know (tmux's newer C library may
 *   know one as zero-width);
 * - a ZWJ on tmux 3.3a, which loses one when its read of the pane ends
 *   right after it (st_emoji);
 * - a sequence left open at the end of a line, but for the strings cut
 *   there on purpose: a line with a sequence cut short ends with
 *   ESC \ ESC \, which ends whatever tmux is in (a DCS's data waits for
 *   ESC \ after anything but an ESC).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "utf8.h"
#include "xmalloc.h"

#define ST_WIDTH	400	/* the pane's columns: no line wraps */
#define ST_COLS		300	/* columns a generated line may take */
#define ST_LINES	1000	/* lines per program, within history-limit */
#define ST_HISTORY	"5000"	/* the private server's history-limit */
#define ST_CELL		21	/* bytes one cell holds in tmux 3.3a */

static int		tmux_version;	/* 303 for 3.3a, 308 for 3.8 */
static char		tmux_name[32];	/* "3.3a" */

/* One generated line: where it is in the stream, and whether it ends
 * inside a string (tmux then shows it and the next as one line). */
struct st_line {
	size_t		 off;
	size_t		 len;
	bool		 cut;
};

/* The generator's state. */
struct st_gen {
	struct buf	 b;		/* the stream */
	struct st_line	*lines;
	size_t		 nlines;
	uint64_t	 dropped;	/* bytes of the strings cut at an LF */
	/* The line being built. */
	int		 cols;		/* columns it may take at most */
	size_t		 cell;		/* bytes in the cell before the cursor
					 * (0: none, or after a TAB) */
	bool		 zwj;		/* an emoji ZWJ or VS16 cell: tmux
					 * joins to it and sizes it its own
					 * way, so nothing zero-width after
					 * it */
	bool		 notab;		/* a character whose width tmux sees
					 * otherwise: no TAB after it */
	bool		 open;		/* a sequence was cut short: what
					 * follows may be its, so what is
					 * before the cursor is not known */
	bool		 closer;	/* the next token must end it */
	bool		 pending;	/* invalid UTF-8 may hold a character
					 * open: the next bytes of 80..FF may
					 * be its, not a new cell */
};

/* A number in [0, n), from the round's seeded generator. */
static uint64_t
st_below(uint64_t n)
{
	return (pmx_rand() % n);
}

/* The tmux version as major * 100 + minor ("3.5a" is 305), or -1. */
static int
st_version(void)
{
	char	*v = pmx_tmux(&group, "display-message", "-p", "#{version}",
		    NULL);
	char	*p;
	int	 major = 0, minor = 0;

	if (v == NULL)
		return (-1);
	v[strcspn(v, "\n")] = '\0';
	snprintf(tmux_name, sizeof tmux_name, "%s", v);
	p = strncmp(v, "next-", 5) == 0 ? v + 5 : v;
	if (sscanf(p, "%d.%d", &major, &minor) != 2) {
		fprintf(stderr, "tmux version \"%s\" not understood\n", v);
		major = -1;
	}
	free(v);
	return (major < 0 ? -1 : major * 100 + minor);
}

/* wcwidth as tmux's (the locale it picks: en_US.UTF-8, else C.UTF-8),
 * progmux on a private tmux server with room in its history for a
 * round, and that tmux's version. */
static int
st_setup(void **state)
{
	char	*out;

	(void)state;
	if (setlocale(LC_CTYPE, "en_US.UTF-8") == NULL &&
	    setlocale(LC_CTYPE, "C.UTF-8") == NULL) {
		fprintf(stderr, "no UTF-8 locale for wcwidth\n");
		return (-1);
	}
	if (group_open(NULL) == -1)
		return (-1);
	out = pmx_tmux(&group, "set-option", "-g", "history-limit", ST_HISTORY,
	    NULL);
	free(out);
	if (out == NULL || (tmux_version = st_version()) < 0) {
		pmx_close(&group);
		return (-1);
	}
	return (0);
}

/* ---- The generator ---- */

/* Append a code point as UTF-8. */
static void
st_cp(struct st_gen *g, uint32_t cp)
{
	char	u[4];

	buf_add(&g->b, u, utf8_encode(cp, u));
}

/* Printable ASCII, spaces included. */
static void
st_ascii(struct st_gen *g)
{
	size_t	n = 1 + st_below(20), i;

	for (i = 0; i < n; i++)
		buf_addc(&g->b, 0x20 + st_below(95));
	g->cols += n;
	g->cell = 1;
	g->pending = false;
}

/* A code point of one of these ranges, all assigned, of one width in
 * glibc and in every tmux: narrow 2-byte letters, narrow and wide 3-byte
 * characters, wide and narrow 4-byte ones. */
static void
st_valid(struct st_gen *g)
{
	static const struct { uint32_t lo, hi; int w; } r[] = {
		{ 0x00a1, 0x00ac, 1 }, { 0x00ae, 0x02af, 1 },
		{ 0x0391, 0x03a1, 1 }, { 0x03a3, 0x03c9, 1 },
		{ 0x0410, 0x044f, 1 }, { 0x05d0, 0x05ea, 1 },
		{ 0x20a0, 0x20b5, 1 }, { 0x2190, 0x21ff, 1 },
		{ 0x2500, 0x257f, 1 }, { 0x3041, 0x3096, 2 },
		{ 0x4e00, 0x9fa5, 2 }, { 0xac00, 0xd7a3, 2 },
		{ 0xff01, 0xff5e, 2 }, { 0x1f600, 0x1f64f, 2 },
		{ 0x20000, 0x2a6d6, 2 }, { 0x1d400, 0x1d454, 1 },
		{ 0x10000, 0x1000b, 1 },
	};
	size_t		k = st_below(sizeof r / sizeof r[0]);
	uint32_t	cp = r[k].lo + st_below(r[k].hi - r[k].lo + 1);
	char		u[4];

	st_cp(g, cp);
	g->cols += r[k].w;
	if (!g->pending)
		g->cell = utf8_encode(cp, u);
}

/*
 * Any code point that is not zero-width, with exceptions whose cells
 * tmux sizes or joins its own way (Hangul jamo and filler, variation
 * selectors, emoji modifiers, regional indicators, the characters tmux
 * 3.4 and 3.5 force wide); before tmux 3.6 also those wcwidth does not
 * know (3.3a shows nothing for them, 3.4 and 3.5 one column), but not
 * from 3.6 on (its newer C library may know one as zero-width).
 */
static void
st_any(struct st_gen *g)
{
	uint32_t	cp;
	int		w;
	char		u[4];

	for (;;) {
		switch (st_below(4)) {
		case 0:
		case 1:
			cp = 0xa0 + st_below(0x10000 - 0xa0);
			break;
		case 2:
			cp = 0x10000 + st_below(0x20000);
			break;
		default:
			cp = 0x30000 + st_below(0x110000 - 0x30000);
			break;
		}
		w = wcwidth((wchar_t)cp);
		if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffd ||
		    w == 0 || (w < 0 && tmux_version >= 306) ||
		    (cp >= 0x1100 && cp <= 0x11ff) ||
		    (cp >= 0xa960 && cp <= 0xa97f) ||
		    (cp >= 0xd7b0 && cp <= 0xd7ff) || cp == 0x3164 ||
		    (cp >= 0xfe00 && cp <= 0xfe0f) || cp == 0x261d ||
		    cp == 0x26f9 || (cp >= 0x270a && cp <= 0x270d) ||
		    (cp >= 0x1f1e6 && cp <= 0x1faff) ||
		    (cp >= 0xe0100 && cp <= 0xe01ef))
			continue;
		break;
	}
	st_cp(g, cp);
	g->cols += w < 0 ? 1 : w;
	if (!g->pending)
		g->cell = utf8_encode(cp, u);
}

/* A base letter and one or two combining marks (U+0300..U+036F). */
static void
st_combining(struct st_gen *g)
{
	size_t	n = 1 + st_below(2), i;

	if (g->zwj) {
		st_ascii(g);
		return;
	}
	buf_addc(&g->b, 'a' + st_below(26));
	for (i = 0; i < n; i++)
		st_cp(g, 0x300 + st_below(0x70));
	g->cols += 1;
	g->cell = 1 + 2 * n;
	g->pending = false;
}

/* An emoji ZWJ sequence or a character with VS16, after a letter (so
 * no character held open from before takes its first bytes). Not a ZWJ
 * on tmux 3.3a: it loses one when its read of the pane ends just after
 * it (the flag that joins the next character lives only as long as the
 * read), which depends on timing, not on the stream. */
static void
st_emoji(struct st_gen *g)
{
	static const char *const e[] = {
		/* man, ZWJ, laptop; two faces; a heart with VS16 */
		"\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x92\xbb",
		"\xf0\x9f\x98\x80\xe2\x80\x8d\xf0\x9f\x98\x81",
		"\xe2\x9d\xa4\xef\xb8\x8f",
	};

	buf_addc(&g->b, 'a' + st_below(26));
	buf_adds(&g->b, e[tmux_version < 304 ? 2 : st_below(3)]);
	g->cols += 5;
	g->cell = ST_CELL;
	g->zwj = g->notab = true;
	g->pending = false;
}

/* U+0080..U+009F, zero-width where tmux shows them: only where there is
 * a cell before the cursor with room. */
static bool
st_c1(struct st_gen *g)
{
	if (g->zwj || g->open || (g->cell == 0 && g->cols > 0) ||
	    g->cell + 2 > ST_CELL)
		return (false);
	st_cp(g, 0x80 + st_below(0x20));
	if (g->cell != 0)
		g->cell += 2;
	return (true);
}

/* Invalid UTF-8: lone continuation bytes, truncated characters,
 * overlongs, surrogates, past U+10FFFF, bytes no character starts with. */
static void
st_invalid(struct st_gen *g)
{
	static const char *const v[] = {
		"\x80", "\xbf", "\x9b", "\x9c", "\x9d", "\xa9\x80",
		"\xc3", "\xe2\x82", "\xe2", "\xf0\x9f\x98", "\xf0\x9f",
		"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf",
		"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xed\xa0\x80",
		"\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf5", "\xf8\x88",
		"\xfe", "\xff", "\xc3\xc3", "\xe2\xc3", "\xf0\xe2\x82",
	};
	const char	*s = v[st_below(sizeof v / sizeof v[0])];

	/* Past U+10FFFF: a cell of one column in tmux 3.4 and 3.5, where the
	 * text's U+FFFD shows nothing; not where it could end a TAB's cells,
	 * and no TAB after it. */
	if ((uint8_t)s[0] == 0xf4) {
		if (g->open || (g->cell == 0 && g->cols > 0))
			s = "\xff";
		else
			g->notab = true;
	}
	buf_adds(&g->b, s);
	g->cols += strlen(s);
	g->pending = true;
}

/* A C0 control that moves nothing, or DEL. */
static void
st_c0(struct st_gen *g)
{
	static const char c[] = "\x00\x01\x02\x03\x04\x05\x06\x07\x10\x11"
	    "\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1c\x1d\x1e\x1f\x7f";

	buf_addc(&g->b, c[st_below(sizeof c - 1)]);
}

/* Bytes of a string's content: printable, high bytes, C0 controls but
 * the ones that end a string (BEL too when bel) and LF. */
static void
st_content(struct buf *b, size_t n, bool bel)
{
	uint8_t	c;
	size_t	i;

	for (i = 0; i < n; i++) {
		switch (st_below(6)) {
		case 0:
			c = 0x80 + st_below(0x80);
			break;
		case 1:
			c = st_below(0x20);
			if (c == 0x1b || c == 0x18 || c == 0x1a || c == '\n' ||
			    (bel && c == 0x07))
				c = ' ';
			break;
		default:
			c = 0x20 + st_below(95);
			break;
		}
		buf_addc(b, c);
	}
}

/* A CSI sequence that changes nothing on the screen: SGR, harmless
 * private modes, finals tmux ignores; C0 controls and high bytes inside
 * (tmux executes the one and ignores the other). */
static void
st_csi(struct buf *b)
{
	static const char *const modes[] = {
		"1", "5", "12", "25", "1000", "1002", "1003", "1004", "1005",
		"1006", "2004",
	};
	static const char finals[] = "IjkoVwxyz{|}~";
	size_t	n, i;

	buf_adds(b, "\x1b[");
	switch (st_below(7)) {
	case 6:			/* any parameters, a final tmux ignores */
		if (st_below(2))
			buf_addc(b, "<=>?"[st_below(4)]);
		n = st_below(8);
		for (i = 0; i < n; i++)
			buf_addc(b, "0123456789;:"[st_below(12)]);
		n = st_below(3);
		for (i = 0; i < n; i++)
			buf_addc(b, 0x20 + st_below(16));
		buf_addc(b, finals[st_below(sizeof finals - 1)]);
		break;
	case 0:
	case 1:
		n = st_below(5);
		for (i = 0; i < n; i++)
			buf_printf(b, "%s%u", i ? ";" : "",
			    (unsigned)st_below(110));
		buf_addc(b, 'm');
		break;
	case 2:
		buf_printf(b, "38;%s", st_below(2) ? "5;196m" :
		    "2;1;2;3m");
		break;
	case 3:
		buf_printf(b, "?%s%c", modes[st_below(sizeof modes /
		    sizeof modes[0])], st_below(2) ? 'h' : 'l');
		break;
	case 4:
		buf_printf(b, "%u%s", (unsigned)st_below(10),
		    st_below(2) ? " q" : ">4;1m");
		break;
	default:
		buf_printf(b, "1");
		if (st_below(2))
			buf_addc(b, "\x00\x07\x1f\x7f"[st_below(4)]);
		else
			buf_adds(b, "\xc3\xa9");
		buf_printf(b, "2%c", finals[st_below(sizeof finals - 1)]);
		break;
	}
}

/* An OSC that tmux takes without answering, ended by BEL or ST. */
static void
st_osc(struct buf *b)
{
	static const char *const kinds[] = {
		"0;", "1;", "2;", "7;file://host/", "8;;http://x/", "8;;",
		"133;A", "777;notify;", "1337;", "104", "112",
	};

	buf_adds(b, "\x1b]");
	buf_adds(b, kinds[st_below(sizeof kinds / sizeof kinds[0])]);
	st_content(b, st_below(30), true);
	buf_adds(b, st_below(2) ? "\x07" : "\x1b\\");
}

/* A DCS: parameters, intermediates, a final byte (not q) and a body in
 * which tmux ends the string only at ESC \ (an ESC before anything else,
 * CAN, SUB and BEL are its content). */
static void
st_dcs(struct buf *b)
{
	static const char finals[] = "@ABpz|{}~trs";

	size_t	n, i;
	bool	ignored = false;

	buf_adds(b, "\x1bP");
	if (st_below(3) == 0)
		buf_adds(b, "tmux;");
	else {
		if (st_below(4) == 0)
			buf_addc(b, "<=>?"[st_below(4)]);
		n = st_below(4);
		for (i = 0; i < n; i++) {
			if (st_below(4) == 0)	/* ignored there */
				buf_addc(b, "\x01\x07\r\x7f\x9c\xc3"
				    [st_below(6)]);
			buf_addc(b, "0123456789;:"[st_below(12)]);
			if (b->data[b->len - 1] == ':')
				ignored = true;
		}
		if (st_below(3) == 0)
			buf_addc(b, " !\"#%&'()*+,-./"[st_below(15)]);
		buf_addc(b, finals[st_below(sizeof finals - 1)]);
	}
	/* After a ':' tmux ignores the DCS up to ESC, CAN or SUB: then what
	 * would be body is read as text and sequences, so only plain bytes. */
	n = st_below(30);
	for (i = 0; i < n; i++) {
		switch (ignored ? 7 : st_below(8)) {
		case 0:
			buf_addc(b, "\x07\x18\x1a\r"[st_below(4)]);
			break;
		case 1:		/* ESC, then anything but \ */
			buf_addc(b, 0x1b);
			buf_addc(b, "[]P_X^k(=7aZ"[st_below(12)]);
			break;
		default:
			st_content(b, 1, false);
			break;
		}
	}
	buf_adds(b, "\x1b\\");
}

/* SOS, PM, APC or ESC k, ended by ST (BEL is their content). */
static void
st_str(struct buf *b)
{
	buf_addc(b, 0x1b);
	buf_addc(b, "X^_k"[st_below(4)]);
	st_content(b, st_below(30), false);
	if (st_below(4) == 0)
		buf_addc(b, 0x07);
	buf_adds(b, "\x1b\\");
}

/* Now and then, bytes a sequence's parser ignores (DEL, 80..FF) or
 * executes on the way (a C0 control that moves nothing). */
static void
st_noise(struct buf *b)
{
	switch (st_below(8)) {
	case 0:
		buf_addc(b, 0x7f);
		break;
	case 1:
		buf_addc(b, 0x80 + st_below(0x80));
		break;
	case 2:
		buf_addc(b, "\x00\x07\x10\x1f"[st_below(4)]);
		break;
	}
}

/* An ESC sequence tmux ignores or takes without a visible change: any
 * final byte but those that move the cursor or reset (7 8 D E H M c) or
 * start another sequence (P X [ ] ^ _ k); with intermediates, any but
 * DEC line drawing (( 0, ) 0) and DECALN (# 8). */
static void
st_esc(struct buf *b)
{
	size_t	n = st_below(4) == 0 ? 1 + st_below(2) : 0, i;
	char	c, in = 0;

	buf_addc(b, 0x1b);
	for (i = 0; i < n; i++) {
		st_noise(b);
		buf_addc(b, in = 0x20 + st_below(16));
	}
	st_noise(b);
	for (;;) {
		c = 0x30 + st_below(0x4f);
		if (n == 0 && strchr("78DEHMcPX[]^_k", c) != NULL)
			continue;
		if (n == 1 && (((in == '(' || in == ')') && c == '0') ||
		    (in == '#' && c == '8')))
			continue;
		break;
	}
	buf_addc(b, c);
}

/* A whole sequence of any kind into b. */
static void
st_sequence(struct buf *b)
{
	switch (st_below(7)) {
	case 0:
	case 1:
		st_csi(b);
		break;
	case 2:
		st_osc(b);
		break;
	case 3:
		st_dcs(b);
		break;
	case 4:
		st_str(b);
		break;
	default:
		st_esc(b);
		break;
	}
}

/* A sequence, whole or cut short. A cut one must be followed by what
 * ends it in both parsers: another sequence's ESC, CAN or SUB. */
static void
st_seq(struct st_gen *g, bool cut)
{
	struct buf	s = BUF_INIT;

	st_sequence(&s);
	if (cut) {
		buf_add(&g->b, s.data, 1 + st_below(s.len - 1));
		g->open = g->closer = true;
	} else
		buf_add(&g->b, s.data, s.len);
	buf_free(&s);
}

/* One token of a line. */
static void
st_token(struct st_gen *g)
{
	if (g->closer) {
		g->closer = false;
		if (st_below(3) == 0) {
			buf_addc(&g->b, st_below(2) ? 0x18 : 0x1a);
			return;
		}
		st_seq(g, st_below(3) == 0);
		return;
	}
	switch (st_below(20)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		st_ascii(g);
		break;
	case 6: case 7:
		st_valid(g);
		break;
	case 8:
		st_any(g);
		break;
	case 9:
		st_combining(g);
		break;
	case 10:
		if (st_below(4) == 0)
			st_emoji(g);
		else if (!st_c1(g))
			st_ascii(g);
		break;
	case 11: case 12:
		st_invalid(g);
		break;
	case 13:
		st_c0(g);
		break;
	case 14:
		if (g->notab) {
			st_ascii(g);
			break;
		}
		buf_addc(&g->b, '\t');
		g->cols = (g->cols / 8 + 1) * 8;
		g->cell = 0;
		break;
	case 15: case 16: case 17:
		st_seq(g, false);
		break;
	default:
		st_seq(g, true);
		break;
	}
}

/* A string opened and not ended before the line break. */
static void
st_cut_string(struct st_gen *g)
{
	static const char *const open[] = {
		"\x1b]0;", "\x1b]8;;", "\x1bP1|", "\x1bPz", "\x1bP1;2",
		"\x1bX", "\x1b^", "\x1b_", "\x1bk",
	};
	size_t	start = g->b.len, i;

	buf_adds(&g->b, open[st_below(sizeof open / sizeof open[0])]);
	st_content(&g->b, st_below(20), true);
	/* A DCS still in its parameters gets its final byte here: not q. */
	for (i = start; i < g->b.len; i++)
		if (g->b.data[i] == 'q')
			g->b.data[i] = 'x';
	g->dropped += g->b.len - start;
}

/* One line: tokens within ST_COLS columns, the closer if a sequence was
 * cut, and a line break; a string is sometimes left open at its end.
 * After such a line, the columns and cell go on from it. */
static void
st_line(struct st_gen *g, bool after_cut)
{
	struct st_line	*l;
	size_t		 ntok = st_below(30), i, off = g->b.len, end;
	bool		 cut = false;

	/* After a cut string tmux goes on on the same screen line. */
	if (!after_cut) {
		g->cols = 0;
		g->cell = 0;
		g->zwj = g->notab = g->open = false;
	} else if (g->cell == 0)
		g->cols++;	/* nothing zero-width before a cell */
	g->closer = g->pending = false;
	/* After a cut string: ST ends it in tmux, and NUL ends a character
	 * tmux may hold from before it (the text's LF ended it). */
	if (after_cut)
		buf_add(&g->b, "\x1b\\\x1b\\\0", 5);
	else if (st_below(20) == 0) {
		if (st_below(2))	/* still the start of the line */
			st_sequence(&g->b);
		buf_addc(&g->b, '\r');
	}
	for (i = 0; i < ntok && g->cols < ST_COLS - 40; i++)
		st_token(g);
	if (g->open)
		buf_adds(&g->b, "\x1b\\\x1b\\");
	if (st_below(40) == 0) {
		st_cut_string(g);
		cut = true;
	}
	switch (end = cut ? st_below(2) : st_below(8)) {
	case 0:
		buf_addc(&g->b, '\n');
		break;
	case 1:
		buf_adds(&g->b, "\r\n");
		break;
	case 2:
		buf_adds(&g->b, "\r\r\n");
		break;
	case 3:
		buf_adds(&g->b, "\r\x1b[m\n");
		break;
	default:
		buf_addc(&g->b, '\n');
		break;
	}
	/* The CRs before the LF are the string's too, and the pane's
	 * terminal adds one. */
	if (cut)
		g->dropped += 1 + end;
	g->lines = xreallocarray(g->lines, g->nlines + 1, sizeof *g->lines);
	l = &g->lines[g->nlines++];
	l->off = off;
	l->len = g->b.len - off;
	l->cut = cut;
}

/* A stream of n lines; the last never ends inside a string. */
static void
st_generate(struct st_gen *g, size_t n)
{
	size_t	i;

	memset(g, 0, sizeof *g);
	buf_init(&g->b);
	for (i = 0; i < n; i++) {
		st_line(g, i > 0 && g->lines[i - 1].cut);
		if (i == n - 1 && g->lines[i].cut) {
			/* No line after it to end the string: one more. */
			st_line(g, true);
			g->lines[g->nlines - 1].cut = false;
		}
	}
}

/* What st_generate allocated. */
static void
st_gen_free(struct st_gen *g)
{
	buf_free(&g->b);
	free(g->lines);
}

/* ---- Normalizations: where the text differs from the screen by rule ---- */

/* Split s at LF into an array of lines (each allocated); how many. The
 * text after the last LF, if any, is a line too. */
static size_t
st_split(const char *s, size_t len, char ***out)
{
	char		**v = NULL;
	size_t		  n = 0, i, start = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = xstrndup(s + start, i - start);
		start = i + 1;
	}
	*out = v;
	return (n);
}

/* What st_split allocated. */
static void
st_free_lines(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Is cp U+0080..U+009F? */
static bool
st_is_c1(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f);
}

/* Columns tmux version v gives cp: wcwidth's; where it does not know
 * the code point, 3.3a shows nothing and 3.4 and later one column, but
 * none for U+0080..U+009F. */
static int
st_width(uint32_t cp, int v)
{
	int	w = wcwidth((wchar_t)cp);

	if (w >= 0)
		return (w);
	return (v < 304 || st_is_c1(cp) ? 0 : 1);
}

/*
 * Our line s as tmux version v shows it, by the text rules (progmux(1)):
 *
 * - "invalid": before tmux 3.6 invalid UTF-8 shows nothing; the text has
 *   U+FFFD for it (the generator writes no literal U+FFFD);
 * - "unknown": tmux 3.3a shows nothing for a code point wcwidth does not
 *   know (U+0080..U+009F, unassigned ones); the text keeps them;
 * - "zero-width": a zero-width character with no cell before it (at the
 *   start of a line) is dropped by tmux; the text keeps it;
 * - "tab": before tmux 3.6 a TAB moves the cursor over empty cells, which
 *   capture-pane shows as spaces up to the next multiple of 8 columns, and
 *   as nothing at the end of a line; the text keeps the TAB.
 *
 * The fifth, "cut string" (a string never runs past a line break; tmux's
 * swallows the line break and shows the line and the next as one), is
 * applied by the caller, joining our lines before this.
 */
static char *
st_normalize(const char *s, int v)
{
	struct buf	 b = BUF_INIT;
	size_t		 len = strlen(s), i = 0, n, keep = 0;
	uint32_t	 cp;
	int		 col = 0, w;
	bool		 start = true;

	while (i < len) {
		n = utf8_decode(s + i, len - i, &cp);
		if (cp == UTF8_REPLACEMENT && v < 306) {
			i += n;			/* invalid */
			continue;
		}
		if (v < 304 && wcwidth((wchar_t)cp) < 0 && cp != '\t') {
			i += n;			/* unknown */
			continue;
		}
		w = st_width(cp, v);
		if (start && w == 0 && cp != '\t') {
			i += n;			/* zero-width */
			continue;
		}
		start = false;
		if (cp == '\t' && v < 306) {	/* tab */
			do
				buf_addc(&b, ' ');
			while (++col % 8 != 0 && col < ST_WIDTH - 1);
			i += n;
			continue;
		}
		buf_add(&b, s + i, n);
		col += cp == '\t' ? 0 : w;
		keep = b.len;
		i += n;
	}
	b.len = keep;		/* spaces of a TAB at the end: tab */
	buf_cstr(&b);
	return (b.data != NULL ? b.data : xstrdup(""));
}

/*
 * tmux's line t as the text can have it, by the rule "beyond": tmux 3.4
 * and later take F4 90..BF and three more bytes as a character past
 * U+10FFFF, which UTF-8 cannot hold; the text has U+FFFD for it (so,
 * before 3.6, nothing).
 */
static char *
st_normalize_tmux(const char *t, int v)
{
	struct buf	 b = BUF_INIT;
	const uint8_t	*p = (const uint8_t *)t;
	size_t		 len = strlen(t), i;

	for (i = 0; i < len; i++) {
		if (p[i] == 0xf4 && i + 3 < len && p[i + 1] >= 0x90 &&
		    utf8_is_cont(t[i + 1]) && utf8_is_cont(t[i + 2]) &&
		    utf8_is_cont(t[i + 3])) {
			if (v >= 306)
				buf_adds(&b, "\xef\xbf\xbd");
			i += 3;
			continue;
		}
		buf_addc(&b, t[i]);
	}
	buf_cstr(&b);
	return (b.data);
}

/* ---- The comparison ---- */

/* Print bytes escaped. */
static void
st_dump(const char *what, const void *v, size_t len)
{
	const uint8_t	*p = v;
	size_t		 i;

	fprintf(stderr, "  %-6s (%zu bytes): \"", what, len);
	for (i = 0; i < len; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			fputc(p[i], stderr);
		else
			fprintf(stderr, "\\x%02x", p[i]);
	}
	fprintf(stderr, "\"\n");
}

/* Run one stream through a pane; compare. Adds to the counts. */
static void
st_round(uint64_t seed, size_t *nlines, size_t *nbytes)
{
	struct st_gen		 g;
	struct json_doc		*d, *last = NULL;
	char			*path, *args, *jp, *text, *cap, *id, *pane;
	char			**ours, **theirs, *joined, *norm, *tnorm;
	size_t			 nours, ntheirs, i, j, k, first;
	int64_t			 dropped;
	FILE			*f;

	pmx_srand(seed);
	st_generate(&g, ST_LINES);

	xasprintf(&path, "%s/stream", group.dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(g.b.data, 1, g.b.len, f), g.b.len);
	assert_int_equal(fclose(f), 0);

	jp = pmx_jstr(path);
	xasprintf(&args, "{\"argv\":[\"cat\",%s],\"keep\":true,\"width\":%d,"
	    "\"height\":24,\"timeoutMs\":30000}", jp, ST_WIDTH);
	d = sc_call_ok(&group, "run_program", args);
	if (!sc_bool(d, "ended"))
		fail_msg("cat did not end: %s", pmx_text(d));
	id = xstrdup(sc_need_str(d, "programId"));
	pane = xstrdup(sc_need_str(d, "paneId"));
	json_doc_free(d);

	text = pmx_read_all(&group, id, 60000, &last);
	assert_non_null(last);
	if (!sc_bool(last, "ended"))
		fail_msg("the text was not read to its end");
	dropped = sc_int(last, "droppedBytes");
	if (dropped == -999)
		dropped = 0;
	json_doc_free(last);

	if (tmux_version >= 304)	/* -T: up to the last cell used */
		cap = pmx_tmux(&group, "capture-pane", "-p", "-N", "-T", "-S",
		    "-", "-E", "-", "-t", pane, NULL);
	else
		cap = pmx_tmux(&group, "capture-pane", "-p", "-N", "-S", "-",
		    "-E", "-", "-t", pane, NULL);
	assert_non_null(cap);
	free(args);
	xasprintf(&args, "{\"programId\":\"%s\"}", id);
	json_doc_free(sc_call_ok(&group, "stop_program", args));
	unlink(path);

	nours = st_split(text, strlen(text), &ours);
	ntheirs = st_split(cap, strlen(cap), &theirs);
	/* A line missing from ours reads as empty: the lines compared show
	 * where it went wrong before the count does. */
	ours = xreallocarray(ours, g.nlines + 1, sizeof *ours);
	for (i = nours; i < g.nlines; i++)
		ours[i] = xstrdup("");

	/* Line i of ours (joined with the next after a cut string) is line
	 * j of tmux's. */
	for (i = 0, j = 0; i < g.nlines; i = k + 1, j++) {
		first = i;
		joined = xstrdup(ours[i]);
		for (k = i; g.lines[k].cut; k++) {	/* cut string */
			char *t;

			xasprintf(&t, "%s%s", joined, ours[k + 1]);
			free(joined);
			joined = t;
		}
		norm = st_normalize(joined, tmux_version);
		tnorm = st_normalize_tmux(j < ntheirs ? theirs[j] : "",
		    tmux_version);
		if (j >= ntheirs || strcmp(norm, tnorm) != 0) {
			fprintf(stderr, "seed %" PRIu64 " (tmux %s): line %zu "
			    "differs\n", seed, tmux_name, first + 1);
			for (; first <= k; first++)
				st_dump("input", g.b.data + g.lines[first].off,
				    g.lines[first].len);
			st_dump("ours", joined, strlen(joined));
			st_dump("normed", norm, strlen(norm));
			if (j < ntheirs) {
				st_dump("tmux", theirs[j], strlen(theirs[j]));
				st_dump("normed", tnorm, strlen(tnorm));
			} else
				fprintf(stderr, "  tmux: no such line\n");
			fail();
		}
		free(tnorm);
		free(norm);
		free(joined);
	}
	/* Below the last line only the screen's empty rows. */
	for (; j < ntheirs; j++)
		if (theirs[j][0] != '\0') {
			fprintf(stderr, "seed %" PRIu64 ": tmux shows more: ",
			    seed);
			st_dump("tmux", theirs[j], strlen(theirs[j]));
			fail();
		}
	if (nours != g.nlines)
		fail_msg("seed %" PRIu64 ": %zu lines of text for %zu written",
		    seed, nours, g.nlines);
	if ((uint64_t)dropped != g.dropped)
		fail_msg("seed %" PRIu64 ": droppedBytes %" PRId64 ", the cut "
		    "strings had %" PRIu64, seed, dropped, g.dropped);

	*nlines += g.nlines;
	*nbytes += g.b.len;
	st_free_lines(ours, nours > g.nlines ? nours : g.nlines);
	st_free_lines(theirs, ntheirs);
	free(text);
	free(cap);
	free(id);
	free(pane);
	free(args);
	free(jp);
	free(path);
	st_gen_free(&g);
}

/*
 * Random streams through real panes for PMX_STRIP_TMUX_SECONDS: each
 * round's text equals tmux's capture of its pane, line by line, after the
 * named normalizations, and droppedBytes counts exactly the cut strings.
 */
static void
test_strip_vs_tmux(void **state)
{
	const char	*v = getenv("PMX_STRIP_TMUX_SECONDS");
	const char	*s = getenv("PMX_STRIP_TMUX_SEED");
	int64_t		 secs = v != NULL ? strtoll(v, NULL, 10) : 10;
	int64_t		 t0 = now_ms();
	uint64_t	 seed;
	size_t		 rounds = 0, lines = 0, bytes = 0;

	(void)state;
	seed = s != NULL && *s != '\0' ? strtoull(s, NULL, 0) : pmx_seed();
	do {
		fprintf(stderr, "round %zu: seed %" PRIu64 "\n", rounds + 1,
		    seed);
		st_round(seed, &lines, &bytes);
		rounds++;
		seed++;
	} while (now_ms() - t0 < secs * 1000);
	fprintf(stderr, "tmux %s: %zu rounds, %zu lines, %zu bytes compared "
	    "in %.1f s\n", tmux_name, rounds, lines, bytes,
	    (now_ms() - t0) / 1000.0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_vs_tmux),
	};

	return (cmocka_run_group_tests(tests, st_setup, group_teardown));
}
