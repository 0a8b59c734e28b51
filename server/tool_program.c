/*
 * tool_program.c — start_program and read_program.
 *
 * start_program answers once the pane exists and pipe-pane is attached
 * (the program itself is still held at the launcher's gate then, so no
 * output is lost). The steps run as tmux callbacks:
 *
 *   reaper "ready" -> [display-message for fromPaneId] -> new-window or
 *   split-window -> [resize] -> pipe-pane -> "pane" to the reaper -> reply
 *
 * read_program answers at once when a page (or the end) is there, or parks
 * the request until text arrives, the program ends, or its wait runs out.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define DEFAULT_LIFETIME_MS	(10 * 60 * 1000)
#define DEFAULT_WAIT_MS		30000

/* The start failed: answer the caller with why, forget the program. */
void
program_start_failed(struct program *p, const char *why)
{
	struct toolres	res;

	if (p->start_req != NULL) {
		toolres_init(&res);
		tool_error(&res, "%s", why);
		p->start_req->prog = NULL;
		tools_reply(p->start_req, &res);
		toolres_free(&res);
		p->start_req = NULL;
	}
	program_forget(p);
}

/* Reply to start_program: the pane exists and is piped. */
static void
start_reply(struct program *p)
{
	struct toolres	res;
	struct req	*req = p->start_req;

	if (req == NULL)
		return;
	p->start_req = NULL;
	req->prog = NULL;
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programId");
	jw_str(&res.w, p->id);
	jw_key(&res.w, "paneId");
	jw_str(&res.w, p->pane);
	jw_key(&res.w, "effectiveLifetimeMs");
	jw_int(&res.w, p->lifetime_ms);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "started %s in pane %s (programId %s, lifetime "
	    "%lld ms); read it with read_program", p->argv[0], p->pane, p->id,
	    (long long)p->lifetime_ms);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* pipe-pane answered: release the launcher's gate. */
static void
start_piped(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p = arg;
	struct msg_out	 m;
	char		*why;

	(void)len;
	if (!ok) {
		xasprintf(&why, "tmux could not attach pipe-pane to %s: %s",
		    p->pane, out);
		program_start_failed(p, why);
		free(why);
		return;
	}
	msg_begin(&m, MSG_PANE, 2);
	msg_str(&m, "pane", p->pane);
	msg_int(&m, "pid", p->pane_pid);
	msg_end(&m, &p->sock_out);
	program_on_writable(p);
	p->state = P_RUNNING;
	if (p->start_req == NULL) {
		/* The caller cancelled the start: end it again. */
		program_forget(p);
		return;
	}
	start_reply(p);
}

static void
start_resized(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p = arg;

	(void)len;
	if (!ok)
		log_warn("%s: resizing %s: %s", p->id, p->pane, out);
}

/* new-window or split-window answered "%N PID". */
static void
start_made(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p = arg;
	struct buf	 b = BUF_INIT;
	char		*why, pane[32];
	long		 pid;

	(void)len;
	if (!ok || sscanf(out, "%31s %ld", pane, &pid) != 2 ||
	    pane[0] != '%') {
		xasprintf(&why, "tmux could not make a pane for the program: "
		    "%s", ok ? "unexpected answer" : out);
		program_start_failed(p, why);
		free(why);
		return;
	}
	p->pane = xstrdup(pane);
	p->pane_pid = (pid_t)pid;

	if (p->width > 0 || p->height > 0) {
		buf_printf(&b, "%s -t %s", p->split ? "resize-pane" :
		    "resize-window", p->pane);
		if (p->width > 0)
			buf_printf(&b, " -x %lld", (long long)p->width);
		if (p->height > 0)
			buf_printf(&b, " -y %lld", (long long)p->height);
		tmux_command(buf_cstr(&b), start_resized, p);
		buf_reset(&b);
	}
	buf_printf(&b, "pipe-pane -O -t %s ", p->pane);
	{
		struct buf	sh = BUF_INIT;

		/* The FIFO path is ours: letters, digits and /._- only. */
		buf_printf(&sh, "exec cat >%s/%s.out", cfg.rundir, p->id);
		tmux_quote(&b, buf_cstr(&sh));
		buf_free(&sh);
	}
	tmux_command(buf_cstr(&b), start_piped, p);
	buf_free(&b);
}

