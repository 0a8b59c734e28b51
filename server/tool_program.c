/*
 * tool_program.c — how the program tools (start, run, read, stop, list)
 * describe a program: its status fields as the schemas define them, the
 * status line that ends their text, the error for an unknown programId.
 */
#include <stdio.h>
#include <string.h>

#include "server.h"

/* Text at offset off; "" while nothing has been kept yet. */
const char *
tool_program_text_at(const struct textbuf *t, size_t off)
{
	return (t->data != NULL ? t->data + off : "");
}

/* Write exitStatus and signal as the schemas define them. */
void
tool_program_put_status(struct jw *w, const struct program *p)
{
	const char	*sig = NULL;
	bool		 ended = program_ended(p);

	jw_key(w, "exitStatus");
	if (ended && program_exit_status(p) >= 0)
		jw_int(w, program_exit_status(p));
	else
		jw_null(w);
	if (ended)
		sig = program_signal_name(program_signal(p));
	jw_key(w, "signal");
	jw_str(w, sig);
}

/* Ended with all its output, as it should have ended? */
bool
tool_program_complete(const struct program *p)
{
	const char	*o = program_outcome(p);

	return (program_ended(p) && !program_cut(p) && !program_text(p)->cut &&
	    !program_lost_end(p) && (strcmp(o, "completed") == 0 ||
	    strcmp(o, "not_started") == 0));
}

/* The short status line that ends every text block about a program. */
void
tool_program_status_line(struct buf *b, const struct program *p,
    size_t cursor, bool all_read)
{
	tool_program_status_talk(b, p, cursor, all_read, false, NULL, 0);
}

/* The status line, saying whether it waits for input and at what line:
 * "[p3: running, waiting for input at "Proceed? [y/N] "; cursor 10]". */
void
tool_program_status_talk(struct buf *b, const struct program *p,
    size_t cursor, bool all_read, bool waiting, const char *unfinished,
    size_t unfinished_len)
{
	const char	*o = program_outcome(p), *sig;
	bool		 ended = program_ended(p);

	buf_printf(b, "[%s: %s", program_id(p), o);
	if (ended && program_exit_status(p) >= 0)
		buf_printf(b, ", exit status %lld",
		    (long long)program_exit_status(p));
	if (ended && (sig = program_signal_name(program_signal(p))) != NULL)
		buf_printf(b, ", %s", sig);
	if (ended && program_why(p) != NULL && strcmp(o, "completed") != 0)
		buf_printf(b, " (%s)", program_why(p));
	if (waiting)
		buf_adds(b, ", waiting for input");
	if (unfinished_len > 0) {
		buf_adds(b, waiting ? " at \"" : ", unfinished line \"");
		buf_add(b, unfinished, unfinished_len);
		buf_addc(b, '"');
	}
	buf_printf(b, "; cursor %zu%s]", cursor, all_read ? ", all read" :
	    ended ? ", more to read" : "");
}

/* Answer req: this server holds no program id. */
void
tool_program_unknown(struct req *req, const char *id)
{
	tools_error(req, "unknown programId \"%s\": it was never started "
	    "here, was stopped, or was dropped after %lld later programs "
	    "ended; list_programs shows the ones there are", id,
	    (long long)cfg.keep_ended);
}
