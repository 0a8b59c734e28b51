/*
 * watch.c — a call waiting on a program until what it asked for is there:
 * a read_program, send_keys' reply (timeoutMs) and run_program's wait for
 * the end.
 *
 * A watch holds the call's selection (select.c) and registers itself on
 * the program (program_wait). Each time the program tells it something,
 * or one of the call's timers comes due, it looks (watch_eval): it scans
 * what is new a slice at a time (SEL_SCAN_US per loop turn, so that no
 * pattern holds up other calls; once the answer is due, at the end or
 * the timeout, for WATCH_SCAN_MS more at most), and
 * answers when the selection's kind of wait is met, the program is over
 * (ended or being stopped), a readiness clause holds (ready.c: untilPort,
 * untilUrl, untilFile, untilQuietMs), it said READY=1 on its
 * NOTIFY_SOCKET or waits for input in an episode no call has reported
 * (a read's wait, not a run's), or the timeout passes. The reason it
 * answers is kept for the reply. New lines are gathered into one answer
 * while they come in a burst: until the page is full, the program has
 * been quiet WATCH_QUIET_MS, or WATCH_BURST_MS since the first. A reply
 * about a program that runs names the ports its process tree listens
 * on: they are walked (ports.c) once the answer is due, before it is
 * rendered, unless the walk that met untilPort just found them.
 *
 * send_keys' reply starts at the line the keys were typed into: text up
 * to its end is the echo, not yet a reply. On a pane showing its
 * alternate screen (a full-screen program) the reply is the screen once
 * it is quiet for WATCH_SCREEN_MS, as capture-pane renders it; a pane
 * that switches to its alternate screen while the reply waits (asked of
 * tmux before a reply of text is given) gets the same. Keys that end the
 * program get its end, never an error: a screen that cannot be captured
 * because the pane went waits (WATCH_END_MS at most) for the end to be
 * told.
 *
 * The tool renders the answer (its callback) and the watch is freed after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define WATCH_QUIET_MS	15	/* a burst is over after this quiet */
#define WATCH_BURST_MS	200	/* and at most this after it began */
#define WATCH_SCREEN_MS	50	/* a full screen is settled after this quiet */
#define WATCH_SCAN_MS	5000	/* scanning what is there, past the timeout */
#define WATCH_END_MS	2000	/* the pane went: its end is told by then */
#define WATCH_LAST_CHARS 80	/* of the last line, in a progress note */

enum watch_tmux {
	WATCH_TMUX_NONE,
	WATCH_TMUX_ALT,		/* is the pane on its alternate screen? */
	WATCH_TMUX_CAPTURE	/* capture-pane */
};

struct watch {
	struct req		*req;	/* NULL: cancelled while tmux answers */
	struct program		*p;
	uint64_t		 seq;	/* p's, to find it after tmux answers */
	struct program_waiter	*waiter;
	struct sel		 sel;
	int64_t			 timeout_ms;	/* effective */
	int64_t			 deadline;
	int64_t			 scan_stop;	/* scanning goes on until, once
						   the answer is due (or 0) */
	int64_t			 burst_ms;	/* the first text came, or 0 */
	int64_t			 started;	/* when the call began waiting */
	enum sel_reason		 reason;
	bool			 input;		/* answered for an episode */
	struct ready		*ready;		/* readiness clauses, or NULL */
	bool			 notify;	/* READY=1 ends the wait */
	bool			 begun;		/* send_keys' until scan began */
	struct ports		*ports;		/* the reply's, once walked */
	watch_answer_cb		 answer;
	void			*arg;
	void			(*arg_free)(void *);	/* arg's, or NULL */

	char			*pane;		/* send_keys' reply: its pane */
	size_t			 typed_from;	/* the line typed into */
	size_t			 typed_len;	/* the text's length then */
	bool			 screen;	/* reply with the screen */
	bool			 alt_asked;
	enum watch_tmux		 tmux;		/* a tmux command in flight */
	char			*screen_text;	/* the screen captured */
	char			*lost;		/* why the capture failed */
};