/* A window name from argv[0]: its base name, plain characters only. */
static void
start_window_name(struct buf *b, const char *argv0)
{
	const char	*base = strrchr(argv0, '/');
	size_t		 n = 0;

	base = base ? base + 1 : argv0;
	for (; *base != '\0' && n < 32; base++, n++) {
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789._-+", *base) != NULL)
			buf_addc(b, *base);
		else
			buf_addc(b, '_');
	}
	if (n == 0)
		buf_adds(b, "program");
}

/* The command that makes the pane, running the launcher. */
static void
start_pane_command(struct program *p, const char *ctl, const char *target,
    const char *cwd)
{
	struct buf	b = BUF_INIT;

	if (p->split)
		buf_adds(&b, "split-window -d -P -F '#{pane_id} #{pane_pid}'");
	else if (target != NULL)
		buf_adds(&b, "new-window -a -d -P -F '#{pane_id} #{pane_pid}'");
	else
		buf_adds(&b, "new-window -d -P -F '#{pane_id} #{pane_pid}'");
	buf_adds(&b, " -t ");
	if (target != NULL)
		tmux_quote(&b, target);
	else {
		struct buf	t = BUF_INIT;

		buf_printf(&t, "=%s:", cfg.session);
		tmux_quote(&b, buf_cstr(&t));
		buf_free(&t);
	}
	if (cwd != NULL && *cwd != '\0') {
		buf_adds(&b, " -c ");
		tmux_quote(&b, cwd);
	}
	if (!p->split) {
		struct buf	n = BUF_INIT;

		buf_adds(&b, " -n ");
		start_window_name(&n, p->argv[0]);
		tmux_quote(&b, buf_cstr(&n));
		buf_free(&n);
	}
	buf_adds(&b, " -- ");
	tmux_quote(&b, cfg.reaper_path);
	buf_adds(&b, " --launch ");
	tmux_quote(&b, ctl);
	tmux_command(buf_cstr(&b), start_made, p);
	buf_free(&b);
}

struct from_pane {
	struct program	*p;
	char		*ctl;
};

/* display-message answered "%P<TAB>@W<TAB>path" for fromPaneId. */
static void
start_from_pane(void *arg, bool ok, const char *out, size_t len)
{
	struct from_pane	*fp = arg;
	struct program		*p = fp->p;
	char			*tab, *why, *copy;
	size_t			 plen = strlen(p->from_pane);

	(void)len;
	if (!ok || strncmp(out, p->from_pane, plen) != 0 ||
	    out[plen] != '\t' || (tab = strchr(out + plen + 1, '\t')) ==
	    NULL) {
		xasprintf(&why, "fromPaneId %s names no pane on this tmux "
		    "server; list panes with `tmux list-panes -a` or pass a "
		    "paneId that start_program returned", p->from_pane);
		program_start_failed(p, why);
		free(why);
	} else {
		copy = xstrdup(out + plen + 1);
		tab = copy + (tab - (out + plen + 1));
		*tab = '\0';
		start_pane_command(p, fp->ctl, p->split ? p->from_pane : copy,
		    tab + 1);
		free(copy);
	}
	free(fp->ctl);
	free(fp);
}

/* The reaper is ready: make the pane (beside fromPaneId if given). */
void
program_make_pane(struct program *p, const char *ctl)
{
	struct from_pane	*fp;
	struct buf		 b = BUF_INIT;

	if (p->from_pane == NULL) {
		start_pane_command(p, ctl, NULL, NULL);
		return;
	}
	fp = xcalloc(1, sizeof *fp);
	fp->p = p;
	fp->ctl = xstrdup(ctl);
	buf_adds(&b, "display-message -p -t ");
	tmux_quote(&b, p->from_pane);
	/* display-message falls back to another pane when the target is
	 * missing, so ask for the pane's id too and compare. */
	buf_adds(&b, " '#{pane_id}\t#{window_id}\t#{pane_current_path}'");
	tmux_command(buf_cstr(&b), start_from_pane, fp);
	buf_free(&b);
}

