/*
 * mcp_hosts_link.c — the hub's hosts, below mcp_hosts.c (which sends a
 * call to one and answers it): each host the person configured
 * (PROGMUX_HOSTS, --host NAME=COMMAND), its link now and why its last
 * ones ended, the calls waiting on it, and what its progmux tells.
 *
 * A host's link (host_link.c) is started when a call needs one
 * (mcp_hosts_link, which mcp_hosts.c calls) and kept; the far progmux
 * takes the name we give it ("box", "box.2" for the host's second link,
 * and so on), so every id, resource URI, status line and message it
 * writes carries it. When the link ends, why is kept by its number, for
 * the calls that name its programs from then on; the far progmux, its
 * input ended, ends its programs as it does for any client.
 *
 * What a host's progmux tells: progress for a call of ours (kept as the
 * call's status for its task, and passed on if the client asked for
 * progress), log messages (passed on, named with the host), and its
 * resources. A host's resources/list is asked for once its link is ready
 * and again each time it says the list changed, and kept, so that ours
 * (resource.c) lists them after this machine's; a resources/read or a
 * subscription of a URI whose program is on a host goes there.
 *
 * Layer: protocol, below mcp_hosts.c, which alone shares its header
 * (mcp_hosts_link.h); mcp_tools.c gives it, at set-up, the hooks that answer
 * a call and pass on its progress, resource.c asks it for the hosts'
 * resources, main.c ends the links. It calls host_link.c, tools.c (the
 * hosts' names in the tool text) and mcp_req.c (a log message's level
 * by its name among the rest).
 */
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mcp_hosts_link.h"
#include "xmalloc.h"

static struct {
	struct mcp_host		*hosts;
	size_t			 n;
	const struct mcp_hosts_hooks *hooks;
	bool			 exiting;
	bool			 res_changed;	/* a host's list of resources */
	char			**updated;	/* its resources' updates */
	size_t			 nupdated;
} mh;

static void	mcp_hosts_on_ready(void *);
static void	mcp_hosts_res_ask(struct mcp_host *);
static void	mcp_hosts_on_notify(void *, const char *, const struct json *);
static void	mcp_hosts_on_ended(void *, const char *);
static const struct host_link_cb mcp_hosts_link_cb = {
	.ready = mcp_hosts_on_ready,
	.notify = mcp_hosts_on_notify,
	.ended = mcp_hosts_on_ended
};

/* The names configured, "a, b", into b. */
void
mcp_hosts_names(struct buf *b)
{
	size_t	i;

	for (i = 0; i < mh.n; i++)
		buf_printf(b, "%s%s", i > 0 ? ", " : "", mh.hosts[i].cfg->name);
}

/* The hosts from the settings; the model is told their names, if there
 * are any, in start_program's and run_program's host. */
void
mcp_hosts_init(const struct mcp_hosts_hooks *hooks)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	mh.hooks = hooks;
	mh.n = cfg.nhosts;
	mh.hosts = xcalloc(mh.n > 0 ? mh.n : 1, sizeof *mh.hosts);
	for (i = 0; i < mh.n; i++) {
		mh.hosts[i].cfg = &cfg.hosts[i];
		LIST_INIT(&mh.hosts[i].fwds);
	}
	if (mh.n > 0) {
		buf_adds(&b, " Hosts: ");
		mcp_hosts_names(&b);
		buf_addc(&b, '.');
		tools_set_note("host", buf_cstr(&b));
	}
	buf_free(&b);
}

/* The i-th host configured, or NULL past the last. */
struct mcp_host *
mcp_hosts_at(size_t i)
{
	return (i < mh.n ? &mh.hosts[i] : NULL);
}

/* Answer req with a tool's result, as mcp_tools.c answers a call. */
void
mcp_hosts_answer(struct mcp_req *req, const char *result, size_t len)
{
	mh.hooks->answer(req, result, len);
}

/* Why link epoch of h ended, or a word if it is no longer kept. */
const char *
mcp_hosts_ended(const struct mcp_host *h, unsigned epoch)
{
	const char	*why = h->ended[epoch % HOSTS_ENDS_KEPT];

	if (epoch + HOSTS_ENDS_KEPT <= h->epoch || why == NULL)
		return ("it ended long ago");
	return (why);
}

