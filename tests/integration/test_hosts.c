/*
 * test_hosts.c — one progmux, many machines, over the engines people
 * run: a hub whose hosts are "box", a progmux reached by ssh (an sshd
 * this suite starts on 127.0.0.1, key authentication, a throwaway user
 * that exists only in the sshd's own mount namespace), "ns", a progmux
 * in mount and PID namespaces of its own (unshare) with its own tmux,
 * and "bad", a command that cannot start. Ids, panes and processes of
 * the three machines really differ, and the tests check that each call
 * reached the machine its id names, that a lost link is said (never run
 * here), and that nothing is left on any side: the far sides' processes
 * are counted by an environment entry only their progmux had
 * (PMX_FAR=...), the hub's links by their command lines.
 *
 * Needs root (the sshd, the namespaces), /usr/sbin/sshd, ssh,
 * ssh-keygen and unshare; scripts/build/install-packages.sh installs
 * them. Without them each test skips, saying which is missing.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "needs.h"
#include "sshd.h"
#include "xmalloc.h"

#define GONE_MS		10000	/* a side ends by then, or it is left */
#define META_TASKS	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{" \
	"\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}"
#define ANSWER_MS	30000	/* a call through a link answers by then */

/* The world the hosts live in, made once for the suite. */
static struct {
	char		 dir[64];	/* 0755: bin, home, ns, ssh */
	char		 tmux[320];	/* the tmux the far sides run */
	struct sshd	 sshd;		/* box's, with its throwaway user */
	const char	*skip;		/* why the suite cannot run here */
	int		 serial;	/* hubs started, for their markers */
} w = { .sshd = { .pid = -1 } };

/* One hub of a test and its markers. */
struct hub {
	struct pmx	 c;
	char		 mark[128];	/* in the hosts' command lines */
	char		 box_env[160];	/* PMX_FAR=... of box's processes */
	char		 ns_env[160];	/* and of ns's */
	char		 calm_env[160];	/* and of calm's */
	char		 ssh[800];	/* ssh's words: in the link's argv */
	char		*hosts;		/* PROGMUX_HOSTS=... */
	bool		 open;
};

/* Copy src to dst, mode 0755. */
static int
copy_exec(const char *src, const char *dst)
{
	return (run_words("cp", src, dst, NULL) == 0 && chmod(dst, 0755) == 0 ?
	    0 : -1);
}

/* The binaries the far sides run, copied where the throwaway user may
 * run them (the tree may be under a directory only root can enter). */
static int
world_bin(void)
{
	char	 bin[300], src[600], dst[400], *real, *dir;
	const char *t = pmx_tmux_bin();

	snprintf(bin, sizeof bin, "%s/bin", w.dir);
	if (mkdir(bin, 0755) == -1)
		return (-1);
	real = realpath(getenv("PROGMUX_BIN") != NULL ?
	    getenv("PROGMUX_BIN") : "build/progmux", NULL);
	if (real == NULL)
		return (-1);
	dir = dirname(real);
	snprintf(src, sizeof src, "%s/progmux-reaper", dir);
	if (access(src, X_OK) == -1) {
		free(real);
		if ((real = realpath("build/progmux", NULL)) == NULL)
			return (-1);
		dir = dirname(real);
		snprintf(src, sizeof src, "%s/progmux-reaper", dir);
	}
	snprintf(dst, sizeof dst, "%s/progmux-reaper", bin);
	if (copy_exec(src, dst) == -1)
		goto fail;
	snprintf(src, sizeof src, "%s/progmux", dir);
	snprintf(dst, sizeof dst, "%s/progmux", bin);
	if (copy_exec(src, dst) == -1)
		goto fail;
	free(real);
	if (strchr(t, '/') != NULL) {
		snprintf(w.tmux, sizeof w.tmux, "%s/tmux", bin);
		return (copy_exec(t, w.tmux));
	}
	snprintf(w.tmux, sizeof w.tmux, "%s", t);
	return (0);

fail:
	free(real);
	return (-1);
}

/* Make the world, or say why it cannot be made here. */
static int
world_setup(void **state)
{
	char	 ssh[128], home[128], user[32], *cause;

	(void)state;
	/* A hub that died must not end the suite before its teardown. */
	signal(SIGPIPE, SIG_IGN);
	if ((w.skip = sshd_missing(true)) == NULL && run_words("unshare", "-m",
	    "-p", "-f", "--mount-proc", "true", NULL) != 0)
		w.skip = "unshare -m -p -f --mount-proc is not allowed here";
	if (w.skip != NULL)
		return (0);
	snprintf(w.dir, sizeof w.dir, "/tmp/progmux-hosts-XXXXXX");
	if (mkdtemp(w.dir) == NULL || chmod(w.dir, 0755) == -1)
		fail_msg("cannot make %s: %s", w.dir, strerror(errno));
	if (world_bin() == -1)
		fail_msg("cannot copy the binaries into %s/bin", w.dir);
	/* box's user, who exists only for its sshd. */
	snprintf(ssh, sizeof ssh, "%s/ssh", w.dir);
	snprintf(home, sizeof home, "%s/home", w.dir);
	snprintf(user, sizeof user, "pmxh%d", (int)getpid());
	if (sshd_start(&w.sshd, ssh, user, home, "ClientAliveInterval 5\n",
	    &cause) == -1)
		fail_msg("the sshd of box: %s", cause);
	return (0);
}

/* The world goes: sshd, its sessions, the directory. */
static int
world_teardown(void **state)
{
	(void)state;
	sshd_stop(&w.sshd);
	if (w.dir[0] != '\0')
		run_words("rm", "-rf", w.dir, NULL);
	return (0);
}

/* How many processes of a side are left: the far progmux, its tmux,
 * reapers, programs (by environment), and the hub's links to it (by
 * command line). */
