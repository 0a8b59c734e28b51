/*
 * test_death.c — nothing progmux starts outlives it, at any moment of any
 * death, and it leaves the tmux server it found as it found it.
 *
 * The front is killed with SIGKILL at random moments (a seeded xorshift;
 * the seed is printed, PMX_SEED=... replays it; PMX_DEATH_TRIALS sets how
 * many kills, `make test-long` runs many). After each, the process table
 * and tmux are checked, with bounded waits, for anything of that
 * instance's: its tmux control client, its reapers and launchers, its
 * programs, its idle window's process, its private server. Also here:
 * the session's own window runs progmux's idle process, never a shell;
 * the descriptor limit; the attach lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "client.h"
#include "needs.h"
#include "harness.h"
#include "xmalloc.h"

#define GONE_MS		10000	/* generous: the machine is shared */

static const char	*robust_env[] = { "PROGMUX_ROBUST=1", NULL };

/* What one progmux instance may have left, and how to find it. */
struct leftovers {
	char	needle[64];	/* its programs' command line */
	char	env[320];	/* TMPDIR=dir: every process it started */
	char	client[400];	/* its tmux -C client (desktop mode) */
	char	launch[320];	/* launchers and a private server */
	char	idle[64];	/* its idle process */
	pid_t	kids[64];	/* its children just before the kill */
	int	nkids;
};

static void
leftovers_init(struct leftovers *l, struct pmx *c, bool robust)
{
	snprintf(l->needle, sizeof l->needle, "sleep 3%06d",
	    (int)getpid() % 1000000);
	snprintf(l->env, sizeof l->env, "TMPDIR=%s", c->dir);
	/* desktop: tmux -S SOCK -C ...; robust: everything under DIR/progmux- */
	if (robust)
		snprintf(l->client, sizeof l->client, "%s/progmux-", c->dir);
	else
		snprintf(l->client, sizeof l->client, "%s -C ", c->sock);
	snprintf(l->launch, sizeof l->launch, "%s/progmux-", c->dir);
	snprintf(l->idle, sizeof l->idle, "--idle %ld ", (long)c->front);
	l->nkids = 0;
}

/* What a kill trial kills: the front, the process the client started
 * (the keeper: the front then exits in order), or both at once. */
enum kill_target { KILL_FRONT, KILL_KEEPER, KILL_BOTH };

/* SIGKILL the front (or the keeper, or both), noting its children
 * first. */
static void
kill_front_as(struct pmx *c, struct leftovers *l, enum kill_target how)
{
	l->nkids = pmx_children(c->front, l->kids, 64);
	if (how != KILL_KEEPER)
		kill(c->front, SIGKILL);
	if (how != KILL_FRONT)
		kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	c->pid = -1;
}

static void
kill_front(struct pmx *c, struct leftovers *l)
{
	kill_front_as(c, l, KILL_FRONT);
}

/*
 * Wait until deadline (now_ms) until nothing of the killed instance is
 * left: no tmux client, no child of it alive, no process started with
 * its TMPDIR, no launcher, no program, no idle process, and in desktop
 * mode no pane outside the harness's own session. Fails naming what is
 * left; else how long it waited.
 */
static int64_t
all_gone_by(struct pmx *c, struct leftovers *l, bool robust, bool dirs_too,
    int64_t deadline)
{
	int64_t	t0 = now_ms();
	int	progs, envs, client, launch, idle, kids, panes, dirs, spools;
	int	k;

	for (;;) {
		progs = pmx_count_procs(l->needle);
		envs = pmx_count_env(l->env);
		client = pmx_count_procs(l->client);
		launch = pmx_count_procs(l->launch);
		idle = pmx_count_procs(l->idle);
		for (kids = 0, k = 0; k < l->nkids; k++)
			if (pmx_alive(l->kids[k]))
				kids++;
		panes = robust ? 0 : foreign_panes(c);
		dirs = dirs_too ? count_rundirs(c) : 0;
		spools = dirs_too ? count_spools(c->dir) : 0;
		if (progs + envs + client + launch + idle + kids + panes +
		    dirs + spools == 0)
			return (now_ms() - t0);
		if (now_ms() > deadline)
			fail_msg("%s: left after %lld ms: %d programs, %d "
			    "processes with its TMPDIR, %d tmux clients, %d "
			    "launchers or private servers, %d idle, %d "
			    "children, %d panes, %d runtime directories, %d "
			    "spools", robust ? "robust" : "desktop",
			    (long long)(now_ms() - t0), progs, envs, client,
			    launch, idle, kids, panes, dirs, spools);
		usleep(20000);
	}
}

