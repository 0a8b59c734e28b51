/*
 * tool_view.c — view_update: the one call of the view, the page that
 * resource.c serves as ui://progmux/view to clients that render MCP Apps.
 * Only the view calls it: its _meta.ui.visibility is ["app"], so a host
 * lists it to no model, and a client without the view is not offered it.
 *
 * A bounded long poll. The call answers as soon as what the view shows
 * would differ from what the last answer showed (seen, a digest of that
 * answer), or when timeoutMs has passed: the programs held and how each
 * stands; for the program shown, its text after the view's cursor and
 * its pane's screen as tmux renders it (capture-pane -e: colours and
 * attributes as escape sequences) with the cursor's place. It looks
 * again VIEW_GATHER_MS after the program shown tells a change (a burst
 * of output is one look), and every VIEW_LOOK_MS anyway (a screen
 * redrawn without text, programs started or gone); only while a view
 * waits, never more often, and one capture at a time.
 *
 * It only reads: the view's Stop and Ctrl-C buttons are its calls of
 * stop_program and send_keys, which check them as they check the
 * agent's. Nor does it count as the agent's reading: no programId or end
 * is marked told, it waits on no program that has ended (so eviction is
 * as it would be without a view), and it has no text input (a password
 * never goes through the view: ask_user_secret's page is the way).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define VIEW_WAIT_MS	25000		/* timeoutMs's default */
#define VIEW_GATHER_MS	100		/* after a change told, look then */
#define VIEW_LOOK_MS	1000		/* and look anyway this often */
#define VIEW_LIST_MAX	100		/* programs listed: the newest */
#define VIEW_TEXT_LINES	500		/* text returned, at most */
#define VIEW_TEXT_CHARS	TEXTBUF_PAGE_CHARS
#define VIEW_TEXT_BYTES	(4u * VIEW_TEXT_CHARS)	/* new text sent whole */
#define VIEW_UNF_CHARS	2000		/* of the line being written */
#define VIEW_SCREEN_MAX	(256u * 1024)	/* bytes of a screen, escapes too */
#define VIEW_CURSOR_FMT	"#{cursor_x} #{cursor_y} #{cursor_flag} " \
	"#{pane_width} #{pane_height} #{alternate_on}"

struct view_cap;

/* A waiting view_update. */
struct view {
	struct req		*req;
	char			*id;		/* the program shown, or NULL */
	size_t			 cursor;	/* its text shown up to here */
	bool			 has_cursor;
	char			*seen;		/* the last answer's digest */
	struct program_waiter	*pw;		/* on it, while it runs */
	struct view_cap		*cap;		/* a capture in flight */
	int64_t			 wake_at;	/* the next look, if set */
	bool			 again;		/* look again after it */
	struct buf		 screen;	/* the last capture */
	int			 geom[6];	/* and its VIEW_CURSOR_FMT */
	char			*screen_of;	/* the pane it is of */
	bool			 cut;		/* it was cut */
	size_t			 delta[2];	/* where the answer's new text
						   is: the digest leaves it out */
};

/* A capture in flight: it outlives a call that went meanwhile. */
struct view_cap {
	struct view	*v;		/* NULL once the call went */
	char		*pane;
	int		 geom[6];
	bool		 geom_ok;
};

static void	view_look(struct view *);

/* FNV-1a of len bytes at p, going on from h. */
static uint64_t
view_digest(uint64_t h, const char *p, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return (h);
}

/* Write p's argv, cut as list_programs cuts it. */
static void
view_put_argv(struct jw *w, const struct program *p)
{
	const char	*arg[REPORT_ARGS_MAX];
	size_t		 len[REPORT_ARGS_MAX], i, n, chars;
	bool		 cut;

	jw_key(w, "argv");
	jw_arr_begin(w);
	n = report_argv(p, arg, len, &chars, &cut);
	for (i = 0; i < n; i++)
		jw_strn(w, arg[i], len[i]);
	jw_arr_end(w);
}

/* What a list entry and the program shown begin with: who it is and
 * how it stands. */
static void
view_put_head(struct jw *w, struct program *p)
{
	jw_key(w, "programId");
	jw_str(w, program_id(p));
	view_put_argv(w, p);
	jw_key(w, "paneId");
	jw_str(w, program_pane_id(p));
	jw_key(w, "outcome");
	jw_str(w, program_outcome(p));
	jw_key(w, "ended");
	jw_bool(w, program_ended(p));
}

