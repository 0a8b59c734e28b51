/*
 * fuzz_tmux_parse.c — libFuzzer target for the control-mode line parser
 * (server/tmux_parse.c), linked alone with common/'s buffer and
 * allocator.
 *
 * The first byte chooses a stride. The rest is cut into lines at each LF
 * and, with a stride, every stride bytes as well, so a line may be cut
 * anywhere: inside a %begin, a guard, a number, after a NUL. Each line
 * goes to tmux_parse_line() as tmux.c hands it over (exactly len bytes
 * and a NUL, in a buffer of its own so that ASan sees any read past it)
 * and what it says is checked against the rules, written here again on
 * their own:
 *
 * - outside a block, a %begin with three numbers opens one, with its
 *   time, its number and whether its flags say ours (bit 1);
 *   %session-changed is ATTACHED, %exit (alone or with a reason) EXIT;
 *   anything else is nothing;
 * - inside a block, only an %end or %error carrying three numbers, the
 *   first two that %begin's time and number, ends it: OK or ERROR if it
 *   is ours, nothing if not; its text is then exactly the lines between,
 *   joined by LF. Every other line, notifications and other guards
 *   included, is nothing and leaves the block open.
 *
 * Then the same lines are sent again as the output of one command of
 * ours, each after a decoy (a guard with another number or time, or
 * with two numbers, another %begin, %exit, %session-changed); a line
 * that would be the block's own guard is set off by a space. The block
 * must come back as exactly the lines sent, and an empty block after it
 * as "".
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "server.h"
#include "xmalloc.h"

#define FUZZ_EXIT_DEFAULT	"the session or server ended"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The rules' own view of the parser's state. */
struct fuzz_model {
	bool		 in_block;
	bool		 ours;
	unsigned long	 time;
	unsigned long	 num;
	struct buf	 text;		/* the block's lines, each and LF */
};

/* Does s start with prefix? */
static bool
fuzz_prefix(const char *s, const char *prefix)
{
	return (strncmp(s, prefix, strlen(prefix)) == 0);
}

/*
 * Three whitespace-separated numbers at s, as "%lu %lu %d" would read
 * them (blanks before each, a sign allowed, digits required), by strtoul
 * and strtol instead.
 */
static bool
fuzz_numbers(const char *s, unsigned long *t, unsigned long *n, int *flags)
{
	char	*end;
	long	 f;

	*t = strtoul(s, &end, 10);
	if (end == s)
		return (false);
	s = end;
	*n = strtoul(s, &end, 10);
	if (end == s)
		return (false);
	s = end;
	f = strtol(s, &end, 10);
	if (end == s)
		return (false);
	*flags = (int)f;
	return (true);
}

/* Is line the guard (%end or %error) of the block with t and n? */
static bool
fuzz_is_guard(const char *line, unsigned long t, unsigned long n,
    bool *end)
{
	unsigned long	lt, ln;
	int		flags;

	*end = fuzz_prefix(line, "%end ");
	if (!*end && !fuzz_prefix(line, "%error "))
		return (false);
	return (fuzz_numbers(line + (*end ? 5 : 7), &lt, &ln, &flags) &&
	    lt == t && ln == n);
}

/* Is the parser's block exactly want (want_len bytes)? */
static bool
fuzz_block_is(struct tmux_parse *ps, const char *want, size_t want_len)
{
	return (ps->block.len == want_len && (want_len == 0 ||
	    memcmp(ps->block.data, want, want_len) == 0));
}

/* Hand one line to the parser and check what it says against m. */
static enum tmux_line_kind
fuzz_line(struct tmux_parse *ps, struct fuzz_model *m, const char *p,
    size_t len)
{
	enum tmux_line_kind	 k, want;
	const char		*reason = NULL;
	unsigned long		 t, n;
	char			*line;
	bool			 end;
	int			 flags;

	line = xmalloc(len + 1);
	memcpy(line, p, len);
	line[len] = '\0';
	k = tmux_parse_line(ps, line, len, &reason);
	if (m->in_block) {
		if (fuzz_is_guard(line, m->time, m->num, &end)) {
			want = !m->ours ? TMUX_LINE_NONE : end ? TMUX_LINE_OK :
			    TMUX_LINE_ERROR;
			if (k != want || ps->in_block)
				abort();
			if (m->ours && !fuzz_block_is(ps, m->text.data,
			    m->text.len == 0 ? 0 : m->text.len - 1))
				abort();
			m->in_block = false;
		} else {
			if (k != TMUX_LINE_NONE || !ps->in_block ||
			    ps->time != m->time || ps->num != m->num ||
			    ps->ours != m->ours)
				abort();
			if (m->ours) {
				buf_add(&m->text, line, len);
				buf_addc(&m->text, '\n');
			}
		}
	} else if (fuzz_prefix(line, "%begin ") &&
	    fuzz_numbers(line + 7, &t, &n, &flags)) {
		if (k != TMUX_LINE_NONE || !ps->in_block || ps->time != t ||
		    ps->num != n || ps->ours != ((flags & 1) != 0))
			abort();
		m->in_block = true;
		m->time = t;
		m->num = n;
		m->ours = ps->ours;
		buf_reset(&m->text);
	} else if (fuzz_prefix(line, "%session-changed ")) {
		if (k != TMUX_LINE_ATTACHED || ps->in_block)
			abort();
	} else if (fuzz_prefix(line, "%exit") && (len == 5 ||
	    line[5] == ' ')) {
		if (k != TMUX_LINE_EXIT || ps->in_block || reason == NULL)
			abort();
		if (len > 6 ? reason != line + 6 :
		    strcmp(reason, FUZZ_EXIT_DEFAULT) != 0)
			abort();
	} else if (k != TMUX_LINE_NONE || ps->in_block)
		abort();
	free(line);
	return (k);
}