/*
 * Which host a name (len bytes: "box" or "box.2", from an id or from
 * host) is: its index, and the link number it names (*epoch, 1 when it
 * names none). -1 if it names no host configured.
 */
int
mcp_hosts_find(const char *s, size_t len, unsigned *epoch)
{
	const char	*dot = memchr(s, '.', len);
	size_t		 n = dot != NULL ? (size_t)(dot - s) : len, i;

	*epoch = dot != NULL ? (unsigned)strtoul(dot + 1, NULL, 10) : 1;
	for (i = 0; i < mh.n; i++)
		if (strlen(mh.hosts[i].cfg->name) == n &&
		    memcmp(mh.hosts[i].cfg->name, s, n) == 0)
			return ((int)i);
	return (-1);
}

/* Start h's next link (its name there carries its number from the
 * second on): NULL, or why its command cannot run (kept as why that
 * link ended). */
const char *
mcp_hosts_link(struct mcp_host *h)
{
	char		*cause = NULL;

	h->epoch++;
	if (h->epoch == 1)
		snprintf(h->name, sizeof h->name, "%s", h->cfg->name);
	else
		snprintf(h->name, sizeof h->name, "%s.%u", h->cfg->name,
		    h->epoch);
	h->link = host_link_start(h->name, h->cfg->command,
	    &mcp_hosts_link_cb, h, &cause);
	if (h->link != NULL)
		return (NULL);
	free(h->ended[h->epoch % HOSTS_ENDS_KEPT]);
	h->ended[h->epoch % HOSTS_ENDS_KEPT] = cause;
	return (cause);
}

/* Forget f: its host's list, and its request's pointer to it. */
void
mcp_hosts_fwd_free(struct mcp_fwd *f)
{
	if (f->req != NULL) {
		f->req->fwd = NULL;
		if (f->req->ref == &f->req)
			f->req->ref = NULL;
	}
	if (f->host != NULL)
		LIST_REMOVE(f, entry);
	free(f->status);
	free(f);
}

/* A call for req (NULL: a part of a list) on h's link, waiting there;
 * req points to it until either goes. */
struct mcp_fwd *
mcp_hosts_fwd_new(struct mcp_req *req, struct mcp_host *h)
{
	struct mcp_fwd	*f;

	f = xcalloc(1, sizeof *f);
	f->req = req;
	f->host = h;
	f->link = h->link;
	f->index = -1;
	LIST_INSERT_HEAD(&h->fwds, f, entry);
	if (req != NULL) {
		req->fwd = f;
		req->ref = &f->req;	/* cleared if req goes first */
	}
	return (f);
}

/* h's resources/list answered: its entries kept for ours. */
static void
mcp_hosts_res_listed(void *arg, const struct json *msg, const char *why)
{
	struct mcp_host		*h = arg;
	const struct json	*list;
	const char		*raw;
	size_t			 len;

	(void)why;
	h->res_asking = false;
	list = json_get(json_get(msg, "result"), "resources");
	free(h->res);
	h->res = NULL;
	h->res_len = 0;
	if (json_type(list) == JSON_ARRAY && json_len(list) > 0) {
		raw = json_raw(list, &len);
		h->res = xmemdup(raw + 1, len - 2);	/* (inside [ ]) */
		h->res_len = len - 2;
	}
	mh.res_changed = true;
	mcp_kick();
	if (h->res_again && h->link != NULL && msg != NULL) {
		h->res_again = false;
		mcp_hosts_res_ask(h);
	}
}

/* Ask h for its resources (again, once the answer in flight is in). */
static void
mcp_hosts_res_ask(struct mcp_host *h)
{
	if (h->res_asking) {
		h->res_again = true;
		return;
	}
	if (host_link_call(h->link, "resources/list", "{}", 2,
	    mcp_hosts_res_listed, h) != -1)
		h->res_asking = true;
}

/* A link is ready (what waited on it is written): its resources are
 * asked for, so that ours list them and its changes are told. */
static void
mcp_hosts_on_ready(void *arg)
{
	struct mcp_host	*h = arg;

	log_debug("host %s: linked, progmux %s there", h->name,
	    host_link_version(h->link));
	mcp_hosts_res_ask(h);
}

