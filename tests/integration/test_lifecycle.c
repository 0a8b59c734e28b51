/*
 * test_lifecycle.c — what happens around programs: reapers and the front
 * dying, ceilings, eviction, many programs at once.
 *
 * Each test starts its own progmux (and private tmux server) with the
 * settings it needs, and checks the process table and tmux itself for
 * what is left.
 */
#include <glob.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"

#define children_of	pmx_children
#define alive		pmx_alive

static int
count_zombie_children(pid_t pid)
{
	pid_t	 kids[512];
	int	 n, i, z = 0;

	n = children_of(pid, kids, 512);
	for (i = 0; i < n; i++)
		if (pmx_zombie(kids[i]))
			z++;
	return (z);
}

/* Any descriptor. */
static int
any_fd(const struct pmx_fd *f)
{
	(void)f;
	return (1);
}

/* A descriptor, said (with PMX_DEBUG_FDS set). */
static int
show_fd(const struct pmx_fd *f)
{
	if (getenv("PMX_DEBUG_FDS") != NULL)
		print_message("fd %d -> %s\n", f->fd, f->what);
	return (1);
}

/* Panes on the private server other than the base session's. */
static int
count_program_panes(struct pmx *c)
{
	char	*out, *p;
	int	 n = 0;

	out = pmx_tmux(c, "list-panes", "-a", "-F", "#{session_name}", NULL);
	if (out == NULL)
		return (0);
	for (p = strtok(out, "\n"); p != NULL; p = strtok(NULL, "\n"))
		if (strcmp(p, "base") != 0)
			n++;
	free(out);
	return (n);
}

/* A reaper killed with SIGKILL: the front reports the program gone,
 * removes its pane, and serves the others. */
static void
test_reaper_killed(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		*id, *pane, *text, args[100];
	pid_t		 reaper;
	int		 killed = 0;
	int64_t		 t0;

	(void)state;
	assert_int_equal(pmx_open(&c, NULL), 0);
	id = pmx_start_program(&c, "{\"argv\":[\"sh\",\"-c\",\"echo hi; "
	    "exec sleep 600\"]}", &pane);
	assert_non_null(id);
	/* The reaper may be mid-exec (no command line yet): look again. */
	t0 = now_ms();
	while (killed == 0 && now_ms() - t0 < 5000) {
		if ((reaper = pmx_reaper_of(c.front)) > 0) {
			kill(reaper, SIGKILL);
			killed++;
		}
		if (killed == 0)
			usleep(5000);
	}
	assert_int_equal(killed, 1);
	text = pmx_read_all(&c, id, 10000, &d);
	assert_string_equal(json_str(sc_get(d, "outcome"), NULL), "gone");
	assert_true(json_bool(sc_get(d, "ended")));
	json_doc_free(d);
	free(text);
	/* Its pane goes too; its text, once it is forgotten. */
	assert_true(pmx_wait_pane_gone(&c, pane, 5000));
	assert_int_equal(count_spools(c.dir), 1);
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(sc_call_ok(&c, "stop_program", args));
	assert_int_equal(wait_spools_gone(c.dir, 5000), 0);
	/* And the server goes on. */
	free(id);
	id = pmx_start_program(&c, "{\"argv\":[\"echo\",\"next\"]}", NULL);
	text = pmx_read_all(&c, id, 10000, NULL);
	assert_string_equal(text, "next\n");
	free(text);
	free(id);
	free(pane);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * The front killed with SIGKILL while 20 programs run (half ignoring
 * SIGHUP): within a bounded wait no program, no reaper, no launcher, no
 * pane of progmux's (its session's own window included), no tmux control
 * client of its and no process started with its TMPDIR is left, and its
 * runtime directory is gone.
 */