/* Cut p into lines: at each LF, and every stride bytes (0: never). */
static size_t
fuzz_cut(const char *p, size_t len, size_t stride, size_t *starts,
    size_t *lens)
{
	size_t	off = 0, i, n = 0;

	while (off < len) {
		for (i = off; i < len && p[i] != '\n' &&
		    (stride == 0 || i - off < stride); i++)
			;
		starts[n] = off;
		lens[n++] = i - off;
		off = i < len && p[i] == '\n' ? i + 1 : i;
	}
	return (n);
}

/* Feed the line s (a C string) through fuzz_line. */
static enum tmux_line_kind
fuzz_feed(struct tmux_parse *ps, struct fuzz_model *m, const char *s)
{
	return (fuzz_line(ps, m, s, strlen(s)));
}

/*
 * The lines as one block of ours, time t and number n, each after a
 * decoy: the block must be exactly the lines sent, then an empty block
 * "".
 */
static void
fuzz_block(const char *p, size_t nlines, const size_t *starts,
    const size_t *lens, unsigned long t, unsigned long n, bool error)
{
	struct tmux_parse	 ps;
	struct fuzz_model	 m;
	struct buf		 want = BUF_INIT, line = BUF_INIT;
	char			 decoy[128];
	size_t			 i;
	bool			 end;

	memset(&ps, 0, sizeof ps);
	memset(&m, 0, sizeof m);
	snprintf(decoy, sizeof decoy, "%%begin %lu %lu 1", t, n);
	fuzz_feed(&ps, &m, decoy);
	for (i = 0; i < nlines; i++) {
		switch (i % 6) {
		case 0:
			snprintf(decoy, sizeof decoy, "%%end %lu %lu 1", t,
			    n + 1);
			break;
		case 1:
			snprintf(decoy, sizeof decoy, "%%error %lu %lu 1",
			    t + 1, n);
			break;
		case 2:
			snprintf(decoy, sizeof decoy, "%%end %lu %lu", t, n);
			break;
		case 3:
			snprintf(decoy, sizeof decoy, "%%begin %lu %lu 1", t,
			    n);
			break;
		case 4:
			snprintf(decoy, sizeof decoy, "%%exit");
			break;
		default:
			snprintf(decoy, sizeof decoy, "%%session-changed $0 x");
			break;
		}
		if (fuzz_feed(&ps, &m, decoy) != TMUX_LINE_NONE)
			abort();
		buf_adds(&want, decoy);
		buf_addc(&want, '\n');
		buf_reset(&line);
		buf_add(&line, p + starts[i], lens[i]);
		if (fuzz_is_guard(buf_cstr(&line), t, n, &end)) {
			buf_reset(&line);
			buf_addc(&line, ' ');
			buf_add(&line, p + starts[i], lens[i]);
		}
		if (fuzz_line(&ps, &m, line.data, line.len) != TMUX_LINE_NONE)
			abort();
		buf_add(&want, line.data, line.len);
		buf_addc(&want, '\n');
	}
	snprintf(decoy, sizeof decoy, "%%%s %lu %lu 1", error ? "error" :
	    "end", t, n);
	if (fuzz_feed(&ps, &m, decoy) != (error ? TMUX_LINE_ERROR :
	    TMUX_LINE_OK) || !fuzz_block_is(&ps, want.data, want.len == 0 ?
	    0 : want.len - 1))
		abort();
	snprintf(decoy, sizeof decoy, "%%begin %lu %lu 1", t, n + 1);
	fuzz_feed(&ps, &m, decoy);
	snprintf(decoy, sizeof decoy, "%%end %lu %lu 1", t, n + 1);
	if (fuzz_feed(&ps, &m, decoy) != TMUX_LINE_OK ||
	    !fuzz_block_is(&ps, "", 0))
		abort();
	buf_free(&want);
	buf_free(&line);
	buf_free(&ps.block);
	buf_free(&m.text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmux_parse	 ps;
	struct fuzz_model	 m;
	const char		*p;
	size_t			*starts, *lens, len, nlines, i, stride;

	if (size < 1)
		return (0);
	p = (const char *)data + 1;
	len = size - 1;
	stride = data[0] % 32;
	starts = xcalloc(len + 1, sizeof *starts);
	lens = xcalloc(len + 1, sizeof *lens);
	nlines = fuzz_cut(p, len, stride, starts, lens);

	memset(&ps, 0, sizeof ps);
	memset(&m, 0, sizeof m);
	for (i = 0; i < nlines; i++)
		fuzz_line(&ps, &m, p + starts[i], lens[i]);
	tmux_parse_reset(&ps);
	if (ps.in_block)
		abort();
	buf_free(&ps.block);
	buf_free(&m.text);

	fuzz_block(p, nlines, starts, lens, 1700000000UL + data[0],
	    1 + len % 1000, (data[0] & 0x80) != 0);
	free(starts);
	free(lens);
	return (0);
}