/* The same, within GONE_MS. */
static int64_t
assert_all_gone(struct pmx *c, struct leftovers *l, bool robust,
    bool dirs_too)
{
	return (all_gone_by(c, l, robust, dirs_too, now_ms() + GONE_MS));
}

/*
 * Killed together before anything else of theirs ran (the session's
 * placeholder window, a reaper), the keeper and the front can leave
 * their runtime directory: the next progmux in that TMPDIR removes it
 * (it is provably dead: its lock held by nobody), and its own at exit.
 */
static void
assert_swept(struct pmx *c, bool robust)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", NULL };

	if (count_rundirs(c) == 0)
		return;
	print_message("a runtime directory left; the next start sweeps it\n");
	assert_int_equal(pmx_spawn(c, robust ? env : NULL, true), 0);
	close(c->to);
	c->to = -1;
	assert_int_equal(pmx_wait_exit(c, 10000), 0);
	assert_int_equal(count_rundirs(c), 0);
	assert_int_equal(count_spools(c->dir), 0);
}

/*
 * Start `exec NEEDLE` under c's progmux, then end progmux: by stdin EOF
 * (it must exit 0) or by SIGKILL.
 */
static void
start_then_end(struct pmx *c, struct leftovers *l, bool eof)
{
	char	 args[200], *id;

	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"exec %s\"]}",
	    l->needle);
	id = pmx_start_program(c, args, NULL);
	assert_non_null(id);
	free(id);
	if (eof) {
		close(c->to);
		c->to = -1;
		assert_int_equal(pmx_wait_exit(c, 10000), 0);
	} else
		kill_front(c, l);
}

/*
 * Desktop: kill-server ends the harness's server (no client holds it).
 * Its own exit status is not the point: a server that exits before it
 * answers makes the client say "server exited unexpectedly". The server's
 * processes going is.
 */
static void
assert_server_killable(struct pmx *c)
{
	int64_t	 t0 = now_ms();
	char	*out;
	size_t	 n;

	/* First, the person's server is still there, its session too. */
	out = pmx_tmux(c, "has-session", "-t", "=base", NULL);
	if (out == NULL) {
		/* Which of the two, for whoever reads the failure: the
		 * server's processes (a crash of tmux leaves none), its
		 * sessions, and what progmux said last. */
		out = pmx_tmux(c, "list-sessions", "-F", "#{session_name}",
		    NULL);
		pmx_drain_err(c);
		n = c->errlog.len > 600 ? 600 : c->errlog.len;
		fail_msg("the harness's tmux server or its session is gone: "
		    "%d processes of its directory left, sessions: %s; "
		    "progmux's stderr ends: %.*s", pmx_count_procs(c->dir),
		    out != NULL ? out : "(no server answers)", (int)n,
		    n > 0 ? c->errlog.data + c->errlog.len - n : "");
	}
	free(out);
	free(pmx_tmux(c, "kill-server", NULL));
	while (pmx_count_procs(c->dir) > 0) {
		if (now_ms() - t0 > GONE_MS)
			fail_msg("the tmux server outlived kill-server: %d "
			    "processes", pmx_count_procs(c->dir));
		usleep(20000);
	}
}

static int64_t
send_initialize(struct pmx *c)
{
	return (pmx_send(c, "initialize", "{\"protocolVersion\":"
	    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":"
	    "\"progmux-tests\",\"version\":\"1\"}}"));
}

/* Send n start_program calls without waiting for them. */
static void
send_starts(struct pmx *c, struct leftovers *l, int n)
{
	char	args[200];
	int	i;

	for (i = 0; i < n; i++) {
		snprintf(args, sizeof args, "{\"name\":\"start_program\","
		    "\"arguments\":{\"argv\":[\"sh\",\"-c\",\"trap '' HUP; "
		    "exec %s\"]}}", l->needle);
		pmx_send(c, "tools/call", args);
	}
}

static int
trials(void)
{
	const char	*v = getenv("PMX_DEATH_TRIALS");

	return (v != NULL && atoi(v) > 0 ? atoi(v) : 5);
}

/*
 * Kills at random moments, 0-500 ms after initialize (a third of them at
 * 0 ms), with 0, 1 or 3 start_program calls in flight; in turn the
 * front, the process the client started (the keeper), or both. Desktop mode (the
 * harness's server) or robust mode; in robust mode every other kill is
 * timed from the spawn itself, 0-100 ms (while the private server starts
 * and its first client attaches). After
 * each: nothing of the instance is left (assert_all_gone), and in
 * desktop mode kill-server then ends the server.
 */