static int
left(const struct hub *h)
{
	return (pmx_count_env(h->box_env) + pmx_count_env(h->ns_env) +
	    pmx_count_env(h->calm_env) + pmx_count_procs(h->mark));
}

/* Kill what is left of every side: the links (by the marker in their
 * command lines) and what the far progmux processes started (by their
 * environment, whoever their parent is now). */
static void
kill_left(const struct hub *h)
{
	pmx_kill_procs(h->mark);
	pmx_kill_env(h->box_env);
	pmx_kill_env(h->ns_env);
	pmx_kill_env(h->calm_env);
}

/*
 * This run's sleeps: sleep_s(k) seconds, nine digits unique to the run
 * (its pid), so that two runs of the suite on one machine never count
 * each other's programs; sleep_of(k), the command line to look for.
 */
static int
sleep_s(int k)
{
	return ((1000000 + (int)(getpid() % 1000000)) * 100 + k);
}

static const char *
sleep_of(int k)
{
	static char	buf[4][32];
	static int	i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "sleep %d", sleep_s(k));
	return (buf[i]);
}

static struct hub	 hub;		/* the running test's */
static struct hub	*open_hub;	/* it, until closed */

/* After each test: a hub a failed test left open is ended, and what it
 * left on any side killed, so that the next test starts clean. */
static int
hub_teardown(void **state)
{
	struct hub	*h = open_hub;

	(void)state;
	if (h == NULL)
		return (0);
	open_hub = NULL;
	if (h->open)
		pmx_close(&h->c);
	h->open = false;
	kill_left(h);
	free(h->hosts);
	h->hosts = NULL;
	return (0);
}

/* Start a hub with the three hosts; skips if the world is not here. */
static void
hub_open(struct hub *h)
{
	const char	*env[3];
	char		 ns[200];

	if (w.skip != NULL) {
		print_message("skipped: %s\n", w.skip);
		skip();
	}
	memset(h, 0, sizeof *h);
	snprintf(h->mark, sizeof h->mark, "%s/m%d", w.dir, ++w.serial);
	snprintf(h->box_env, sizeof h->box_env, "PMX_FAR=%s/box", h->mark);
	snprintf(h->ns_env, sizeof h->ns_env, "PMX_FAR=%s/ns", h->mark);
	snprintf(h->calm_env, sizeof h->calm_env, "PMX_FAR=%s/calm", h->mark);
	sshd_ssh(&w.sshd, h->ssh, sizeof h->ssh);
	snprintf(ns, sizeof ns, "%s/ns%d", w.dir, w.serial);
	assert_int_equal(mkdir(ns, 0700), 0);
	xasprintf(&h->hosts, "PROGMUX_HOSTS="
	    "box=exec %s -o ServerAliveInterval=15 env %s "
	    "TMPDIR=%s/home %s/bin/progmux --robust --tmux-bin %s\n"
	    "ns=exec unshare -m -p -f --mount-proc env %s TMPDIR=%s "
	    "%s/bin/progmux --robust --tmux-bin %s\n"
	    "calm=exec unshare -m -p -f --mount-proc env %s TMPDIR=%s "
	    "%s/bin/progmux --robust --tmux-bin %s --max-programs 1 "
	    "--tools start_program,send_keys\n"
	    "bad=exec %s/nonexistent/progmux --robust\n",
	    h->ssh, h->box_env, w.dir, w.dir, w.tmux,
	    h->ns_env, ns, w.dir, w.tmux, h->calm_env, ns, w.dir, w.tmux,
	    h->mark);
	env[0] = h->hosts;
	env[1] = NULL;
	assert_int_equal(pmx_open(&h->c, env), 0);
	h->open = true;
	open_hub = h;
}

/* Wait until nothing of a side is left; the test fails if something
 * is, and what is left is killed. */
static void
nothing_left(struct hub *h)
{
	int64_t	deadline = now_ms() + GONE_MS;
	int	n;

	while ((n = left(h)) > 0 && now_ms() < deadline)
		usleep(50000);
	if (n == 0)
		return;
	print_message("left: %d of box, %d of ns, %d of calm, %d links\n",
	    pmx_count_env(h->box_env), pmx_count_env(h->ns_env),
	    pmx_count_env(h->calm_env), pmx_count_procs(h->mark));
	kill_left(h);
	fail_msg("%d processes of the hosts or links left after %d ms", n,
	    GONE_MS);
}

/* End the hub (its input closed) and check nothing is left. */
static void
hub_close(struct hub *h)
{
	if (!h->open)
		return;
	h->open = false;
	assert_int_equal(pmx_close(&h->c), 0);
	nothing_left(h);
	open_hub = NULL;
	free(h->hosts);
	h->hosts = NULL;
}

/* A call that must succeed; its structured result checked. */
static struct json_doc *
ok(struct hub *h, const char *tool, const char *fmt, ...)
{
	char	*args;
	va_list	 ap;
	struct json_doc *d;

	va_start(ap, fmt);
	if (vasprintf(&args, fmt, ap) == -1)
		fail_msg("vasprintf");
	va_end(ap);
	d = sc_call_ok(&h->c, tool, args);
	free(args);
	return (d);
}

/* A call that must be a tool error whose text holds every needle (a
 * NULL-terminated list after the arguments). */
static void
err(struct hub *h, const char *tool, const char *args, ...)
{
	struct json_doc	*d = sc_call_err(&h->c, tool, args);
	const char	*needle;
	va_list		 ap;

	va_start(ap, args);
	while ((needle = va_arg(ap, const char *)) != NULL)
		if (strstr(pmx_text(d), needle) == NULL)
			fail_msg("%s %s: \"%s\" not in: %s", tool, args, needle,
			    pmx_text(d));
	va_end(ap);
	json_doc_free(d);
}