/* The call of ours with this progress token on h's link, or NULL. */
static struct mcp_fwd *
mcp_hosts_by_token(struct mcp_host *h, const struct json *tok)
{
	struct mcp_fwd	*f;

	if (json_type(tok) != JSON_NUMBER || !json_is_int(tok))
		return (NULL);
	LIST_FOREACH(f, &h->fwds, entry)
		if (f->link == h->link && f->id == json_int(tok))
			return (f);
	return (NULL);
}

/*
 * A notification from h's progmux: progress for a call of ours (kept
 * for its task, and passed on if the client asked for progress), a log
 * message (passed on, named with the host).
 */
static void
mcp_hosts_on_notify(void *arg, const char *method, const struct json *params)
{
	struct mcp_host		*h = arg;
	struct mcp_fwd		*f;
	const struct json	*m, *d;
	const char		*msg;
	struct buf		 b = BUF_INIT;
	struct jw		 w;
	int			 level;

	if (strcmp(method, "notifications/progress") == 0) {
		if ((f = mcp_hosts_by_token(h, json_get(params,
		    "progressToken"))) == NULL)
			return;
		m = json_get(params, "message");
		msg = json_type(m) == JSON_STRING ? json_str(m, NULL) : NULL;
		if (msg != NULL) {
			free(f->status);
			f->status = xstrdup(msg);
		}
		if (f->req != NULL && f->req->progress_token != NULL)
			mh.hooks->progress(f->req, json_num(json_get(params,
			    "progress")), json_num(json_get(params, "total")),
			    msg);
		return;
	}
	if (strcmp(method, "notifications/resources/list_changed") == 0) {
		mcp_hosts_res_ask(h);
		return;
	}
	if (strcmp(method, "notifications/resources/updated") == 0) {
		m = json_get(params, "uri");
		if (json_type(m) != JSON_STRING || mh.nupdated >= 1024)
			return;
		mh.updated = xreallocarray(mh.updated, mh.nupdated + 1,
		    sizeof *mh.updated);
		mh.updated[mh.nupdated++] = xstrdup(json_str(m, NULL));
		mcp_kick();
		return;
	}
	if (strcmp(method, "notifications/message") != 0)
		return;
	if ((level = mcp_level_of(json_get(params, "level"))) == -1)
		level = LOG_NOTIFY_WARNING;
	d = json_get(params, "data");
	if (json_type(d) != JSON_STRING) {
		jw_init(&w, &b);
		jw_value(&w, d);
	} else
		buf_adds(&b, json_str(d, NULL));
	log_notify(level, "progmux@host", "%s: %s", h->name, buf_cstr(&b));
	buf_free(&b);
}

/* h's link has ended (why): said, and kept for the calls that name its
 * programs from now on. */
static void
mcp_hosts_on_ended(void *arg, const char *why)
{
	struct mcp_host	*h = arg;
	char		*was = h->ended[h->epoch % HOSTS_ENDS_KEPT];

	free(was);
	h->ended[h->epoch % HOSTS_ENDS_KEPT] = xstrdup(why);
	h->link = NULL;
	if (h->res != NULL) {
		free(h->res);
		h->res = NULL;
		h->res_len = 0;
		mh.res_changed = true;
		mcp_kick();
	}
	h->res_asking = h->res_again = false;
	if (!mh.exiting)
		log_notify(LOG_NOTIFY_WARNING, "progmux@host", "host %s: its "
		    "link ended: %s", h->name, why);
}

/* Exiting: every link ends, what is in flight cancelled there first. */
void
mcp_hosts_shutdown(void)
{
	mh.exiting = true;
	host_links_shutdown();
}

/* Every linked host's resources, after ours, for resources/list. */
void
mcp_hosts_resources(struct jw *w)
{
	size_t	i;

	for (i = 0; i < mh.n; i++)
		if (mh.hosts[i].res != NULL)
			jw_raw(w, mh.hosts[i].res, mh.hosts[i].res_len);
}

/* What changed of the hosts' resources since the last look: true if
 * their list did; each updated one told to updated. */
bool
mcp_hosts_resources_poll(void (*updated)(const char *))
{
	bool	changed = mh.res_changed;
	size_t	i;

	for (i = 0; i < mh.nupdated; i++) {
		updated(mh.updated[i]);
		free(mh.updated[i]);
	}
	mh.nupdated = 0;
	mh.res_changed = false;
	return (changed);
}

/*
 * The host a resource URI's program is on ("progmux://programs/box:p3/
 * output"), and the link it names: NULL if it is this machine's (or no
 * host's); with *why set, the host's link is gone.
 */
