/*
 * tmux_parse.c — what passes between progmux and tmux's control mode,
 * as text: the control-mode lines tmux sends, the words we send it, and
 * what to add to an error it gives.
 *
 * Pure: no loop, no settings, no I/O; it links with nothing but common/
 * (buf.c and xmalloc.c), so the unit tests and the fuzz target
 * (tests/fuzz/fuzz_tmux_parse.c) take it alone. tmux.c feeds it each
 * line of the control client's output; the files that build commands
 * quote any word not entirely their own with tmux_quote.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "server.h"

/* A new client: no block is open. */
void
tmux_parse_reset(struct tmux_parse *ps)
{
	ps->in_block = false;
}

/*
 * One line of control-mode output, NUL-terminated at len, and what it
 * means. A block runs from a %begin to the %end or %error carrying that
 * %begin's time and number; its lines are kept only if its flags say it
 * answers our own client.
 */
enum tmux_line_kind
tmux_parse_line(struct tmux_parse *ps, const char *line, size_t len,
    const char **reason)
{
	unsigned long	t, num;
	int		flags;
	bool		end;

	if (ps->in_block) {
		/*
		 * A command's output is not escaped (capture-pane of a pane
		 * showing "%end ..." prints that line): only the guard lines
		 * carrying the %begin's time and number end the block.
		 */
		end = strncmp(line, "%end ", 5) == 0;
		if ((end || strncmp(line, "%error ", 7) == 0) &&
		    sscanf(line + (end ? 5 : 7), "%lu %lu %d", &t, &num,
		    &flags) == 3 && t == ps->time && num == ps->num) {
			ps->in_block = false;
			if (ps->block.len > 0 &&
			    ps->block.data[ps->block.len - 1] == '\n')
				ps->block.len--;
			if (!ps->ours)
				return (TMUX_LINE_NONE);
			return (end ? TMUX_LINE_OK : TMUX_LINE_ERROR);
		}
		if (ps->ours) {
			buf_add(&ps->block, line, len);
			buf_addc(&ps->block, '\n');
		}
		return (TMUX_LINE_NONE);
	}
	if (strncmp(line, "%begin ", 7) == 0 &&
	    sscanf(line + 7, "%lu %lu %d", &t, &num, &flags) == 3) {
		ps->in_block = true;
		ps->time = t;
		ps->num = num;
		ps->ours = (flags & 1) != 0;
		buf_reset(&ps->block);
		return (TMUX_LINE_NONE);
	}
	if (strncmp(line, "%session-changed ", 17) == 0)
		return (TMUX_LINE_ATTACHED);
	if (strncmp(line, "%exit", 5) == 0 && (len == 5 || line[5] == ' ')) {
		*reason = len > 6 ? line + 6 : "the session or server ended";
		return (TMUX_LINE_EXIT);
	}
	/* Other notifications are not ours to act on. */
	return (TMUX_LINE_NONE);
}

/*
 * Quote one word for tmux's command parser. Bare only if every character
 * is plain and it is not a % directive: a word starting with % is one
 * (%if, %endif, %hidden ...; any other letter is a syntax error) unless
 * digits alone follow, as in a pane id.
 */
void
tmux_quote(struct buf *b, const char *s)
{
	const char	*p;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
	    "opqrstuvwxyz0123456789%@=:/._,+-") == strlen(s) &&
	    (*s != '%' || (s[1] != '\0' && strspn(s + 1, "0123456789") ==
	    strlen(s + 1)))) {
		buf_adds(b, s);
		return;
	}
	if (strchr(s, '\'') == NULL && strpbrk(s, "\n\r") == NULL) {
		buf_addc(b, '\'');
		buf_adds(b, s);
		buf_addc(b, '\'');
		return;
	}
	buf_addc(b, '"');
	for (p = s; *p != '\0'; p++) {
		if (*p == '\n')
			buf_adds(b, "\\n");
		else if (*p == '\r')
			buf_adds(b, "\\r");
		else {
			if (strchr("\"\\$~#", *p) != NULL)
				buf_addc(b, '\\');
			buf_addc(b, *p);
		}
	}
	buf_addc(b, '"');
}

/*
 * What to add to an error tmux gave for a command, if it says why: tmux
 * out of descriptors says "Too many open files" (a fork or an open of a
 * pane's terminal failing), which names neither the limit nor the fix.
 */
const char *
tmux_error_hint(const char *out)
{
	if (out != NULL && (strstr(out, "Too many open files") != NULL ||
	    strstr(out, "fork failed") != NULL))
		return (" (the tmux server has run out of descriptors: its "
		    "RLIMIT_NOFILE is used up; raise it with ulimit -n before "
		    "tmux starts, or stop some programs)");
	return ("");
}
