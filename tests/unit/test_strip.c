/*
 * test_strip.c — the escape-sequence stripper (reaper/strip.c).
 *
 * Every case is fed three ways (one buffer, byte by byte, random chunks)
 * and must give the same exact text. Then: every kind of sequence, the CR
 * line rules, UTF-8 as tmux reads it, pathological inputs, a property test
 * against an independent, slow reference model (after tmux's input.c
 * tables) over thousands of random inputs, and the captured fixtures in
 * tests/fixtures/ (NAME.raw must read NAME.txt). What tmux itself shows
 * is compared in tests/integration/test_strip_tmux.c.
 */
#include <sys/types.h>

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clean_text.h"
#include "rand.h"

#include "buf.h"
#include "strip.h"
#include "xmalloc.h"

#define TEST_MODES	4	/* whole, byte by byte, random, random small */

static uint64_t	test_rng = 88172645463325252ULL;
#define test_rand()	test_xorshift(&test_rng)

/* Strip in chunks chosen by mode; returns the text (caller frees buf)
 * and the bytes dropped. */
static uint64_t
test_strip_mode(const void *in, size_t len, int mode, struct buf *b)
{
	struct strip	 sp;
	const uint8_t	*p = in;
	size_t		 off = 0, n, got;

	buf_init(b);
	strip_init(&sp);
	while (off < len) {
		switch (mode) {
		case 0:
			n = len;
			break;
		case 1:
			n = 1;
			break;
		case 2:
			n = test_rand() % 40;	/* zero-length chunks too */
			break;
		default:
			n = 1 + test_rand() % 5;
			break;
		}
		if (n > len - off)
			n = len - off;
		buf_reserve(b, STRIP_MAX_OUT(n));
		got = strip_feed(&sp, p + off, n, b->data + b->len);
		assert_true(got <= STRIP_MAX_OUT(n));
		b->len += got;
		off += n;
	}
	buf_reserve(b, 16);
	got = strip_finish(&sp, b->data + b->len);
	assert_true(got <= 16);
	b->len += got;
	return (sp.dropped);
}


/* Print bytes escaped, for a failure message. */
static void
test_dump(const char *what, const void *v, size_t len)
{
	const uint8_t	*p = v;
	size_t		 i;

	fprintf(stderr, "%s (%zu): \"", what, len);
	for (i = 0; i < len && i < 400; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			fputc(p[i], stderr);
		else
			fprintf(stderr, "\\x%02x", p[i]);
	}
	fprintf(stderr, "%s\"\n", i < len ? "..." : "");
}

/* Strip in every mode; each must give exactly want, and drop exactly
 * dropped bytes. */
static void
test_expect_dropped(const void *in, size_t len, const void *want, size_t wlen,
    uint64_t dropped)
{
	struct buf	b;
	uint64_t	d;
	int		mode;

	for (mode = 0; mode < TEST_MODES; mode++) {
		d = test_strip_mode(in, len, mode, &b);
		if (b.len != wlen || memcmp(b.data, want, wlen) != 0 ||
		    d != dropped) {
			fprintf(stderr, "mode %d, dropped %llu (want %llu)\n",
			    mode, (unsigned long long)d,
			    (unsigned long long)dropped);
			test_dump("input", in, len);
			test_dump("want", want, wlen);
			test_dump("got", b.data, b.len);
			fail();
		}
		assert_true(clean_text(b.data, b.len));
		buf_free(&b);
	}
}

/* Strip in every mode; each must give exactly want, dropping nothing. */
static void
test_expect(const void *in, size_t len, const void *want, size_t wlen)
{
	test_expect_dropped(in, len, want, wlen, 0);
}

#define T(in, want) test_expect(in, sizeof in - 1, want, sizeof want - 1)
#define D(in, want, dropped) test_expect_dropped(in, sizeof in - 1, want, \
	sizeof want - 1, dropped)

/* Plain text, TAB and LF pass through. */
static void
test_plain(void **state)
{
	(void)state;
	T("", "");
	T("hello", "hello");
	T("hello, world\n", "hello, world\n");
	T("a\tb\n\tc\n\n", "a\tb\n\tc\n\n");
	T("0123456789abcdefghijklmnopqrstuvwxyz ~!@#$%^&*()_+{}|:<>?",
	    "0123456789abcdefghijklmnopqrstuvwxyz ~!@#$%^&*()_+{}|:<>?");
	T("line one\nline two\n", "line one\nline two\n");
}

/* Every C0 but TAB, LF (and CR, a line rule) is removed, and DEL too. */
static void
test_c0(void **state)
{
	(void)state;
	T("a\x00" "b", "ab");
	T("a\x01\x02\x03\x04\x05\x06\x07" "b", "ab");
	T("a\x08" "b", "ab");		/* BS removed, not applied */
	T("a\x0b\x0c" "b", "ab");	/* VT, FF */
	T("a\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17" "b", "ab");
	T("a\x18\x19\x1a\x1c\x1d\x1e\x1f" "b", "ab");
	T("a\x7f" "b", "ab");
	T("\x07\x07\x07", "");
	T("tab\there\n", "tab\there\n");
}

/* The eight-byte fast path stops at every byte it must not copy. */
static void
test_fast_path(void **state)
{
	static const char *const special[] = {
		"\x7f", "\x1f", "\x00", "\r", "\t", "\n", "\x1b[m", "\xc3\xa9",
		"\x80", "\xff", "\xc2\x9bm", "\x20", "\x7e",
	};
	static const char *const want[] = {
		"", "", "", "\n", "\t", "\n", "", "\xc3\xa9", "\xef\xbf\xbd",
		"\xef\xbf\xbd", "\xc2\x9bm", " ", "~",
	};
	char	in[64], out[64];
	size_t	i, k, n, m;

	(void)state;
	for (k = 0; k < sizeof special / sizeof special[0]; k++) {
		for (i = 1; i < 24; i++) {	/* a CR at 0 would give nothing */
			memset(in, 'x', i);
			n = strlen(special[k]);
			memcpy(in + i, special[k], n);
			memset(in + i + n, 'y', 24 - i);
			memset(out, 'x', i);
			m = strlen(want[k]);
			memcpy(out + i, want[k], m);
			memset(out + i + m, 'y', 24 - i);
			test_expect(in, 24 + n, out, 24 + m);
		}
	}
}