/* One entry of the list: nothing in it changes with the clock alone. */
static void
view_put_entry(struct jw *w, struct program *p)
{
	char	started[64];

	jw_obj_begin(w);
	view_put_head(w, p);
	jw_key(w, "textChars");
	jw_int(w, (int64_t)program_text(p)->chars);
	realtime_iso(started, sizeof started, program_started_real(p));
	jw_key(w, "startedAt");
	jw_str(w, started);
	jw_key(w, "lifetimeMs");
	jw_int(w, program_spec(p)->lifetime_ms);
	jw_obj_end(w);
}

/* The programs, oldest first; past VIEW_LIST_MAX only the newest, the
 * others counted. */
static void
view_put_list(struct jw *w, struct buf *text)
{
	struct program	*p;
	size_t		 n = 0, skip, i = 0;

	for (p = program_first(); p != NULL; p = program_next(p))
		n++;
	skip = n > VIEW_LIST_MAX ? n - VIEW_LIST_MAX : 0;
	jw_key(w, "programs");
	jw_arr_begin(w);
	for (p = program_first(); p != NULL; p = program_next(p))
		if (i++ >= skip)
			view_put_entry(w, p);
	jw_arr_end(w);
	if (skip > 0) {
		jw_key(w, "omittedPrograms");
		jw_int(w, (int64_t)skip);
	}
	buf_printf(text, "view: %zu programs", n);
}

/*
 * The text of p the view lacks: the whole lines after its cursor, or,
 * when none was given or more came than VIEW_TEXT_BYTES, the last page
 * (from says where it begins, so the view starts again there); and the
 * line being written.
 */
static void
view_put_text(struct jw *w, struct view *v, struct program *p,
    struct buf *text)
{
	const struct textbuf	*t = program_text(p);
	struct textbuf		 head = *t;
	struct page		 pg;
	size_t			 from, us = 0, ue = 0;
	bool			 over;

	over = program_ended(p) || program_state(p) == PROGRAM_STOPPING;
	if (!over)
		head.len = textbuf_line_start(t);
	if (v->has_cursor && v->cursor <= head.len &&
	    head.len - v->cursor <= VIEW_TEXT_BYTES)
		from = v->cursor;
	else {
		textbuf_tail(&head, VIEW_TEXT_LINES, VIEW_TEXT_CHARS, &pg);
		from = pg.start;
	}
	if (!over)
		textbuf_unfinished(t, head.len, VIEW_UNF_CHARS, &us, &ue);
	jw_key(w, "cursor");
	jw_int(w, (int64_t)head.len);
	jw_key(w, "unfinishedLine");
	jw_strn(w, report_text_at(t, us), ue - us);
	/* What the view has not seen: not part of what it shows. */
	v->delta[0] = w->b->len;
	jw_key(w, "from");
	jw_int(w, (int64_t)from);
	jw_key(w, "text");
	jw_strn(w, report_text_at(t, from), head.len - from);
	v->delta[1] = w->b->len;
	buf_printf(text, "; %zu new characters", utf8_count(report_text_at(t,
	    from), head.len - from));
}

/* The last capture of p's pane, if it is of that pane. */
static void
view_put_screen(struct jw *w, const struct view *v, const struct program *p,
    struct buf *text)
{
	static const char *const geom[] = { "cursorX", "cursorY",
	    "cursorVisible", "width", "height", "alternate" };
	size_t	i;

	jw_key(w, "screen");
	if (!program_has_screen(p) || v->screen_of == NULL ||
	    strcmp(v->screen_of, program_pane_id(p)) != 0) {
		jw_null(w);
		return;
	}
	jw_obj_begin(w);
	jw_key(w, "lines");
	jw_strn(w, v->screen.data != NULL ? v->screen.data : "",
	    v->screen.len);
	if (v->cut) {
		jw_key(w, "cut");
		jw_bool(w, true);
	}
	for (i = 0; i < 6; i++) {
		jw_key(w, geom[i]);
		if (i == 2 || i == 5)
			jw_bool(w, v->geom[i] != 0);
		else
			jw_int(w, v->geom[i] < 0 ? 0 : v->geom[i]);
	}
	jw_obj_end(w);
	buf_printf(text, "; screen %dx%d", v->geom[3], v->geom[4]);
}