/* read_program id until its text holds needle (within ANSWER_MS). */
static void
read_until(struct hub *h, const char *id, const char *needle)
{
	char	*text = pmx_read_until(&h->c, id, needle, ANSWER_MS);

	if (text == NULL)
		fail_msg("%s never printed \"%s\"", id, needle);
	free(text);
}

/* The first process whose command line holds needle: its pid, its uid,
 * and whether it is in our PID namespace. */
static pid_t
proc_of(const char *needle, uid_t *uid, bool *our_ns)
{
	char	 path[64], self[64], link[64], *st, *u = NULL;
	size_t	 len;
	ssize_t	 n;
	pid_t	 pid;

	if ((pid = pmx_find_proc(needle)) == -1)
		return (-1);
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((st = pmx_read_file(path, &len)) == NULL ||
	    (u = strstr(st, "\nUid:")) == NULL)
		fail_msg("cannot read %s", path);
	*uid = (uid_t)strtoul(u + 5, NULL, 10);
	free(st);
	snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)pid);
	n = readlink(path, link, sizeof link - 1);
	assert_true(n > 0);
	link[n] = '\0';
	n = readlink("/proc/self/ns/pid", self, sizeof self - 1);
	assert_true(n > 0);
	self[n] = '\0';
	*our_ns = strcmp(link, self) == 0;
	return (pid);
}

/* The value of a string field of a list entry. */
static const char *
entry_str(const struct json *e, const char *key)
{
	const struct json	*v = json_get(e, key);

	return (json_type(v) == JSON_STRING ? json_str(v, NULL) : NULL);
}

/*
 * start_program on host (NULL: here) of a program that says its uid,
 * reads a line, says it, and sleeps in a process called "sleep N": its
 * programId (allocated), its paneId in *pane (allocated) if pane is not
 * NULL. Its result must say its host, and its ids carry it.
 */
static char *
started(struct hub *h, const char *host, int n, char **pane)
{
	struct json_doc	*d;
	char		 args[400], prefix[32], *id;

	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"echo uid=$(id "
	    "-u); read x; echo got=$x; exec sleep %d\"]%s%s%s}", n,
	    host ? ",\"host\":\"" : "", host ? host : "", host ? "\"" : "");
	d = sc_call_ok(&h->c, "start_program", args);
	id = xstrdup(sc_need_str(d, "programId"));
	if (pane != NULL)
		*pane = xstrdup(sc_need_str(d, "paneId"));
	if (host == NULL) {
		assert_null(strchr(id, ':'));
		assert_null(sc_get(d, "host"));
	} else {
		snprintf(prefix, sizeof prefix, "%s:p", host);
		assert_string_equal(sc_str(d, "host"), host);
		assert_true(strncmp(id, prefix, strlen(prefix)) == 0);
		snprintf(prefix, sizeof prefix, "%s:%%", host);
		assert_non_null(strstr(pmx_text(d), prefix));
	}
	json_doc_free(d);
	return (id);
}

/*
 * Pins: the same tools reach three machines. A program started with
 * host box runs as box's user, one with host ns in another PID
 * namespace, one without host here; their ids carry their host (box:p1,
 * ns:p1, p1) and their results say it; keys sent to box:%N and ns:%M
 * (often the same number: each machine numbers its own) reach each one's
 * and capture_pane shows each one's screen; list_programs spans the
 * three; stop_program and a resource read reach the far program.
 */
static void
test_hosts_ids(void **state)
{
	struct json_doc		*d, *l;
	const struct json	*progs, *e, *tools, *t;
	char			*box, *ns, *here, *bpane, *npane, args[256];
	char			 needle[64];
	uid_t			 uid;
	bool			 ours;
	size_t			 i, n;

	(void)state;
	hub_open(&hub);
	tools = list_tools(&hub.c, &l);
	t = json_get(json_get(json_get(find_tool(tools, "start_program"),
	    "inputSchema"), "properties"), "host");
	assert_non_null(strstr(json_str(json_get(t, "description"), NULL),
	    "Hosts: box, ns, calm, bad."));
	json_doc_free(l);

	box = started(&hub, "box", sleep_s(1), &bpane);
	ns = started(&hub, "ns", sleep_s(2), &npane);
	here = started(&hub, NULL, sleep_s(3), NULL);

	snprintf(needle, sizeof needle, "uid=%d", (int)w.sshd.uid);
	read_until(&hub, box, needle);
	read_until(&hub, ns, "uid=0");
	snprintf(args, sizeof args, "{\"paneId\":\"box:%s\",\"keys\":"
	    "\"hello\",\"enter\":true}", bpane);
	json_doc_free(ok(&hub, "send_keys", "%s", args));
	snprintf(args, sizeof args, "{\"paneId\":\"ns:%s\",\"keys\":"
	    "\"world\",\"enter\":true}", npane);
	json_doc_free(ok(&hub, "send_keys", "%s", args));
	read_until(&hub, box, "got=hello");
	read_until(&hub, ns, "got=world");
	d = ok(&hub, "capture_pane", "{\"paneId\":\"ns:%s\"}", npane);
	assert_non_null(strstr(sc_need_str(d, "text"), "got=world"));
	assert_null(strstr(sc_need_str(d, "text"), "got=hello"));
	json_doc_free(d);
	d = ok(&hub, "capture_pane", "{\"paneId\":\"box:%s\"}", bpane);
	assert_non_null(strstr(sc_need_str(d, "text"), "got=hello"));
	json_doc_free(d);

	/* Where each really runs. */
	assert_true(proc_of(sleep_of(1), &uid, &ours) > 0);
	assert_int_equal(uid, w.sshd.uid);
	assert_true(ours);
	assert_true(proc_of(sleep_of(2), &uid, &ours) > 0);
	assert_int_equal(uid, 0);
	assert_false(ours);
	assert_true(proc_of(sleep_of(3), &uid, &ours) > 0);
	assert_int_equal(uid, 0);
	assert_true(ours);

	d = ok(&hub, "list_programs", "{}");
	progs = sc_get(d, "programs");
	n = json_len(progs);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		e = json_at(progs, i);
		if (strcmp(entry_str(e, "programId"), box) == 0)
			assert_string_equal(entry_str(e, "host"), "box");
		else if (strcmp(entry_str(e, "programId"), ns) == 0)
			assert_string_equal(entry_str(e, "host"), "ns");
		else {
			assert_string_equal(entry_str(e, "programId"), here);
			assert_null(json_get(e, "host"));
		}
	}
	snprintf(needle, sizeof needle, "%s box:%s running", box, bpane);
	assert_non_null(strstr(pmx_text(d), needle));
	json_doc_free(d);

	/* A far program's output as a resource, through the hub. */
	snprintf(args, sizeof args, "{\"uri\":\"progmux://programs/%s/"
	    "output\"}", ns);
	assert_non_null(strstr(json_raw(request_ok(&hub.c, "resources/read",
	    args, &d), NULL), "got=world"));
	json_doc_free(d);

	d = ok(&hub, "stop_program", "{\"programId\":\"%s\"}", box);
	assert_true(sc_bool(d, "wasRunning"));
	json_doc_free(d);
	assert_int_equal(wait_none(sleep_of(1), GONE_MS), 0);
	assert_int_equal(wait_some(sleep_of(2), 1, ANSWER_MS), 1);
	free(box);
	free(ns);
	free(here);
	free(bpane);
	free(npane);
	hub_close(&hub);
}