static void
kill_trials(bool robust)
{
	static const int	 nprog[] = { 0, 1, 3 };
	struct pmx		 c;
	struct leftovers	 l;
	struct json_doc		*d;
	uint64_t		 seed = pmx_seed();
	int			 t, n, ms, from_spawn, nt = trials();
	int64_t			 init, took, worst = 0;

	print_message("%s: %d kills, seed PMX_SEED=%llu\n", robust ?
	    "robust" : "desktop", nt, (unsigned long long)seed);
	pmx_srand(seed);
	for (t = 0; t < nt; t++) {
		n = nprog[pmx_rand() % 3];
		from_spawn = robust && t % 2 == 0;
		/* A third at once: the client is still attaching then. */
		ms = pmx_rand() % 3 == 0 ? 0 : (int)(pmx_rand() %
		    (from_spawn ? 101 : 501));
		if (robust) {
			assert_int_equal(pmx_open_bare(&c, robust_env), 0);
			init = send_initialize(&c);
			if (!from_spawn) {
				d = pmx_wait(&c, init, 10000);
				assert_non_null(d);
				json_doc_free(d);
			}
		} else
			assert_int_equal(pmx_open(&c, NULL), 0);
		leftovers_init(&l, &c, robust);
		send_starts(&c, &l, n);
		if (ms > 0)
			usleep((useconds_t)ms * 1000);
		print_message("trial %d: %d starts, %d ms%s, killing %s\n", t,
		    n, ms, from_spawn ? " from the spawn" : "", t % 3 ==
		    KILL_FRONT ? "the front" : t % 3 == KILL_KEEPER ?
		    "the keeper" : "both");
		kill_front_as(&c, &l, (enum kill_target)(t % 3));
		took = assert_all_gone(&c, &l, robust, t % 3 != KILL_BOTH);
		if (took > worst)
			worst = took;
		if (t % 3 == KILL_BOTH)
			assert_swept(&c, robust);
		if (!robust)
			assert_server_killable(&c);
		pmx_close(&c);
	}
	print_message("%s: everything gone at most %lld ms after a kill "
	    "(looked at every 20 ms)\n", robust ? "robust" : "desktop",
	    (long long)worst);
}

static void
test_kill_desktop(void **state)
{
	(void)state;
	PMX_NEED_PARENT_DEATH();
	kill_trials(false);
}

static void
test_kill_robust(void **state)
{
	(void)state;
	PMX_NEED_PARENT_DEATH();
	kill_trials(true);
}

/* --- programs on a lease --------------------------------------------- */

#define LEASE_GRACE_MS	2000
#define LEASE_PROGS	2

static const char	*lease_env[] = { "PROGMUX_ORPHAN_GRACE_MS=2000", NULL };

/* What the front is doing when a lease trial kills it. */
enum lease_moment { DURING_OUTPUT, DURING_READ, DURING_START, DURING_STOP };
static const char	*lease_moment_name[] = { "output", "a read",
			    "a start", "a stop" };

/* What the lease trials saw, for the figures. */
struct lease_figures {
	int	adoptions;	/* programs adopted */
	size_t	compared;	/* bytes of text compared across a kill */
	int	ended;		/* trials ended without a new front */
	int64_t	worst_end;	/* the longest from a kill to nothing left */
};

/* Start a counter of l's needle, lifetime 10 min: its id. */
static char *
lease_counter(struct pmx *c, struct leftovers *l)
{
	char	 args[400], *id;

	counter_args(args, sizeof args, l->needle, "\"lifetimeMs\":600000");
	id = pmx_start_program(c, args, NULL);
	assert_non_null(id);
	return (id);
}

/* Send what the front is to be doing at the kill (no waiting for it). */
static void
lease_moment(struct pmx *c, struct leftovers *l, enum lease_moment m,
    char **ids)
{
	char	args[600], inner[400];

	switch (m) {
	case DURING_OUTPUT:
		break;		/* they print every 20 ms */
	case DURING_READ:
		snprintf(args, sizeof args, "{\"name\":\"read_program\","
		    "\"arguments\":{\"programId\":\"%s\",\"until\":\"never "
		    "printed\",\"timeoutMs\":20000}}", ids[0]);
		pmx_send(c, "tools/call", args);
		break;
	case DURING_START:
		counter_args(inner, sizeof inner, l->needle, NULL);
		snprintf(args, sizeof args, "{\"name\":\"start_program\","
		    "\"arguments\":%s}", inner);
		pmx_send(c, "tools/call", args);
		break;
	case DURING_STOP:
		snprintf(args, sizeof args, "{\"name\":\"stop_program\","
		    "\"arguments\":{\"programId\":\"%s\"}}", ids[1]);
		pmx_send(c, "tools/call", args);
		break;
	}
}

