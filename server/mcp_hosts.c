/*
 * mcp_hosts.c — progmux as the hub of other hosts: a tools/call for a
 * program elsewhere goes, whole, to the progmux there, and its answer
 * comes back as that progmux gave it.
 *
 * The person configures the hosts (PROGMUX_HOSTS, --host NAME=COMMAND);
 * the model only names one. Where a call goes is read from its
 * arguments alone: `host` (start_program and run_program; any other tool
 * given it goes there too, never here), or the host an id carries
 * (programId "box:p3", paneId or fromPaneId "box:%4"). Anything else is
 * this machine's, and the tool layer never sees a host. The call goes
 * over the host's link (mcp_hosts_link.c keeps it, started by the first
 * call that needs it), and its answer passes through as it came: the far
 * progmux writes the name it was given into every id, so only `host` is
 * taken out of the arguments, and a fromPaneId's host (the seed holds it
 * to "%N"). A link's number in its ids means an id from a link that
 * ended never reaches the programs of the next one.
 *
 * A lost link is said, never papered over: every call waiting on it, and
 * every later call naming a program of it, is a tool error saying the
 * host is unreachable, with its command's exit status and the last line
 * of its standard error; nothing is run here instead, nor retried. Only
 * a call that names the host (`host`) starts a new link.
 *
 * list_programs answers for every host linked: this machine's list, then
 * each host's as it gave it (its entries carry their host, and each
 * host's list is bounded there as ours is), and the hosts that could not
 * answer, with why. A call that waits long becomes a task as a local
 * one does; its status is the far side's last progress message. A
 * cancelled call is cancelled there too.
 *
 * Layer: protocol, beside the method families: mcp_tools.c hands it a
 * tools/call first, task.c asks it of a forwarded call; it calls
 * mcp_hosts_link.c (the hosts, their links, the hooks mcp_tools.c gave
 * to answer through), tools.c (the local list, whether a tool is
 * offered), host_link.c and mcp_req.c.
 */
#include <stdlib.h>
#include <string.h>

#include "mcp_hosts_link.h"
#include "timeutil.h"
#include "xmalloc.h"

#define HOSTS_LIST_MS	5000	/* a host's list, or it is said late */
#define HOSTS_LIST_MAX	(2u * 1024 * 1024)	/* merged list, about */

/* A list_programs gathered from this machine and every host linked. */
struct mcp_gather {
	struct mcp_fwd	*mark;		/* its request's (req->fwd) */
	int		 waiting;	/* hosts not yet answered */
	char		*local;		/* this machine's result */
	size_t		 local_len;
	char		*far[CFG_HOSTS_MAX];	/* each host's, by index */
	size_t		 far_len[CFG_HOSTS_MAX];
	char		*why[CFG_HOSTS_MAX];	/* or why there is none */
	struct mcp_fwd	*fwd[CFG_HOSTS_MAX];	/* its call while waiting */
	struct loop_timer *timer;
};

/* A tool error as req's answer (a result, so that a task keeps it). */
static void
mcp_hosts_error(struct mcp_req *req, const char *msg)
{
	struct buf	 b = BUF_INIT;

	tools_result_put(&b, msg, strlen(msg), NULL, 0, true);
	mcp_hosts_answer(req, b.data, b.len);
	buf_free(&b);
}

/* What to say of a call for a program of link epoch of h, which ended. */
static void
mcp_hosts_unreachable(struct mcp_req *req, const char *tool,
    const struct mcp_host *h, unsigned epoch)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "%s: host %s is unreachable: its link ", tool,
	    h->cfg->name);
	if (epoch > 1)
		buf_printf(&b, "(%s.%u) ", h->cfg->name, epoch);
	buf_printf(&b, "ended: %s. Nothing was run here instead. Its "
	    "programs ended with the link (the progmux there ends them when "
	    "its input ends); start_program or run_program with host \"%s\" "
	    "starts a new link.", mcp_hosts_ended(h, epoch), h->cfg->name);
	mcp_hosts_error(req, buf_cstr(&b));
	buf_free(&b);
}