/*
 * Pins: the model only names a host the person configured. A host not
 * configured, an id naming one, or ids naming two hosts are refused,
 * saying which hosts there are, and nothing runs here nor starts a link.
 */
static void
test_hosts_refused(void **state)
{
	struct json_doc	*d;

	(void)state;
	hub_open(&hub);
	err(&hub, "run_program", "{\"argv\":[\"touch\",\"/tmp/x\"],\"host\":"
	    "\"nope\"}", "no host named \"nope\"", "box, ns, calm, bad",
	    "Nothing was run", NULL);
	err(&hub, "read_program", "{\"programId\":\"nope:p1\"}",
	    "no host named \"nope\"", NULL);
	err(&hub, "send_keys", "{\"paneId\":\"nope:%1\",\"keys\":\"x\"}",
	    "no host named \"nope\"", NULL);
	err(&hub, "start_program", "{\"argv\":[\"true\"],\"host\":\"box\","
	    "\"fromPaneId\":\"ns:%1\"}", "different hosts", NULL);
	/* (A link of box that was never started.) */
	err(&hub, "read_program", "{\"programId\":\"box.7:p1\"}",
	    "no such program or pane: host box has had 0 links", NULL);
	err(&hub, "read_program", "{\"programId\":\"ns:p1\"}",
	    "host ns has had 0 links", NULL);
	d = ok(&hub, "list_programs", "{}");
	assert_int_equal(json_len(sc_get(d, "programs")), 0);
	assert_null(sc_get(d, "unreachableHosts"));
	json_doc_free(d);
	assert_int_equal(left(&hub), 0);	/* no link was started */
	hub_close(&hub);
}

/*
 * Pins: a host whose command cannot start is unreachable, with the
 * command's exit status and its last line of standard error; nothing is
 * run here instead; list_programs says it; the next call naming the
 * host tries a new link, which says the same.
 */
static void
test_hosts_fail_start(void **state)
{
	struct json_doc		*d;
	const struct json	*u;

	(void)state;
	hub_open(&hub);
	err(&hub, "run_program", "{\"argv\":[\"sh\",\"-c\",\"echo ran\"],"
	    "\"host\":\"bad\"}", "host bad is unreachable", "status 127",
	    "not found", NULL);
	d = ok(&hub, "list_programs", "{}");
	assert_int_equal(json_len(sc_get(d, "programs")), 0);
	u = json_at(sc_get(d, "unreachableHosts"), 0);
	assert_string_equal(entry_str(u, "host"), "bad");
	assert_non_null(strstr(entry_str(u, "why"), "status 127"));
	assert_non_null(strstr(pmx_text(d), "host bad: unreachable"));
	json_doc_free(d);
	err(&hub, "start_program", "{\"argv\":[\"true\"],\"host\":\"bad\"}",
	    "unreachable", "status 127", NULL);
	hub_close(&hub);
}

/*
 * Pins: ssh killed while a read waits on box: the read is answered at
 * once that box is unreachable (ssh killed by SIGKILL), never by this
 * machine; the far progmux, whose client is gone, ends its program at
 * once rather than after the read's 20 s; a later call for that
 * program says the same without starting a link; host box then starts
 * a new link whose ids say so (box.2:), and the old id never reaches
 * the new link's programs.
 */