/* The program shown: how it stands, its new text, its screen. */
static void
view_put_program(struct jw *w, struct view *v, struct buf *text)
{
	struct program	*p;
	struct report	 r;

	jw_key(w, "program");
	if (v->id == NULL || (p = program_find(v->id)) == NULL) {
		jw_null(w);
		if (v->id != NULL)
			buf_printf(text, "; %s is not held", v->id);
		return;
	}
	report_make(&r, p, 0, program_ended(p), false);
	jw_obj_begin(w);
	view_put_head(w, p);
	jw_key(w, "waitingForInput");
	jw_bool(w, r.waiting);
	if (r.hidden) {
		jw_key(w, "inputHidden");
		jw_bool(w, true);
	}
	report_put_exit(w, p);
	buf_printf(text, "; %s %s", program_id(p), program_outcome(p));
	view_put_text(w, v, p, text);
	view_put_screen(w, v, p, text);
	jw_obj_end(w);
}

/*
 * What the view would show now, into res, and its digest (hex, in seen):
 * of everything but the new text (from, text), so two answers with the
 * same digest show the same once the view has their text.
 */
static void
view_build(struct view *v, struct toolres *res, char seen[17])
{
	uint64_t	h = 0xcbf29ce484222325ULL;

	v->delta[0] = v->delta[1] = 0;
	jw_obj_begin(&res->w);
	view_put_list(&res->w, &res->text);
	view_put_program(&res->w, v, &res->text);
	jw_key(&res->w, "actions");
	jw_obj_begin(&res->w);
	jw_key(&res->w, "stop");
	jw_bool(&res->w, tools_offered_name("stop_program"));
	jw_key(&res->w, "interrupt");
	jw_bool(&res->w, tools_offered_name("send_keys"));
	jw_obj_end(&res->w);
	h = view_digest(h, res->sc.data, v->delta[0]);
	h = view_digest(h, res->sc.data + v->delta[1], res->sc.len -
	    v->delta[1]);
	snprintf(seen, 17, "%016llx", (unsigned long long)h);
	jw_key(&res->w, "seen");
	jw_str(&res->w, seen);
	jw_obj_end(&res->w);
	buf_addc(&res->text, '\n');
}

/* Stop waiting on the program shown. */
static void
view_unwait(struct view *v)
{
	program_unwait(v->pw);
	v->pw = NULL;
}

/* Forget a call's state (the call itself is answered or cancelled). */
static void
view_free(struct view *v)
{
	view_unwait(v);
	if (v->cap != NULL)
		v->cap->v = NULL;	/* it frees itself when tmux answers */
	free(v->id);
	free(v->seen);
	free(v->screen_of);
	buf_free(&v->screen);
	free(v);
}

/* Look again at when, unless a look comes sooner. */
static void
view_wake_at(struct view *v, int64_t when)
{
	if (when < v->wake_at) {
		v->wake_at = when;
		tools_set_wake(v->req, when);
	}
}

/*
 * Answer with what the view shows now, if it differs from what it showed
 * (always, when the wait is over), and forget the call; true if it did.
 */
static bool
view_answer(struct view *v, bool always)
{
	struct toolres	res;
	char		seen[17];
	bool		differs;

	toolres_init(&res);
	view_build(v, &res, seen);
	differs = v->seen == NULL || strcmp(v->seen, seen) != 0;
	if (differs || always) {
		tools_reply(v->req, &res);
		view_free(v);
	}
	toolres_free(&res);
	return (differs || always);
}

/* A look is over (the capture, if any, came): answer if what the view
 * would show differs, else look again after a change told, or in
 * VIEW_LOOK_MS. */
static void
view_judge(struct view *v)
{
	if (view_answer(v, false))
		return;
	if (v->again) {
		v->again = false;
		view_look(v);
	} else
		view_wake_at(v, now_ms() + VIEW_LOOK_MS);
}