static struct mcp_host *
mcp_hosts_of_uri(const char *uri, size_t len, const char **why)
{
	static const char	 prefix[] = "progmux://programs/";
	const char		*id = uri + sizeof prefix - 1, *colon;
	const char		*own = cfg.host_name;
	struct mcp_host		*h;
	unsigned		 epoch;
	int			 i;

	*why = NULL;
	if (len < sizeof prefix || memcmp(uri, prefix, sizeof prefix - 1) !=
	    0 || (colon = memchr(id, ':', len - (sizeof prefix - 1))) ==
	    NULL || memchr(id, '/', (size_t)(colon - id)) != NULL)
		return (NULL);
	if (own != NULL && strlen(own) == (size_t)(colon - id) &&
	    memcmp(id, own, strlen(own)) == 0)
		return (NULL);
	if ((i = mcp_hosts_find(id, (size_t)(colon - id), &epoch)) == -1)
		return (NULL);
	h = &mh.hosts[i];
	if (epoch != h->epoch || h->link == NULL || !host_link_usable(h->link))
		*why = epoch <= h->epoch ? mcp_hosts_ended(h, epoch) :
		    "no such link of the host yet";
	return (h);
}

/* A forwarded resources/read answered (or its link ended: why). */
static void
mcp_hosts_res_read(void *arg, const struct json *msg, const char *why)
{
	struct mcp_fwd		*f = arg;
	struct mcp_req		*req = f->req;
	const struct json	*res = json_get(msg, "result");
	const struct json	*err = json_get(msg, "error");
	struct buf		 b = BUF_INIT;
	const char		*raw;
	size_t			 len;

	mcp_hosts_fwd_free(f);
	if (req == NULL)
		return;
	if (json_type(res) == JSON_OBJECT) {
		raw = json_raw(res, &len);
		mcp_reply(req, raw, len);
		return;
	}
	if (msg == NULL)
		buf_printf(&b, "host unreachable: its link ended: %s", why);
	else
		buf_adds(&b, json_type(json_get(err, "message")) ==
		    JSON_STRING ? json_str(json_get(err, "message"), NULL) :
		    "the host answered with an error");
	mcp_fail(req, req->ctx.era == MCP_ERA_2026 ? -32602 : MCP_NO_RESOURCE,
	    buf_cstr(&b));
	buf_free(&b);
}

/*
 * resources/read of uri (len bytes): 0 if it is this machine's; 1 if it
 * went to its host (answered from there); -1 with *why if its host's
 * link is gone.
 */
int
mcp_hosts_resource_read(struct mcp_req *req, const char *uri, size_t len,
    const char **why)
{
	struct mcp_host	*h;
	struct mcp_fwd	*f;
	struct buf	 p = BUF_INIT;

	if ((h = mcp_hosts_of_uri(uri, len, why)) == NULL)
		return (0);
	if (*why != NULL)
		return (-1);
	f = mcp_hosts_fwd_new(req, h);
	buf_adds(&p, "{\"uri\":");
	json_put_string(&p, uri, len);
	buf_addc(&p, '}');
	f->id = host_link_call(h->link, "resources/read", p.data, p.len,
	    mcp_hosts_res_read, f);
	buf_free(&p);
	mcp_ids_add(req);	/* (a cancellation finds it) */
	return (1);
}

/* A subscription's answer: nothing to do with it. */
static void
mcp_hosts_res_ignored(void *arg, const struct json *msg, const char *why)
{
	(void)arg;
	(void)msg;
	(void)why;
}

/* A 2025 client subscribed to uri (on, else unsubscribed): if it is a
 * host's, that host is asked to tell its updates. */
void
mcp_hosts_subscribe(const char *uri, bool on)
{
	struct mcp_host	*h;
	struct buf	 p = BUF_INIT;
	const char	*why;

	if ((h = mcp_hosts_of_uri(uri, strlen(uri), &why)) == NULL ||
	    why != NULL)
		return;
	buf_adds(&p, "{\"uri\":");
	json_put_string(&p, uri, strlen(uri));
	buf_addc(&p, '}');
	(void)host_link_call(h->link, on ? "resources/subscribe" :
	    "resources/unsubscribe", p.data, p.len, mcp_hosts_res_ignored,
	    NULL);
	buf_free(&p);
}