static void
test_hosts_ssh_killed(void **state)
{
	struct json_doc	*d;
	char		*id, *id2, args[200];
	pid_t		 ssh;
	int64_t		 rid, t0;

	(void)state;
	hub_open(&hub);
	d = ok(&hub, "start_program", "{\"argv\":[\"sh\",\"-c\",\"echo ready; "
	    "exec sleep %d\"],\"host\":\"box\"}", sleep_s(4));
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	read_until(&hub, id, "ready");
	assert_true(pmx_count_env(hub.box_env) > 0);
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"cursor\":6,\"timeoutMs\":20000}}", id);
	rid = pmx_send(&hub.c, "tools/call", args);
	assert_true((ssh = pmx_find_proc(w.sshd.key)) > 0);
	usleep(200000);		/* (the read is there, waiting) */
	t0 = now_ms();
	assert_int_equal(kill(ssh, SIGKILL), 0);
	d = pmx_wait(&hub.c, rid, ANSWER_MS);
	assert_non_null(d);
	assert_true(pmx_is_error(d));
	assert_non_null(strstr(pmx_text(d), "host box is unreachable"));
	assert_non_null(strstr(pmx_text(d), "SIGKILL"));
	assert_true(now_ms() - t0 < 5000);
	json_doc_free(d);
	/* The far side: its client gone, it ends now, not in 20 s. */
	t0 = now_ms();
	while (pmx_count_env(hub.box_env) > 0 && now_ms() - t0 < GONE_MS)
		usleep(50000);
	assert_int_equal(pmx_count_env(hub.box_env), 0);
	assert_int_equal(pmx_count_procs(sleep_of(4)), 0);

	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	err(&hub, "read_program", args, "host box is unreachable", "SIGKILL",
	    NULL);
	assert_int_equal(pmx_find_proc(w.sshd.key), -1);	/* no new link */

	d = ok(&hub, "start_program", "{\"argv\":[\"sh\",\"-c\",\"echo again; "
	    "exec sleep %d\"],\"host\":\"box\"}", sleep_s(5));
	id2 = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	assert_true(strncmp(id2, "box.2:p", 7) == 0);
	read_until(&hub, id2, "again");
	err(&hub, "read_program", args, "host box is unreachable", NULL);
	free(id);
	free(id2);
	hub_close(&hub);
}

/*
 * Pins: the link's command killed while a call waits on calm (unshare,
 * whose child, the far progmux, lives on in its namespace; calm offers
 * no resources, so it tells the hub nothing of them): the call says
 * calm is unreachable; the far progmux, its input ended and its client
 * gone, ends its programs within a second or so (the hub asks every
 * call that may wait for progress, and the far side's next note finds
 * nobody reading), not when the call's 20 s wait is over (send_keys
 * waiting for a reply that a program with echo off, asleep, never
 * gives).
 */
static void
test_hosts_link_killed(void **state)
{
	struct json_doc	*d;
	char		*pane, args[200];
	pid_t		 link;
	int64_t		 rid;

	(void)state;
	hub_open(&hub);
	d = ok(&hub, "start_program", "{\"argv\":[\"sh\",\"-c\",\"stty -echo; "
	    "exec sleep %d\"],\"host\":\"calm\"}", sleep_s(11));
	pane = xstrdup(sc_need_str(d, "paneId"));
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"name\":\"send_keys\",\"arguments\":"
	    "{\"paneId\":\"calm:%s\",\"keys\":\"x\",\"enter\":true,"
	    "\"timeoutMs\":20000}}", pane);
	rid = pmx_send(&hub.c, "tools/call", args);
	assert_true(wait_some(sleep_of(11), 1, ANSWER_MS) >= 1);
	usleep(300000);		/* (the keys are typed, the reply waits) */
	/* (Only the link's command line holds the marker.) */
	assert_true((link = pmx_find_proc(hub.calm_env)) > 0);
	assert_int_equal(kill(link, SIGKILL), 0);
	d = pmx_wait(&hub.c, rid, ANSWER_MS);
	assert_non_null(d);
	assert_true(pmx_is_error(d));
	assert_non_null(strstr(pmx_text(d), "host calm is unreachable"));
	json_doc_free(d);
	nothing_left(&hub);	/* (within GONE_MS, half the call's wait) */
	free(pane);
	hub_close(&hub);
}

/*
 * Pins: the far progmux killed (its keeper and front, SIGKILL) while a
 * read waits on it: the read says box is unreachable with how its
 * command ended, and nothing of it is left there (where the port has a
 * parent-death signal, which a robust progmux's guarantee rests on:
 * elsewhere the test says it skipped that part).
 */
static void
test_hosts_far_killed(void **state)
{
	struct json_doc	*d;
	char		*id, args[200], far[400];
	int64_t		 rid;

	(void)state;
	hub_open(&hub);
	d = ok(&hub, "start_program", "{\"argv\":[\"sh\",\"-c\",\"echo ready; "
	    "exec sleep %d\"],\"host\":\"box\"}", sleep_s(6));
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	read_until(&hub, id, "ready");
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"cursor\":6,\"timeoutMs\":20000}}", id);
	rid = pmx_send(&hub.c, "tools/call", args);
	usleep(200000);
	snprintf(far, sizeof far, "%s/bin/progmux --robust", w.dir);
	assert_true(pmx_kill_procs(far) >= 2);	/* keeper and front */
	d = pmx_wait(&hub.c, rid, ANSWER_MS);
	assert_non_null(d);
	assert_true(pmx_is_error(d));
	assert_non_null(strstr(pmx_text(d), "host box is unreachable"));
	assert_non_null(strstr(pmx_text(d), "its command "));
	json_doc_free(d);
	free(id);
	if (!(osdep_features() & OSDEP_PARENT_DEATH)) {
		/* What a SIGKILLed robust progmux leaves is the port's. */
		kill_left(&hub);
		hub_close(&hub);
		PMX_NEED_PARENT_DEATH();
	}
	nothing_left(&hub);
	hub_close(&hub);
}

/*
 * Pins: a call cancelled here is cancelled there: a run_program on ns
 * (without keep, its id never given) whose request is cancelled stops
 * its program there. Before that, its progress comes through, named
 * with its host's id.
 */