/* Answer req: its ids name link epoch of h, which was never started
 * (an id no start here gave). */
static void
mcp_hosts_never(struct mcp_req *req, const char *tool,
    const struct mcp_host *h, unsigned epoch)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "%s: no such program or pane: host %s has had %u link%s, "
	    "and its ids name link %u (ids are those the calls on it gave). "
	    "Nothing was run.", tool, h->cfg->name, h->epoch, h->epoch == 1 ?
	    "" : "s", epoch);
	mcp_hosts_error(req, buf_cstr(&b));
	buf_free(&b);
}

/* The host prefix of an id argument ("box" of "box:p3"), into *p and
 * *len; false if it has none. */
static bool
mcp_hosts_prefix(const struct json *args, const char *key, const char **p,
    size_t *len)
{
	const struct json	*v = json_get(args, key);
	const char		*s, *colon;
	size_t			 n;

	if (json_type(v) != JSON_STRING)
		return (false);
	s = json_str(v, &n);
	if ((colon = memchr(s, ':', n)) == NULL)
		return (false);
	*p = s;
	*len = (size_t)(colon - s);
	return (true);
}

/* Answer req: name (len bytes) is no host here. */
static void
mcp_hosts_no_host(struct mcp_req *req, const char *tool, const char *name,
    size_t len)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "%s: no host named \"", tool);
	mcp_quote_name(&b, name, len);
	buf_adds(&b, "\" here; ");
	if (mcp_hosts_at(0) == NULL)
		buf_adds(&b, "no host is configured (the person sets them with "
		    "PROGMUX_HOSTS or --host): leave host out to run on this "
		    "machine");
	else {
		buf_adds(&b, "the hosts are ");
		mcp_hosts_names(&b);
		buf_adds(&b, " (leave host out for this machine)");
	}
	buf_adds(&b, ". Nothing was run.");
	mcp_hosts_error(req, buf_cstr(&b));
	buf_free(&b);
}

/*
 * Where a call goes: *host (an index), *epoch (the link it names, 0:
 * whichever is there, or a new one), or *host -1 for this machine.
 * false when req was answered instead (a host not configured, or ids
 * naming two hosts).
 */
static bool
mcp_hosts_where(struct mcp_req *req, const char *tool,
    const struct json *args, int *host, unsigned *epoch)
{
	static const char *const keys[] = { "programId", "paneId",
	    "fromPaneId" };
	const struct json	*hv = json_get(args, "host");
	const char		*p, *own = cfg.host_name;
	size_t			 len, i;
	unsigned		 e;
	int			 h;

	*host = -1;
	*epoch = 0;
	if (json_type(hv) == JSON_STRING) {
		p = json_str(hv, &len);
		if (own != NULL && strlen(own) == len && memcmp(p, own,
		    len) == 0)
			return (true);	/* (ours: this machine) */
		if ((h = mcp_hosts_find(p, len, &e)) == -1) {
			mcp_hosts_no_host(req, tool, p, len);
			return (false);
		}
		*host = h;
	}
	for (i = 0; i < sizeof keys / sizeof *keys; i++) {
		if (!mcp_hosts_prefix(args, keys[i], &p, &len))
			continue;
		if (own != NULL && strlen(own) == len && memcmp(p, own,
		    len) == 0)
			h = -1;
		else if ((h = mcp_hosts_find(p, len, &e)) == -1) {
			mcp_hosts_no_host(req, tool, p, len);
			return (false);
		}
		if ((*host != -1 || *epoch != 0) && (h != *host ||
		    (*epoch != 0 && e != *epoch))) {
			mcp_hosts_error(req, "the ids given name different "
			    "hosts (or links of one): a call acts on one "
			    "host. Nothing was run.");
			return (false);
		}
		*host = h;
		if (h != -1)
			*epoch = e;
	}
	return (true);
}

/* Start h's next link; false with req answered if its command cannot
 * run. */
