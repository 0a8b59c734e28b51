/*
 * tool_read.c — read_program: a program's text from a cursor.
 *
 * A read answers at once when a page is there (or the program is over);
 * otherwise it waits as a struct tool_read_wait registered on its program
 * (program_wait), and answers when text comes, the program stops or ends
 * or is dropped, or its timeout passes.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TOOL_READ_WAIT_MS	30000	/* timeoutMs by default */

/* A read and what it asked. */
struct tool_read_wait {
	struct req	*req;
	struct program	*p;
	int64_t		 cursor;
	int64_t		 max_lines;
	int64_t		 timeout_ms;	/* effective */
	bool		 parked;	/* waiting on p */
};

static void	tool_read_event(struct program *, enum program_event, void *);

/* Is the program over, for a read: stopping or ended? */
static bool
tool_read_over(const struct program *p)
{
	return (program_ended(p) || program_state(p) == PROGRAM_STOPPING);
}

/* Answer a read: the page at its cursor and how the program stands. */
static void
tool_read_answer(struct tool_read_wait *w, bool timed_out)
{
	struct program		*p = w->p;
	const struct textbuf	*t = program_text(p);
	struct req		*req = w->req;
	struct toolres		 res;
	struct page		 pg;
	char			*cause = NULL;
	bool			 over, all_read;

	if (w->parked)
		program_unwait(p, tool_read_event, w);
	req->state = NULL;
	toolres_init(&res);
	over = tool_read_over(p);
	if (textbuf_page(t, (size_t)w->cursor,
	    w->max_lines > 0 ? (size_t)w->max_lines : SIZE_MAX,
	    TEXTBUF_PAGE_CHARS, over, &pg, &cause) == -1) {
		toolres_error(&res, "%s", cause);
		free(cause);
		goto done;
	}
	if (timed_out && pg.end == pg.start && !over)
		pg.end = pg.start = (size_t)w->cursor;
	all_read = over && pg.end == t->len;

	jw_obj_begin(&res.w);
	jw_key(&res.w, "text");
	jw_strn(&res.w, tool_program_text_at(t, pg.start), pg.end - pg.start);
	jw_key(&res.w, "cursor");
	jw_int(&res.w, (int64_t)pg.end);
	jw_key(&res.w, "ended");
	jw_bool(&res.w, all_read);
	jw_key(&res.w, "outcome");
	jw_str(&res.w, program_outcome(p));
	tool_program_put_status(&res.w, p);
	jw_key(&res.w, "outputCut");
	jw_bool(&res.w, program_cut(p) || t->cut);
	jw_key(&res.w, "lostEnd");
	jw_bool(&res.w, program_lost_end(p));
	jw_key(&res.w, "outputComplete");
	jw_bool(&res.w, all_read && tool_program_complete(p));
	jw_key(&res.w, "effectiveTimeoutMs");
	jw_int(&res.w, w->timeout_ms);
	jw_obj_end(&res.w);

	buf_add(&res.text, tool_program_text_at(t, pg.start),
	    pg.end - pg.start);
	if (pg.end > pg.start && t->data[pg.end - 1] != '\n')
		buf_addc(&res.text, '\n');
	tool_program_status_line(&res.text, p, pg.end, all_read);
done:
	free(w);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* Could the read be answered now? */
static bool
tool_read_ready(struct tool_read_wait *w)
{
	struct page	 pg;
	char		*cause = NULL;

	if (tool_read_over(w->p))
		return (true);
	if (textbuf_page(program_text(w->p), (size_t)w->cursor,
	    w->max_lines > 0 ? (size_t)w->max_lines : SIZE_MAX,
	    TEXTBUF_PAGE_CHARS, false, &pg, &cause) == -1) {
		free(cause);
		return (true);
	}
	return (pg.end > pg.start);
}

/* What the program tells a waiting read. */
static void
tool_read_event(struct program *p, enum program_event ev, void *arg)
{
	struct tool_read_wait	*w = arg;

	(void)p;
	if (ev == PROGRAM_DROP || tool_read_ready(w))
		tool_read_answer(w, false);
}

/* read_program. */
static void
tool_read_run(struct req *req, const struct json *args)
{
	struct tool_read_wait	*w;
	struct program		*p;
	const char		*id;
	int64_t			 timeout;

	id = tools_arg_str(args, "programId", NULL);
	if ((p = program_find(id)) == NULL) {
		tool_program_unknown(req, id);
		return;
	}
	timeout = tools_arg_int(args, "timeoutMs", TOOL_READ_WAIT_MS);
	if (timeout > cfg.wait_max_ms)
		timeout = cfg.wait_max_ms;
	w = xcalloc(1, sizeof *w);
	w->req = req;
	w->p = p;
	w->cursor = tools_arg_int(args, "cursor", 0);
	w->max_lines = tools_arg_int(args, "maxLines", 0);
	w->timeout_ms = timeout;
	req->state = w;
	if ((size_t)w->cursor > program_text(p)->len || timeout == 0 ||
	    tool_read_ready(w)) {
		tool_read_answer(w, timeout == 0);
		return;
	}
	req->deadline = now_ms() + timeout;
	w->parked = true;
	program_wait(p, tool_read_event, w);
	mcp_req_park(req);
}

/* The timeout passed: answer with what there is. */
static void
tool_read_timeout(struct req *req)
{
	if (req->state != NULL)
		tool_read_answer(req->state, true);
}

/* The client gave up on the read. */
static void
tool_read_cancel(struct req *req)
{
	struct tool_read_wait	*w = req->state;

	if (w == NULL)
		return;
	program_unwait(w->p, tool_read_event, w);
	req->state = NULL;
	free(w);
}

const struct tool_entry tool_read_entry = {
	"read_program", tool_read_run, tool_read_cancel, tool_read_timeout,
	NULL, NULL, NULL
};