static void
test_hosts_cancel(void **state)
{
	struct json_doc		*d;
	const struct json	*p;
	char			 line[400];
	int64_t			 rid, deadline;
	bool			 progress = false;

	(void)state;
	hub_open(&hub);
	snprintf(line, sizeof line, "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"sh\",\"-c\",\"echo tick; exec sleep "
	    "%d\"],\"host\":\"ns\",\"timeoutMs\":20000},\"_meta\":"
	    "{\"progressToken\":\"pt\"}}", sleep_s(7));
	rid = pmx_send(&hub.c, "tools/call", line);
	deadline = now_ms() + ANSWER_MS;
	while (!progress && now_ms() < deadline) {
		if ((d = pmx_next(&hub.c, 1000)) == NULL)
			continue;
		p = json_get(json_root(d), "params");
		if (json_type(json_get(p, "progressToken")) == JSON_STRING &&
		    strcmp(json_str(json_get(p, "progressToken"), NULL),
		    "pt") == 0 && json_type(json_get(p, "message")) ==
		    JSON_STRING && strstr(json_str(json_get(p, "message"),
		    NULL), "ns:p") != NULL)
			progress = true;
		json_doc_free(d);
	}
	assert_true(progress);
	assert_int_equal(wait_some(sleep_of(7), 1, ANSWER_MS), 1);
	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":%lld}}",
	    (long long)rid);
	send_line(&hub.c, line);
	assert_int_equal(wait_none(sleep_of(7), GONE_MS), 0);
	d = pmx_wait(&hub.c, rid, 500);	/* a cancelled call: no answer */
	assert_null(d);
	hub_close(&hub);
}

/*
 * Pins: a call on another host that waits becomes a task as a local one
 * does (2026-07-28, the tasks extension): tasks/get says how the far
 * program stands with its host's id (the far side's progress), and the
 * task's result is the far call's.
 */
static void
test_hosts_task(void **state)
{
	struct json_doc		*d;
	const struct json	*r;
	char			 params[512], *task;
	int64_t			 rid, deadline;
	bool			 named = false, done = false;

	(void)state;
	hub_open(&hub);
	snprintf(params, sizeof params, "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"sh\",\"-c\",\"echo start; sleep 3; "
	    "echo done\"],\"host\":\"ns\",\"timeoutMs\":20000}," META_TASKS
	    "}");
	rid = pmx_send(&hub.c, "tools/call", params);
	d = pmx_wait(&hub.c, rid, ANSWER_MS);
	assert_non_null(d);
	r = pmx_result(d);
	assert_string_equal(json_str(json_get(r, "resultType"), NULL), "task");
	task = xstrdup(json_str(json_get(r, "taskId"), NULL));
	json_doc_free(d);
	snprintf(params, sizeof params, "{\"taskId\":\"%s\"," META_TASKS "}",
	    task);
	deadline = now_ms() + ANSWER_MS;
	while (!done && now_ms() < deadline) {
		rid = pmx_send(&hub.c, "tasks/get", params);
		d = pmx_wait(&hub.c, rid, ANSWER_MS);
		assert_non_null(d);
		r = pmx_result(d);
		if (strstr(json_str(json_get(r, "statusMessage"), NULL),
		    "ns:p1") != NULL)
			named = true;
		if (strcmp(json_str(json_get(r, "status"), NULL),
		    "completed") == 0) {
			done = true;
			assert_non_null(strstr(json_raw(json_get(r, "result"),
			    NULL), "done"));
			assert_non_null(strstr(json_raw(json_get(r, "result"),
			    NULL), "\"programId\":\"ns:p1\""));
		}
		json_doc_free(d);
		if (!done)
			usleep(300000);
	}
	assert_true(done);
	assert_true(named);
	free(task);
	hub_close(&hub);
}

/*
 * Pins: a far progmux's log messages come through named with their
 * host: calm (at most one program there) refuses a second start, warns
 * of its ceiling, and the hub's client is told "calm: start refused".
 */
static void
test_hosts_messages(void **state)
{
	struct json_doc		*d;
	const struct json	*p;
	int64_t			 deadline;
	bool			 told = false;

	(void)state;
	hub_open(&hub);
	json_doc_free(ok(&hub, "start_program", "{\"argv\":[\"sleep\","
	    "\"3012\"],\"host\":\"calm\"}"));
	err(&hub, "start_program", "{\"argv\":[\"sleep\",\"3013\"],"
	    "\"host\":\"calm\"}", "PROGMUX_MAX_PROGRAMS", NULL);
	deadline = now_ms() + ANSWER_MS;
	while (!told && now_ms() < deadline) {
		if ((d = pmx_next(&hub.c, 1000)) == NULL)
			continue;
		p = json_get(json_root(d), "params");
		if (strcmp(json_str(json_get(json_root(d), "method"), NULL) ?
		    json_str(json_get(json_root(d), "method"), NULL) : "",
		    "notifications/message") == 0 &&
		    json_type(json_get(p, "data")) == JSON_STRING &&
		    strncmp(json_str(json_get(p, "data"), NULL),
		    "calm: start refused", 19) == 0)
			told = true;
		json_doc_free(d);
	}
	assert_true(told);
	hub_close(&hub);
}

/*
 * Programs on box, ns and here, a read waiting on box; then the hub is
 * ended by how (SIGTERM to it, or SIGKILL to its keeper and front at
 * once), and nothing of it may be left on any side: counted there.
 */