static void	watch_event(struct program *, enum program_event, void *);
static void	watch_look(struct watch *, int64_t);

/* Is the program over for a reply: stopping or ended? */
static bool
watch_over(const struct program *p)
{
	return (program_ended(p) || program_state(p) == PROGRAM_STOPPING);
}

/*
 * A watch for req on p with the selection sel (taken), timeout_ms (the
 * effective timeout, as the reply says it) ending at deadline. answer
 * renders the reply when it is due. The request's state is the watch
 * from now on; watch_start begins it.
 */
struct watch *
watch_new(struct req *req, struct program *p, struct sel *sel,
    int64_t timeout_ms, int64_t deadline, watch_answer_cb answer, void *arg)
{
	struct watch	*w;

	w = xcalloc(1, sizeof *w);
	w->req = req;
	w->p = p;
	w->seq = program_seq(p);
	w->sel = *sel;
	memset(sel, 0, sizeof *sel);
	w->timeout_ms = timeout_ms;
	w->deadline = deadline;
	w->answer = answer;
	w->arg = arg;
	w->started = now_ms();
	tools_set_state(req, w);
	return (w);
}

/* send_keys' reply: from the line typed into (the text typed_len long
 * when the keys went), on pane; the screen if it shows its alternate
 * screen. */
void
watch_reply_of(struct watch *w, const char *pane, size_t typed_from,
    size_t typed_len, bool screen)
{
	w->pane = xstrdup(pane);
	w->typed_from = typed_from;
	w->typed_len = typed_len;
	w->screen = screen;
	w->alt_asked = screen;
	if (screen)
		w->sel.wait = SEL_WAIT_SCREEN;
}

/* Free a watch: it holds its selection, its pane and what tmux gave. */
static void
watch_free(struct watch *w)
{
	if (w->arg_free != NULL)
		w->arg_free(w->arg);
	program_unwait(w->waiter);
	sel_free(&w->sel);
	ready_free(w->ready);
	ports_free(w->ports);
	free(w->pane);
	free(w->screen_text);
	free(w->lost);
	free(w);
}

/* The wait's readiness clauses (rd, taken; NULL: none), and whether
 * READY=1 on NOTIFY_SOCKET ends it (a read's does, a run's not). */
void
watch_ready(struct watch *w, struct ready *rd, bool notify)
{
	w->ready = rd;
	w->notify = notify;
}

/* The watch owns its answer's arg: freed with it by fn. */
void
watch_own_arg(struct watch *w, void (*fn)(void *))
{
	w->arg_free = fn;
}

static void	watch_done(struct watch *);

/* Is the reply's port walk under way (the answer waits for it)? */
static bool
watch_porting(const struct watch *w)
{
	return (w->ports != NULL && !ports_over(w->ports));
}

/* The reply's port walk is over: the answer goes on. */
static void
watch_ported(void *arg)
{
	watch_done(arg);
}

/* The tool renders the answer (with the ports of a program that runs,
 * walked first), and the watch goes. */
static void
watch_done(struct watch *w)
{
	struct req	*req = w->req;
	pid_t		 pid;

	if (w->ports == NULL && w->ready != NULL && w->reason == SEL_R_PORT)
		w->ports = ready_take_ports(w->ready);
	if (w->ports == NULL && !watch_over(w->p) &&
	    (pid = program_pid(w->p)) > 0) {
		/* The program is told of (a drop answers at once). */
		if (w->waiter == NULL)
			w->waiter = program_wait(w->p, watch_event, w);
		tools_set_deadline(req, DEADLINE_NONE);
		tools_set_wake(req, DEADLINE_NONE);
		w->ports = ports_walk(pid, watch_ported, w);
		return;
	}
	if (watch_porting(w))
		return;
	program_unwait(w->waiter);
	w->waiter = NULL;
	tools_set_state(req, NULL);
	w->answer(w, req, w->arg);
	watch_free(w);
}