/* CSI sequences of every shape. */
static void
test_csi(void **state)
{
	(void)state;
	T("\x1b[1;31mred\x1b[0m plain", "red plain");
	T("\x1b[m\x1b[0m\x1b[38;5;196mx\x1b[38;2;1;2;3my\x1b[39;49mz", "xyz");
	T("\x1b[38:2::1:2:3mx", "x");			/* colon params */
	T("\x1b[H\x1b[2J\x1b[3;4Hhome", "home");	/* cursor, erase */
	T("\x1b[A\x1b[5B\x1b[C\x1b[10D\x1b[K\x1b[2Kx", "x");
	T("\x1b[?1049h\x1b[?25l\x1b[?2004hx\x1b[?1049l\x1b[?25h", "x");
	T("\x1b[>0c\x1b[=1c\x1b[<1u\x1b[>4;1mx", "x");	/* private markers */
	T("\x1b[1 qx", "x");			/* DECSCUSR: intermediate */
	T("\x1b[!px\x1b[\"qy", "xy");		/* DECSTR, DECSCA */
	T("\x1b[1;2$rx", "x");
	T("\x1b[6n\x1b[0c\x1b[18tx", "x");
	T("\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20mx", "x");
	T("\x1b[1$1mx", "x");		/* param after intermediate: ignored */
	T("\x1b[\x7f" "1mx", "x");	/* DEL inside is ignored */
	T("\x1b[1\xc3\xa9mx", "x");	/* non-ASCII inside is ignored */
	D("a\x1b[", "a", 2);		/* open at the end: dropped */
	T("\x1b[@x\x1b[~y", "xy");	/* first and last final bytes */
}

/* C0 controls inside a CSI are acted on; the CSI goes on. */
static void
test_csi_c0(void **state)
{
	(void)state;
	T("\x1b[1\n;31mx", "\nx");
	T("\x1b[1\t;31mx", "\tx");
	T("a\x1b[1\r;31mb", "a\nb");
	T("\x1b[1\x07" "2mx", "x");
	T("\x1b[1\x08mx", "x");
	T("\x1b[1\x18mx", "mx");		/* CAN aborts */
	T("\x1b[1\x1amx", "mx");		/* SUB aborts */
	T("\x1b[1\x1b[2mx", "x");		/* ESC restarts */
	T("\x1b\n" "ab", "\nb");		/* ESC waits on: 'a' ends it */
}

/* Two-byte ESC sequences and ESC with intermediates. */
static void
test_esc(void **state)
{
	(void)state;
	T("\x1b" "7saved\x1b" "8", "saved");		/* DECSC, DECRC */
	T("\x1b=keypad\x1b>", "keypad");		/* DECKPAM, DECKPNM */
	T("\x1b(Bx\x1b)0y\x1b*Az\x1b+Bw", "xyzw");	/* charsets */
	T("\x1b(0lqqk\x1b(B", "lqqk");		/* line drawing is text */
	T("\x1b#8x", "x");				/* DECALN */
	T("\x1b%Gx\x1b%@y", "xy");			/* UTF-8 mode */
	T("\x1b Fx", "x");				/* S7C1T */
	T("\x1b" "Dx\x1b" "Ey\x1b" "Mz", "xyz");	/* IND, NEL, RI */
	T("\x1b" "cx", "x");				/* RIS */
	T("\x1b" "Nx\x1b" "Oy", "xy");		/* SS2, SS3 */
	T("\x1b" "OAx", "Ax");		/* SS3 shifts one character: text */
	T("\x1b\\x", "x");				/* lone ST */
	T("\x1b\x1b[31mx", "x");
	T("\x1b\x7f" "Ax", "x");			/* DEL ignored */
	T("\x1b\xc3\xa9" "Ax", "x");			/* non-ASCII ignored */
	T("\x1b(\x1b[1mx", "x");
	T("\x1b(\x18x", "x");
	D("x\x1b", "x", 1);
}

/* OSC strings end at BEL or ST, and never swallow a line break. */
static void
test_osc(void **state)
{
	(void)state;
	T("\x1b]0;title\x07text", "text");
	T("\x1b]2;title\x1b\\text", "text");
	T("\x1b]0;t\xc3\xa9tle \xe2\x82\xac\x07text", "text");
	T("\x1b]8;;https://example.com/\x1b\\link\x1b]8;;\x1b\\ after",
	    "link after");
	T("\x1b]8;id=1;http://x/\x07link\x1b]8;;\x07", "link");
	T("\x1b]52;c;aGVsbG8=\x07x", "x");
	T("\x1b]7;file://host/tmp\x1b\\x", "x");
	T("\x1b]133;A\x07$ ls\n", "$ ls\n");
	T("\x1b]4;1;rgb:ff/00/00\x1b\\x", "x");
	T("\x1b]0;a\rb\tc\x01d\x07x", "x");	/* controls are swallowed */
	/* An LF ends a string: what it held is dropped, the LF is kept. */
	D("\x1b]0;a\nb\rc\td\x07x", "\nb\nc\tdx", 5);
	D("ab\x1b]0;title\r\ncd\n", "ab\ncd\n", 10);
	T("\x1b]0;ab\x18x", "x");		/* CAN aborts */
	T("\x1b]0;ab\x1ax", "x");		/* SUB aborts */
	T("\x1b]0;ab\x1b[1mx", "x");	/* ESC ends it, a CSI follows */
	T("\x1b]0;ab\x1b" "Ax", "x");	/* ESC A: another sequence */
	D("\x1b]0;ab\xc2\x9cx", "", 9);	/* U+009C is no ST: open */
	D("\x1b]0;ab\x9cx", "", 8);	/* nor is a raw 0x9c */
	T("\x1b]0;ab\x9c\x07x", "x");
	T("\x1b]0;ab\xc2\x9c\x07x", "x");
	D("a\x1b]0;never ends", "a", 14);	/* open at the end */
}