void
tool_start_program(struct req *req, const struct json *args)
{
	const struct json	*argv = json_get(args, "argv");
	const char		*s, *placement;
	struct toolres		 res;
	struct program		*p;
	char			*cause = NULL;
	size_t			 i, len, n = json_len(argv);
	int64_t			 lifetime;

	toolres_init(&res);
	for (i = 0; i < n; i++) {
		s = json_str(json_at(argv, i), &len);
		if (memchr(s, '\0', len) != NULL) {
			tool_error(&res, "argv[%zu] contains a NUL character, "
			    "which no program can receive: remove it", i);
			goto fail;
		}
		if (i == 0 && len == 0) {
			tool_error(&res, "argv[0] is empty: it must name the "
			    "program to run");
			goto fail;
		}
	}
	placement = arg_str(args, "placement", NULL);
	if (placement != NULL && arg_str(args, "fromPaneId", NULL) == NULL) {
		tool_error(&res, "placement needs fromPaneId: it says where "
		    "to put the program beside that pane; without fromPaneId "
		    "the program gets a window of its own in session \"%s\"",
		    cfg.session);
		goto fail;
	}
	if ((s = arg_str(args, "startDirectory", &len)) != NULL &&
	    memchr(s, '\0', len) != NULL) {
		tool_error(&res, "startDirectory contains a NUL character: "
		    "no directory has one in its name");
		goto fail;
	}
	if (programs_alive() >= (size_t)cfg.max_programs) {
		tool_error(&res, "ceiling reached: %lld programs are running "
		    "(PROGMUX_MAX_PROGRAMS or --max-programs raises it); stop "
		    "one with stop_program or wait for one to end",
		    (long long)cfg.max_programs);
		goto fail;
	}
	if (!tmux_alive() && tmux_start(&cause) == -1) {
		tool_error(&res, "tmux is not available: %s", cause);
		free(cause);
		goto fail;
	}

	p = program_new();
	p->argc = n;
	p->argv = xcalloc(n + 1, sizeof *p->argv);
	for (i = 0; i < n; i++)
		p->argv[i] = xstrdup(json_str(json_at(argv, i), NULL));
	if ((s = arg_str(args, "fromPaneId", NULL)) != NULL)
		p->from_pane = xstrdup(s);
	p->split = placement != NULL && strcmp(placement, "split") == 0;
	if ((s = arg_str(args, "startDirectory", NULL)) != NULL)
		p->dir = xstrdup(s);
	p->width = arg_int(args, "width", 0);
	p->height = arg_int(args, "height", 0);
	lifetime = arg_int(args, "lifetimeMs", DEFAULT_LIFETIME_MS);
	if (lifetime > cfg.lifetime_max_ms)
		lifetime = cfg.lifetime_max_ms;
	p->lifetime_ms = lifetime;

	if (program_spawn_reaper(p, &cause) == -1) {
		tool_error(&res, "%s", cause);
		free(cause);
		program_forget(p);
		goto fail;
	}
	toolres_free(&res);
	p->start_req = req;
	req->kind = REQ_START;
	req->prog = p;
	mcp_req_park(req);
	return;

fail:
	tools_reply(req, &res);
	toolres_free(&res);
}