/* The burst of text a read has: over (the program quiet, or the burst
 * long enough)? If not, *next is when to look again. */
static bool
watch_burst(struct watch *w, int64_t now, int64_t *next)
{
	int64_t	at, text_ms = program_text_ms(w->p);
	int64_t	quiet = w->screen ? WATCH_SCREEN_MS : WATCH_QUIET_MS;

	if (w->burst_ms == 0)
		w->burst_ms = now;
	if (now - text_ms >= quiet || now - w->burst_ms >= WATCH_BURST_MS)
		return (true);
	at = text_ms + quiet;
	if (w->burst_ms + WATCH_BURST_MS < at)
		at = w->burst_ms + WATCH_BURST_MS;
	if (at < *next)
		*next = at;
	return (false);
}

/* Where a reply of text may end at the earliest: send_keys' echo of the
 * line typed into is not a reply; a read's any whole line is. */
static size_t
watch_floor(const struct watch *w, const struct textbuf *t)
{
	size_t	at;

	if (w->pane == NULL)
		return (w->sel.start);
	if (w->typed_from < t->len &&
	    spool_find_lf(t, w->typed_from, t->len, &at))
		return (at + 1);
	return (SIZE_MAX);
}

/* New whole lines past the floor? Full: a page of them. */
static bool
watch_lines(struct watch *w, const struct textbuf *t, bool *full)
{
	struct page	pg, next;

	if (spool_page(t, w->sel.start, w->sel.max_lines, TEXTBUF_PAGE_CHARS,
	    false, &pg, NULL) == -1 || pg.end == pg.start ||
	    pg.end <= watch_floor(w, t))
		return (false);
	*full = pg.lines >= w->sel.max_lines || (spool_page(t, pg.end, 1,
	    TEXTBUF_PAGE_CHARS, false, &next, NULL) == 0 &&
	    next.end > next.start);
	return (true);
}

/*
 * May the call answer now? If so w->reason says why; if not, *next is
 * when to look again (the deadline, or sooner).
 */
static bool
watch_eval(struct watch *w, int64_t now, int64_t *next)
{
	const struct textbuf	*t = program_text(w->p);
	struct sel		*s = &w->sel;
	bool			 over = watch_over(w->p), full;
	size_t			 floor;
	int			 held;

	*next = w->deadline;
	if (w->pane != NULL && s->until != NULL && !w->begun) {
		/* send_keys' until looks past the line typed into, its echo,
		 * once that line is whole. */
		if ((floor = watch_floor(w, t)) != SIZE_MAX) {
			sel_begin(s, t);
			s->scan = floor;
			w->begun = true;
		}
	}
	if ((s->until != NULL || s->filter != NULL) &&
	    (w->pane == NULL || w->begun)) {
		switch (sel_scan(s, t, over, SEL_SCAN_US)) {
		case SEL_SCAN_FAILED:
			w->reason = SEL_R_SCAN;
			return (true);
		case SEL_SCAN_MATCHED:
			w->reason = SEL_R_MATCHED;
			return (true);
		case SEL_SCAN_FULL:
			if (s->wait == SEL_WAIT_END)
				break;	/* a run shows the first page */
			w->reason = SEL_R_FULL;
			return (true);
		case SEL_SCAN_MORE:
			/* What is there is scanned, for WATCH_SCAN_MS at most
			 * once the answer is due (the end, the timeout). */
			if ((over || now >= w->deadline) && w->scan_stop == 0)
				w->scan_stop = now + WATCH_SCAN_MS;
			if (w->scan_stop != 0 && now >= w->scan_stop) {
				w->reason = SEL_R_SCAN;
				return (true);
			}
			*next = now;	/* the rest on the next turn */
			return (false);
		}
	}
	if (over) {
		w->reason = SEL_R_ENDED;
		return (true);
	}
	if (w->ready != NULL && (held = ready_check(w->ready, w->p,
	    watch_floor(w, t), now, next)) != -1) {
		w->reason = (enum sel_reason)held;
		return (true);
	}
	if (w->notify && program_ready_due(w->p)) {
		w->reason = SEL_R_READY;
		return (true);
	}
	if (now >= w->deadline) {
		/* What came is the answer still (timeoutMs 0: at once). */
		if (s->wait == SEL_WAIT_LINES && watch_lines(w, t, &full))
			w->reason = full ? SEL_R_FULL : SEL_R_TEXT;
		else if (s->wait == SEL_WAIT_MATCHES && s->out_lines > 0)
			w->reason = SEL_R_TEXT;
		else
			w->reason = SEL_R_TIMEOUT;
		return (true);
	}
	switch (s->wait) {
	case SEL_WAIT_LINES:
		if (watch_lines(w, t, &full) &&
		    (full || watch_burst(w, now, next))) {
			w->reason = full ? SEL_R_FULL : SEL_R_TEXT;
			return (true);
		}
		break;
	case SEL_WAIT_MATCHES:
		if (s->out_lines > 0 && watch_burst(w, now, next)) {
			w->reason = SEL_R_TEXT;
			return (true);
		}
		break;
	case SEL_WAIT_SCREEN:
		/* Its redraw since the keys, once quiet. */
		if (t->len > w->typed_len && watch_burst(w, now, next)) {
			w->reason = SEL_R_SCREEN;
			return (true);
		}
		break;
	case SEL_WAIT_MATCH:
	case SEL_WAIT_END:
	case SEL_WAIT_READY:
		break;
	}
	if (program_waiting_due(w->p, now)) {
		w->reason = SEL_R_INPUT;
		w->input = true;
		return (true);
	}
	return (false);
}