static void
hub_ended(bool abrupt)
{
	struct json_doc	*d;
	char		 args[200], *id;

	hub_open(&hub);
	d = ok(&hub, "start_program", "{\"argv\":[\"sh\",\"-c\",\"echo b; exec "
	    "sleep %d\"],\"host\":\"box\"}", sleep_s(8));
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	json_doc_free(ok(&hub, "start_program", "{\"argv\":[\"sleep\",\"%d\"],"
	    "\"host\":\"ns\"}", sleep_s(9)));
	json_doc_free(ok(&hub, "start_program", "{\"argv\":[\"sleep\","
	    "\"%d\"]}", sleep_s(10)));
	read_until(&hub, id, "b");
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"cursor\":2,\"timeoutMs\":20000}}", id);
	(void)pmx_send(&hub.c, "tools/call", args);
	assert_true(pmx_count_env(hub.box_env) >= 3);	/* far, tmux, ... */
	assert_true(pmx_count_env(hub.ns_env) >= 3);
	assert_int_equal(wait_some(sleep_of(8), 1, ANSWER_MS), 1);
	assert_int_equal(wait_some(sleep_of(9), 1, ANSWER_MS), 1);
	if (abrupt) {
		assert_true(hub.c.front > 0);
		assert_int_equal(kill(hub.c.front, SIGKILL), 0);
	}
	assert_int_equal(kill(hub.c.pid, abrupt ? SIGKILL : SIGTERM), 0);
	assert_true(pmx_wait_exit(&hub.c, 5000) != -1);
	nothing_left(&hub);
	assert_int_equal(pmx_count_procs(sleep_of(8)) +
	    pmx_count_procs(sleep_of(9)), 0);
	free(id);
	hub_close(&hub);
}

/* Pins: SIGTERM ends the hub at once, and with it every link: each far
 * progmux, its calls cancelled and its input closed, owes nothing and
 * ends its programs. */
static void
test_hosts_hub_ends(void **state)
{
	(void)state;
	hub_ended(false);
}

/* Pins: the hub killed outright (keeper and front, SIGKILL): its links
 * die with it (a parent-death signal), and each far progmux, its client
 * gone, ends its programs at once. */
static void
test_hosts_hub_killed(void **state)
{
	(void)state;
	hub_ended(true);
}

/*
 * A progmux run here, not through the harness (--check, the settings),
 * gets a TMPDIR of its own (the harness gives each progmux its own), so
 * that what it makes there (its runtime directory, the lease rendezvous)
 * is never left in /tmp: put in dir, taken back by tmpdir_end.
 */
static char	tmpdir_was[4096];	/* TMPDIR before, or "" */

static void
tmpdir_begin(char *dir, size_t len)
{
	const char	*was = getenv("TMPDIR");

	snprintf(tmpdir_was, sizeof tmpdir_was, "%s", was != NULL ? was : "");
	snprintf(dir, len, "/tmp/progmux-hosts-tmp-XXXXXX");
	if (mkdtemp(dir) == NULL)
		fail_msg("cannot make %s: %s", dir, strerror(errno));
	setenv("TMPDIR", dir, 1);
}

/* What progmux left in dir is only the lease rendezvous (shared by every
 * progmux of the user, by design): its runtime directory went with it.
 * Then dir goes, and TMPDIR is as it was. */
static void
tmpdir_end(const char *dir)
{
	struct dirent	*de;
	DIR		*d;
	char		 lease[64], left[256] = "";

	if (tmpdir_was[0] != '\0')
		setenv("TMPDIR", tmpdir_was, 1);
	else
		unsetenv("TMPDIR");
	snprintf(lease, sizeof lease, "progmux.lease.%ld", (long)getuid());
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 &&
			    strcmp(de->d_name, "..") != 0 &&
			    strcmp(de->d_name, lease) != 0)
				snprintf(left, sizeof left, "%s", de->d_name);
		closedir(d);
	}
	run_words("rm", "-rf", dir, NULL);
	if (left[0] != '\0')
		fail_msg("progmux left %s in its TMPDIR", left);
}

/* Pins: progmux --check tries each host: box and ns answer, bad does
 * not (status 127), and --check says so and exits 1; nothing is left. */
static void
test_hosts_check(void **state)
{
	char		*argv[4], *out, *bin, tmp[64];
	int		 status;

	(void)state;
	hub_open(&hub);
	bin = realpath(getenv("PROGMUX_BIN") != NULL ?
	    getenv("PROGMUX_BIN") : "build/progmux", NULL);
	assert_non_null(bin);
	putenv(hub.hosts);
	argv[0] = bin;
	argv[1] = (char *)"--check";
	argv[2] = NULL;
	tmpdir_begin(tmp, sizeof tmp);
	out = pmx_run_capture(argv, &status);
	tmpdir_end(tmp);
	unsetenv("PROGMUX_HOSTS");
	assert_non_null(out);
	assert_int_equal(status, 1);
	assert_non_null(strstr(out, "host box:"));
	assert_non_null(strstr(out, "answers: ok"));
	assert_non_null(strstr(out, "host bad:"));
	assert_non_null(strstr(out, "NOT USABLE: its command exited with "
	    "status 127"));
	if (strstr(strstr(out, "host ns:"), "answers: ok") == NULL)
		fail_msg("ns not usable: %s", out);
	free(out);
	free(bin);
	hub_close(&hub);
}

/* How many trials test_hosts_kills makes (PMX_HOSTS_TRIALS; make
 * test-long makes more). */
static int
trials(void)
{
	const char	*v = getenv("PMX_HOSTS_TRIALS");

	return (v != NULL && atoi(v) > 0 ? atoi(v) : 3);
}

/* The first process with needle in its command line, waited for (it may
 * not have started yet), or -1. */
static pid_t
await_proc(const char *needle)
{
	int64_t	deadline = now_ms() + ANSWER_MS;
	pid_t	pid;

	while ((pid = pmx_find_proc(needle)) == -1 && now_ms() < deadline)
		usleep(10000);
	return (pid);
}

/*
 * Pins, at random moments (a seeded xorshift: the seed is printed,
 * PMX_SEED=... replays it; PMX_HOSTS_TRIALS sets how many trials, make
 * test-long makes 100): a start_program on box or ns is sent, and 0-500
 * ms later (a third at once) the host's link command is killed, or its
 * far progmux (keeper and front), or the hub itself (keeper and front,
 * SIGKILL). The start is always answered while the hub lives: started,
 * or the host unreachable; never anything run here. Then nothing is left
 * on any side (after a far progmux's SIGKILL, only where the port has a
 * parent-death signal; elsewhere what is left is killed).
 */