/* DCS, SOS, PM, APC strings, and tmux's ESC k. */
static void
test_strings(void **state)
{
	(void)state;
	T("\x1bP1$r0m\x1b\\x", "x");				/* DCS */
	T("\x1bPq#0;2;0;0;0#1!6~-\x1b\\x", "x");		/* sixel */
	T("\x1bP+q544e\x1b\\x", "x");
	T("\x1bPtmux;\x1b\x1b]0;t\x07\x1b\\x", "x");	/* passthrough */
	T("\x1bPab\x07" "cd\x1b\\x", "x");	/* BEL does not end a DCS */
	T("\x1bXsos\x07" "x\x1b\\y", "y");	/* nor a SOS */
	T("\x1b^pm\x07" "x\x1b\\y", "y");	/* nor a PM */
	T("\x1b_apc\x1b\\x", "x");				/* APC */
	T("\x1b_Ga=T,f=100;AAAA\x1b\\x", "x");	/* kitty graphics */
	/* APC and ESC k end at ST only, as in tmux. */
	T("\x1b_apc\x07x\x1b\\y", "y");
	T("\x1bkname\x1b\\x", "x");		/* tmux/screen window name */
	T("\x1bkname\x07x\x1b\\y", "y");
	D("\x1bPab\xc2\x9cx", "", 7);	/* U+009C is no ST */
	/* A DCS's data (after its final byte) ends at ESC \ only: an ESC
	 * before anything else, CAN and SUB are data, as in tmux. */
	D("\x1bPab\x18x", "", 6);
	D("\x1bPab\x1ax", "", 6);
	T("\x1bPq\x1b[31mred\x1b\\x", "x");
	T("\x1bPq\x1b\x1b\\red\x1b\\x", "x");	/* ESC ESC: data */
	T("\x1bP1;2\x18x", "x");		/* before the final byte */
	T("\x1bP1$\x1b[1mx", "x");
	/* A DCS tmux ignores (':' in its parameters, '<' to '?' after the
	 * first byte, a digit after an intermediate) ends at ESC, CAN, SUB. */
	T("\x1bP1:2q\x18x", "x");
	T("\x1bP1<q\x1ax", "x");
	T("\x1bP$1q\x18x", "x");
	T("\x1bP>1q\x18x\x1b\\", "");	/* '>' first: q is final */
	/* No string swallows a line break. */
	D("\x1b_a\nb\x1b\\x", "\nbx", 3);
	D("\x1bPq#0;2\n#1!6~-\x1b\\x", "\n#1!6~-x", 7);
	D("\x1bXab\ncd", "\ncd", 4);
	D("\x1b^ab\ncd", "\ncd", 4);
	D("\x1bkab\ncd", "\ncd", 4);
}

/* U+0080..U+009F (C1 controls as UTF-8) are text, as tmux shows them:
 * they start and end no sequence, and nothing after them is lost. */
static void
test_c1(void **state)
{
	(void)state;
	/* The double-encoded text that once swallowed all that followed. */
	T("caf\xc3\xa9 \xc2\x9d next\n1\n2\n",
	    "caf\xc3\xa9 \xc2\x9d next\n1\n2\n");
	T("\xc2\x9b" "31mred", "\xc2\x9b" "31mred");
	T("\xc2\x9d" "0;title\x07x", "\xc2\x9d" "0;titlex");
	T("\xc2\x90" "1$r\xc2\x9cx", "\xc2\x90" "1$r\xc2\x9cx");
	T("\xc2\x98\xc2\x9e\xc2\x9f\xc2\x9c", "\xc2\x98\xc2\x9e\xc2\x9f\xc2\x9c");
	T("a\xc2\x80" "b\xc2\x85" "c\xc2\x8d" "d\xc2\x9a" "e",
	    "a\xc2\x80" "b\xc2\x85" "c\xc2\x8d" "d\xc2\x9a" "e");
	/* Inside a sequence, one is like any other non-ASCII character. */
	T("\x1b[1\xc2\x9b" "2mx", "x");		/* ignored inside a CSI */
	T("\x1b[1\xc2\x85" "2mx", "x");
	T("\x1b]0;a\xc2\x9b" "1m\x07x", "x");	/* part of an OSC */
	T("\x1b\xc2\x9b" "1mx", "mx");		/* ignored after ESC */
	/* Raw bytes 0x80..0x9f are invalid UTF-8, not controls. */
	T("\x9b" "31mx", "\xef\xbf\xbd" "31mx");
	T("a\x9d" "b\x90" "c\x9c", "a\xef\xbf\xbd" "b\xef\xbf\xbd"
	    "c\xef\xbf\xbd");
	T("\xc2\xa0" "x\xc2\xa9", "\xc2\xa0" "x\xc2\xa9");
}