static bool
mcp_hosts_start(struct mcp_req *req, const char *tool, struct mcp_host *h)
{
	const char	*cause;
	struct buf	 b = BUF_INIT;

	if ((cause = mcp_hosts_link(h)) == NULL)
		return (true);
	buf_printf(&b, "%s: host %s is unreachable: its command could not "
	    "be started: %s. Nothing was run.", tool, h->cfg->name, cause);
	mcp_hosts_error(req, buf_cstr(&b));
	buf_free(&b);
	return (false);
}

/*
 * The arguments as the far side takes them, into b: without host, and
 * a fromPaneId without its host (start_program holds it to "%N"). The
 * raw text when nothing changes.
 */
static void
mcp_hosts_args(struct buf *b, const struct json *args)
{
	const struct json	*v;
	const char		*key, *raw, *s, *colon;
	struct jw		 w;
	size_t			 i, klen, len;

	if (args == NULL) {
		buf_adds(b, "{}");
		return;
	}
	if (json_get(args, "host") == NULL && ((s = json_str(json_get(args,
	    "fromPaneId"), NULL)) == NULL || strchr(s, ':') == NULL)) {
		raw = json_raw(args, &len);
		buf_add(b, raw, len);
		return;
	}
	jw_init(&w, b);
	jw_obj_begin(&w);
	for (i = 0; i < json_len(args); i++) {
		key = json_key_at(args, i, &klen);
		v = json_at(args, i);
		if (klen == 4 && memcmp(key, "host", 4) == 0)
			continue;
		jw_keyn(&w, key, klen);
		if (klen == 10 && memcmp(key, "fromPaneId", 10) == 0 &&
		    json_type(v) == JSON_STRING && (colon = strchr(json_str(v,
		    NULL), ':')) != NULL)
			jw_str(&w, colon + 1);
		else
			jw_value(&w, v);
	}
	jw_obj_end(&w);
}

static void	mcp_hosts_answered(void *, const struct json *, const char *);
static void	mcp_hosts_gather_one(struct mcp_gather *, int,
		    const struct json *, const char *);
static bool	mcp_hosts_list(struct mcp_req *, const struct json *);
static void	mcp_hosts_gather_free(struct mcp_gather *);

/*
 * Send tool name with args to h's link (started if need be) for req:
 * with a progress token (our id) when the call may wait, so its
 * progress comes through and its task can say how it stands. NULL with
 * req answered if the link cannot be had.
 */
static struct mcp_fwd *
mcp_hosts_send(struct mcp_req *req, const char *name, struct mcp_host *h,
    const struct json *args)
{
	struct mcp_fwd	*f;
	struct buf	 p = BUF_INIT;

	if (h->link == NULL && !mcp_hosts_start(req, name, h))
		return (NULL);
	if (!host_link_usable(h->link)) {
		if (req != NULL)
			mcp_hosts_error(req, "the host's link is ending (its "
			    "command is going): call again in a moment. "
			    "Nothing was run.");
		return (NULL);
	}
	f = mcp_hosts_fwd_new(req, h);
	buf_adds(&p, "{\"name\":");
	json_put_string(&p, name, strlen(name));
	buf_adds(&p, ",\"arguments\":");
	mcp_hosts_args(&p, args);
	if (tools_task_ok(name) || (req != NULL &&
	    req->progress_token != NULL))
		buf_printf(&p, ",\"_meta\":{\"progressToken\":%lld}",
		    (long long)host_link_next_id(h->link));
	buf_addc(&p, '}');
	f->id = host_link_call(h->link, "tools/call", p.data, p.len,
	    mcp_hosts_answered, f);
	buf_free(&p);
	return (f);
}

/*
 * A tools/call for another host goes there; true if req is handled
 * here (sent, or answered with why not), false if it is this machine's
 * (the tool layer runs it).
 */
bool
mcp_hosts_call(struct mcp_req *req, const char *name,
    const struct json *args)
{
	struct mcp_host	*h;
	unsigned	 epoch;
	int		 host;

	if (!tools_offered_name(name))
		return (false);		/* (answered as unknown) */
	if (strcmp(name, "list_programs") == 0)
		return (mcp_hosts_list(req, args));
	if (!mcp_hosts_where(req, name, args, &host, &epoch))
		return (true);
	if (host == -1)
		return (false);
	h = mcp_hosts_at((size_t)host);
	if (epoch != 0 && (epoch != h->epoch || h->link == NULL)) {
		if (epoch > h->epoch)
			mcp_hosts_never(req, name, h, epoch);
		else
			mcp_hosts_unreachable(req, name, h, epoch);
		return (true);
	}
	(void)mcp_hosts_send(req, name, h, args);
	return (true);
}

