/*
 * tool_read.c — read_program: a program's text from a cursor; and the
 * reply send_keys waits for with timeoutMs, read the same way.
 *
 * A read answers at once when the program is over or timeoutMs is 0
 * (but for a filter, which scans first). Otherwise it waits as a struct
 * tool_read_wait registered on its program (program_wait) and answers
 * when:
 *
 *   - it has new whole lines and the burst is over: the page is full, the
 *     program has been quiet TOOL_READ_QUIET_MS, or TOOL_READ_BURST_MS have
 *     passed since the read first had text (so what a program prints in
 *     one go comes in one answer, and a lone line within ~25 ms); with
 *     tail, the answer is then the last lines of all there is;
 *   - with until, a whole line matches (the text ends with it), or a full
 *     page came first;
 *   - with filter (filter.c), all there is was scanned and matching lines
 *     came and their burst is over, or a page of them is full;
 *   - the program waits for keyboard input in an episode no call has
 *     reported (program_waiting_due), however little text there is;
 *   - the program stops, ends or is dropped, or the timeout passes.
 *
 * The call's deadline is the read's timeout (it answers then, whatever
 * it has; a filter still scanning what is there goes on to scan_stop);
 * its wake time is the end of a burst being gathered, or the next loop
 * turn while until or filter has lines left to match (TOOL_READ_SCAN_US
 * of matching a look, so that no pattern holds up other calls), and each
 * time it passes the read looks again (tool_read_eval) and answers or
 * sets the next. A send_keys reply on a full-screen program's alternate
 * screen waits for the screen to settle and captures it before it
 * answers (tool_read_capture). Checks for input are the program's (it tells its
 * waiters PROGRAM_WAITING), so a read that waits on a quiet program has
 * no timer but its deadline.
 *
 * The reads waiting on one program are one waiter on it (a struct
 * tool_read_hub, their list), so that a read lets go of its program in
 * O(1) however many wait there.
 */
#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TOOL_READ_WAIT_MS	30000	/* timeoutMs by default */
#define TOOL_READ_QUIET_MS	15	/* a burst is over after this quiet */
#define TOOL_READ_BURST_MS	200	/* and at most this after it began */
#define TOOL_READ_SCAN_US	2000	/* matching, per look, before the loop
					   serves others and it goes on */
#define TOOL_READ_SCREEN_MS	50	/* a full screen is settled after
					   this quiet */
#define TOOL_READ_FILTER_MS	5000	/* filter: scanning what is there may
					   go on this long past the timeout */

/* A read (or send_keys' reply) and what it asked. */
struct tool_read_wait {
	struct req	*req;
	struct program	*p;
	size_t		 cursor;
	size_t		 max_lines;
	int64_t		 timeout_ms;	/* effective */
	int64_t		 deadline;	/* when the timeout passes */
	int64_t		 burst_ms;	/* when it first had text, or 0 */
	bool		 woke_waiting;	/* answered for a new episode */

	struct pattern	*until;		/* or NULL */
	size_t		 scan;		/* until: the next line to match */
	size_t		 match_end;	/* after the matching line, or 0 */
	bool		 scan_more;	/* lines left when its time ran out */
	char		*failed;	/* a match stopped by a limit: why */

	size_t		 tail;		/* the last lines only, or 0 */
	struct pattern	*filter_pat;	/* filter, or NULL */
	struct filter	 filter;
	bool		 filtering;	/* filter set up */
	int64_t		 scan_stop;	/* filter: when scanning gives up */

	char		*pane;		/* send_keys' reply: its pane */
	size_t		 typed_from;	/* the line the keys went into */
	bool		 screen;	/* on the alternate screen: reply
					   with the screen, not the stream */
	bool		 capturing;	/* capture-pane asked for it */
	uint64_t	 seq;		/* its program, while capturing */
	char		*screen_text;	/* the screen captured */

	struct tool_read_hub *hub;	/* while parked */
	TAILQ_ENTRY(tool_read_wait) entry;
};