/* The CR line rules. */
static void
test_cr(void **state)
{
	(void)state;
	T("a\rb\r\r\nc\r\n", "a\nb\nc\n");	/* the DESIGN.md example */
	T("a\r\nb\r\n", "a\nb\n");
	T("a\r\r\r\r\nb", "a\nb");
	T("a\r\r\rb", "a\nb");
	T("a\r", "a\n");			/* held, then finish */
	T("a\r\r", "a\n");
	/* At the start of a line a CR run gives nothing. */
	T("\r", "");
	T("\r\r\r", "");
	T("\rx", "x");
	T("\r\x1b[2Kx", "x");
	T("a\n\rb", "a\nb");
	T("a\n\x1b[1m\r\x1b[0mb", "a\nb");
	T("a\n\r", "a\n");
	T("a\n\r\n", "a\n\n");		/* an LF is always a break */
	T("\r\n", "\n");
	T("a\r\n\x1b[?2004l\rb\r\n", "a\nb\n");	/* bash */
	T("\r\x1b[K\t", "\t");
	T("a\r\n\r\nb", "a\n\nb");
	T("a\n\n", "a\n\n");
	T("a\r\tb", "a\n\tb");			/* TAB decides */
	T("1%\r2%\r3%\r\n", "1%\n2%\n3%\n");
	/* Sequences between CR and the deciding byte do not decide. */
	T("50%\r\x1b[K60%\r\n", "50%\n60%\n");
	T("a\r\x1b[K\n", "a\n");
	T("a\r\x1b[K\x1b[1m\r\x1b]0;t\x07\nb", "a\nb");
	T("a\r\x07\x08\x00\nb", "a\nb");	/* removed controls neither */
	T("a\r\x1b[2K\x1b[1Gb", "a\nb");
	D("a\r\x1b]0;x", "a\n", 5);		/* held through an open OSC */
	T("a\r\xc2\x9b" "K\n", "a\n\xc2\x9b" "K\n");	/* C1 is text */
	T("a\r\xff", "a\n\xef\xbf\xbd");	/* U+FFFD is text */
	T("a\r\xe2\x82", "a\n\xef\xbf\xbd");	/* truncated at the end */
	T("a\r\xe2\x82\xac", "a\n\xe2\x82\xac");
	D("a\r\x1b[1\n", "a\n", 3);	/* LF inside CSI decides */
}

