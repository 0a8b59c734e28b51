/*
 * report.c — how the program tools (start, run, read, stop, list and
 * send_keys' reply) report a program: the status fields every reply about
 * a program carries, written once here into both the structured result
 * and the text, so that a client that shows its model only one of them
 * loses nothing; and the error for an unknown programId.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "server.h"
#include "timeutil.h"

#define REPORT_UNF_CHARS	2000	/* unfinishedLine's last characters */
#define REPORT_ARG_CHARS	200	/* characters of each it shows */
#define REPORT_TASK_CHARS	200	/* bytes of a task's last line */

/* Text at offset off (held: at or after the window's base); "" while
 * nothing has been kept yet. */
const char *
report_text_at(const struct textbuf *t, size_t off)
{
	return (t->data != NULL && off >= t->base ? t->data + (off -
	    t->base) : "");
}

/*
 * How p stands for a reply whose text ends at cursor: ended is the
 * reply's "ended" (for a read: ended and all of it read). While it runs,
 * the line it is writing after cursor and whether it waits for input
 * there (waiting: the caller saw it wait meanwhile).
 */
void
report_make(struct report *r, struct program *p, size_t cursor, bool ended,
    bool waiting)
{
	r->p = p;
	r->cursor = cursor;
	r->ended = ended;
	r->waiting = r->hidden = false;
	r->us = r->ue = 0;
	r->ports = NULL;
	r->gap = NULL;
	if (program_ended(p) || program_state(p) == PROGRAM_STOPPING)
		return;
	textbuf_unfinished(program_text(p), cursor, REPORT_UNF_CHARS, &r->us,
	    &r->ue);
	r->waiting = waiting || program_waiting(p);
	r->hidden = r->waiting && program_input_hidden(p);
}

/* Ended with all its output, as it should have ended? */
static bool
report_complete(const struct program *p)
{
	enum program_outcome	o = program_outcome_of(p);

	return (program_ended(p) && !program_cut(p) && !program_text(p)->cut &&
	    !program_lost_end(p) && program_dropped(p) == 0 &&
	    (o == OUTCOME_COMPLETED ||
	    o == OUTCOME_NOT_STARTED));
}

/* Its output cut at the ceiling? */
static bool
report_cut(const struct program *p)
{
	return (program_cut(p) || program_text(p)->cut);
}

/* Write programId and paneId: the client has p's id from now on. */
void
report_put_ids(struct jw *w, struct program *p)
{
	program_told_id(p);
	jw_key(w, "programId");
	jw_str(w, program_id(p));
	jw_key(w, "paneId");
	jw_str(w, program_pane_id(p));
	if (cfg.host_name != NULL) {
		jw_key(w, "host");	/* behind a hub: where it runs */
		jw_str(w, cfg.host_name);
	}
}

/* Write exitStatus and signal as the schemas define them. */
void
report_put_exit(struct jw *w, const struct program *p)
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

/* What the program said on its NOTIFY_SOCKET (READY=1, STATUS=), and
 * the ports its tree listens on, if walked. */
static void
report_put_ready(struct jw *w, const struct report *r)
{
	if (program_ready(r->p)) {
		jw_key(w, "ready");
		jw_bool(w, true);
	}
	if (program_status(r->p) != NULL) {
		jw_key(w, "status");
		jw_str(w, program_status(r->p));
	}
	ports_put(w, r->ports);
}

/* The same in words, for the text. */
static void
report_ready(struct buf *b, const struct report *r)
{
	if (program_ready(r->p))
		buf_adds(b, ", ready (it said READY=1)");
	if (program_status(r->p) != NULL)
		buf_printf(b, ", status \"%s\"", program_status(r->p));
	ports_text(b, r->ports);
}

/* The fields a list entry gives of how a program stands. */
void
report_put_brief(struct jw *w, const struct report *r)
{
	jw_key(w, "outcome");
	jw_str(w, program_outcome(r->p));
	jw_key(w, "ended");
	jw_bool(w, r->ended);
	jw_key(w, "waitingForInput");
	jw_bool(w, r->waiting);
	if (r->hidden) {
		jw_key(w, "inputHidden");
		jw_bool(w, true);
	}
	jw_key(w, "unfinishedLine");
	jw_strn(w, report_text_at(program_text(r->p), r->us), r->ue - r->us);
	report_put_ready(w, r);
}

/* The status fields every reply with a program's text carries (read,
 * run, send_keys with timeoutMs). A reply that says ended has given
 * the client the program's end: from now on it may be evicted. */