/* The far side answered f (msg), or its link ended first (why). */
static void
mcp_hosts_answered(void *arg, const struct json *msg, const char *why)
{
	struct mcp_fwd		*f = arg;
	struct mcp_req		*req = f->req;
	struct mcp_host		*h = f->host;
	struct mcp_gather	*g;
	const struct json	*res, *err;
	struct buf		 b = BUF_INIT;
	const char		*raw;
	size_t			 len;
	int			 i;

	if ((g = f->gather) != NULL) {
		i = f->index;
		g->fwd[i] = NULL;
		mcp_hosts_fwd_free(f);
		mcp_hosts_gather_one(g, i, msg, why);
		return;
	}
	mcp_hosts_fwd_free(f);
	if (req == NULL)
		return;		/* the client let go of it */
	res = json_get(msg, "result");
	err = json_get(msg, "error");
	if (msg == NULL) {
		buf_printf(&b, "host %s is unreachable: its link ended while "
		    "the call was there: %s. Nothing was run here instead; "
		    "the call's answer was lost (its programs there ended "
		    "with the link). start_program or run_program with host "
		    "\"%s\" starts a new link.", h->cfg->name, why,
		    h->cfg->name);
		mcp_hosts_error(req, buf_cstr(&b));
	} else if (json_type(res) == JSON_OBJECT) {
		raw = json_raw(res, &len);
		mcp_hosts_answer(req, raw, len);
	} else {
		buf_printf(&b, "host %s answered with an error: %s",
		    h->cfg->name, json_type(json_get(err, "message")) ==
		    JSON_STRING ? json_str(json_get(err, "message"), NULL) :
		    "(none said)");
		mcp_hosts_error(req, buf_cstr(&b));
	}
	buf_free(&b);
}

/* The client let go of req (a cancellation, tasks/cancel): so does the
 * host. */
void
mcp_hosts_cancel(struct mcp_req *req)
{
	struct mcp_fwd		*f = req->fwd;
	struct mcp_gather	*g;

	if (f == NULL)
		return;
	if ((g = f->gather) != NULL) {
		mcp_hosts_gather_free(g);	/* its parts let go of too */
		return;
	}
	host_link_forget(f->link, f->id, true);
	mcp_hosts_fwd_free(f);
}

/* How a forwarded call stands, for its task: the far side's last
 * progress message, into b; false if req was not forwarded. */
bool
mcp_hosts_status(const struct mcp_req *req, struct buf *b)
{
	const struct mcp_fwd	*f = req->fwd;

	if (f == NULL || f->gather != NULL)
		return (false);
	if (f->status != NULL)
		buf_adds(b, f->status);
	else
		buf_printf(b, "sent to host %s", f->host->name);
	return (true);
}

/* Forget a list: its parts still waiting are let go of there. */
static void
mcp_hosts_gather_free(struct mcp_gather *g)
{
	size_t	i;

	for (i = 0; mcp_hosts_at(i) != NULL; i++) {
		if (g->fwd[i] != NULL) {
			host_link_forget(g->fwd[i]->link, g->fwd[i]->id, true);
			mcp_hosts_fwd_free(g->fwd[i]);
		}
		free(g->far[i]);
		free(g->why[i]);
	}
	mcp_hosts_fwd_free(g->mark);
	loop_timer_free(g->timer);
	free(g->local);
	free(g);
}

/*
 * One list's entries and note into the merged list: its programs into w
 * (unless the merged list is past HOSTS_LIST_MAX: then counted in
 * *omitted), its text into text. false if result is not a list.
 */