/* tmux answered a command of the watch's: the watch, or NULL if the call
 * was cancelled or the program dropped meanwhile (it is answered). */
static struct watch *
watch_tmux_back(struct watch *w)
{
	w->tmux = WATCH_TMUX_NONE;
	if (w->req == NULL) {
		watch_free(w);
		return (NULL);
	}
	if ((w->p = program_by_seq(w->seq)) == NULL) {
		tools_set_state(w->req, NULL);
		tools_error(w->req, "send_keys: the keys went to %s, but its "
		    "program was removed meanwhile", w->pane);
		watch_free(w);
		return (NULL);
	}
	return (w);
}

/* capture-pane answered: the screen for the reply; or, if the pane is
 * gone (the keys ended the program), its end, once told. */
static void
watch_captured(void *arg, bool ok, const char *out, size_t len)
{
	struct watch	*w = watch_tmux_back(arg);

	if (w == NULL)
		return;
	if (!ok) {
		if (watch_over(w->p)) {
			watch_done(w);	/* its end, not a screen */
			return;
		}
		free(w->lost);
		w->lost = xstrdup(out);
		w->sel.wait = SEL_WAIT_END;	/* now only its end will do */
		w->deadline = now_ms() + WATCH_END_MS;
		w->waiter = program_wait(w->p, watch_event, w);
		watch_look(w, now_ms());
		return;
	}
	/* Trailing empty lines are the unused bottom of the screen. */
	while (len > 0 && out[len - 1] == '\n')
		len--;
	w->screen_text = xstrndup(out, len);
	watch_done(w);
}

/* display-message answered: a reply of text, unless the pane shows its
 * alternate screen now (the program switched while the reply waited):
 * then the settled screen. */
static void
watch_alt(void *arg, bool ok, const char *out, size_t len)
{
	struct watch	*w = watch_tmux_back(arg);

	if (w == NULL)
		return;
	if (ok && len > 0 && out[0] == '1' && !watch_over(w->p)) {
		w->screen = true;
		w->sel.wait = SEL_WAIT_SCREEN;
		w->burst_ms = 0;
		w->waiter = program_wait(w->p, watch_event, w);
		watch_look(w, now_ms());
		return;
	}
	watch_done(w);
}