void
report_put(struct jw *w, const struct report *r)
{
	struct program	*p = r->p;

	if (r->ended)
		program_told_end(p);

	report_put_brief(w, r);
	jw_key(w, "cursor");
	jw_int(w, (int64_t)r->cursor);
	report_put_exit(w, p);
	jw_key(w, "outputCut");
	jw_bool(w, report_cut(p));
	jw_key(w, "lostEnd");
	jw_bool(w, program_lost_end(p));
	jw_key(w, "outputComplete");
	jw_bool(w, r->ended && report_complete(p));
	if (program_dropped(p) > 0) {
		jw_key(w, "droppedBytes");
		jw_int(w, (int64_t)program_dropped(p));
	}
	if (r->gap != NULL) {
		jw_key(w, "outputGap");
		jw_obj_begin(w);
		jw_key(w, "fromCursor");
		jw_int(w, (int64_t)r->gap->from);
		jw_key(w, "toCursor");
		jw_int(w, (int64_t)r->gap->to);
		jw_key(w, "lines");
		jw_int(w, (int64_t)r->gap->lines);
		jw_key(w, "bytes");
		jw_int(w, (int64_t)r->gap->bytes);
		jw_key(w, "reason");
		jw_str(w, spool_why_name(r->gap->why));
		jw_obj_end(w);
	}
}

/* The gap a reply's range took in, in words, on a line of its own
 * before the status line. */
static void
report_gap(struct buf *b, const struct spool_gap *g)
{
	buf_printf(b, "[%zu line%s (%zu bytes) of the output %s not kept, "
	    "between cursors %zu and %zu: ", g->lines, g->lines == 1 ? "" :
	    "s", g->bytes, g->lines == 1 ? "was" : "were", g->from, g->to);
	if (g->why == SPOOL_WHY_NOSPACE)
		buf_printf(b, "the file system holding progmux's runtime "
		    "directory %s is full (%s); ", cfg.rundir,
		    strerror(g->err != 0 ? g->err : ENOSPC));
	else if (g->why == SPOOL_WHY_LOST)
		buf_adds(b, "progmux fell behind the pane and some of its "
		    "output never reached it, not counted here; ");
	else
		buf_printf(b, "past PROGMUX_OUTPUT_MAX_BYTES (%lld bytes) ",
		    (long long)cfg.output_max_bytes);
	buf_adds(b, "the middle goes, the head and the end are kept]\n");
}

/* How it ended, for the text: ", exit status 1", ", SIGKILL (why)". */
static void
report_end(struct buf *b, const struct program *p)
{
	const char	*sig;

	if (!program_ended(p))
		return;
	if (program_exit_status(p) >= 0)
		buf_printf(b, ", exit status %lld",
		    (long long)program_exit_status(p));
	if ((sig = program_signal_name(program_signal(p))) != NULL)
		buf_printf(b, ", %s", sig);
	if (program_why(p) != NULL &&
	    program_outcome_of(p) != OUTCOME_COMPLETED)
		buf_printf(b, " (%s)", program_why(p));
}

/* Whether it waits for input and at what line, for the text. */
static void
report_waiting(struct buf *b, const struct report *r)
{
	if (r->hidden)
		buf_adds(b, ", waiting for hidden input (a password?)");
	else if (r->waiting)
		buf_adds(b, ", waiting for input");
	if (r->ue > r->us) {
		buf_adds(b, r->waiting ? " at \"" : ", unfinished line \"");
		buf_add(b, report_text_at(program_text(r->p), r->us),
		    r->ue - r->us);
		buf_addc(b, '"');
	}
}

/*
 * The status line that ends the text of every reply with a program's
 * text, saying in words what report_put's fields say:
 * "[p3: running, waiting for input at "Proceed? [y/N] "; cursor 10]",
 * "[p3: completed, exit status 0; cursor 12, all read, output complete]".
 */
void
report_line(struct buf *b, const struct report *r)
{
	const struct program	*p = r->p;
	struct spool_gap	 g;

	if (r->gap != NULL)
		report_gap(b, r->gap);
	buf_printf(b, "[%s: %s", program_id(p), program_outcome(p));
	report_end(b, p);
	report_waiting(b, r);
	report_ready(b, r);
	if (report_cut(p) && spool_gap(program_text(p), &g) &&
	    g.why == SPOOL_WHY_NOSPACE)
		buf_adds(b, ", output cut (its file system is full)");
	else if (report_cut(p) && spool_gap(program_text(p), &g) &&
	    g.why == SPOOL_WHY_LOST)
		buf_adds(b, ", output cut (some of it never reached progmux)");
	else if (report_cut(p))
		buf_printf(b, ", output cut (more than PROGMUX_OUTPUT_MAX_BYTES, "
		    "%lld bytes)", (long long)cfg.output_max_bytes);
	if (program_lost_end(p))
		buf_adds(b, ", its last output lost");
	if (program_dropped(p) > 0)
		buf_printf(b, ", %llu bytes of escape sequences that never "
		    "ended left out", (unsigned long long)program_dropped(p));
	buf_printf(b, "; cursor %zu", r->cursor);
	if (r->ended)
		buf_adds(b, report_complete(p) ? ", all read, output complete" :
		    ", all read");
	else if (program_ended(p))
		buf_adds(b, ", more to read");
	buf_addc(b, ']');
}