/* Programs not ended in a list document. */
static int
lease_running(const struct json_doc *d)
{
	const struct json	*progs = sc_get(d, "programs");
	size_t			 i;
	int			 n = 0;

	for (i = 0; i < json_len(progs); i++)
		n += !json_bool(json_get(json_at(progs, i), "ended"));
	return (n);
}

/*
 * A new front, within the grace, adopts every program the old one had
 * told of (the stopped one, if its end came first, may be gone): the
 * same argv, start and lifetime deadline, its text from cursor 0 the
 * bytes read before the kill and more; a program still being started
 * is adopted too, or is gone with everything of its own by the grace
 * + 1 s. Then every program is stopped, that front ends, and nothing
 * is left.
 */
static void
lease_adopted(struct pmx *c, struct leftovers *l, enum lease_moment m,
    char **ids, char **before, struct json_doc *l1, int64_t b1,
    int64_t a1, int64_t killed, struct lease_figures *fig)
{
	struct json_doc		*l2;
	const struct json	*e1, *e2, *progs;
	char			*after, args[100];
	int64_t			 b2, a2, cursor;
	size_t			 i;
	int			 k;

	assert_int_equal(pmx_spawn(c, NULL, true), 0);
	l2 = list_timed(c, &b2, &a2);
	for (k = 0; k < LEASE_PROGS; k++) {
		e1 = entry_of(l1, ids[k]);
		e2 = entry_of(l2, ids[k]);
		if (e2 == NULL && m == DURING_STOP && k == 1)
			continue;	/* its end was told first */
		if (e2 == NULL)
			fail_msg("%s (killed during %s) was not adopted",
			    ids[k], lease_moment_name[m]);
		assert_true(json_bool(json_get(e2, "adopted")));
		assert_true(json_equal(json_get(e1, "argv"),
		    json_get(e2, "argv")));
		assert_string_equal(json_str(json_get(e1, "startedAt"), NULL),
		    json_str(json_get(e2, "startedAt"), NULL));
		assert_deadline_kept(ids[k], e1, b1, a1, e2, b2, a2);
		after = read_now(c, ids[k], 0, &cursor);
		if (strncmp(after, before[k], strlen(before[k])) != 0)
			fail_msg("%s: the text from 0 is not what was read "
			    "before the kill (%zu bytes): \"%.80s\"", ids[k],
			    strlen(before[k]), after);
		fig->compared += strlen(before[k]);
		free(after);
	}
	/* Whatever is listed is adopted (a start in flight too); what is
	 * not listed is gone by the grace + 1 s: no more processes of the
	 * programs than programs listed not ended. */
	progs = sc_get(l2, "programs");
	for (i = 0; i < json_len(progs); i++)
		assert_true(json_bool(json_get(json_at(progs, i),
		    "adopted")));
	fig->adoptions += (int)json_len(progs);
	while (pmx_count_procs(l->needle) > lease_running(l2)) {
		if (now_ms() > killed + LEASE_GRACE_MS + 1000)
			fail_msg("%d processes of the programs, %d listed "
			    "running, at the grace + 1 s",
			    pmx_count_procs(l->needle), lease_running(l2));
		usleep(20000);
	}
	for (i = 0; i < json_len(progs); i++) {
		snprintf(args, sizeof args, "{\"programId\":\"%s\"}",
		    json_str(json_get(json_at(progs, i), "programId"), NULL));
		json_doc_free(sc_call_ok(c, "stop_program", args));
	}
	json_doc_free(l2);
	close(c->to);
	c->to = -1;
	assert_int_equal(pmx_wait_exit(c, 10000), 0);
	assert_all_gone(c, l, false, true);
}

/*
 * Desktop mode with a grace of 2 s: the front killed at a random moment
 * (0-200 ms into output, a read, a start or a stop; the moments in turn),
 * with two programs printing; then every other time (by turns, so each
 * moment gets both) a new front adopts them (lease_adopted), or none
 * comes and everything is gone by the grace + 1 s.
 */