/* Valid UTF-8 passes through. */
static void
test_utf8_valid(void **state)
{
	(void)state;
	T("\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9");			/* 2 */
	T("\xe2\x82\xac \xe4\xb8\xad\xe6\x96\x87",
	    "\xe2\x82\xac \xe4\xb8\xad\xe6\x96\x87");			/* 3 */
	T("\xf0\x9f\x98\x80\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd",
	    "\xf0\x9f\x98\x80\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd");	/* 4 */
	T("\xc2\x80", "\xc2\x80");			/* U+0080 is text */
	T("\xc2\xa0\xdf\xbf", "\xc2\xa0\xdf\xbf");	/* U+00A0, U+07FF */
	T("\xe0\xa0\x80\xef\xbf\xbf", "\xe0\xa0\x80\xef\xbf\xbf");
	T("\xed\x9f\xbf\xee\x80\x80", "\xed\x9f\xbf\xee\x80\x80");
	T("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
	    "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
	T("\xef\xbf\xbd", "\xef\xbf\xbd");		/* U+FFFD itself */
	T("\xef\xbb\xbfx", "\xef\xbb\xbfx");		/* BOM is text */
	T("e\xcc\x81", "e\xcc\x81");			/* combining mark */
	T("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x92\xbb",
	    "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x92\xbb");	/* ZWJ */
}

#define R "\xef\xbf\xbd"

/* Invalid UTF-8, as tmux reads it: a byte C2..F4 and as many bytes of
 * 80..FF as it announces are one character, U+FFFD if not valid; any
 * other byte of 80..FF is one U+FFFD. */
static void
test_utf8_invalid(void **state)
{
	(void)state;
	T("\xc0\x80", R R);			/* overlong NUL */
	T("\xc1\xbf", R R);
	T("\xe0\x80\x80", R);			/* overlong */
	T("\xe0\x9f\xbf", R);
	T("\xf0\x80\x80\x80", R);
	T("\xf0\x8f\xbf\xbf", R);
	T("\xed\xa0\x80", R);			/* surrogate */
	T("\xed\xbf\xbf", R);
	T("\xf4\x90\x80\x80", R);		/* past U+10FFFF */
	T("\xf5\x80\x80\x80", R R R R);
	T("\xf8\x88\x80\x80\x80", R R R R R);
	T("\xfe\xff", R R);
	T("\x80", R);				/* lone continuation */
	T("\xbf\x80\xa0", R R R);
	T("a\x80" "b", "a" R "b");
	/* Truncated mid-stream: U+FFFD, then the byte is read afresh. */
	T("\xe2\x82" "x", R "x");
	T("\xe2" "x", R "x");
	T("\xf0\x9f\x98" "x", R "x");
	T("\xe2\x82\n", R "\n");
	T("\xe2\x82\x1b[1mx", R "x");
	T("\xe2\x82\r\n", R "\n");
	T("\xe2\x07\x82\xac", R R R);		/* a control cuts it */
	T("\xe2\x82\x1b]0;\x18\xac", R R);	/* CAN too, anywhere */
	/* Bytes of 80..FF complete what was announced, whatever they are. */
	T("\xf0\x9f" "\xe2\x82\xac", R R);
	T("\xc3\xc3\xa9", R R);
	T("\xe2\xc3\xa9", R);
	T("\xe2\xc3\xa9x", R "x");
	/* ESC and sequences do not cut it, nor does DEL: it is joined. */
	T("\xe2\x82\x1b[1m\xac", "\xe2\x82\xac");
	T("\xe2\x1b]0;t\x07\x82\x1b\\\xac", "\xe2\x82\xac");
	T("\xe2\x82\x7f\xac", "\xe2\x82\xac");
	D("\xe2\x82\x1b\xac", R, 2);	/* (in ESC, AC is ignored) */
	/* Truncated at the end of the stream. */
	T("ab\xe2\x82", "ab" R);
	T("ab\xf0\x9f\x98", "ab" R);
	T("ab\xc3", "ab" R);
	T("\xe1\x80\xe2\x82\xac", R R R);
	T("\xf1\x80\x80\xe2\x82\xac", R R R);
	/* Inside a sequence, invalid bytes are part of it. */
	T("\x1b]0;\xff\xfe\x80\x07x", "x");
}

/* A character split across chunks is joined, never replaced. */
static void
test_utf8_split(void **state)
{
	static const char	 in[] =
	    "x\xf0\x9f\x98\x80y\xe2\x82\xacz\xc3\xa9";
	struct strip		 sp;
	char			 out[64];
	size_t			 n, cut1, cut2, len = sizeof in - 1;

	(void)state;
	for (cut1 = 0; cut1 <= len; cut1++) {
		for (cut2 = cut1; cut2 <= len; cut2++) {
			strip_init(&sp);
			n = strip_feed(&sp, in, cut1, out);
			n += strip_feed(&sp, in + cut1, cut2 - cut1, out + n);
			n += strip_feed(&sp, in + cut2, len - cut2, out + n);
			n += strip_finish(&sp, out + n);
			assert_int_equal(n, len);
			assert_memory_equal(out, in, len);
		}
	}

	/* Held bytes produce nothing until they complete. */
	strip_init(&sp);
	assert_int_equal(strip_feed(&sp, "\xf0", 1, out), 0);
	assert_int_equal(strip_feed(&sp, "\x9f", 1, out), 0);
	assert_int_equal(strip_feed(&sp, "\x98", 1, out), 0);
	assert_int_equal(strip_feed(&sp, "\x80", 1, out), 4);
	assert_memory_equal(out, "\xf0\x9f\x98\x80", 4);
	assert_int_equal(strip_finish(&sp, out), 0);
}

/* CRs at the end of a chunk are held until the next byte decides. */
static void
test_cr_held(void **state)
{
	struct strip	sp;
	char		out[64];

	(void)state;
	strip_init(&sp);
	assert_int_equal(strip_feed(&sp, "a\r", 2, out), 1);
	assert_int_equal(strip_feed(&sp, "\r", 1, out), 0);
	assert_int_equal(strip_feed(&sp, "\x1b[K", 3, out), 0);
	assert_int_equal(strip_feed(&sp, "\n", 1, out), 1);
	assert_int_equal(out[0], '\n');
	assert_int_equal(strip_feed(&sp, "b\r", 2, out), 1);
	assert_int_equal(strip_feed(&sp, "c", 1, out), 2);
	assert_memory_equal(out, "\nc", 2);
	assert_int_equal(strip_feed(&sp, "\r", 1, out), 0);
	assert_int_equal(strip_finish(&sp, out), 1);
	assert_int_equal(out[0], '\n');

	/* strip_finish leaves the parser as new. */
	assert_int_equal(strip_feed(&sp, "z", 1, out), 1);
	strip_init(&sp);
	strip_feed(&sp, "\x1b]0;", 4, out);
	assert_int_equal(strip_finish(&sp, out), 0);
	assert_int_equal(strip_feed(&sp, "ok", 2, out), 2);
}

/* The worst output per input byte stays under STRIP_MAX_OUT. */
static void
test_max_out(void **state)
{
	struct strip	sp;
	char		out[STRIP_MAX_OUT(1)];
	size_t		n;

	(void)state;
	strip_init(&sp);
	assert_int_equal(strip_feed(&sp, "a\r", 2, out), 1);
	assert_int_equal(strip_feed(&sp, "\xe2", 1, out), 0);
	assert_int_equal(strip_feed(&sp, "\x82", 1, out), 0);
	n = strip_feed(&sp, "x", 1, out);	/* LF, FFFD, x */
	assert_int_equal(n, 5);
	assert_memory_equal(out, "\n" R "x", 5);
	assert_true(n <= STRIP_MAX_OUT(1));

	strip_init(&sp);
	strip_feed(&sp, "a\r\xf0\x9f\x98", 5, out);
	n = strip_finish(&sp, out);
	assert_int_equal(n, 4);
	assert_memory_equal(out, "\n" R, 4);
}

/* The longest OSC allowed that ends, then text: only the text. */
static void
test_long_osc(void **state)
{
	size_t		 len = STRIP_SEQ_MAX - 1, i;
	char		*in;

	(void)state;
	in = xmalloc(len + 16);
	memcpy(in, "\x1b]0;", 4);
	for (i = 4; i < len; i++)
		in[i] = 'a' + i % 26;
	memcpy(in + len, "\x07ok\n", 4);
	test_expect(in, len + 4, "ok\n", 3);

	/* The same with random bytes inside (no BEL, ESC, CAN, SUB, LF). */
	for (i = 4; i < len; i++) {
		in[i] = test_rand() & 0xff;
		if (in[i] == 0x07 || in[i] == 0x1b || in[i] == 0x18 ||
		    in[i] == 0x1a || in[i] == '\n')
			in[i] = 'x';
	}
	/* (A character still open at the BEL is part of the string.) */
	memcpy(in + len - 4, "abcd", 4);
	test_expect(in, len + 4, "ok\n", 3);
	free(in);
}

/* A CSI with as many parameters as the bound allows, then text. */
static void
test_long_csi(void **state)
{
	size_t		 n = (STRIP_SEQ_MAX - 4) / 2, len = 2 + 2 * n, i;
	char		*in;

	(void)state;
	in = xmalloc(len + 16);
	memcpy(in, "\x1b[", 2);
	for (i = 0; i < n; i++)
		memcpy(in + 2 + 2 * i, "1;", 2);
	memcpy(in + len, "mx", 2);
	test_expect(in, len + 2, "x", 1);
	in[len] = 'x';
	test_expect(in, len + 1, "", 0);	/* x is the final byte */
	free(in);
}

/* A sequence that never ends is cut off after STRIP_SEQ_MAX bytes, and
 * what it held is counted as dropped. */
static void
test_cutoff(void **state)
{
	size_t		 max = STRIP_SEQ_MAX, i, n;
	char		*in, *want;

	(void)state;
	in = xmalloc(max + 16);

	/* Exactly STRIP_SEQ_MAX bytes of OSC: the next byte is text. */
	memcpy(in, "\x1b]0;", 4);
	memset(in + 4, 'a', max - 4);
	memcpy(in + max, "ok\n", 3);
	test_expect_dropped(in, max + 3, "ok\n", 3, max);

	/* One byte less: the 'o' is the last byte swallowed. */
	memcpy(in, "\x1b]0;", 4);
	memset(in + 4, 'a', max - 5);
	memcpy(in + max - 1, "ok\n", 3);
	test_expect_dropped(in, max + 2, "k\n", 2, max);

	/* One byte more: an 'a' comes out. */
	memset(in + 4, 'a', max - 3);
	memcpy(in + max + 1, "ok\n", 3);
	test_expect_dropped(in, max + 4, "aok\n", 4, max);

	/* Ended by BEL as the last byte allowed: a normal end. */
	memset(in + 4, 'a', max - 5);
	memcpy(in + max - 1, "\x07ok\n", 4);
	test_expect(in, max + 3, "ok\n", 3);

	/* A DCS: the same bound, in bytes: the rest of a character cut
	 * there is U+FFFD. */
	memcpy(in, "\x1bPq", 3);
	memset(in + 3, '~', max - 3);
	memcpy(in + max, "\xc3\xa9\n", 3);
	test_expect_dropped(in, max + 3, "\xc3\xa9\n", 3, max);
	memcpy(in + max - 1, "\xc3\xa9ok", 4);
	test_expect_dropped(in, max + 3, R "ok", 5, max);

	/* A CSI: digits swallowed up to the bound, then text. */
	in[0] = 0x1b;
	in[1] = '[';
	for (i = 2; i < max; i++)
		in[i] = '0' + i % 10;
	memcpy(in + max, "ok\n", 3);
	test_expect_dropped(in, max + 3, "ok\n", 3, max);

	/* Controls executed inside a CSI do not count toward the bound. */
	want = xmalloc(max);
	for (i = 2, n = 0; i < max; i++) {
		in[i] = i % 2 ? '\n' : '1';
		if (in[i] == '\n')
			want[n++] = '\n';
	}
	memcpy(in + max, "mok", 3);
	memcpy(want + n, "ok", 2);
	test_expect(in, max + 3, want, n + 2);
	free(want);
	free(in);
}

/*
 * The reference model: slow and plain, written apart from strip.c after
 * the tables of tmux's input.c: one byte at a time, the transition for
 * its range in the state it finds; the character tmux's ground state
 * collects, checked by its bits; and the CR rule applied to what comes
 * out.
 */
enum ref_state {
	REF_GROUND, REF_ESC, REF_ESC_INTER, REF_CSI,
	REF_DCS_ENTER, REF_DCS_PARAM, REF_DCS_INTER, REF_DCS_IGNORE,
	REF_OSC, REF_ST_STRING, REF_DCS_HANDLER, REF_DCS_ESCAPE
};

struct ref {
	enum ref_state	 st;
	size_t		 seq;		/* bytes of the open sequence */
	uint64_t	 dropped;
	uint8_t		 u8[4];		/* the character being collected */
	size_t		 have, size;
	int		 cr, bol;
	struct buf	*b;
};

/* Text (a code point, or TAB): the held CR run is a line break first. */
static void
test_ref_text(struct ref *r, uint32_t c)
{
	char	u[4];

	if (r->cr && !r->bol)
		buf_addc(r->b, '\n');
	r->cr = r->bol = 0;
	if (c < 0x80)
		buf_addc(r->b, c);
	else if (c < 0x800) {
		u[0] = 0xc0 | c >> 6;
		u[1] = 0x80 | (c & 0x3f);
		buf_add(r->b, u, 2);
	} else if (c < 0x10000) {
		u[0] = 0xe0 | c >> 12;
		u[1] = 0x80 | ((c >> 6) & 0x3f);
		u[2] = 0x80 | (c & 0x3f);
		buf_add(r->b, u, 3);
	} else {
		u[0] = 0xf0 | c >> 18;
		u[1] = 0x80 | ((c >> 12) & 0x3f);
		u[2] = 0x80 | ((c >> 6) & 0x3f);
		u[3] = 0x80 | (c & 0x3f);
		buf_add(r->b, u, 4);
	}
}

/* tmux's "stop UTF-8": a character being collected is U+FFFD. */
static void
test_ref_stop(struct ref *r)
{
	if (r->size != 0)
		test_ref_text(r, 0xfffd);
	r->size = r->have = 0;
}

/* tmux's input_top_bit_set, with the validity of its mbtowc. */
static void
test_ref_top(struct ref *r, uint8_t c)
{
	uint32_t	v;
	size_t		i;
	int		ok;

	if (r->size == 0) {
		if (c >= 0xc2 && c <= 0xdf)
			r->size = 2;
		else if (c >= 0xe0 && c <= 0xef)
			r->size = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			r->size = 4;
		else {
			test_ref_text(r, 0xfffd);
			return;
		}
		r->u8[0] = c;
		r->have = 1;
		return;
	}
	r->u8[r->have++] = c;
	if (r->have < r->size)
		return;
	ok = 1;
	v = r->u8[0] & (0xff >> (r->size + 1));
	for (i = 1; i < r->size; i++) {
		if ((r->u8[i] & 0xc0) != 0x80)
			ok = 0;
		v = v << 6 | (r->u8[i] & 0x3f);
	}
	if ((r->size == 3 && v < 0x800) || (r->size == 4 && v < 0x10000) ||
	    (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		ok = 0;
	r->size = r->have = 0;
	test_ref_text(r, ok ? v : 0xfffd);
}

/* tmux's input_c0_dispatch, as text: LF, TAB and CR matter. */
static void
test_ref_c0(struct ref *r, uint8_t c)
{
	test_ref_stop(r);
	if (c == '\n') {
		buf_addc(r->b, '\n');
		r->cr = 0;
		r->bol = 1;
	} else if (c == '\t')
		test_ref_text(r, '\t');
	else if (c == '\r')
		r->cr = 1;
}

/* A string meets an LF: it is dropped and the LF is a line break. */
static void
test_ref_cut(struct ref *r)
{
	r->dropped += r->seq;
	r->st = REF_GROUND;
	test_ref_c0(r, '\n');
}

/* One byte. */
static void
test_ref_byte(struct ref *r, uint8_t c)
{
	int	str = r->st >= REF_DCS_ENTER && r->st <= REF_ST_STRING;

	/* The DCS handler and its escape have no "anywhere" rules. */
	if (r->st == REF_DCS_HANDLER || r->st == REF_DCS_ESCAPE) {
		if (c == '\n') {
			test_ref_cut(r);
			return;
		}
		r->seq++;
		if (r->st == REF_DCS_ESCAPE)
			r->st = c == 0x5c ? REF_GROUND : REF_DCS_HANDLER;
		else if (c == 0x1b)
			r->st = REF_DCS_ESCAPE;
		goto bound;
	}
	/* Anywhere: ESC, CAN, SUB. */
	if (c == 0x1b) {
		r->st = REF_ESC;
		r->seq = 1;
		return;
	}
	if (c == 0x18 || c == 0x1a) {
		test_ref_c0(r, c);
		r->st = REF_GROUND;
		return;
	}
	if (str && c == '\n') {
		test_ref_cut(r);
		return;
	}
	if (c < 0x20 && !str) {
		test_ref_c0(r, c);	/* executed, not the sequence's */
		return;
	}
	switch (r->st) {
	case REF_GROUND:
		if (c >= 0x80)
			test_ref_top(r, c);
		else if (c != 0x7f) {
			test_ref_stop(r);
			test_ref_text(r, c);
		}
		return;
	case REF_ESC:
		r->seq++;
		if (c >= 0x20 && c <= 0x2f)
			r->st = REF_ESC_INTER;
		else if (c == 'P')
			r->st = REF_DCS_ENTER;
		else if (c == '[')
			r->st = REF_CSI;
		else if (c == ']')
			r->st = REF_OSC;
		else if (c == 'X' || c == '^' || c == '_' || c == 'k')
			r->st = REF_ST_STRING;
		else if (c >= 0x30 && c <= 0x7e)
			r->st = REF_GROUND;
		break;
	case REF_ESC_INTER:
		r->seq++;
		if (c >= 0x30 && c <= 0x7e)
			r->st = REF_GROUND;
		break;
	case REF_CSI:
		r->seq++;
		if (c >= 0x40 && c <= 0x7e)
			r->st = REF_GROUND;
		break;
	case REF_DCS_ENTER:
	case REF_DCS_PARAM:
	case REF_DCS_INTER:
		r->seq++;
		if (c >= 0x40 && c <= 0x7e)
			r->st = REF_DCS_HANDLER;
		else if (c >= 0x20 && c <= 0x2f)
			r->st = REF_DCS_INTER;
		else if (c == 0x3a || (c >= 0x30 && c <= 0x3f &&
		    r->st == REF_DCS_INTER) || (c >= 0x3c && c <= 0x3f &&
		    r->st == REF_DCS_PARAM))
			r->st = REF_DCS_IGNORE;
		else if (c >= 0x30 && c <= 0x3f)
			r->st = REF_DCS_PARAM;
		break;
	case REF_OSC:
		r->seq++;
		if (c == 0x07)
			r->st = REF_GROUND;
		break;
	default:			/* ignore, SOS, PM, APC, ESC k */
		r->seq++;
		break;
	}
bound:
	if (r->st != REF_GROUND && r->seq >= STRIP_SEQ_MAX) {
		r->dropped += r->seq;
		r->st = REF_GROUND;
	}
}

/* The text of p[0..len) into b; returns the bytes dropped (strings cut at
 * an LF, sequences past the bound or open at the end). */
static uint64_t
test_ref(const uint8_t *p, size_t len, struct buf *b)
{
	struct ref	r;
	size_t		i;

	memset(&r, 0, sizeof r);
	r.bol = 1;
	r.b = b;
	buf_init(b);
	for (i = 0; i < len; i++)
		test_ref_byte(&r, p[i]);
	test_ref_stop(&r);
	if (r.st != REF_GROUND)
		r.dropped += r.seq;
	if (r.cr && !r.bol)
		buf_addc(b, '\n');
	return (r.dropped);
}

/* Append a random token to b: text, UTF-8, a sequence, CRs, noise. */
static void
test_token(struct buf *b)
{
	static const char *const seqs[] = {
		"\x1b[1;31m", "\x1b[0m", "\x1b[K", "\x1b[2J", "\x1b[?1049h",
		"\x1b[?25l", "\x1b[38;5;12m", "\x1b[", "\x1b]0;title\x07",
		"\x1b]8;;http://x/\x1b\\", "\x1b]", "\x1bP1$r\x1b\\", "\x1bP",
		"\x1b_x\x07", "\x1bX", "\x1b^", "\x1b\\", "\x1b(B", "\x1b(",
		"\x1b" "7", "\x1b" "8", "\x1b=", "\x1b>", "\x1b", "\x1bk",
		"\xc2\x9b" "1m", "\xc2\x9b", "\xc2\x9d", "\xc2\x9c", "\xc2\x90",
		"\xc2\x85", "\xc2\x98", "\xc2\x9e", "\xc2\x9f", "\x07", "\x18",
		"\x1a", "\x7f", "\x08", "\x00", "\x9b", "\x9c",
	};
	static const char *const u8[] = {
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe4\xb8\xad",
		"\xc3", "\xe2\x82", "\xf0\x9f\x98", "\x80", "\xbf", "\xc0\x80",
		"\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff",
		"\xf8", "\xef\xbf\xbd", "\xe0", "\xed", "\xf4", "\xf0",
		"\xc2\xa0", "\xc2",
	};
	static const char *const crs[] = {
		"\r", "\n", "\r\n", "\r\r\n", "\r\r", "\t", "\r\r\r\n\n",
	};
	const char	*s;
	size_t		 i, n;

	switch (test_rand() % 6) {
	case 0:
		n = 1 + test_rand() % 30;
		for (i = 0; i < n; i++)
			buf_addc(b, 0x20 + test_rand() % 95);
		return;
	case 1:
		s = u8[test_rand() % (sizeof u8 / sizeof u8[0])];
		break;
	case 2:
		s = seqs[test_rand() % (sizeof seqs / sizeof seqs[0])];
		if (*s == '\0') {
			buf_addc(b, '\0');
			return;
		}
		break;
	case 3:
		s = crs[test_rand() % (sizeof crs / sizeof crs[0])];
		break;
	case 4:
		n = 1 + test_rand() % 4;
		for (i = 0; i < n; i++)
			buf_addc(b, test_rand() & 0xff);
		return;
	default:
		n = 1 + test_rand() % 3;
		for (i = 0; i < n; i++)
			buf_addc(b, "0123456789;:?$ mHJK\"!"[test_rand() % 21]);
		return;
	}
	buf_adds(b, s);
}

/* Random inputs: every split gives the reference text, clean. */
static void
test_property(void **state)
{
	struct buf	in, ref, got;
	uint64_t	dropped;
	int		iter, mode, tokens, i;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		buf_init(&in);
		tokens = 1 + test_rand() % 40;
		for (i = 0; i < tokens; i++)
			test_token(&in);
		dropped = test_ref((const uint8_t *)in.data, in.len, &ref);
		assert_true(clean_text(ref.data, ref.len));
		for (mode = 0; mode < TEST_MODES; mode++) {
			if (test_strip_mode(in.data, in.len, mode, &got) !=
			    dropped || got.len != ref.len || (ref.len != 0 &&
			    memcmp(got.data, ref.data, ref.len) != 0)) {
				fprintf(stderr, "iter %d mode %d\n", iter,
				    mode);
				test_dump("input", in.data, in.len);
				test_dump("ref", ref.data, ref.len);
				test_dump("got", got.data, got.len);
				fail();
			}
			assert_true(clean_text(got.data, got.len));
			buf_free(&got);
		}
		buf_free(&ref);
		buf_free(&in);
	}
}

/* Random bytes (no structure): the same check. */
static void
test_property_bytes(void **state)
{
	uint8_t		in[512];
	struct buf	ref, got;
	uint64_t	dropped;
	size_t		len, i;
	int		iter, mode;

	(void)state;
	for (iter = 0; iter < 5000; iter++) {
		len = test_rand() % sizeof in;
		for (i = 0; i < len; i++) {
			in[i] = test_rand() & 0xff;
			/* Favour the bytes that matter. */
			if (test_rand() % 4 == 0)
				in[i] = "\x1b\r\n\x07\xc2\x9c[]P\\"
				    [test_rand() % 10];
		}
		dropped = test_ref(in, len, &ref);
		for (mode = 0; mode < TEST_MODES; mode++) {
			assert_int_equal(test_strip_mode(in, len, mode, &got),
			    dropped);
			assert_int_equal(got.len, ref.len);
			if (ref.len != 0)
				assert_memory_equal(got.data, ref.data,
				    ref.len);
			buf_free(&got);
		}
		buf_free(&ref);
	}
}

/* The directory of fixtures, found beside this file's directory. */
static const char *
test_fixture_dir(void)
{
	const char	*env = getenv("PROGMUX_FIXTURES");

	if (env != NULL)
		return (env);
	return ("tests/fixtures");
}

/* Read a whole file; NULL if it cannot be opened. */
static char *
test_read(const char *path, size_t *len)
{
	FILE		*f;
	struct buf	 b;
	char		 tmp[65536];
	size_t		 n;

	if ((f = fopen(path, "rb")) == NULL)
		return (NULL);
	buf_init(&b);
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	*len = b.len;
	buf_reserve(&b, 1);
	return (b.data);
}

/* Every NAME.raw in tests/fixtures/ reads exactly NAME.txt. */
static void
test_fixtures(void **state)
{
	const char	*dir = test_fixture_dir();
	DIR		*d;
	struct dirent	*de;
	char		*path, *raw, *txt;
	size_t		 rlen, tlen, n, found = 0;

	(void)state;
	if ((d = opendir(dir)) == NULL) {
		fprintf(stderr, "cannot open %s (run from the top of the "
		    "tree or set PROGMUX_FIXTURES)\n", dir);
		fail();
	}
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".raw") != 0)
			continue;
		xasprintf(&path, "%s/%s", dir, de->d_name);
		raw = test_read(path, &rlen);
		assert_non_null(raw);
		memcpy(path + strlen(path) - 4, ".txt", 4);
		txt = test_read(path, &tlen);
		if (txt == NULL) {
			fprintf(stderr, "missing %s\n", path);
			fail();
		}
		fprintf(stderr, "fixture %s: %zu bytes -> %zu\n", de->d_name,
		    rlen, tlen);
		test_expect(raw, rlen, txt, tlen);
		free(raw);
		free(txt);
		free(path);
		found++;
	}
	closedir(d);
	assert_true(found >= 8);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_c0),
		cmocka_unit_test(test_fast_path),
		cmocka_unit_test(test_csi),
		cmocka_unit_test(test_csi_c0),
		cmocka_unit_test(test_esc),
		cmocka_unit_test(test_osc),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_c1),
		cmocka_unit_test(test_cr),
		cmocka_unit_test(test_utf8_valid),
		cmocka_unit_test(test_utf8_invalid),
		cmocka_unit_test(test_utf8_split),
		cmocka_unit_test(test_cr_held),
		cmocka_unit_test(test_max_out),
		cmocka_unit_test(test_long_osc),
		cmocka_unit_test(test_long_csi),
		cmocka_unit_test(test_cutoff),
		cmocka_unit_test(test_property),
		cmocka_unit_test(test_property_bytes),
		cmocka_unit_test(test_fixtures),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