/* Answer a read: the page at its cursor and how the program stands. */
void
read_program_answer(struct req *req, bool timed_out)
{
	struct program	*p = req->prog;
	struct toolres	 res;
	struct page	 pg;
	char		*cause = NULL;
	bool		 ended, all_read, complete;
	const char	*outcome, *sig;

	toolres_init(&res);
	if (p == NULL) {
		tool_error(&res, "the program was forgotten while this read "
		    "waited");
		goto done;
	}
	ended = p->state == P_ENDED;
	if (textbuf_page(&p->text, (size_t)req->cursor,
	    req->max_lines > 0 ? (size_t)req->max_lines : SIZE_MAX,
	    TEXTBUF_PAGE_CHARS, ended, &pg, &cause) == -1) {
		tool_error(&res, "%s", cause);
		free(cause);
		goto done;
	}
	if (timed_out && pg.end == pg.start && !ended)
		pg.end = pg.start = (size_t)req->cursor;
	all_read = ended && pg.end == p->text.len;
	outcome = ended ? p->outcome : "running";
	complete = all_read && !p->cut && !p->text.cut && !p->lost_end &&
	    (strcmp(outcome, "completed") == 0 ||
	    strcmp(outcome, "not_started") == 0);

	jw_obj_begin(&res.w);
	jw_key(&res.w, "text");
	jw_strn(&res.w, p->text.data + pg.start, pg.end - pg.start);
	jw_key(&res.w, "cursor");
	jw_int(&res.w, (int64_t)pg.end);
	jw_key(&res.w, "ended");
	jw_bool(&res.w, all_read);
	jw_key(&res.w, "outcome");
	jw_str(&res.w, outcome);
	jw_key(&res.w, "exitStatus");
	if (ended && p->exit_status >= 0)
		jw_int(&res.w, p->exit_status);
	else
		jw_null(&res.w);
	jw_key(&res.w, "signal");
	sig = ended ? signal_name(p->signal) : NULL;
	jw_str(&res.w, sig);
	jw_key(&res.w, "outputCut");
	jw_bool(&res.w, p->cut || p->text.cut);
	jw_key(&res.w, "lostEnd");
	jw_bool(&res.w, p->lost_end);
	jw_key(&res.w, "outputComplete");
	jw_bool(&res.w, complete);
	jw_key(&res.w, "effectiveTimeoutMs");
	jw_int(&res.w, req->timeout_ms);
	jw_obj_end(&res.w);

	buf_add(&res.text, p->text.data + pg.start, pg.end - pg.start);
	if (pg.end > pg.start && p->text.data[pg.end - 1] != '\n')
		buf_addc(&res.text, '\n');
	buf_printf(&res.text, "[%s: %s", p->id, outcome);
	if (ended && p->exit_status >= 0)
		buf_printf(&res.text, ", exit status %lld",
		    (long long)p->exit_status);
	if (sig != NULL)
		buf_printf(&res.text, ", %s", sig);
	if (ended && p->why != NULL && strcmp(outcome, "completed") != 0)
		buf_printf(&res.text, " (%s)", p->why);
	buf_printf(&res.text, "; cursor %zu%s]", pg.end, all_read ?
	    ", all read" : ended ? ", more to read" : "");
done:
	tools_reply(req, &res);
	toolres_free(&res);
}

/* Could a parked read be answered now? */
static bool
read_ready(struct req *req)
{
	struct program	*p = req->prog;
	struct page	 pg;
	char		*cause = NULL;

	if (p->state == P_ENDED)
		return (true);
	if (textbuf_page(&p->text, (size_t)req->cursor,
	    req->max_lines > 0 ? (size_t)req->max_lines : SIZE_MAX,
	    TEXTBUF_PAGE_CHARS, false, &pg, &cause) == -1) {
		free(cause);
		return (true);
	}
	return (pg.end > pg.start);
}

/* Text arrived or the program ended: wake the reads waiting on it. */
void
program_changed(struct program *p)
{
	struct req	*req, *next;

	for (req = mcp_pending_first(); req != NULL; req = next) {
		next = req->next;
		if (req->kind == REQ_READ && req->prog == p && read_ready(req))
			read_program_answer(req, false);
	}
}

void
tool_read_program(struct req *req, const struct json *args)
{
	struct program	*p;
	struct toolres	 res;
	const char	*id;
	int64_t		 timeout;

	id = arg_str(args, "programId", NULL);
	if ((p = program_find(id)) == NULL) {
		toolres_init(&res);
		tool_error(&res, "unknown programId \"%s\": it was never "
		    "started here, was stopped, or was dropped after %lld "
		    "later programs ended; start it again with start_program",
		    id, (long long)cfg.keep_ended);
		tools_reply(req, &res);
		toolres_free(&res);
		return;
	}
	timeout = arg_int(args, "timeoutMs", DEFAULT_WAIT_MS);
	if (timeout > cfg.wait_max_ms)
		timeout = cfg.wait_max_ms;
	req->kind = REQ_READ;
	req->prog = p;
	req->cursor = arg_int(args, "cursor", 0);
	req->max_lines = arg_int(args, "maxLines", 0);
	req->timeout_ms = timeout;
	if (req->cursor < 0 || (size_t)req->cursor > p->text.len ||
	    timeout == 0 || read_ready(req)) {
		read_program_answer(req, timeout == 0);
		return;
	}
	req->deadline = now_ms() + timeout;
	mcp_req_park(req);
}