static void
test_kill_lease(void **state)
{
	struct pmx		 c;
	struct leftovers	 l;
	struct lease_figures	 fig;
	struct json_doc		*l1;
	uint64_t		 seed = pmx_seed();
	char			*ids[LEASE_PROGS], *before[LEASE_PROGS];
	int64_t			 b1, a1, cursor, killed, took;
	int			 t, k, ms, nt = trials();
	enum lease_moment	 m;
	bool			 adopt;

	(void)state;
	PMX_NEED_PARENT_DEATH();
	memset(&fig, 0, sizeof fig);
	print_message("lease: %d kills, seed PMX_SEED=%llu\n", nt,
	    (unsigned long long)seed);
	pmx_srand(seed);
	for (t = 0; t < nt; t++) {
		m = (enum lease_moment)(t % 4);
		adopt = (t / 4 + t) % 2 == 0;
		ms = (int)(pmx_rand() % (m == DURING_OUTPUT ? 201 : 51));
		assert_int_equal(pmx_open(&c, lease_env), 0);
		leftovers_init(&l, &c, false);
		for (k = 0; k < LEASE_PROGS; k++)
			ids[k] = lease_counter(&c, &l);
		free(pmx_read_until(&c, ids[LEASE_PROGS - 1], "line 2\n",
		    20000));
		for (k = 0; k < LEASE_PROGS; k++)
			before[k] = read_now(&c, ids[k], 0, &cursor);
		l1 = list_timed(&c, &b1, &a1);
		lease_moment(&c, &l, m, ids);
		if (ms > 0)
			usleep((useconds_t)ms * 1000);
		print_message("trial %d: killed %d ms into %s, %s\n", t, ms,
		    lease_moment_name[m], adopt ? "adopted" : "no new front");
		killed = now_ms();
		kill_front(&c, &l);
		pmx_kill_front(&c);	/* (our ends of its pipes) */
		if (adopt)
			lease_adopted(&c, &l, m, ids, before, l1, b1, a1,
			    killed, &fig);
		else {
			(void)all_gone_by(&c, &l, false, true, killed +
			    LEASE_GRACE_MS + 1000);
			took = now_ms() - killed;
			if (took > fig.worst_end)
				fig.worst_end = took;
			fig.ended++;
		}
		json_doc_free(l1);
		for (k = 0; k < LEASE_PROGS; k++) {
			free(ids[k]);
			free(before[k]);
		}
		assert_server_killable(&c);
		pmx_close(&c);
	}
	print_message("lease: %d programs adopted, %zu bytes of text "
	    "compared across a kill; %d trials without a new front, "
	    "everything gone at most %lld ms after the kill (grace %d ms)\n",
	    fig.adoptions, fig.compared, fig.ended,
	    (long long)fig.worst_end, LEASE_GRACE_MS);
}

/* A descriptor of a reaper at rest that is not 0, 1, 2 or an exit
 * descriptor (its parent's pidfd or kqueue), said. */
static int
other_fd(const struct pmx_fd *f)
{
	if (f->fd <= 2 || f->kind == 'x')
		return (0);
	print_message("idle fd %d -> %s\n", f->fd, f->what);
	return (1);
}

/*
 * The session progmux makes: its first window runs progmux-reaper
 * --idle FRONTPID (never a shell), which holds no descriptor but 0, 1, 2
 * (and its pidfd), and goes when progmux exits.
 */