/* The reads parked on one program, as its one waiter. */
struct tool_read_hub {
	struct program	*p;
	TAILQ_HEAD(, tool_read_wait) reads;
	int		 telling;	/* in tool_read_hub_event */
	LIST_ENTRY(tool_read_hub) entry;
};
static LIST_HEAD(, tool_read_hub) tool_read_hubs =
    LIST_HEAD_INITIALIZER(tool_read_hubs);

static void	tool_read_event(struct program *, enum program_event, void *);
static void	tool_read_hub_event(struct program *, enum program_event,
		    void *);
static void	tool_read_unpark(struct tool_read_wait *);

/* Is the program over, for a read: stopping or ended? */
static bool
tool_read_over(const struct program *p)
{
	return (program_ended(p) || program_state(p) == PROGRAM_STOPPING);
}

/* Free a read's state. */
static void
tool_read_free(struct tool_read_wait *w)
{
	pattern_free(w->until);
	free(w->failed);
	free(w->screen_text);
	if (w->filtering)
		filter_free(&w->filter);
	pattern_free(w->filter_pat);
	free(w->pane);
	free(w);
}

/* The page at the read's cursor (over: the final line counts). */
static int
tool_read_page(struct tool_read_wait *w, bool over, struct page *pg,
    char **cause)
{
	return (textbuf_page(program_text(w->p), w->cursor, w->max_lines,
	    TEXTBUF_PAGE_CHARS, over, pg, cause));
}

/* Is a page full: does a whole line (or a cut one) follow it? */
static bool
tool_read_full(struct tool_read_wait *w, const struct page *pg)
{
	struct page	 next;

	if (pg->lines >= w->max_lines)
		return (true);
	if (textbuf_page(program_text(w->p), pg->end, 1, TEXTBUF_PAGE_CHARS,
	    false, &next, NULL) == -1)
		return (false);
	return (next.end > next.start);
}

/*
 * until: match the whole lines of the page not yet looked at, from where
 * the last look got to, for TOOL_READ_SCAN_US at most (scan_more: lines
 * are left for the next look). True when one matches (match_end set) or
 * a limit stopped a match (failed set).
 */
static bool
tool_read_match(struct tool_read_wait *w, const struct page *pg)
{
	const struct textbuf	*t = program_text(w->p);
	const char		*lf;
	char			*cause = NULL;
	size_t			 n;
	int64_t			 t0 = now_us();
	int			 rc;

	w->scan_more = false;
	if (w->scan < pg->start)
		w->scan = pg->start;
	while (w->scan < pg->end) {
		if (now_us() - t0 >= TOOL_READ_SCAN_US) {
			w->scan_more = true;
			break;
		}
		lf = memchr(t->data + w->scan, '\n', pg->end - w->scan);
		if (lf == NULL)
			break;		/* a cut or final line: not whole */
		n = (size_t)(lf - (t->data + w->scan));
		rc = pattern_match(w->until, t->data + w->scan, n, &cause);
		if (rc == -1) {
			xasprintf(&w->failed, "until %s", cause);
			free(cause);
			return (true);
		}
		w->scan += n + 1;
		if (rc == 1) {
			w->match_end = w->scan;
			return (true);
		}
	}
	return (false);
}

/* Is the burst of text the read has over: the program quiet, or the
 * burst long enough? If not, *next is when to look again. */
static bool
tool_read_burst(struct tool_read_wait *w, int64_t now, int64_t *next)
{
	int64_t	at, text_ms = program_text_ms(w->p);
	int64_t	quiet = w->screen ? TOOL_READ_SCREEN_MS : TOOL_READ_QUIET_MS;

	if (w->burst_ms == 0)
		w->burst_ms = now;
	if (now - text_ms >= quiet || now - w->burst_ms >= TOOL_READ_BURST_MS)
		return (true);
	at = text_ms + quiet;
	if (w->burst_ms + TOOL_READ_BURST_MS < at)
		at = w->burst_ms + TOOL_READ_BURST_MS;
	if (at < *next)
		*next = at;
	return (false);
}

/*
 * A filter read: scan what there is, a slice per look (past the timeout
 * too, up to scan_stop), and answer once it is all scanned and the
 * program is over, the page is full, matches came and their burst is
 * over, or the timeout passed.
 */