static void
test_front_killed(void **state)
{
	struct pmx	 c;
	char		 needle[64], args[200], launch[400], client[400];
	char		 env[320], *id, *rundir;
	struct stat	 sb;
	pid_t		 kids[64];
	int		 i, k, n, left = -1, panes = -1, reapers = -1;
	int		 launchers = -1, clients = -1, envs = -1;
	int64_t		 t0;

	(void)state;
	assert_int_equal(pmx_open(&c, NULL), 0);
	/* Named by the start line; else (older builds) the one in TMPDIR. */
	if ((rundir = pmx_start_field(&c, "runtime directory", 10000)) ==
	    NULL) {
		glob_t	g;

		snprintf(launch, sizeof launch, "%s/progmux-*", c.dir);
		assert_int_equal(glob(launch, 0, NULL, &g), 0);
		assert_int_equal(g.gl_pathc, 1);
		rundir = xstrdup(g.gl_pathv[0]);
		globfree(&g);
	}
	assert_int_equal(stat(rundir, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	snprintf(needle, sizeof needle, "sleep 9%06d", (int)getpid() % 1000000);
	snprintf(launch, sizeof launch, "--launch %s/", rundir);
	snprintf(client, sizeof client, "%s -C ", c.sock);
	snprintf(env, sizeof env, "TMPDIR=%s", c.dir);
	for (i = 0; i < 20; i++) {
		/* Half of them ignore SIGHUP, which kill-pane alone sends. */
		snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\","
		    "\"%sexec %s\"]}", i % 2 ? "trap '' HUP; " : "", needle);
		id = pmx_start_program(&c, args, NULL);
		assert_non_null(id);
		free(id);
	}
	t0 = now_ms();
	while (pmx_count_procs(needle) < 20 && now_ms() - t0 < 10000)
		usleep(10000);
	assert_int_equal(pmx_count_procs(needle), 20);
	assert_int_equal(count_program_panes(&c), 20 + 1);
	assert_int_equal(pmx_count_procs(client), 1);
	n = children_of(c.front, kids, 64);	/* reapers and tmux -C */
	assert_true(n >= 21);

	kill(c.front, SIGKILL);
	waitpid(c.pid, NULL, 0);
	c.pid = -1;
	t0 = now_ms();
	while (now_ms() - t0 < 10000) {
		left = pmx_count_procs(needle);
		panes = count_program_panes(&c);
		launchers = pmx_count_procs(launch);
		clients = pmx_count_procs(client);
		envs = pmx_count_env(env);
		for (reapers = 0, k = 0; k < n; k++)
			if (alive(kids[k]))
				reapers++;
		if (left + panes + launchers + clients + envs + reapers == 0 &&
		    stat(rundir, &sb) == -1)
			break;
		usleep(10000);
	}
	print_message("after %lld ms: %d programs, %d panes, %d children "
	    "(reapers, tmux client), %d launchers, %d tmux clients, %d "
	    "processes with its TMPDIR, runtime directory %s\n",
	    (long long)(now_ms() - t0), left, panes, reapers, launchers,
	    clients, envs, stat(rundir, &sb) == 0 ? "left" : "gone");
	assert_int_equal(left, 0);
	assert_int_equal(reapers, 0);
	assert_int_equal(launchers, 0);
	assert_int_equal(clients, 0);
	assert_int_equal(envs, 0);
	assert_int_equal(panes, 0);
	/* Last: the runtime directory (removed by whoever is last out),
	 * the programs' text with it. */
	if (stat(rundir, &sb) == 0)
		fail_msg("the runtime directory %s is left", rundir);
	assert_int_equal(count_spools(c.dir), 0);
	free(rundir);
	pmx_close(&c);
}

/* Ended programs are evicted past PROGMUX_KEEP_ENDED; the evicted id is a
 * clear error. */
static void
test_eviction(void **state)
{
	const char	*env[] = { "PROGMUX_KEEP_ENDED=2", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*ids[4], *text, args[100];
	int		 i;

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	for (i = 0; i < 4; i++) {
		ids[i] = pmx_start_program(&c, "{\"argv\":[\"echo\",\"e\"]}",
		    NULL);
		text = pmx_read_all(&c, ids[i], 10000, NULL);
		assert_string_equal(text, "e\n");
		free(text);
	}
	/*
	 * Exactly two kept: the first two ended are dropped, each once a
	 * later program's reaper has gone (a moment after its end).
	 */
	for (i = 0; i < 2; i++) {
		int64_t	t0 = now_ms();

		snprintf(args, sizeof args, "{\"programId\":\"%s\"}", ids[i]);
		while (!pmx_is_error(d = pmx_call(&c, "read_program", args,
		    5000))) {
			json_doc_free(d);
			if (now_ms() - t0 > 5000)
				fail_msg("%s is still readable", ids[i]);
			usleep(10000);
		}
		assert_non_null(strstr(pmx_text(d), ids[i]));
		json_doc_free(d);
	}
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", ids[2]);
	d = pmx_call(&c, "read_program", args, 5000);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", ids[3]);
	d = pmx_call(&c, "read_program", args, 5000);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	for (i = 0; i < 4; i++)
		free(ids[i]);
	assert_int_equal(pmx_close(&c), 0);
}

/* timeoutMs is clamped to PROGMUX_WAIT_MAX_MS. */
static void
test_wait_ceiling(void **state)
{
	const char	*env[] = { "PROGMUX_WAIT_MAX_MS=200", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*id, args[100];

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	id = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"timeoutMs\":"
	    "60000}", id);
	d = pmx_call(&c, "read_program", args, 5000);
	assert_non_null(d);
	assert_int_equal(json_int(sc_get(d, "effectiveTimeoutMs")), 200);
	json_doc_free(d);
	free(id);
	assert_int_equal(pmx_close(&c), 0);
}

/* The programs-alive ceiling is a clear error naming how to raise it. */
static void
test_max_programs(void **state)
{
	const char	*env[] = { "PROGMUX_MAX_PROGRAMS=2", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*a, *b;

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	a = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	b = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	assert_non_null(a);
	assert_non_null(b);
	d = pmx_call(&c, "start_program", "{\"argv\":[\"true\"]}", 5000);
	assert_true(pmx_is_error(d));
	assert_non_null(strstr(pmx_text(d), "PROGMUX_MAX_PROGRAMS"));
	json_doc_free(d);
	free(a);
	free(b);
	assert_int_equal(pmx_close(&c), 0);
}

/* The total text ceiling: ended programs make room; running ones holding
 * text past it make a start a clear error. */
static void
test_total_text_ceiling(void **state)
{
	const char	*env[] = { "PROGMUX_TOTAL_OUTPUT_MAX_BYTES=2000", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*a, *b, *text;

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	a = pmx_start_program(&c, "{\"argv\":[\"seq\",\"1\",\"1000\"]}",
	    NULL);
	text = pmx_read_all(&c, a, 10000, NULL);
	assert_int_equal(strlen(text), 3893);
	free(text);
	/* a has ended: it is dropped to make room. */
	b = pmx_start_program(&c, "{\"argv\":[\"sh\",\"-c\",\"seq 1 1000; "
	    "exec sleep 30\"]}", NULL);
	assert_non_null(b);
	text = pmx_read_until(&c, b, "\n1000\n", 10000);	/* all of it held */
	assert_non_null(text);
	free(text);
	d = pmx_call(&c, "start_program", "{\"argv\":[\"true\"]}", 5000);
	assert_true(pmx_is_error(d));
	assert_non_null(strstr(pmx_text(d), "PROGMUX_TOTAL_OUTPUT_MAX_BYTES"));
	json_doc_free(d);
	free(a);
	free(b);
	assert_int_equal(pmx_close(&c), 0);
}

/* progmux's first line on stderr (allocated), waited for up to 5 s. */
static char *
first_err_line(struct pmx *c)
{
	char	*line = pmx_first_err_line(c, 5000);

	if (line == NULL)
		fail_msg("no line on stderr");
	return (line);
}

/*
 * Settings DESIGN lists: the start line on stderr names the version, the
 * socket and the mode; PROGMUX_OUTPUT_MAX_BYTES cuts the text kept
 * (outputCut): the head and the end, no more than it; PROGMUX_SESSION
 * names the session; libtmux's LIBTMUX_SOCKET_PATH is honoured when
 * progmux's own is not set.
 */
static void
test_settings(void **state)
{
	static char	 libenv[400];
	const char	*env[] = { "PROGMUX_OUTPUT_MAX_BYTES=1024",
			    "PROGMUX_SESSION=ci-progs", NULL };
	const char	*env2[] = { "PROGMUX_SOCKET_PATH=", libenv, NULL };
	struct pmx	 c, c2;
	struct json_doc	*d;
	char		*id, *pane, *text, *line, *out, lib[300];
	char		*kill[] = { (char *)pmx_tmux_bin(), (char *)"-S", lib,
			    (char *)"kill-server", NULL };
	int		 st;

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	line = first_err_line(&c);
	if (strstr(line, "progmux " PROGMUX_VERSION " on tmux ") == NULL ||
	    strstr(line, c.sock) == NULL || strstr(line, "desktop mode") ==
	    NULL || strstr(line, "session ci-progs") == NULL)
		fail_msg("start line: %s", line);
	free(line);

	id = pmx_start_program(&c, "{\"argv\":[\"seq\",\"1\",\"10000\"]}",
	    NULL);
	assert_non_null(id);
	/* Read once it has ended: a reader following it would see the
	 * middle go by before it is dropped. */
	snprintf(lib, sizeof lib, "{\"programId\":\"%s\",\"tail\":1,"
	    "\"timeoutMs\":20000}", id);
	json_doc_free(sc_call_ok(&c, "read_program", lib));
	text = pmx_read_all(&c, id, 20000, &d);
	assert_true(strlen(text) <= 1024);
	assert_int_equal(strncmp(text, "1\n2\n3\n", 6), 0);
	assert_true(strlen(text) > 6 &&
	    strcmp(text + strlen(text) - 6, "10000\n") == 0);
	assert_true(sc_bool(d, "ended"));
	assert_true(sc_bool(d, "outputCut"));
	assert_false(sc_bool(d, "outputComplete"));
	assert_string_equal(sc_str(d, "outcome"), "completed");
	json_doc_free(d);
	free(text);
	free(id);

	id = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"30\"]}", &pane);
	assert_non_null(id);
	out = pmx_tmux(&c, "display-message", "-p", "-t", pane,
	    "#{session_name}", NULL);
	assert_non_null(out);
	assert_string_equal(out, "ci-progs\n");
	free(out);
	free(pane);
	free(id);

	/* A second progmux told only libtmux's variable: its programs are
	 * on that socket (a server it starts there, ended below). */
	snprintf(lib, sizeof lib, "%s/libtmux.sock", c.dir);
	snprintf(libenv, sizeof libenv, "LIBTMUX_SOCKET_PATH=%s", lib);
	assert_int_equal(pmx_open(&c2, env2), 0);
	id = pmx_start_program(&c2, "{\"argv\":[\"sleep\",\"30\"]}", &pane);
	assert_non_null(id);
	out = pmx_run_capture((char *[]){ (char *)pmx_tmux_bin(),
	    (char *)"-S", lib, (char *)"list-panes", (char *)"-a",
	    (char *)"-F", (char *)"#{pane_id}", NULL }, &st);
	assert_int_equal(st, 0);
	assert_true(pmx_has_line(out, pane));
	free(out);
	free(pane);
	free(id);
	assert_int_equal(pmx_close(&c2), 0);
	free(pmx_run_capture(kill, &st));
	assert_int_equal(pmx_close(&c), 0);
}

/* A flag given an empty value means its default (--tmux-bin= once left
 * no tmux binary at all and crashed the server). */
static void
test_empty_flag_values(void **state)
{
	struct pmx	 c;
	char		 bin[PATH_MAX], *out, *was;
	char		*argv[] = { bin, (char *)"--tmux-bin=",
			    (char *)"--session=", (char *)"--check", NULL };
	int		 st;

	(void)state;
	assert_int_equal(pmx_open(&c, NULL), 0);
	snprintf(bin, sizeof bin, "%s", getenv("PROGMUX_BIN") ?
	    getenv("PROGMUX_BIN") : "build/progmux");
	setenv("PROGMUX_SOCKET_PATH", c.sock, 1);
	/* Its TMPDIR is the harness's directory, as every progmux's here:
	 * the lease rendezvous it makes there goes with it. */
	was = getenv("TMPDIR") != NULL ? xstrdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", c.dir, 1);
	out = pmx_run_capture(argv, &st);
	if (was != NULL)
		setenv("TMPDIR", was, 1);
	else
		unsetenv("TMPDIR");
	free(was);
	unsetenv("PROGMUX_SOCKET_PATH");
	assert_non_null(out);
	if (st != 0 || strstr(out, "tmux, version") == NULL ||
	    strstr(out, "session progmux") == NULL)
		fail_msg("--check with empty values: exit %d: %s", st, out);
	free(out);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * Pins: a reaper holds the runtime directory's lock (rundir.h), on every
 * port: with the reaper stopped and then the front SIGKILLed, the keeper
 * finds the lock held and leaves the directory; once the reaper goes on
 * (the front gone, it ends its program) it is the last of the instance
 * and removes it. (On macOS the lock reached the reaper close-on-exec,
 * posix_spawn's dup2 of a descriptor onto itself kept the flag, and the
 * keeper removed the directory under the reaper.)
 */
static void
test_reaper_holds_lock(void **state)
{
	struct pmx	 c;
	struct stat	 sb;
	char		*rundir, *id;
	pid_t		 reaper = -1;
	int64_t		 t0;

	(void)state;
	assert_int_equal(pmx_open(&c, NULL), 0);
	assert_non_null((rundir = pmx_start_field(&c, "runtime directory",
	    10000)));
	id = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"600\"]}", NULL);
	assert_non_null(id);
	t0 = now_ms();
	while ((reaper = pmx_reaper_of(c.front)) == -1 &&
	    now_ms() - t0 < 10000)
		usleep(10000);
	assert_true(reaper > 0);
	assert_int_equal(kill(reaper, SIGSTOP), 0);
	assert_int_equal(kill(c.front, SIGKILL), 0);
	/* The keeper has tried the lock, and left. */
	assert_true(pmx_wait_exit(&c, 10000) >= 0);
	if (stat(rundir, &sb) == -1) {
		kill(reaper, SIGKILL);
		fail_msg("the keeper removed %s under a live reaper", rundir);
	}
	assert_int_equal(kill(reaper, SIGCONT), 0);
	t0 = now_ms();
	while ((stat(rundir, &sb) == 0 || pmx_alive(reaper)) &&
	    now_ms() - t0 < 10000)
		usleep(20000);
	assert_false(pmx_alive(reaper));
	assert_int_equal(stat(rundir, &sb), -1);
	free(rundir);
	free(id);
	pmx_close(&c);
}

/* No tmux at all: every tool says so clearly and the server goes on
 * (send_keys with enter false once freed its request twice here). */
static void
test_no_tmux(void **state)
{
	const char	*env[] = { "PROGMUX_TMUX_BIN=/nonexistent/tmux", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	static const char *const calls[][2] = {
		{ "start_program", "{\"argv\":[\"true\"]}" },
		{ "run_program", "{\"argv\":[\"true\"]}" },
		{ "capture_pane", "{\"paneId\":\"%1\"}" },
		{ "send_keys", "{\"paneId\":\"%1\",\"keys\":\"x\","
		    "\"enter\":false}" },
		{ "send_keys", "{\"paneId\":\"%1\",\"keys\":\"x\"}" },
		{ "send_keys", "{\"paneId\":\"%1\",\"keys\":\"\"}" },
	};
	size_t		 i;

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	for (i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		d = sc_call_err(&c, calls[i][0], calls[i][1]);
		if (strstr(pmx_text(d), "tmux") == NULL)
			fail_msg("%s: %s", calls[i][0], pmx_text(d));
		json_doc_free(d);
	}
	json_doc_free(sc_call_ok(&c, "list_programs", "{}"));
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * Pins: a tmux named without a slash that is on no PATH directory and
 * in none of the directories tried after it (Homebrew's, MacPorts') is
 * an error that says where it was looked for and how to install tmux
 * with this system's own installer (apt-get on Debian, brew on macOS),
 * not another system's.
 */
static void
test_no_tmux_advice(void **state)
{
	const char	*env[] = { "PROGMUX_TMUX_BIN=no-such-tmux-here", NULL };
	const char	*want = access("/usr/bin/apt-get", X_OK) == 0 ?
			    "(apt-get install tmux)" :
			    access("/opt/homebrew/bin/brew", X_OK) == 0 ||
			    access("/usr/local/bin/brew", X_OK) == 0 ?
			    "(brew install tmux)" : "install tmux";
	struct pmx	 c;
	struct json_doc	*d;

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	d = sc_call_err(&c, "run_program", "{\"argv\":[\"true\"]}");
	print_message("%s\n", pmx_text(d));
	assert_non_null(strstr(pmx_text(d), "not on PATH nor in "
	    "/opt/homebrew/bin, /usr/local/bin or /opt/local/bin"));
	assert_non_null(strstr(pmx_text(d), want));
	json_doc_free(d);
	assert_int_equal(pmx_close(&c), 0);
}

/* Neither capture_pane nor send_keys acts on the pane progmux runs in
 * ($TMUX_PANE on its own server), unless send_keys is forced, however
 * the pane id is written (%00 is %0 to tmux). */
static void
test_own_pane(void **state)
{
	static char	 tmuxenv[400];
	const char	*env[] = { "TMUX_PANE=%0", tmuxenv, NULL };
	const char	*ids[] = { "%0", "%00", "%0000" };
	struct pmx	 c;
	struct json_doc	*d;
	char		 args[100];
	int		 i;

	(void)state;
	/* $TMUX names the socket pmx_open will make: dir/tmux.sock. */
	assert_int_equal(pmx_open(&c, NULL), 0);
	snprintf(tmuxenv, sizeof tmuxenv, "TMUX=%s,1,0", c.sock);
	close(c.to);
	c.to = -1;
	assert_int_equal(pmx_wait_exit(&c, 5000), 0);
	assert_int_equal(pmx_spawn(&c, env, true), 0);
	/* tmux reads %00 and %0000 as %0: so does the guard. */
	for (i = 0; i < 3; i++) {
		snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":"
		    "\"x\"}", ids[i]);
		d = pmx_call(&c, "send_keys", args, 10000);
		assert_true(pmx_is_error(d));
		assert_non_null(strstr(pmx_text(d), "force"));
		json_doc_free(d);
		snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", ids[i]);
		d = pmx_call(&c, "capture_pane", args, 10000);
		assert_true(pmx_is_error(d));
		assert_non_null(strstr(pmx_text(d), "runs in"));
		json_doc_free(d);
	}
	json_doc_free(sc_call_ok(&c, "send_keys", "{\"paneId\":\"%0\","
	    "\"keys\":\"x\",\"force\":true,\"enter\":false}"));
	assert_int_equal(pmx_close(&c), 0);
}

/* A tmux older than 3.2a is refused, in every tool call, saying why. */
static void
test_old_tmux(void **state)
{
	static char	 envbin[700];
	const char	*env[] = { envbin, NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		 dir[] = "/tmp/progmux-test-oldtmux-XXXXXX", path[600];
	FILE		*f;
	int		 i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/tmux", dir);
	f = fopen(path, "w");
	fprintf(f, "#!/bin/sh\necho 'tmux 3.1c'\n");
	fclose(f);
	chmod(path, 0755);
	snprintf(envbin, sizeof envbin, "PROGMUX_TMUX_BIN=%s", path);
	assert_int_equal(pmx_open(&c, env), 0);
	for (i = 0; i < 2; i++) {
		d = sc_call_err(&c, "run_program", "{\"argv\":[\"true\"]}");
		if (strstr(pmx_text(d), "3.2a") == NULL)
			fail_msg("%s", pmx_text(d));
		json_doc_free(d);
	}
	assert_int_equal(pmx_close(&c), 0);
	unlink(path);
	rmdir(dir);
}

/* A socket: one per reaper progmux still talks to. */
static int
is_socket(const struct pmx_fd *f)
{
	return (f->kind == 's');
}

/* Wait (bounded) until progmux has no child but its tmux client, and no
 * reaper socket left open. */
static void
wait_reapers_gone(pid_t pid)
{
	int64_t	t0 = now_ms();

	while (count_fds(pid, is_socket) > 0 && now_ms() - t0 < 10000)
		usleep(10000);

	while (now_ms() - t0 < 10000) {
		pid_t	kids[256];
		int	n = children_of(pid, kids, 256), live = 0, k;

		for (k = 0; k < n; k++)
			if (alive(kids[k]))
				live++;
		if (live <= 1)	/* the tmux control client */
			return;
		usleep(20000);
	}
}

/* 100 programs at once, 10,000 numbered lines each: all read back whole
 * and in order; afterwards no zombie and no leaked descriptor. */
static void
test_hundred_programs(void **state)
{
	const char	*env[] = { "PROGMUX_MAX_PROGRAMS=200",
	    "PROGMUX_KEEP_ENDED=200", NULL };
	struct pmx	 c;
	struct buf	 want = BUF_INIT;
	char		*ids[100], *text;
	int		 i, fds0, fds1;

	(void)state;
	for (i = 1; i <= 10000; i++)
		buf_printf(&want, "%d\n", i);
	buf_cstr(&want);
	assert_int_equal(pmx_open(&c, env), 0);
	/* One program first: the tmux client is attached and settled. */
	text = pmx_read_all(&c, "none", 1, NULL);
	free(text);
	{
		char *first = pmx_start_program(&c, "{\"argv\":[\"true\"]}",
		    NULL);

		assert_non_null(first);
		free(pmx_read_all(&c, first, 10000, NULL));
		free(first);
	}
	wait_reapers_gone(c.front);
	fds0 = count_fds(c.front, any_fd);
	(void)count_fds(c.front, show_fd);
	for (i = 0; i < 100; i++) {
		ids[i] = pmx_start_program(&c, "{\"argv\":[\"seq\",\"1\","
		    "\"10000\"]}", NULL);
		assert_non_null(ids[i]);
	}
	for (i = 0; i < 100; i++) {
		struct json_doc	*d;

		text = pmx_read_all(&c, ids[i], 60000, &d);
		if (strcmp(text, want.data) != 0)
			fail_msg("%s: %zu bytes read, %zu expected", ids[i],
			    strlen(text), want.len);
		assert_true(json_bool(sc_get(d, "outputComplete")));
		json_doc_free(d);
		free(text);
		free(ids[i]);
	}
	/* Reapers exit once their program ended; wait for them to go. */
	wait_reapers_gone(c.front);
	assert_int_equal(count_zombie_children(c.front), 0);
	fds1 = count_fds(c.front, any_fd);
	(void)count_fds(c.front, show_fd);
	assert_int_equal(fds0, fds1);
	buf_free(&want);
	assert_int_equal(pmx_close(&c), 0);
}

/* stdin EOF: every program ends, panes go, exit status 0. */
static void
test_stdin_eof(void **state)
{
	struct pmx	 c;
	char		 needle[64], args[200], *id;
	int		 i, st;
	int64_t		 t0;

	(void)state;
	assert_int_equal(pmx_open(&c, NULL), 0);
	snprintf(needle, sizeof needle, "sleep 8%06d", (int)getpid() % 1000000);
	for (i = 0; i < 5; i++) {
		snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\","
		    "\"trap '' HUP TERM; exec %s\"]}", needle);
		id = pmx_start_program(&c, args, NULL);
		assert_non_null(id);
		free(id);
	}
	/* All five run (and ignore HUP and TERM) before stdin ends. */
	t0 = now_ms();
	while (pmx_count_procs(needle) < 5 && now_ms() - t0 < 10000)
		usleep(10000);
	assert_int_equal(pmx_count_procs(needle), 5);
	close(c.to);
	c.to = -1;
	st = pmx_wait_exit(&c, 2000);
	assert_int_equal(st, 0);
	t0 = now_ms();
	while (pmx_count_procs(needle) > 0 && now_ms() - t0 < 2000)
		usleep(10000);
	assert_int_equal(pmx_count_procs(needle), 0);
	/* tmux removes the panes as their processes go. */
	t0 = now_ms();
	while (count_program_panes(&c) > 1 && now_ms() - t0 < 2000)
		usleep(10000);
	assert_true(count_program_panes(&c) <= 1);
	pmx_close(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reaper_killed),
		cmocka_unit_test(test_front_killed),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_wait_ceiling),
		cmocka_unit_test(test_max_programs),
		cmocka_unit_test(test_total_text_ceiling),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_empty_flag_values),
		cmocka_unit_test(test_reaper_holds_lock),
		cmocka_unit_test(test_no_tmux),
		cmocka_unit_test(test_no_tmux_advice),
		cmocka_unit_test(test_old_tmux),
		cmocka_unit_test(test_own_pane),
		cmocka_unit_test(test_hundred_programs),
		cmocka_unit_test(test_stdin_eof),
	};

	/* No login shell (the person's profile) in any pane we cause. */
	setenv("SHELL", "/bin/sh", 1);
	return (HARNESS_RUN("lifecycle", tests, NULL, NULL));
}