/* Bytes of client text s a reply echoes: its first REPORT_ARG_CHARS
 * characters. */
size_t
report_cut_len(const char *s)
{
	size_t	len, k = 0;

	for (len = 0; s[len] != '\0'; len++)
		if (((unsigned char)s[len] & 0xc0) != 0x80 &&
		    k++ == REPORT_ARG_CHARS)
			break;
	return (len);
}

/*
 * How much of argv a list shows (with inheritShell, what was asked
 * for, not the wrapper): at most REPORT_ARGS_MAX arguments, each cut to
 * REPORT_ARG_CHARS characters, so a list stays small whatever argv was
 * given. Argument i (from 0) is arg[i] of the shown ones; shown_len[i]
 * its bytes shown. Returns the count shown; *chars counts the
 * characters of all the arguments asked for, and *cut says whether any
 * was left out or cut.
 */
size_t
report_argv(const struct program *p, const char **arg, size_t *shown_len,
    size_t *chars, bool *cut)
{
	const struct program_spec	*spec = program_spec(p);
	const char			*a;
	size_t				 i, n = 0, len;

	*chars = 0;
	*cut = spec->argc - spec->shown > REPORT_ARGS_MAX;
	for (i = spec->shown; i < spec->argc; i++) {
		a = spec->argv[i];
		len = strlen(a);
		*chars += utf8_count(a, len);
		if (n == REPORT_ARGS_MAX)
			continue;
		if ((shown_len[n] = report_cut_len(a)) < len)
			*cut = true;
		arg[n++] = a;
	}
	return (n);
}

/* A list entry's line: "p1 %1 running: sh -c 'read x', waiting ...". */
void
report_list_line(struct buf *b, const struct report *r, int64_t left_ms,
    const char *started)
{
	const struct program		*p = r->p;
	char				 shown[TOOLS_PANE_SHOWN_MAX];
	const char			*pane = tools_pane_shown(
					    program_pane_id(p), shown);
	const char			*arg[REPORT_ARGS_MAX];
	size_t				 len[REPORT_ARGS_MAX], i, n, chars;
	bool				 cut;

	buf_printf(b, "%s %s %s", program_id(p), pane != NULL ? pane : "-",
	    program_outcome(p));
	report_end(b, p);
	buf_adds(b, ":");
	n = report_argv(p, arg, len, &chars, &cut);
	for (i = 0; i < n; i++) {
		buf_addc(b, ' ');
		buf_add(b, arg[i], len[i]);
	}
	if (cut)
		buf_printf(b, " [argv shown cut: %zu arguments, %zu characters]",
		    program_spec(p)->argc - program_spec(p)->shown, chars);
	buf_printf(b, " — started %s%s, %zu characters", started,
	    program_adopted(p) ? " (adopted from an earlier progmux)" : "",
	    program_text(p)->chars);
	if (!program_ended(p))
		buf_printf(b, ", %lld ms of its lifetime left",
		    (long long)left_ms);
	report_waiting(b, r);
	report_ready(b, r);
	buf_addc(b, '\n');
}

/* What to say of a program id this server does not hold, into b. */
void
report_unknown(struct buf *b, const char *id)
{
	buf_printf(b, "unknown programId \"%s\": it was never started "
	    "here, was stopped, or was read to its end (or outlived its "
	    "lifetime) and dropped after %lld later programs ended; "
	    "list_programs shows the ones there are", id,
	    (long long)cfg.keep_ended);
}

/*
 * How p stands for a task waiting on it, in one line: "p3 running for
 * 12 s, 5678 bytes of text; last line "Compiling x.c"; cursor 5660".
 * *cursor is after its last whole line, where read_program goes on from.
 */
void
report_task(struct buf *b, struct program *p, int64_t *cursor)
{
	const struct textbuf	*t = program_text(p);
	size_t			 end = t->len, start, n;

	buf_printf(b, "%s %s for %lld s, %zu bytes of text", program_id(p),
	    program_outcome(p), (long long)((now_ms() -
	    program_started_ms(p)) / 1000), t->len);
	report_end(b, p);
	/* (From the window: what it holds of the last line.) */
	if (end > t->base && TEXTBUF_AT(t, end - 1) == '\n')
		end--;
	for (start = end; start > t->base && TEXTBUF_AT(t, start - 1) != '\n';
	    start--)
		;
	n = end - start;
	if (n > REPORT_TASK_CHARS) {
		start = end - REPORT_TASK_CHARS;
		while (start < end && utf8_is_cont(TEXTBUF_AT(t, start)))
			start++;	/* a character's first byte */
		n = end - start;
	}
	if (n > 0) {
		buf_adds(b, "; last line \"");
		buf_add(b, report_text_at(t, start), n);
		buf_addc(b, '"');
	}
	*cursor = (int64_t)textbuf_line_start(t);
	buf_printf(b, "; cursor %lld", (long long)*cursor);
}