/* Ask tmux something about the reply's pane; the call waits for it with
 * no timer of its own. */
static void
watch_tmux(struct watch *w, enum watch_tmux what)
{
	struct buf	b = BUF_INIT;

	program_unwait(w->waiter);
	w->waiter = NULL;
	tools_set_deadline(w->req, DEADLINE_NONE);
	tools_set_wake(w->req, DEADLINE_NONE);
	w->tmux = what;
	if (what == WATCH_TMUX_CAPTURE)
		buf_printf(&b, "capture-pane -p -t %s", w->pane);
	else {
		buf_printf(&b, "display-message -p -t %s ", w->pane);
		tmux_quote(&b, "#{alternate_on}");
	}
	tmux_command(buf_cstr(&b), what == WATCH_TMUX_CAPTURE ?
	    watch_captured : watch_alt, w);
	buf_free(&b);
}

/* The call may answer: send_keys' reply first makes sure of the screen
 * (asked once, captured once); then the tool renders it. */
static void
watch_answer(struct watch *w)
{
	if (w->pane != NULL && !watch_over(w->p) && w->lost == NULL) {
		if (!w->alt_asked) {
			w->alt_asked = true;
			watch_tmux(w, WATCH_TMUX_ALT);
			return;
		}
		if (w->screen && w->screen_text == NULL) {
			watch_tmux(w, WATCH_TMUX_CAPTURE);
			return;
		}
	}
	if (w->lost != NULL && !watch_over(w->p)) {
		tools_set_state(w->req, NULL);
		tools_error(w->req, "send_keys: the keys went to %s, but its "
		    "screen could not be captured: %s", w->pane, w->lost);
		watch_free(w);
		return;
	}
	watch_done(w);
}

/* Look again at time now: answer, or wait until the next thing to look
 * at. */
static void
watch_look(struct watch *w, int64_t now)
{
	int64_t	next, limit = w->deadline;

	if (watch_porting(w))
		return;		/* the answer is decided: it waits for that */
	if (watch_eval(w, now, &next)) {
		watch_answer(w);
		return;
	}
	/* A scan of what is there goes on past the timeout. */
	if (w->scan_stop > limit)
		limit = w->scan_stop;
	tools_set_wake(w->req, next < limit ? next : DEADLINE_NONE);
	tools_set_deadline(w->req, limit);
}

/* A readiness clause's walk or GET is over: look again. */
static void
watch_kick(void *arg)
{
	watch_look(arg, now_ms());
}

/* What the program tells a waiting call. */
static void
watch_event(struct program *p, enum program_event ev, void *arg)
{
	struct watch	*w = arg;

	(void)p;
	if (ev == PROGRAM_DROP) {
		ports_free(w->ports);	/* (gone with it) */
		w->ports = NULL;
		w->reason = SEL_R_ENDED;
		program_unwait(w->waiter);
		w->waiter = NULL;
		tools_set_state(w->req, NULL);
		w->answer(w, w->req, w->arg);
		watch_free(w);
		return;
	}
	watch_look(w, now_ms());
}

/* Begin: answer at once when timeoutMs is 0 and there is nothing to
 * scan, or the program is over; else wait on the program. */
void
watch_start(struct watch *w)
{
	/* (send_keys' until begins past the echo, in watch_eval.) */
	if (w->sel.filter != NULL || (w->sel.until != NULL && w->pane == NULL))
		sel_begin(&w->sel, program_text(w->p));
	else if (w->sel.until == NULL)
		w->sel.scan = w->sel.start;
	if (w->ready != NULL)
		ready_start(w->ready, watch_kick, w);
	w->waiter = program_wait(w->p, watch_event, w);
	tools_progress_start(w->req);
	watch_look(w, now_ms());
}

/*
 * The call's deadline timer ran: look once more, as at that time at least
 * (it answers, or scans on). The timer says the time has come, whatever
 * the clock reads: a loop turn may run it a millisecond early, and the
 * fuzz harness runs every timer at once.
 */