static void
idle_window(bool robust)
{
	struct pmx	 c;
	char		*sock, *out = NULL, cmd[4096], want[64];
	char		 pane[32], *screen;
	int64_t		 t0;
	long		 pid = 0;
	ssize_t		 len;

	if (robust)
		assert_int_equal(pmx_open_no_tmux(&c, robust_env), 0);
	else
		assert_int_equal(pmx_open(&c, NULL), 0);
	sock = socket_of(&c);
	snprintf(want, sizeof want, "/progmux-reaper --idle %ld ",
	    (long)c.front);
	/*
	 * Until tmux's child for the pane has exec'd, it shows the server's
	 * own command line: wait (bounded) for the exec.
	 */
	t0 = now_ms();
	for (;;) {
		free(out);
		cmd[0] = '\0';
		if ((out = pmx_tmux_at(sock, "list-windows", "-t", "=progmux",
		    "-F", "#{pane_pid} #{pane_id} #{pane_current_command}",
		    NULL)) != NULL && sscanf(out, "%ld %31s", &pid, pane) == 2) {
			if ((len = pmx_cmdline((pid_t)pid, cmd,
			    sizeof cmd)) > 0)
				for (ssize_t i = 0; i < len; i++)
					if (cmd[i] == '\0')
						cmd[i] = ' ';
			if (strstr(cmd, want) != NULL &&
			    strstr(out, "progmux-reaper") != NULL)
				break;
		}
		if (now_ms() - t0 > GONE_MS)
			fail_msg("the first window runs \"%s\" (%s)", cmd,
			    out != NULL ? out : "no session progmux");
		usleep(20000);
	}
	/*
	 * Its banner is written once it has closed what it inherited and
	 * opened its pidfd: look at its descriptors from then on, not in
	 * the moment after its exec (a sanitizer's runtime opens files then).
	 */
	t0 = now_ms();
	while ((screen = pmx_tmux_at(sock, "capture-pane", "-p", "-t", pane,
	    NULL)) == NULL || strstr(screen, "keeps this session") == NULL) {
		free(screen);
		if (now_ms() - t0 > GONE_MS)
			fail_msg("the idle process in %s wrote no banner", pane);
		usleep(20000);
	}
	free(screen);
	assert_int_equal(count_fds((pid_t)pid, other_fd), 0);
	free(out);
	/* It goes with progmux. */
	close(c.to);
	c.to = -1;
	assert_int_equal(pmx_wait_exit(&c, 10000), 0);
	t0 = now_ms();
	while (pmx_alive((pid_t)pid)) {
		if (now_ms() - t0 > GONE_MS)
			fail_msg("the idle process outlived progmux");
		usleep(20000);
	}
	free(sock);
	pmx_close(&c);
}

static void
test_idle_window_desktop(void **state)
{
	(void)state;
	idle_window(false);
}

static void
test_idle_window_robust(void **state)
{
	(void)state;
	idle_window(true);
}

/* Wait (bounded) until no tmux server answers on c's socket and no
 * process of the harness's directory is left. */
static void
assert_no_server(struct pmx *c, const char *when)
{
	char	*out;
	int64_t	 t0 = now_ms();

	for (;;) {
		out = pmx_tmux(c, "list-sessions", NULL);
		if (out == NULL && pmx_count_procs(c->dir) == 0)
			return;
		if (now_ms() - t0 > GONE_MS)
			fail_msg("after %s a tmux server is left on a socket "
			    "where none ran: %s", when, out ? out : "");
		free(out);
		usleep(20000);
	}
}

/*
 * Desktop mode on a socket where no server ran: after progmux's exit
 * (stdin EOF, then SIGKILL), with a program running, no tmux server is
 * left there.
 */
static void
test_leave_fresh_socket(void **state)
{
	struct pmx		 c;
	struct leftovers	 l;
	int			 round;

	(void)state;
	PMX_NEED_PARENT_DEATH();
	for (round = 0; round < 2; round++) {
		assert_int_equal(pmx_open_no_tmux(&c, NULL), 0);
		leftovers_init(&l, &c, false);
		start_then_end(&c, &l, round == 0);
		assert_no_server(&c, round == 0 ? "stdin EOF" : "SIGKILL");
		assert_int_equal(pmx_count_procs(l.needle), 0);
		pmx_close(&c);
	}
}

/*
 * A server with the person's sessions: "base" and their own "progmux"
 * (which progmux then only attaches to), each with a window of theirs.
 * After progmux exits (EOF, then SIGKILL) with a program of its own in
 * "progmux", every one of their windows is still there and progmux's
 * is gone.
 */
static void
test_leave_user_sessions(void **state)
{
	struct pmx		 c;
	struct leftovers	 l;
	char			*before, *after, *out;
	int64_t			 t0;
	int			 round;

	(void)state;
	PMX_NEED_PARENT_DEATH();
	assert_int_equal(pmx_open(&c, NULL), 0);
	/* This progmux made its own session; end it before theirs exists. */
	close(c.to);
	c.to = -1;
	assert_int_equal(pmx_wait_exit(&c, 10000), 0);
	free(pmx_tmux(&c, "kill-session", "-t", "=progmux", NULL));
	out = pmx_tmux(&c, "new-session", "-d", "-s", "progmux", "-n",
	    "theirs", "cat", "-", NULL);
	assert_non_null(out);
	free(out);
	out = pmx_tmux(&c, "new-window", "-d", "-t", "=base:", "-n", "mine",
	    "cat", "-", NULL);
	assert_non_null(out);
	free(out);
	before = pmx_tmux(&c, "list-windows", "-a", "-F",
	    "#{session_name} #{window_id} #{window_name}", NULL);
	assert_non_null(before);
	for (round = 0; round < 2; round++) {
		assert_int_equal(pmx_spawn(&c, NULL, true), 0);
		leftovers_init(&l, &c, false);
		start_then_end(&c, &l, round == 0);
		close(c.from);
		close(c.err);
		if (c.to != -1)
			close(c.to);
		c.to = c.from = c.err = -1;
		/* Our program's window goes; theirs stay, exactly. */
		t0 = now_ms();
		for (;;) {
			after = pmx_tmux(&c, "list-windows", "-a", "-F",
			    "#{session_name} #{window_id} #{window_name}",
			    NULL);
			assert_non_null(after);
			if (strcmp(after, before) == 0 &&
			    pmx_count_procs(l.needle) == 0 &&
			    pmx_count_env(l.env) == 0)
				break;
			if (now_ms() - t0 > GONE_MS)
				fail_msg("windows before:\n%safter:\n%s",
				    before, after);
			free(after);
			usleep(20000);
		}
		free(after);
	}
	free(before);
	pmx_close(&c);
}