static bool
mcp_hosts_merge_one(struct jw *w, struct buf *text, const char *name,
    const char *result, size_t len, int64_t *omitted, size_t *shown,
    struct buf *why)
{
	struct json_doc		*doc;
	const struct json	*r, *sc, *progs, *t;
	size_t			 i, n;

	if ((doc = json_parse(result, len, NULL)) == NULL)
		return (false);
	r = json_root(doc);
	sc = json_get(r, "structuredContent");
	progs = json_get(sc, "programs");
	t = json_get(json_at(json_get(r, "content"), 0), "text");
	if (json_type(progs) != JSON_ARRAY) {
		buf_printf(why, "it answered: %s", json_type(t) ==
		    JSON_STRING ? json_str(t, NULL) : "no list");
		json_doc_free(doc);
		return (false);
	}
	n = json_len(progs);
	*omitted += json_int(json_get(sc, "omittedPrograms"));
	if (w->b->len > HOSTS_LIST_MAX) {
		*omitted += (int64_t)n;
		buf_printf(text, "[%s: %zu programs not listed: the list stops "
		    "at %u MiB]\n", name, n, HOSTS_LIST_MAX / 1024 / 1024);
		json_doc_free(doc);
		return (true);
	}
	for (i = 0; i < n; i++)
		jw_value(w, json_at(progs, i));
	*shown += n;
	if ((n > 0 || json_get(sc, "omittedPrograms") != NULL) &&
	    json_type(t) == JSON_STRING)
		buf_adds(text, json_str(t, NULL));
	json_doc_free(doc);
	return (true);
}

/* A host whose programs are not in the list (why): its entry among the
 * unreachable (u), and its line in text. */
static void
mcp_hosts_unlisted(struct jw *u, struct buf *text, const char *name,
    const char *why)
{
	jw_obj_begin(u);
	jw_key(u, "host");
	jw_str(u, name);
	jw_key(u, "why");
	jw_str(u, why);
	jw_obj_end(u);
	buf_printf(text, "[host %s: unreachable, its programs not listed: "
	    "%s]\n", name, why);
}

/* Every answer is in: the merged list is the client's answer. */
static void
mcp_hosts_merge(struct mcp_gather *g)
{
	struct mcp_req	*req = g->mark->req;
	struct mcp_host	*h;
	struct buf	 sc = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct buf	 b = BUF_INIT, un = BUF_INIT;
	struct jw	 w, u;
	int64_t		 omitted = 0;
	size_t		 i, shown = 0, nun = 0;

	jw_init(&w, &sc);
	jw_obj_begin(&w);
	jw_key(&w, "programs");
	jw_arr_begin(&w);
	if (g->local != NULL)
		(void)mcp_hosts_merge_one(&w, &text, "this machine", g->local,
		    g->local_len, &omitted, &shown, &why);
	jw_init(&u, &un);
	jw_arr_begin(&u);
	for (i = 0; (h = mcp_hosts_at(i)) != NULL; i++) {
		buf_reset(&why);
		if (g->far[i] != NULL && mcp_hosts_merge_one(&w, &text,
		    h->name, g->far[i], g->far_len[i], &omitted, &shown, &why))
			continue;
		if (g->far[i] == NULL && g->why[i] == NULL)
			continue;	/* never linked */
		if (g->why[i] != NULL)
			buf_adds(&why, g->why[i]);
		mcp_hosts_unlisted(&u, &text, h->cfg->name, buf_cstr(&why));
		nun++;
	}
	jw_arr_end(&u);
	jw_arr_end(&w);
	if (omitted > 0) {
		jw_key(&w, "omittedPrograms");
		jw_int(&w, omitted);
	}
	if (nun > 0) {
		jw_key(&w, "unreachableHosts");
		jw_raw(&w, un.data, un.len);
	}
	jw_obj_end(&w);
	if (shown == 0 && omitted == 0)
		buf_adds(&text, "no programs\n");

	tools_result_put(&b, text.data, text.len, sc.data, sc.len, false);
	mcp_hosts_gather_free(g);	/* (req lets go of it first) */
	if (req != NULL)
		mcp_hosts_answer(req, b.data, b.len);
	buf_free(&b);
	buf_free(&sc);
	buf_free(&text);
	buf_free(&why);
	buf_free(&un);
}