void
watch_timeout(struct req *req)
{
	struct watch	*w = tools_state(req);
	int64_t		 now = now_ms(), due;

	if (w == NULL)
		return;
	due = w->scan_stop > w->deadline ? w->scan_stop : w->deadline;
	watch_look(w, now > due ? now : due);
}

/* Time to look again. */
void
watch_wake(struct req *req)
{
	if (tools_state(req) != NULL)
		watch_look(tools_state(req), now_ms());
}

/* The client gave up: the watch goes (after tmux answers, if it asked). */
void
watch_cancel(struct req *req)
{
	struct watch	*w = tools_state(req);

	if (w == NULL)
		return;
	tools_set_state(req, NULL);
	if (w->tmux != WATCH_TMUX_NONE) {
		w->req = NULL;		/* freed when tmux answers */
		return;
	}
	watch_free(w);
}

/* A progress note while the call waits: how long, and the last line. */
void
watch_progress(struct req *req)
{
	struct watch		*w = tools_state(req);
	const struct textbuf	*t;
	struct buf		 b = BUF_INIT;
	const char		*lf;
	size_t			 s, e;
	int64_t			 waited;

	if (w == NULL || w->tmux != WATCH_TMUX_NONE)
		return;
	t = program_text(w->p);
	waited = now_ms() - w->started;
	buf_printf(&b, "%s waited on for %lld s; %zu bytes of output",
	    program_id(w->p), (long long)(waited / 1000), t->len);
	/* The last line, or the line being written (what the window
	 * holds of it). */
	textbuf_unfinished(t, 0, WATCH_LAST_CHARS, &s, &e);
	if (e == s && t->len > t->base) {
		e = t->len - 1;
		lf = compat_memrchr(t->data, '\n', e - t->base);
		s = lf != NULL ? t->base + (size_t)(lf - t->data) + 1 : t->base;
		if (utf8_count(t->data + (s - t->base), e - s) >
		    WATCH_LAST_CHARS)
			s = t->base + utf8_char_start(t->data,
			    e - WATCH_LAST_CHARS - t->base);
	}
	if (e > s)
		buf_printf(&b, "; last: %.*s", (int)(e - s),
		    t->data + (s - t->base));
	tools_progress_send(req, (double)waited, (double)w->timeout_ms,
	    buf_cstr(&b));
	buf_free(&b);
}

/* The program a call's watch waits on (NULL: none), for its task. */
struct program *
watch_req_program(struct req *req)
{
	struct watch	*w = tools_state(req);

	return (w != NULL ? w->p : NULL);
}

/* For the tool's answer. */
void *
watch_arg(const struct watch *w)
{
	return (w->arg);
}

struct program *
watch_program(const struct watch *w)
{
	return (w->p);
}

struct sel *
watch_sel(struct watch *w)
{
	return (&w->sel);
}

enum sel_reason
watch_reason(const struct watch *w)
{
	return (w->reason);
}

/* The ports of the program's tree, for the reply (NULL: not walked, it
 * does not run). */
const struct ports *
watch_ports(const struct watch *w)
{
	return (w->ports);
}

/* The readiness clauses, for the reply's note (NULL: none). */
const struct ready *
watch_clauses(const struct watch *w)
{
	return (w->ready);
}

/* Did it answer for an episode of waiting for input? */
bool
watch_input(const struct watch *w)
{
	return (w->input);
}

int64_t
watch_timeout_ms(const struct watch *w)
{
	return (w->timeout_ms);
}

/* send_keys' reply: its pane, the line typed into, the screen (NULL:
 * a reply of text). */
const char *
watch_pane(const struct watch *w)
{
	return (w->pane);
}

size_t
watch_typed_from(const struct watch *w)
{
	return (w->typed_from);
}

const char *
watch_screen(const struct watch *w)
{
	return (w->screen_text);
}
