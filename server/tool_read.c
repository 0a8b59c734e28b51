/*
 * tool_read.c — read_program, and the reply send_keys returns with
 * timeoutMs, which is read the same way.
 *
 * The arguments make a selection (select.c: the page at the cursor,
 * until's line and the lines before it, the last lines with tail, the
 * lines a filter matches) and readiness clauses (ready.c: untilPort,
 * untilUrl, untilFile, untilQuietMs; with one and no until, tail or
 * filter, the read waits for a clause alone and shows the last lines),
 * a watch waits on the program until it is there (watch.c), and
 * tool_read_answer writes what it found: the text, how the program
 * stands (report.c, with the ports its tree listens on), what the
 * selection left out, and why the read returned, in the structured
 * result and in the text alike.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "timeutil.h"

#define TOOL_READ_WAIT_MS	30000	/* timeoutMs by default */

/* send_keys' reply on a full-screen program: the screen, its redraws all
 * read (the cursor after them). */
static void
tool_read_screen(struct watch *w, const struct textbuf *t, bool over,
    struct sel_shown *sh)
{
	memset(sh, 0, sizeof *sh);
	sh->cursor = over ? t->len : textbuf_line_start(t);
	if (sh->cursor < watch_typed_from(w))
		sh->cursor = watch_typed_from(w);
}

/* The structured result: the ids of send_keys' reply, the text (or the
 * screen), how the program stands, what the selection did, why. */
static void
tool_read_put(struct toolres *res, struct watch *w, const struct report *r,
    const struct buf *shown, const struct sel_shown *sh,
    const struct tool_read_extra *x)
{
	struct jw	*jw = &res->w;
	const char	*pane = watch_pane(w);

	jw_obj_begin(jw);
	if (pane != NULL) {
		jw_key(jw, "paneId");
		jw_str(jw, pane);
		jw_key(jw, "sent");
		jw_bool(jw, true);
		jw_key(jw, "programId");
		jw_str(jw, program_id(watch_program(w)));
	}
	jw_key(jw, "text");
	jw_strn(jw, shown->data != NULL ? shown->data : "", shown->len);
	if (watch_screen(w) != NULL) {
		jw_key(jw, "screen");
		jw_str(jw, watch_screen(w));
	}
	report_put(jw, r);
	if (pane == NULL) {
		jw_key(jw, "effectiveTimeoutMs");
		jw_int(jw, watch_timeout_ms(w));
	}
	if (pane == NULL || watch_sel(w)->last)
		sel_put(jw, watch_sel(w), sh);
	jw_key(jw, "reason");
	jw_str(jw, sel_reason_name(watch_reason(w)));
	if (x != NULL)
		x->put(jw, NULL, x->arg);
	jw_obj_end(jw);
}

/* The text block: what was sent (send_keys), the text or the screen,
 * what the selection did, the status line, and why it returned. */
static void
tool_read_text(struct buf *b, struct watch *w, const struct report *r,
    const struct buf *shown, const struct sel_shown *sh,
    const struct tool_read_extra *x)
{
	const char	*screen = watch_screen(w);
	const char	*id = program_id(watch_program(w));
	char		 pbuf[TOOLS_PANE_SHOWN_MAX];
	const char	*pane = tools_pane_shown(watch_pane(w), pbuf);

	if (x != NULL)
		x->put(NULL, b, x->arg);
	if (screen != NULL)
		buf_printf(b, "sent to %s (%s's pane, a full-screen program: "
		    "its alternate screen); the screen now:\n%s\n", pane, id,
		    screen);
	else if (pane != NULL)
		buf_printf(b, "sent to %s (%s's pane); what it wrote since:\n",
		    pane, id);
	buf_add(b, shown->data, shown->len);
	if (shown->len > 0 && shown->data[shown->len - 1] != '\n')
		buf_addc(b, '\n');
	if (pane == NULL || watch_sel(w)->last)
		sel_note(b, watch_sel(w), sh);
	if (watch_clauses(w) != NULL && watch_reason(w) != SEL_R_PORT &&
	    watch_reason(w) != SEL_R_URL && watch_reason(w) != SEL_R_FILE &&
	    watch_reason(w) != SEL_R_QUIET)
		ready_note(b, watch_clauses(w));
	report_line(b, r);
	sel_reason_text(b, watch_reason(w), watch_timeout_ms(w));
}

/* The watch's answer: a read's, or send_keys' reply (arg: NULL, or a
 * tool_read_extra whose fields and text it adds, freed here). */
