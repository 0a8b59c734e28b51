/*
 * strip.h — turn a terminal's byte stream into clean text, as it arrives.
 *
 * A streaming state machine in the manner of the DEC/ECMA-48 parser
 * (ground, escape, CSI, OSC, DCS/SOS/PM/APC strings), with tmux's own
 * states and transitions (input.c), that removes every escape sequence
 * and every C0 control except TAB and LF. Line breaks: a run of CRs
 * followed by LF is one LF (a pane turns a program's CR LF into CR CR
 * LF); a run of CRs not followed by LF is one LF too (each state of a
 * progress bar is a line), except at the start of a line, where a CR
 * moves nothing and gives nothing. CRs at the end of a chunk are held
 * until the next byte decides, and become a line break at strip_finish().
 * Valid UTF-8 passes through; invalid UTF-8 becomes U+FFFD where tmux
 * 3.6 and later show one, so its characters are read as tmux reads them
 * (strip.c); a character split across chunks is joined. However the
 * input is split into chunks, the text is the same. No allocation: the
 * state is this fixed-size struct. A string
 * (OSC, DCS, ...) never swallows a line break, and no sequence runs past
 * STRIP_SEQ_MAX bytes: what such a sequence held is left out and counted
 * (dropped), and text resumes, so a lone or misread introducer costs at
 * most the rest of its line.
 */
#ifndef PROGMUX_STRIP_H
#define PROGMUX_STRIP_H

#include <stddef.h>
#include <stdint.h>

#include "utf8.h"

/* Bytes of output that strip_feed() may write for len bytes of input. */
#define STRIP_MAX_OUT(len)	((len) * 3 + 16)

/*
 * A sequence (escape, CSI, OSC, DCS, SOS, PM, APC, ESC k) still open after
 * this many bytes, its introducer included, is abandoned: the parser goes
 * back to ground, the bytes it held count as dropped, and the next byte is
 * text again. Above what real sequences take (hyperlinks, titles, a kitty
 * graphics chunk of 4096, a modest OSC 52 clipboard), small enough that a
 * lone introducer on a long line costs little of it.
 */
#define STRIP_SEQ_MAX		(64U * 1024)

struct strip {
	/* Opaque to callers: the parser's state. */
	uint8_t		state;
	uint8_t		pending_cr;	/* a run of CRs is held */
	uint8_t		bol;		/* no text since the last line break */
	uint8_t		u8len;		/* bytes of an open character held */
	uint8_t		u8want;		/* bytes it announced */
	uint8_t		u8[UTF8_MAX];	/* them */
	uint32_t	seqlen;		/* bytes into the current sequence */
	/* Readable: input bytes left out that were no complete sequence (a
	 * string cut at a line break, a sequence past STRIP_SEQ_MAX or open
	 * at strip_finish). Kept across strip_finish(). */
	uint64_t	dropped;
};

void	strip_init(struct strip *);
/* Feed len bytes; writes text to out (room for STRIP_MAX_OUT(len) bytes
 * needed) and returns the number of bytes written. */
size_t	strip_feed(struct strip *, const void *in, size_t len, char *out);
/* The stream ended: flush held CRs and a truncated UTF-8 sequence, and
 * count a sequence still open as dropped. Writes at most 16 bytes to out;
 * returns the count. */
size_t	strip_finish(struct strip *, char *out);

#endif