/*
 * progmux under a descriptor limit of soft and hard: robust mode in round
 * 0, desktop mode in round 1 (on a fresh socket, or on the test's private
 * tmux server when tmux).
 */
static void
open_limited(struct pmx *c, int round, unsigned long soft,
    unsigned long hard, bool tmux)
{
	pmx_set_nofile(soft, hard);
	if (round == 0)
		assert_int_equal(pmx_open_no_tmux(c, robust_env), 0);
	else if (tmux)
		assert_int_equal(pmx_open(c, NULL), 0);
	else
		assert_int_equal(pmx_open_no_tmux(c, NULL), 0);
	pmx_set_nofile(0, 0);
}

/*
 * A hard descriptor limit of 12, robust mode and desktop mode on a
 * fresh socket: start_program is a clear error naming RLIMIT_NOFILE and
 * ulimit -n, and no tmux server or client is left running (none wedged).
 */
static void
test_nofile_hard(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	int		 round;

	(void)state;
	for (round = 0; round < 2; round++) {
		open_limited(&c, round, 12, 12, false);
		d = pmx_call(&c, "start_program", "{\"argv\":[\"true\"]}",
		    15000);
		assert_non_null(d);
		assert_true(pmx_is_error(d));
		if (strstr(pmx_text(d), "RLIMIT_NOFILE") == NULL ||
		    strstr(pmx_text(d), "ulimit -n") == NULL)
			fail_msg("%s", pmx_text(d));
		json_doc_free(d);
		assert_int_equal(pmx_count_procs(c.dir), 0);
		close(c.to);
		c.to = -1;
		assert_int_equal(pmx_wait_exit(&c, 10000), 0);
		assert_int_equal(pmx_count_procs(c.dir), 0);
		pmx_close(&c);
	}
}

/* A soft limit of 12 under a high hard one: programs start and run. */
static void
test_nofile_soft(void **state)
{
	struct pmx	 c;
	char		*ids[3], *text;
	int		 i, round;

	(void)state;
	for (round = 0; round < 2; round++) {
		open_limited(&c, round, 12, 4096, true);
		for (i = 0; i < 3; i++) {
			ids[i] = pmx_start_program(&c, "{\"argv\":[\"sh\","
			    "\"-c\",\"sleep 1; echo ok\"]}", NULL);
			assert_non_null(ids[i]);
		}
		for (i = 0; i < 3; i++) {
			text = pmx_read_all(&c, ids[i], 20000, NULL);
			assert_string_equal(text, "ok\n");
			free(text);
			free(ids[i]);
		}
		assert_int_equal(pmx_close(&c), 0);
	}
}

/*
 * A progmux on c started and ended at once, its directory kept for the
 * next (pmx_spawn on c); that one's TMUX_TMPDIR=DIR/tt in ttenv, and the
 * attach lock's path in it in lock.
 */