static bool
tool_read_eval_filter(struct tool_read_wait *w, int64_t now, int64_t *next)
{
	struct program	*p = w->p;
	bool		 over = tool_read_over(p);

	switch (filter_scan(&w->filter, program_text(p), over,
	    TOOL_READ_SCAN_US)) {
	case FILTER_MORE:
		if (now >= w->scan_stop)
			return (true);
		*next = now;		/* the rest on the next turn */
		return (false);
	case FILTER_FULL:
	case FILTER_FAILED:
		return (true);
	}
	if (over || now >= w->deadline)
		return (true);
	if (w->filter.out_lines > 0 && tool_read_burst(w, now, next))
		return (true);
	if (program_waiting_due(p, now)) {
		w->woke_waiting = true;
		return (true);
	}
	return (false);
}

/*
 * Could the read answer now? If not, *next is when to look again. Text
 * before floor (the line send_keys typed into) is not yet a reply.
 */
static bool
tool_read_eval(struct tool_read_wait *w, int64_t now, int64_t *next)
{
	struct program		*p = w->p;
	const struct textbuf	*t = program_text(p);
	struct page		 pg;
	const char		*lf;
	size_t			 floor = w->cursor;

	*next = w->deadline;
	if (w->filtering)
		return (tool_read_eval_filter(w, now, next));
	if (tool_read_over(p) || now >= w->deadline)
		return (true);
	if (tool_read_page(w, false, &pg, NULL) == -1)
		return (true);
	if (w->pane != NULL) {
		lf = w->typed_from < t->len ? memchr(t->data + w->typed_from,
		    '\n', t->len - w->typed_from) : NULL;
		floor = lf != NULL ? (size_t)(lf - t->data) + 1 : SIZE_MAX;
	}
	if (w->until != NULL) {
		if (tool_read_match(w, &pg))
			return (true);
		if (w->scan_more) {
			*next = now;	/* the rest on the next turn */
			return (false);
		}
		if (tool_read_full(w, &pg))
			return (true);
	} else if (pg.end > pg.start && pg.end > floor) {
		/* Gather the burst. */
		if (tool_read_full(w, &pg) || tool_read_burst(w, now, next))
			return (true);
	}
	if (program_waiting_due(p, now)) {
		w->woke_waiting = true;
		return (true);
	}
	return (false);
}

static void	tool_read_answer(struct tool_read_wait *);

/* capture-pane answered: the screen, for the reply. */
static void
tool_read_captured(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_read_wait	*w = arg;
	struct req		*req = w->req;

	if (req == NULL) {		/* cancelled meanwhile */
		tool_read_free(w);
		return;
	}
	if ((w->p = program_by_seq(w->seq)) == NULL || !ok) {
		tools_set_state(req, NULL);
		tools_error(req, "send_keys: the keys went to %s, but its "
		    "screen could not be captured: %s", w->pane, w->p == NULL ?
		    "its program was removed meanwhile" : out);
		tool_read_free(w);
		return;
	}
	/* Trailing empty lines are the unused bottom of the screen. */
	while (len > 0 && out[len - 1] == '\n')
		len--;
	w->screen_text = xstrndup(out, len);
	tool_read_answer(w);
}

/* The reply is ready, on the alternate screen: capture the screen first
 * (the call waits for tmux, with no timer of its own). */
static void
tool_read_capture(struct tool_read_wait *w)
{
	struct buf	b = BUF_INIT;

	w->capturing = true;
	w->seq = program_seq(w->p);
	tool_read_unpark(w);
	tools_set_deadline(w->req, DEADLINE_NONE);
	tools_set_wake(w->req, DEADLINE_NONE);
	buf_printf(&b, "capture-pane -p -t %s", w->pane);
	tmux_command(buf_cstr(&b), tool_read_captured, w);
	buf_free(&b);
}