/* Host i's part of the list: its answer (msg), or why there is none. */
static void
mcp_hosts_gather_one(struct mcp_gather *g, int i, const struct json *msg,
    const char *why)
{
	const struct json	*res = json_get(msg, "result");
	const char		*raw;
	size_t			 len;

	if (json_type(res) == JSON_OBJECT) {
		raw = json_raw(res, &len);
		g->far[i] = xmemdup(raw, len);
		g->far_len[i] = len;
	} else if (msg != NULL)
		xasprintf(&g->why[i], "it answered with an error: %s",
		    json_type(json_get(json_get(msg, "error"), "message")) ==
		    JSON_STRING ? json_str(json_get(json_get(msg, "error"),
		    "message"), NULL) : "(none said)");
	else
		xasprintf(&g->why[i], "its link ended: %s", why);
	if (--g->waiting == 0 && g->local != NULL)
		mcp_hosts_merge(g);
}

/* HOSTS_LIST_MS passed: the hosts that have not answered are said. */
static void
mcp_hosts_gather_late(void *arg)
{
	struct mcp_gather	*g = arg;
	size_t			 i;

	for (i = 0; mcp_hosts_at(i) != NULL; i++) {
		if (g->fwd[i] == NULL)
			continue;
		host_link_forget(g->fwd[i]->link, g->fwd[i]->id, true);
		mcp_hosts_fwd_free(g->fwd[i]);
		g->fwd[i] = NULL;
		xasprintf(&g->why[i], "it did not answer within %d s",
		    HOSTS_LIST_MS / 1000);
		g->waiting--;
	}
	if (g->local != NULL)
		mcp_hosts_merge(g);
}

/*
 * list_programs with hosts linked (or linked before): this machine's
 * list (tools.c answers it at once, to mcp_hosts_took), and each host's.
 * false if no host was ever linked: this machine's list alone, as ever.
 */
static bool
mcp_hosts_list(struct mcp_req *req, const struct json *args)
{
	struct mcp_gather	*g;
	struct mcp_host		*h;
	struct mcp_fwd		*f;
	size_t			 i;

	for (i = 0; (h = mcp_hosts_at(i)) != NULL && h->epoch == 0; i++)
		;
	if (h == NULL)
		return (false);
	g = xcalloc(1, sizeof *g);
	g->mark = xcalloc(1, sizeof *g->mark);
	g->mark->req = req;
	g->mark->gather = g;
	req->fwd = g->mark;
	req->ref = &g->mark->req;
	for (i = 0; (h = mcp_hosts_at(i)) != NULL; i++) {
		if (h->epoch == 0)
			continue;
		if (h->link == NULL) {
			xasprintf(&g->why[i], "its link ended: %s",
			    mcp_hosts_ended(h, h->epoch));
			continue;
		}
		if ((f = mcp_hosts_send(NULL, "list_programs", h, args)) ==
		    NULL) {
			xasprintf(&g->why[i], "its link is ending");
			continue;
		}
		f->gather = g;
		f->index = (int)i;
		g->fwd[i] = f;
		g->waiting++;
	}
	g->timer = loop_timer_new(mcp_hosts_gather_late, g);
	loop_timer_set(g->timer, now_ms() + HOSTS_LIST_MS);
	if (tools_call(req, "list_programs", args) == -1)
		mcp_hosts_gather_free(g);	/* (offered: cannot happen) */
	return (true);
}

/*
 * A tool's answer for req (mcp_tools.c asks first): this machine's part
 * of a list is kept here until the hosts' come; true if taken.
 */
bool
mcp_hosts_took(struct mcp_req *req, const char *result, size_t len)
{
	struct mcp_fwd		*f = req->fwd;
	struct mcp_gather	*g;

	if (f == NULL || f->host != NULL || (g = f->gather)->local != NULL)
		return (false);
	g->local = xmemdup(result, len);
	g->local_len = len;
	req->call = NULL;	/* (that call is over) */
	if (g->waiting == 0)
		mcp_hosts_merge(g);
	return (true);
}