void
tool_read_answer(struct watch *w, struct req *req, void *arg)
{
	struct tool_read_extra	*x = arg;
	struct program		*p = watch_program(w);
	struct sel		*s = watch_sel(w);
	const struct textbuf	*t = program_text(p);
	struct buf		 shown = BUF_INIT;
	struct toolres		 res;
	struct report		 r;
	struct sel_shown	 sh;
	bool			 over;

	if (s->failed != NULL) {
		tools_error(req, "%s; the read stopped at cursor %zu",
		    s->failed, s->scan);
		return;
	}
	over = program_ended(p) || program_state(p) == PROGRAM_STOPPING;
	if (watch_screen(w) != NULL)
		tool_read_screen(w, t, over, &sh);
	else
		sel_show(s, t, over, &shown, &sh);
	report_make(&r, p, sh.cursor, over && sh.cursor == t->len,
	    watch_input(w));
	r.ports = watch_ports(w);
	if (sh.crossed)
		r.gap = &sh.gap;
	if (r.waiting)
		program_episode_tell(p);
	if (program_ready(p))
		program_ready_tell(p);	/* the reply says it is ready */
	toolres_init(&res);
	tool_read_put(&res, w, &r, &shown, &sh, x);
	tool_read_text(&res.text, w, &r, &shown, &sh, x);
	tools_reply(req, &res);
	toolres_free(&res);
	buf_free(&shown);
}

/*
 * A wait's readiness clauses, for a program started in dir (a relative
 * untilFile is taken from there; NULL: none given): the selection's kind
 * of wait becomes the clauses' if it was a plain read's (new lines do
 * not end it, and the last lines are shown). -1 with the call answered.
 */
int
tool_read_clauses(struct req *req, const struct json *args, const char *dir,
    struct sel *s, struct ready **rd)
{
	char	*cause = NULL;

	if (ready_parse(rd, args, dir, &cause) == -1) {
		tools_error(req, "%s", cause);
		free(cause);
		return (-1);
	}
	if (*rd != NULL && s->wait == SEL_WAIT_LINES) {
		s->wait = SEL_WAIT_READY;
		s->last = true;
	}
	return (0);
}

/* read_program: the selection asked, then a watch until it is there. */
static void
tool_read_run(struct req *req, const struct json *args)
{
	struct program		*p;
	struct watch		*w;
	struct ready		*rd;
	struct sel		 s;
	struct page		 pg;
	const char		*id = tools_arg_str(args, "programId", NULL);
	struct buf		 msg = BUF_INIT;
	char			*cause = NULL;
	int64_t			 timeout;

	if ((p = program_find(id)) == NULL) {
		report_unknown(&msg, id);
		tools_error(req, "%s", buf_cstr(&msg));
		buf_free(&msg);
		return;
	}
	if (sel_parse(&s, args, SEL_ARG_CURSOR | SEL_ARG_UNTIL, &cause) == -1 ||
	    spool_page(program_text(p), s.start, 1, TEXTBUF_PAGE_CHARS,
	    false, &pg, &cause) == -1) {
		sel_free(&s);
		tools_error(req, "%s", cause);
		free(cause);
		return;
	}
	if (tool_read_clauses(req, args, program_spec(p)->dir, &s,
	    &rd) == -1) {
		sel_free(&s);
		return;
	}
	timeout = tools_arg_int(args, "timeoutMs", TOOL_READ_WAIT_MS);
	if (timeout > cfg.wait_max_ms)
		timeout = cfg.wait_max_ms;
	w = watch_new(req, p, &s, timeout, now_ms() + timeout,
	    tool_read_answer, NULL);
	watch_ready(w, rd, true);
	watch_start(w);
}

const struct tool_entry tool_read_entry =
    WATCH_ENTRY("read_program", tool_read_run);

/*
 * The reply to keys typed into pane (send_keys with timeoutMs, and
 * ask_user_secret): from the line typed into (typed_from; typed_len
 * characters typed), read for req as a read is for wait_ms, or the
 * settled screen if the pane shows its alternate screen. x, NULL or
 * allocated, adds the tool's fields and text and goes with the watch.
 */
void
tool_read_reply(struct req *req, struct program *p, const char *pane,
    size_t typed_from, size_t typed_len, bool screen, int64_t wait_ms,
    struct tool_read_extra *x)
{
	struct sel	 sel;

	memset(&sel, 0, sizeof sel);
	sel.max_lines = SIZE_MAX;
	sel.wait = SEL_WAIT_LINES;
	tool_read_reply_sel(req, p, pane, typed_from, typed_len, screen,
	    wait_ms, &sel, NULL, x);
}

/* The same, with send_keys' until or tail (sel, taken) and readiness
 * clauses (rd, taken; NULL: none). */
void
tool_read_reply_sel(struct req *req, struct program *p, const char *pane,
    size_t typed_from, size_t typed_len, bool screen, int64_t wait_ms,
    struct sel *sel, struct ready *rd, struct tool_read_extra *x)
{
	struct watch	*w;

	sel->start = typed_from;
	w = watch_new(req, p, sel, wait_ms, now_ms() + wait_ms,
	    tool_read_answer, x);
	if (x != NULL)
		watch_own_arg(w, free);
	watch_ready(w, rd, true);
	watch_reply_of(w, pane, typed_from, typed_len, screen);
	watch_start(w);
}