/* Lines (LFs) in text[s, e). */
static size_t
tool_read_count_lines(const struct textbuf *t, size_t s, size_t e)
{
	const char	*q = t->data + s, *end = t->data + e;
	size_t		 n = 0;

	while (q < end && (q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
		n++;
		q++;
	}
	return (n);
}

/* Answer a filter read: the lines that matched, the cursor after what
 * was scanned. */
static void
tool_read_answer_filter(struct tool_read_wait *w, struct toolres *res)
{
	struct program		*p = w->p;
	const struct textbuf	*t = program_text(p);
	struct filter		*f = &w->filter;
	struct report		 r;
	bool			 over = tool_read_over(p);

	if (f->failed != NULL) {
		toolres_error(res, "%s; the read stopped at cursor %zu",
		    f->failed, f->scan);
		return;
	}
	report_make(&r, p, f->scan, over && f->scan == t->len,
	    w->woke_waiting);
	if (r.waiting)
		program_episode_tell(p);
	jw_obj_begin(&res->w);
	jw_key(&res->w, "text");
	jw_strn(&res->w, f->out.data != NULL ? f->out.data : "", f->out.len);
	report_put(&res->w, &r);
	jw_key(&res->w, "effectiveTimeoutMs");
	jw_int(&res->w, w->timeout_ms);
	jw_key(&res->w, "matchedLines");
	jw_int(&res->w, (int64_t)f->matched);
	jw_key(&res->w, "scannedLines");
	jw_int(&res->w, (int64_t)f->scanned);
	jw_obj_end(&res->w);

	buf_add(&res->text, f->out.data, f->out.len);
	filter_line_text(&res->text, f);
	report_line(&res->text, &r);
	if (!r.ended && !r.waiting)
		buf_printf(&res->text, " (timeout %lld ms)",
		    (long long)w->timeout_ms);
}

/* Answer a read: the page at its cursor and how the program stands. */
static void
tool_read_answer(struct tool_read_wait *w)
{
	struct program		*p = w->p;
	const struct textbuf	*t = program_text(p);
	struct req		*req = w->req;
	struct toolres		 res;
	struct report		 r;
	struct page		 pg;
	struct textbuf		 head;
	char			*cause = NULL;
	size_t			 skipped = 0;
	bool			 over;

	if (w->screen && w->screen_text == NULL) {
		if (!w->capturing)
			tool_read_capture(w);
		return;		/* tool_read_captured answers */
	}
	tool_read_unpark(w);
	tools_set_state(req, NULL);
	toolres_init(&res);
	over = tool_read_over(p);
	if (w->filtering) {
		tool_read_answer_filter(w, &res);
		goto done;
	}
	if (w->failed != NULL) {
		toolres_error(&res, "%s; the read stopped at cursor %zu",
		    w->failed, w->scan);
		goto done;
	}
	if (tool_read_page(w, over, &pg, &cause) == -1) {
		toolres_error(&res, "%s", cause);
		free(cause);
		goto done;
	}
	if (pg.end == pg.start && !over)
		pg.end = pg.start = w->cursor;	/* the cursor it was given */
	if (w->match_end != 0)
		pg.end = w->match_end;
	else if (w->until != NULL && tool_read_match(w, &pg)) {
		if (w->failed != NULL) {
			toolres_error(&res, "%s; the read stopped at cursor "
			    "%zu", w->failed, w->scan);
			goto done;
		}
		pg.end = w->match_end;	/* (the final page may match) */
	} else if (w->until != NULL && w->scan_more)
		pg.end = w->scan;	/* the lines matched, no further */
	if (w->screen_text != NULL) {
		/* The redraws are behind the screen: all of them read. */
		pg.end = over ? t->len : textbuf_line_start(t);
		if (pg.end < pg.start)
			pg.end = pg.start;
	}
	if (w->tail > 0 && pg.end > pg.start) {
		/* The last lines of what there is, up to the end. */
		head = *t;
		head.len = over ? t->len : textbuf_line_start(t);
		textbuf_tail(&head, w->tail, TEXTBUF_PAGE_CHARS, &pg);
		if (pg.start < w->cursor)
			pg.start = w->cursor;
		skipped = tool_read_count_lines(t, w->cursor, pg.start);
	}
	report_make(&r, p, pg.end, over && pg.end == t->len, w->woke_waiting);
	if (r.waiting)
		program_episode_tell(p);

	jw_obj_begin(&res.w);
	if (w->pane != NULL) {
		jw_key(&res.w, "paneId");
		jw_str(&res.w, w->pane);
		jw_key(&res.w, "sent");
		jw_bool(&res.w, true);
		jw_key(&res.w, "programId");
		jw_str(&res.w, program_id(p));
	}
	jw_key(&res.w, "text");
	if (w->screen_text != NULL) {
		jw_str(&res.w, "");	/* the screen, not its redraws */
		jw_key(&res.w, "screen");
		jw_str(&res.w, w->screen_text);
	} else
		jw_strn(&res.w, report_text_at(t, pg.start), pg.end -
		    pg.start);
	report_put(&res.w, &r);
	if (w->pane == NULL) {
		jw_key(&res.w, "effectiveTimeoutMs");
		jw_int(&res.w, w->timeout_ms);
		if (w->until != NULL) {
			jw_key(&res.w, "matched");
			jw_bool(&res.w, w->match_end != 0);
		}
		if (w->tail > 0) {
			jw_key(&res.w, "skippedLines");
			jw_int(&res.w, (int64_t)skipped);
		}
	}
	jw_obj_end(&res.w);

	if (w->screen_text != NULL) {
		buf_printf(&res.text, "sent to %s (%s's pane, a full-screen "
		    "program: its alternate screen); the screen now:\n",
		    w->pane, program_id(p));
		buf_adds(&res.text, w->screen_text);
		buf_addc(&res.text, '\n');
	} else {
		if (w->pane != NULL)
			buf_printf(&res.text, "sent to %s (%s's pane); what it "
			    "wrote since:\n", w->pane, program_id(p));
		buf_add(&res.text, report_text_at(t, pg.start), pg.end -
		    pg.start);
		if (pg.end > pg.start && t->data[pg.end - 1] != '\n')
			buf_addc(&res.text, '\n');
	}
	if (w->until != NULL)
		buf_adds(&res.text, w->match_end != 0 ? "[until matched the "
		    "last line]\n" : "[until matched no line yet]\n");
	if (w->tail > 0 && pg.lines == 1)
		buf_printf(&res.text, "[the last line; %zu line%s before it "
		    "skipped, read_program from cursor %zu has %s]\n", skipped,
		    skipped == 1 ? "" : "s", w->cursor, skipped == 1 ? "it" :
		    "them");
	else if (w->tail > 0)
		buf_printf(&res.text, "[the last %zu lines; %zu line%s before "
		    "them skipped, read_program from cursor %zu has %s]\n",
		    (size_t)pg.lines, skipped, skipped == 1 ? "" : "s",
		    w->cursor, skipped == 1 ? "it" : "them");
	report_line(&res.text, &r);
	/* The wait it was given, unless the end or a prompt cut it short. */
	if (w->pane == NULL && !r.ended && !r.waiting)
		buf_printf(&res.text, " (timeout %lld ms)",
		    (long long)w->timeout_ms);
done:
	tool_read_free(w);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* Look again: answer, or wait until the next thing to look at. */
static void
tool_read_look(struct tool_read_wait *w)
{
	int64_t	next;

	int64_t	limit = w->deadline;

	/* A filter still scanning goes on past the timeout. */
	if (w->filtering && w->filter.scan < program_text(w->p)->len &&
	    w->scan_stop > limit)
		limit = w->scan_stop;
	if (tool_read_eval(w, now_ms(), &next))
		tool_read_answer(w);
	else {
		tools_set_deadline(w->req, limit);
		tools_set_wake(w->req, next < limit ? next : DEADLINE_NONE);
	}
}

/* What the program tells a waiting read. */
static void
tool_read_event(struct program *p, enum program_event ev, void *arg)
{
	struct tool_read_wait	*w = arg;

	(void)p;
	if (ev == PROGRAM_DROP)
		tool_read_answer(w);
	else
		tool_read_look(w);
}

/* A hub with no reads left goes, unless it is telling (it goes after). */
static void
tool_read_hub_check(struct tool_read_hub *hub)
{
	if (hub->telling > 0 || !TAILQ_EMPTY(&hub->reads))
		return;
	program_unwait(hub->p, tool_read_hub_event, hub);
	LIST_REMOVE(hub, entry);
	free(hub);
}

/* Tell the reads parked on a program what it told their hub, the last
 * parked first (as the program tells its waiters). A read that answers
 * leaves only itself. */
static void
tool_read_hub_event(struct program *p, enum program_event ev, void *arg)
{
	struct tool_read_hub	*hub = arg;
	struct tool_read_wait	*w, *next;

	hub->telling++;
	for (w = TAILQ_FIRST(&hub->reads); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		tool_read_event(p, ev, w);
	}
	hub->telling--;
	tool_read_hub_check(hub);
}

/* Park w on its program until it can answer. */
static void
tool_read_park(struct tool_read_wait *w)
{
	struct tool_read_hub	*hub;

	tools_set_state(w->req, w);
	LIST_FOREACH(hub, &tool_read_hubs, entry)
		if (hub->p == w->p)
			break;
	if (hub == NULL) {
		hub = xcalloc(1, sizeof *hub);
		hub->p = w->p;
		TAILQ_INIT(&hub->reads);
		LIST_INSERT_HEAD(&tool_read_hubs, hub, entry);
		program_wait(w->p, tool_read_hub_event, hub);
	}
	TAILQ_INSERT_HEAD(&hub->reads, w, entry);
	w->hub = hub;
	tool_read_look(w);
}

/* w lets go of its program, if parked. */
static void
tool_read_unpark(struct tool_read_wait *w)
{
	struct tool_read_hub	*hub = w->hub;

	if (hub == NULL)
		return;
	TAILQ_REMOVE(&hub->reads, w, entry);
	w->hub = NULL;
	tool_read_hub_check(hub);
}

/* read_program's tail, filter and context: checked, into w. */
static int
tool_read_args(struct req *req, struct tool_read_wait *w,
    const struct json *args)
{
	const char	*filter;
	char		*cause = NULL;
	size_t		 len;
	int64_t		 context;

	w->tail = (size_t)tools_arg_int(args, "tail", 0);
	filter = tools_arg_str(args, "filter", &len);
	context = tools_arg_int(args, "context", -1);
	if (w->tail > 0 && (filter != NULL || w->until != NULL)) {
		tools_error(req, "tail goes alone: it returns the last lines "
		    "as they are; filter picks lines and until waits for one, "
		    "so leave tail out to use them");
		return (-1);
	}
	if (filter != NULL && w->until != NULL) {
		tools_error(req, "filter and until cannot be combined: until "
		    "waits for a line and returns all the text up to it, "
		    "filter returns only the lines that match; use one");
		return (-1);
	}
	if (context >= 0 && filter == NULL) {
		tools_error(req, "context goes with filter: it is how many "
		    "lines to show around each line filter matches");
		return (-1);
	}
	if (w->tail > 0) {
		if (w->max_lines < w->tail)
			w->tail = w->max_lines;
		w->max_lines = SIZE_MAX;	/* tail gives the count */
	}
	if (filter == NULL)
		return (0);
	if ((w->filter_pat = pattern_compile(filter, len, 0, &cause)) ==
	    NULL) {
		tools_error(req, "filter %s; filter takes a PCRE2 pattern, as "
		    "JavaScript or Python write them (\\d, \\s, \\w, \\b, "
		    "(?i), lazy quantifiers, lookaround)", cause);
		free(cause);
		return (-1);
	}
	if (w->cursor > program_text(w->p)->len)
		return (0);	/* the answer refuses the cursor */
	w->filtering = true;
	filter_init(&w->filter, w->filter_pat, context > 0 ? (size_t)context :
	    0, w->max_lines, program_text(w->p), w->cursor);
	return (0);
}

/* read_program. */
static void
tool_read_run(struct req *req, const struct json *args)
{
	struct tool_read_wait	*w;
	struct program		*p;
	const char		*id, *until;
	char			*cause = NULL;
	size_t			 len;
	int64_t			 timeout;

	id = tools_arg_str(args, "programId", NULL);
	if ((p = program_find(id)) == NULL) {
		report_unknown(req, id);
		return;
	}
	timeout = tools_arg_int(args, "timeoutMs", TOOL_READ_WAIT_MS);
	if (timeout > cfg.wait_max_ms)
		timeout = cfg.wait_max_ms;
	w = xcalloc(1, sizeof *w);
	w->req = req;
	w->p = p;
	w->cursor = (size_t)tools_arg_int(args, "cursor", 0);
	w->max_lines = (size_t)tools_arg_int(args, "maxLines", 0);
	if (w->max_lines == 0)
		w->max_lines = SIZE_MAX;
	w->timeout_ms = timeout;
	if ((until = tools_arg_str(args, "until", &len)) != NULL &&
	    (w->until = pattern_compile(until, len, 0, &cause)) == NULL) {
		tool_read_free(w);
		tools_error(req, "until %s; until takes a PCRE2 pattern, as "
		    "JavaScript or Python write them (\\d, \\s, \\w, \\b, "
		    "(?i), lazy quantifiers, lookaround)", cause);
		free(cause);
		return;
	}
	if (tool_read_args(req, w, args) == -1) {
		tool_read_free(w);
		return;
	}
	tools_set_state(req, w);
	if (w->cursor > program_text(p)->len || ((timeout == 0 ||
	    tool_read_over(p)) && !w->filtering)) {
		tool_read_answer(w);
		return;
	}
	w->deadline = now_ms() + timeout;
	w->scan_stop = w->deadline + TOOL_READ_FILTER_MS;
	tool_read_park(w);
}

/*
 * send_keys with timeoutMs: the keys went to p's pane; read its reply as
 * a read would, from typed_from (where the line typed into began), until
 * deadline. req's state becomes this read's; its entry (tool_pane.c's)
 * settles it through tool_read_timeout, _wake and _cancel. With screen
 * (the pane shows its alternate screen), the reply waits for the screen
 * to settle (TOOL_READ_SCREEN_MS quiet) or the program to wait for input,
 * and carries the screen as capture-pane renders it instead of the
 * redraw stream.
 */
void
tool_read_reply(struct req *req, struct program *p, const char *pane,
    size_t typed_from, int64_t timeout_ms, int64_t deadline, bool screen)
{
	struct tool_read_wait	*w;

	w = xcalloc(1, sizeof *w);
	w->screen = screen;
	w->req = req;
	w->p = p;
	w->cursor = w->typed_from = typed_from;
	w->max_lines = SIZE_MAX;
	w->timeout_ms = timeout_ms;
	w->deadline = deadline;
	w->pane = xstrdup(pane);
	tools_set_state(req, w);
	if (tool_read_over(p)) {
		tool_read_answer(w);
		return;
	}
	tool_read_park(w);
}

/* The read's timeout passed: it answers with what it has. */
void
tool_read_timeout(struct req *req)
{
	if (tools_state(req) != NULL)
		tool_read_answer(tools_state(req));
}

/* Time to look again: answer, or wait for the next thing to look at. */
void
tool_read_wake(struct req *req)
{
	if (tools_state(req) != NULL)
		tool_read_look(tools_state(req));
}

/* The client gave up on the read. */
void
tool_read_cancel(struct req *req)
{
	struct tool_read_wait	*w = tools_state(req);

	if (w == NULL)
		return;
	tool_read_unpark(w);
	tools_set_state(req, NULL);
	if (w->capturing && w->screen_text == NULL) {
		w->req = NULL;		/* tool_read_captured frees it */
		return;
	}
	tool_read_free(w);
}

/* The program a read (or send_keys' reply) waits on, for its task. */
struct program *
tool_read_program(struct req *req)
{
	struct tool_read_wait	*w = tools_state(req);

	return (w != NULL ? w->p : NULL);
}

const struct tool_entry tool_read_entry = {
	.name = "read_program",
	.run = tool_read_run,
	.cancel = tool_read_cancel,
	.timeout = tool_read_timeout,
	.wake = tool_read_wake,
	.program = tool_read_program
};