/* tmux answered the capture (after the cursor's place). */
static void
view_captured(void *arg, bool ok, const char *out, size_t len)
{
	struct view_cap	*c = arg;
	struct view	*v = c->v;
	size_t		 keep = len;

	if (v != NULL) {
		v->cap = NULL;
		buf_reset(&v->screen);
		free(v->screen_of);
		v->screen_of = NULL;
		v->cut = false;
		if (ok && c->geom_ok) {
			if (keep > VIEW_SCREEN_MAX) {
				keep = VIEW_SCREEN_MAX;
				while (keep > 0 && out[keep - 1] != '\n')
					keep--;
				v->cut = true;
			}
			buf_add(&v->screen, out, keep);
			memcpy(v->geom, c->geom, sizeof v->geom);
			v->screen_of = xstrdup(c->pane);
		}
	}
	free(c->pane);
	free(c);
	if (v != NULL)
		view_judge(v);
}

/* tmux answered where the cursor is and how large the pane is. */
static void
view_geometry(void *arg, bool ok, const char *out, size_t len)
{
	struct view_cap	*c = arg;
	char		 line[128];

	if (!ok || len >= sizeof line)
		return;
	memcpy(line, out, len);
	line[len] = '\0';
	c->geom_ok = sscanf(line, "%d %d %d %d %d %d", &c->geom[0],
	    &c->geom[1], &c->geom[2], &c->geom[3], &c->geom[4],
	    &c->geom[5]) == 6;
}

/* Look: capture the screen of the program shown (one capture at a time),
 * then judge; without a screen, judge now. */
static void
view_look(struct view *v)
{
	struct program	*p = v->id != NULL ? program_find(v->id) : NULL;
	struct buf	 b = BUF_INIT;

	v->wake_at = DEADLINE_NONE;
	tools_set_wake(v->req, DEADLINE_NONE);
	if (v->cap != NULL) {
		v->again = true;
		return;
	}
	if (p == NULL || !program_has_screen(p)) {
		view_judge(v);
		return;
	}
	v->cap = xcalloc(1, sizeof *v->cap);
	v->cap->v = v;
	v->cap->pane = xstrdup(program_pane_id(p));
	buf_printf(&b, "display-message -p -t %s ", v->cap->pane);
	tmux_quote(&b, VIEW_CURSOR_FMT);
	tmux_command(buf_cstr(&b), view_geometry, v->cap);
	buf_reset(&b);
	buf_printf(&b, "capture-pane -p -e -t %s", v->cap->pane);
	tmux_command(buf_cstr(&b), view_captured, v->cap);
	buf_free(&b);
}

/* The program shown told a change: look soon (a burst is one look). It
 * is not waited on once it has ended, nor once it goes. */
static void
view_event(struct program *p, enum program_event ev, void *arg)
{
	struct view	*v = arg;

	if (ev == PROGRAM_DROP || program_ended(p))
		view_unwait(v);
	if (v->cap != NULL)
		v->again = true;
	else
		view_wake_at(v, now_ms() + VIEW_GATHER_MS);
}

/* view_update: the first look now; later ones as told. */
static void
view_run(struct req *req, const struct json *args)
{
	struct view	*v;
	struct program	*p;
	const char	*s;
	int64_t		 wait;

	v = xcalloc(1, sizeof *v);
	v->req = req;
	v->wake_at = DEADLINE_NONE;
	tools_set_state(req, v);
	if ((s = tools_arg_str(args, "programId", NULL)) != NULL)
		v->id = xstrdup(s);
	if (json_get(args, "cursor") != NULL) {
		v->has_cursor = true;
		v->cursor = (size_t)tools_arg_int(args, "cursor", 0);
	}
	if ((s = tools_arg_str(args, "seen", NULL)) != NULL)
		v->seen = xstrdup(s);
	wait = tools_arg_int(args, "timeoutMs", VIEW_WAIT_MS);
	if (wait > cfg.wait_max_ms)
		wait = cfg.wait_max_ms;
	if (v->id != NULL && (p = program_find(v->id)) != NULL &&
	    !program_ended(p))
		v->pw = program_wait(p, view_event, v);
	tools_set_deadline(req, now_ms() + wait);
	view_look(v);
}

/* The wait is over: what the view shows now (the last capture). */
static void
view_timeout(struct req *req)
{
	view_answer(tools_state(req), true);
}

/* Time to look again. */
static void
view_wake(struct req *req)
{
	view_look(tools_state(req));
}

/* The client gave up on the call. */
static void
view_cancel(struct req *req)
{
	view_free(tools_state(req));
}

const struct tool_entry tool_view_entry = {
	.name = "view_update",
	.run = view_run,
	.cancel = view_cancel,
	.timeout = view_timeout,
	.wake = view_wake
};