static void
lock_setup(struct pmx *c, char *ttenv, size_t envsize, char *lock,
    size_t locksize)
{
	char	tt[300], dir[340];

	assert_int_equal(pmx_open(c, NULL), 0);
	close(c->to);
	c->to = -1;
	assert_int_equal(pmx_wait_exit(c, 10000), 0);
	snprintf(tt, sizeof tt, "%s/tt", c->dir);
	snprintf(dir, sizeof dir, "%s/tmux-%u", tt, (unsigned)getuid());
	assert_int_equal(mkdir(tt, 0700), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(lock, locksize, "%s/progmux-attach.lock", dir);
	snprintf(ttenv, envsize, "TMUX_TMPDIR=%s", tt);
}

/*
 * The attach lock held by another process: the control client waits for
 * it (none is started while it is held; checked only while its 3 s wait
 * cannot have run out), yet initialize and ping are answered meanwhile;
 * once it is released, start_program works.
 */
static void
test_lock_held(void **state)
{
	static char	 ttenv[700];
	const char	*env[] = { ttenv, NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		 lock[700], client[400];
	int64_t		 t0, start, ping;
	pid_t		 kids[4];
	int		 fd;

	(void)state;
	lock_setup(&c, ttenv, sizeof ttenv, lock, sizeof lock);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	snprintf(client, sizeof client, "%s -C ", c.sock);
	/* That first instance's client is gone before the next starts. */
	t0 = now_ms();
	while (pmx_count_procs(client) > 0 && now_ms() - t0 < GONE_MS)
		usleep(20000);
	assert_int_equal(pmx_count_procs(client), 0);

	t0 = now_ms();
	assert_int_equal(pmx_spawn(&c, env, true), 0);
	start = pmx_send(&c, "tools/call", "{\"name\":\"start_program\","
	    "\"arguments\":{\"argv\":[\"true\"]}}");
	ping = pmx_send(&c, "ping", NULL);
	d = pmx_wait(&c, ping, 10000);
	assert_non_null(d);
	json_doc_free(d);
	if (now_ms() - t0 < 2000) {
		/* No child at all: the tmux client is not even forked. */
		assert_int_equal(pmx_children(c.front, kids, 4), 0);
		assert_null(c.held);	/* the start's reply has not come */
	} else
		print_message("slow machine: ping took %lld ms; the wait "
		    "itself not checked\n", (long long)(now_ms() - t0));
	close(fd);	/* released */
	d = pmx_wait(&c, start, 15000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * The lock's name is a symbolic link (not followed: its target is never
 * made), then a file owned by another user and held by us (not used:
 * progmux says so and does not wait for it). Starts work either way.
 */
static void
test_lock_foreign(void **state)
{
	static char	 ttenv[700];
	const char	*env[] = { ttenv, NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		 lock[700], target[700];
	struct stat	 sb;
	int		 fd, round;

	(void)state;
	lock_setup(&c, ttenv, sizeof ttenv, lock, sizeof lock);
	snprintf(target, sizeof target, "%s/target", c.dir);
	for (round = 0; round < 2; round++) {
		fd = -1;
		if (round == 0)
			assert_int_equal(symlink(target, lock), 0);
		else {
			unlink(lock);
			fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
			assert_true(fd >= 0);
			if (getuid() != 0 || fchown(fd, 65534, 65534) != 0) {
				print_message("cannot chown: the foreign owner "
				    "case is skipped\n");
				close(fd);
				break;
			}
			assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
		}
		assert_int_equal(pmx_spawn(&c, env, true), 0);
		assert_true(stderr_has(&c, round == 0 ? "symbolic link, not "
		    "followed" : "not a regular file of ours"));
		d = pmx_call(&c, "start_program", "{\"argv\":[\"true\"]}",
		    15000);
		assert_non_null(d);
		assert_false(pmx_is_error(d));
		json_doc_free(d);
		assert_int_equal(lstat(target, &sb), -1);
		close(c.to);
		c.to = -1;
		assert_int_equal(pmx_wait_exit(&c, 10000), 0);
		if (fd != -1)
			close(fd);
		buf_reset(&c.errlog);
		close(c.from);
		close(c.err);
		c.from = c.err = -1;
	}
	pmx_close(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_desktop),
		cmocka_unit_test(test_kill_robust),
		cmocka_unit_test(test_kill_lease),
		cmocka_unit_test(test_idle_window_desktop),
		cmocka_unit_test(test_idle_window_robust),
		cmocka_unit_test(test_leave_fresh_socket),
		cmocka_unit_test(test_leave_user_sessions),
		cmocka_unit_test(test_nofile_hard),
		cmocka_unit_test(test_nofile_soft),
		cmocka_unit_test(test_lock_held),
		cmocka_unit_test(test_lock_foreign),
	};

	/* No login shell (the person's profile) in any pane we cause. */
	setenv("SHELL", "/bin/sh", 1);
	/* Runtime directories under each harness's TMPDIR, to be found. */
	unsetenv("XDG_RUNTIME_DIR");
	unsetenv("TMUX_TMPDIR");
	return (HARNESS_RUN("death", tests, NULL, NULL));
}