static void
test_hosts_kills(void **state)
{
	uint64_t	 seed = pmx_seed();
	struct json_doc	*d;
	const char	*host;
	char		 args[200], far[300];
	int		 t, n = trials(), what, ms;
	int64_t		 rid;
	pid_t		 pid;

	(void)state;
	print_message("seed %llu (PMX_SEED replays it), %d trials\n",
	    (unsigned long long)seed, n);
	pmx_srand(seed);
	snprintf(far, sizeof far, "%s/bin/progmux --robust", w.dir);
	for (t = 0; t < n; t++) {
		hub_open(&hub);
		host = pmx_rand() % 2 == 0 ? "box" : "ns";
		what = (int)(pmx_rand() % 3);
		ms = pmx_rand() % 3 == 0 ? 0 : (int)(pmx_rand() % 500);
		snprintf(args, sizeof args, "{\"name\":\"start_program\","
		    "\"arguments\":{\"argv\":[\"sh\",\"-c\",\"echo up; exec "
		    "sleep %d\"],\"host\":\"%s\"}}", sleep_s(20), host);
		rid = pmx_send(&hub.c, "tools/call", args);
		usleep((useconds_t)ms * 1000);
		if (what == 2) {
			kill(hub.c.front, SIGKILL);
			kill(hub.c.pid, SIGKILL);
			assert_true(pmx_wait_exit(&hub.c, 5000) != -1);
			nothing_left(&hub);
			hub_close(&hub);
			continue;
		}
		pid = await_proc(what == 1 ? far : host[0] == 'b' ?
		    w.sshd.key : hub.ns_env);
		if (pid == -1)
			fail_msg("trial %d: nothing to kill of %s", t, host);
		if (what == 1)
			pmx_kill_procs(far);
		else
			kill(pid, SIGKILL);
		if ((d = pmx_wait(&hub.c, rid, ANSWER_MS)) == NULL)
			fail_msg("trial %d (%s, kill %d after %d ms): the start "
			    "was not answered", t, host, what, ms);
		if (pmx_is_error(d) && strstr(pmx_text(d), "is unreachable") ==
		    NULL && strstr(pmx_text(d), "is ending") == NULL)
			fail_msg("trial %d: %s", t, pmx_text(d));
		json_doc_free(d);
		json_doc_free(ok(&hub, "list_programs", "{}"));
		/* What a SIGKILLed robust progmux leaves is the port's where
		 * there is no parent-death signal (test_hosts_far_killed):
		 * a control client still attaching can stay. */
		if (what == 1 && !(osdep_features() & OSDEP_PARENT_DEATH))
			kill_left(&hub);
		hub_close(&hub);
	}
}

/* progmux with the arguments after status (and PROGMUX_HOSTS=env, if
 * not NULL): its output and standard error (allocated), *status. */
static char *
settings(const char *env, int *status, ...)
{
	char	*argv[10], *out, *bin, tmp[64];
	va_list	 ap;
	int	 n = 3;

	bin = realpath(getenv("PROGMUX_BIN") != NULL ?
	    getenv("PROGMUX_BIN") : "build/progmux", NULL);
	assert_non_null(bin);
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = (char *)"exec \"$0\" \"$@\" 2>&1";
	argv[3] = bin;
	va_start(ap, status);
	while (n < 9 && (argv[++n] = va_arg(ap, char *)) != NULL)
		;
	va_end(ap);
	argv[n] = NULL;
	if (env != NULL)
		setenv("PROGMUX_HOSTS", env, 1);
	tmpdir_begin(tmp, sizeof tmp);
	out = pmx_run_capture(argv, status);
	tmpdir_end(tmp);
	unsetenv("PROGMUX_HOSTS");
	free(bin);
	assert_non_null(out);
	return (out);
}

/*
 * Pins: hosts are the person's settings, checked at start: a name of
 * other characters, a host without a command, or one given twice is a
 * start-up error (exit 2) naming it; PROGMUX_HOSTS takes one a line
 * (blank lines and # comments passed over), and --host, given at all,
 * replaces it (--check lists what is in force). No world is needed.
 */
static void
test_hosts_settings(void **state)
{
	char	*out;
	int	 status;

	(void)state;
	out = settings(NULL, &status, "--host", "a b=true", NULL);
	assert_int_equal(status, 2);
	assert_non_null(strstr(out, "--host: \"a b=true\" is not NAME=COMMAND"));
	free(out);
	out = settings(NULL, &status, "--host", "a=", NULL);
	assert_int_equal(status, 2);
	assert_non_null(strstr(out, "host a has no command"));
	free(out);
	out = settings("a=true\na=false", &status, "--check", NULL);
	assert_int_equal(status, 2);
	assert_non_null(strstr(out, "PROGMUX_HOSTS: host a is given twice"));
	free(out);
	out = settings("# hosts\n\nx=exit 3\n", &status, "--check", NULL);
	assert_int_equal(status, 1);
	assert_non_null(strstr(out, "host x:"));
	assert_non_null(strstr(out, "exited with status 3"));
	free(out);
	out = settings("x=exit 3", &status, "--check", "--host", "y=exit 4",
	    NULL);
	assert_null(strstr(out, "host x:"));
	assert_non_null(strstr(out, "exited with status 4"));
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hosts_ids, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_refused, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_fail_start, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_ssh_killed, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_link_killed, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_far_killed, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_cancel, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_task, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_messages, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_hub_ends, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_hub_killed, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_check, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_kills, hub_teardown),
		cmocka_unit_test_teardown(test_hosts_settings, hub_teardown),
	};

	return (HARNESS_RUN("hosts", tests, world_setup, world_teardown));
}
