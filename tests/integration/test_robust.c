/*
 * test_robust.c — robust mode, and the promise that nothing outlives its
 * owner whatever fails, in both modes.
 *
 * Robust mode is tested without any tmux server started by the test:
 * progmux makes its own. TMUX_TMPDIR points into the test's directory, so
 * a stray use of tmux's default socket would show up there (and never
 * touches the person's own server). Each scenario checks the process table and tmux
 * for what is left, with bounded waits.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "client.h"
#include "needs.h"
#include "harness.h"
#include "xmalloc.h"

static const char *robust_env[] = { "PROGMUX_ROBUST=1", NULL };

/* The private server's socket: the one tmux -S ... of progmux's client. */
static char *
robust_socket(struct pmx *c)
{
	char	 cmd[600], *line = NULL;
	size_t	 cap = 0;
	FILE	*f;
	char	*sock = NULL, *p;

	snprintf(cmd, sizeof cmd, "find '%s' -maxdepth 2 -name tmux -type s",
	    c->dir);
	if ((f = popen(cmd, "r")) == NULL)
		return (NULL);
	if (getline(&line, &cap, f) > 0) {
		if ((p = strchr(line, '\n')) != NULL)
			*p = '\0';
		sock = xstrdup(line);
	}
	free(line);
	pclose(f);
	return (sock);
}

/* How many children pid has. */
static int
count_children(pid_t pid)
{
	pid_t	kids[1024];

	return (pmx_children(pid, kids, 1024));
}

/* Any descriptor (count_fds counts them all). */
static int
any_fd(const struct pmx_fd *f)
{
	(void)f;
	return (1);
}

/* Count processes whose command line contains needle, waiting up to ms
 * for the count to reach want. */
static int
wait_count(const char *needle, int want, int ms)
{
	int64_t	t0 = now_ms();
	int	n;

	while ((n = pmx_count_procs(needle)) != want &&
	    now_ms() - t0 < ms)
		usleep(10000);
	return (n);
}

/* Robust mode: a private server in a 0700 runtime directory, no config,
 * nothing on tmux's default socket. */
static void
test_robust_private_server(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	struct stat	 st;
	char		*sock, *dir, tt[400], env_tt[450], *out;
	const char	*env[] = { env_tt, NULL };

	(void)state;
	snprintf(tt, sizeof tt, "/tmp/progmux-test-tt-%ld", (long)getpid());
	mkdir(tt, 0700);
	snprintf(env_tt, sizeof env_tt, "TMUX_TMPDIR=%s", tt);
	open_mode(&c, true, env);
	/* The program is not given the private server (TMUX, TMUX_PANE),
	 * nor progmux's own settings. */
	d = pmx_call(&c, "run_program", "{\"argv\":[\"sh\",\"-c\","
	    "\"echo ${TMUX:-no}:${TMUX_PANE:-no}:${PROGMUX_ROBUST:-no}\"]}",
	    20000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_string_equal(sc_str(d, "text"), "no:no:no\n");
	json_doc_free(d);

	sock = robust_socket(&c);
	assert_non_null(sock);
	dir = xstrdup(sock);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* The private server runs with default-size 80x24, no user config. */
	snprintf(c.sock, sizeof c.sock, "%s", sock);
	out = pmx_tmux(&c, "show-options", "-gv", "default-size", NULL);
	assert_non_null(out);
	assert_string_equal(out, "80x24\n");
	free(out);
	/* Nothing on the default socket directory. */
	{
		DIR		*dd = opendir(tt);
		struct dirent	*de;
		int		 n = 0;

		while (dd != NULL && (de = readdir(dd)) != NULL)
			if (de->d_name[0] != '.')
				n++;
		if (dd)
			closedir(dd);
		assert_int_equal(n, 0);
	}
	/* stdin EOF: progmux exits 0 and its server is gone. */
	close(c.to);
	c.to = -1;
	assert_int_equal(pmx_wait_exit(&c, 3000), 0);
	assert_int_equal(wait_count(sock, 0, 2000), 0);
	assert_int_equal(stat(sock, &st), -1);
	free(sock);
	free(dir);
	pmx_close(&c);
	rmdir(tt);
}

/* Front killed with SIGKILL while 20 programs run (some ignoring SIGHUP
 * and SIGTERM): within a second nothing of them is left, and in robust
 * mode the private server is gone too. */
static void
front_killed(bool robust)
{
	struct pmx	 c;
	char		 needle[64], args[200], launchers[400], *id, *sock = NULL;
	int		 i, left;
	int64_t		 t0;

	open_mode(&c, robust, NULL);
	snprintf(needle, sizeof needle, "sleep 6%02d%05d", robust ? 1 : 0,
	    (int)getpid() % 100000);
	for (i = 0; i < 20; i++) {
		snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"%sexec "
		    "%s\"]}", i % 2 ? "trap '' HUP TERM; " : "", needle);
		id = pmx_start_program(&c, args, NULL);
		assert_non_null(id);
		free(id);
	}
	assert_int_equal(wait_count(needle, 20, 10000), 20);
	if (robust)
		assert_non_null(sock = robust_socket(&c));
	kill(c.front, SIGKILL);
	waitpid(c.pid, NULL, 0);
	c.pid = -1;
	t0 = now_ms();
	left = wait_count(needle, 0, 1000);
	print_message("%s: programs gone after %lld ms (%d left)\n",
	    robust ? "robust" : "desktop", (long long)(now_ms() - t0),
	    left);
	assert_int_equal(left, 0);
	/* Its launchers (their command lines name our directory) too. */
	snprintf(launchers, sizeof launchers, "--launch %s/", c.dir);
	assert_int_equal(wait_count(launchers, 0, 1000), 0);
	if (robust) {
		/* The private tmux server goes with its owner. */
		assert_int_equal(wait_count(sock, 0, 1000), 0);
		print_message("robust: private server gone after %lld ms\n",
		    (long long)(now_ms() - t0));
		free(sock);
	}
	/* And the programs' text with it. */
	assert_int_equal(wait_spools_gone(c.dir, 5000), 0);
	pmx_close(&c);
}

static void
test_front_killed_robust(void **state)
{
	(void)state;
	front_killed(true);
}

/* SIGTERM, SIGINT, SIGHUP to the front: programs end, exit 0 in 2 s. */
static void
signalled(bool robust, int sig)
{
	struct pmx	 c;
	char		 needle[64], args[200], *id;
	int		 i, st;

	open_mode(&c, robust, NULL);
	snprintf(needle, sizeof needle, "sleep 5%d%d%05d", robust, sig,
	    (int)getpid() % 100000);
	for (i = 0; i < 3; i++) {
		snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\","
		    "\"trap '' HUP TERM; exec %s\"]}", needle);
		id = pmx_start_program(&c, args, NULL);
		free(id);
	}
	assert_int_equal(wait_count(needle, 3, 10000), 3);
	kill(c.pid, sig);
	st = pmx_wait_exit(&c, 2000);
	assert_int_equal(st, 0);
	assert_int_equal(wait_count(needle, 0, 2000), 0);
	assert_int_equal(wait_spools_gone(c.dir, 2000), 0);
	pmx_close(&c);
}

static void
test_signals(void **state)
{
	(void)state;
	signalled(false, SIGTERM);
	signalled(false, SIGINT);
	signalled(false, SIGHUP);
	signalled(true, SIGTERM);
	signalled(true, SIGHUP);
}

/* The tmux server killed mid-run: reads report gone, the front stays up
 * and the next start works on a fresh server. */
static void
tmux_killed(bool robust)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		*id, *text, *sock;
	pid_t		 server_pid;
	int64_t		 t0;

	open_mode(&c, robust, NULL);
	id = pmx_start_program(&c, "{\"argv\":[\"sh\",\"-c\",\"echo up; "
	    "exec sleep 300\"]}", NULL);
	assert_non_null(id);
	if (robust) {
		sock = robust_socket(&c);
		snprintf(c.sock, sizeof c.sock, "%s", sock);
		free(sock);
	}
	text = pmx_read_until(&c, id, "up\n", 10000);
	assert_non_null(text);
	free(text);
	/* The server's pid, to wait for its real end below. */
	text = pmx_tmux(&c, "display-message", "-p", "#{pid}", NULL);
	assert_non_null(text);
	server_pid = (pid_t)atol(text);
	free(text);
	assert_true(server_pid > 0);
	free(pmx_tmux(&c, "kill-server", NULL));
	/*
	 * Until the server process has really exited, a new control client
	 * could still reach it as it goes ("server exited unexpectedly"):
	 * wait for the process itself, not only for list-sessions to fail.
	 */
	t0 = now_ms();
	while (pmx_alive(server_pid) && now_ms() - t0 < 10000)
		usleep(10000);
	assert_false(pmx_alive(server_pid));
	text = pmx_read_all(&c, id, 10000, &d);
	assert_string_equal(text, "up\n");
	assert_string_equal(sc_str(d, "outcome"), "gone");
	free(text);
	json_doc_free(d);
	free(id);
	/* Still serving: a new program runs (on a new server). */
	d = pmx_call(&c, "run_program", "{\"argv\":[\"echo\",\"again\"]}",
	    20000);
	assert_non_null(d);
	if (pmx_is_error(d))
		fail_msg("after kill-server: %s", pmx_text(d));
	if (strcmp(sc_str(d, "text"), "again\n") != 0)
		fail_msg("after kill-server: %s", pmx_text(d));
	json_doc_free(d);
	pmx_close(&c);
}

static void
test_tmux_killed(void **state)
{
	(void)state;
	tmux_killed(false);
	tmux_killed(true);
}

/* A program's whole tree ends with it: background children, double-forked
 * daemons, at its end, at expiry and at stop. */
static void
test_process_tree(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		 needle[64], args[400], *id;

	(void)state;
	PMX_NEED_SUBREAPER();
	open_mode(&c, false, NULL);
	snprintf(needle, sizeof needle, "sleep 4%06d", (int)getpid() % 1000000);
	/* Background grandchild; the program itself ends at once. */
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"%s & echo "
	    "started\"]}", needle);
	d = pmx_call(&c, "run_program", args, 20000);
	assert_string_equal(sc_str(d, "text"), "started\n");
	json_doc_free(d);
	assert_int_equal(wait_count(needle, 0, 2000), 0);
	/* A daemon: double fork and setsid, ignoring HUP and TERM. */
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"setsid sh -c "
	    "'trap \\\"\\\" HUP TERM; %s' </dev/null >/dev/null 2>&1 & "
	    "echo forked\"]}", needle);
	d = pmx_call(&c, "run_program", args, 20000);
	assert_string_equal(sc_str(d, "text"), "forked\n");
	json_doc_free(d);
	assert_int_equal(wait_count(needle, 0, 3000), 0);
	/* At expiry. */
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"%s & "
	    "exec %s\"],\"lifetimeMs\":300}", needle, needle);
	id = pmx_start_program(&c, args, NULL);
	free(pmx_read_all(&c, id, 10000, NULL));
	free(id);
	assert_int_equal(wait_count(needle, 0, 3000), 0);
	/* At stop. */
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"%s & "
	    "exec %s\"]}", needle, needle);
	id = pmx_start_program(&c, args, NULL);
	assert_int_equal(wait_count(needle, 2, 5000), 2);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"graceMs\":200}",
	    id);
	d = pmx_call(&c, "stop_program", args, 10000);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	free(id);
	assert_int_equal(wait_count(needle, 0, 3000), 0);
	pmx_close(&c);
}

/* A client that stops reading: the front neither blocks nor loses a
 * reply; once it reads again every reply is there. */
static void
test_slow_client(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	int64_t		 ids[60], pid;
	int		 i;

	(void)state;
	PMX_NEED_TTYWAIT();
	open_mode(&c, false, NULL);
	/* Each reply carries ~100 KB; 60 of them overflow any pipe. */
	for (i = 0; i < 60; i++)
		ids[i] = pmx_send(&c, "tools/call", "{\"name\":\"run_program\","
		    "\"arguments\":{\"argv\":[\"sh\",\"-c\",\"seq 1 4000\"]}}");
	pid = pmx_send(&c, "ping", NULL);
	/* Not reading for a while; then read everything. */
	usleep(1500000);
	for (i = 0; i < 60; i++) {
		d = pmx_wait(&c, ids[i], 60000);
		assert_non_null(d);
		assert_false(pmx_is_error(d));
		assert_non_null(strstr(sc_str(d, "text"), "\n4000\n"));
		json_doc_free(d);
	}
	d = pmx_wait(&c, pid, 10000);
	assert_non_null(d);
	json_doc_free(d);
	pmx_close(&c);
}

/* The runtime directory removed: a new one is made for new programs
 * (with a warning), the running ones unaffected. */
static void
test_rundir_removed(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		*id, cmd[600], *text;

	(void)state;
	open_mode(&c, false, NULL);
	id = pmx_start_program(&c, "{\"argv\":[\"sh\",\"-c\",\"echo one; "
	    "sleep 1; echo two\"]}", NULL);
	assert_non_null(id);
	/* Once it runs (its FIFOs are open), the directory goes. */
	snprintf(cmd, sizeof cmd, "{\"programId\":\"%s\",\"timeoutMs\":"
	    "10000}", id);
	d = pmx_call(&c, "read_program", cmd, 15000);
	assert_string_equal(sc_str(d, "text"), "one\n");
	json_doc_free(d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'/progmux-*", c.dir);
	assert_int_equal(system(cmd), 0);
	/* A new one is made: later starts work. */
	d = pmx_call(&c, "run_program", "{\"argv\":[\"echo\",\"three\"]}",
	    10000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	assert_string_equal(sc_str(d, "text"), "three\n");
	json_doc_free(d);
	pmx_drain_err(&c);
	assert_non_null(strstr(buf_cstr(&c.errlog), "was removed or "
	    "replaced; making a new one"));
	text = pmx_read_all(&c, id, 10000, &d);
	assert_string_equal(text, "one\ntwo\n");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	free(text);
	json_doc_free(d);
	free(id);
	pmx_close(&c);
}

/* 500 programs started and stopped: the front's descriptors and
 * children are back where they started; no zombie. */
static void
test_no_leaks(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		 args[100], *id;
	int		 i, fd0, fd1, kids0, kids1;
	int64_t		 t0;

	(void)state;
	PMX_NEED_SUBREAPER();
	open_mode(&c, true, NULL);
	d = pmx_call(&c, "run_program", "{\"argv\":[\"true\"]}", 20000);
	assert_non_null(d);
	/* A run's record stays readable: forget it, so that it holds
	 * nothing when the baseline is taken. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}",
	    json_str(json_get(pmx_sc(d), "programId"), NULL));
	json_doc_free(d);
	json_doc_free(sc_call_ok(&c, "stop_program", args));
	t0 = now_ms();
	do {
		fd0 = count_fds(c.front, any_fd);
		kids0 = count_children(c.front);
	} while (kids0 > 1 && now_ms() - t0 < 5000 && !usleep(10000));
	for (i = 0; i < 500; i++) {
		id = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"60\"]}",
		    NULL);
		assert_non_null(id);
		snprintf(args, sizeof args, "{\"programId\":\"%s\","
		    "\"graceMs\":100}", id);
		json_doc_free(sc_call_ok(&c, "stop_program", args));
		free(id);
	}
	t0 = now_ms();
	do {
		fd1 = count_fds(c.front, any_fd);
		kids1 = count_children(c.front);
	} while ((fd1 != fd0 || kids1 != kids0) &&
	    now_ms() - t0 < 5000 && !usleep(20000));
	print_message("fds %d -> %d, reapers %d -> %d\n", fd0, fd1, kids0,
	    kids1);
	assert_int_equal(fd1, fd0);
	assert_int_equal(kids1, kids0);
	/* Only the tmux control client and the private server (whose
	 * subreaper the front is) are left as children. */
	assert_int_equal(kids1, 2);
	pmx_close(&c);
}

/* The runtime directory and FIFOs are private to the user. */
static void
test_permissions(void **state)
{
	struct pmx	 c;
	char		 cmd[600], *line = NULL;
	size_t		 cap = 0;
	FILE		*f;
	char		*id;
	int		 n = 0;

	(void)state;
	open_mode(&c, false, NULL);
	id = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	assert_non_null(id);
	snprintf(cmd, sizeof cmd, "find '%s' -path '*progmux-*' \\( -type d "
	    "-o -type p \\) -printf '%%m %%y %%p\\n'", c.dir);
	f = popen(cmd, "r");
	while (getline(&line, &cap, f) > 0) {
		/* Nothing for group or others ("%m" is three octal digits). */
		if (line[1] == '0' && line[2] == '0')
			n++;
		else
			fail_msg("too open: %s", line);
	}
	pclose(f);
	free(line);
	assert_true(n >= 3);	/* the directory and two FIFOs */
	free(id);
	pmx_close(&c);
}

/*
 * The in-pane launcher killed by SIGKILL while its program (which ignores
 * SIGHUP) runs: the program reads gone, is ended within a bounded wait
 * anyway (its reaper ends its process group), and nothing of it is left
 * once progmux has exited.
 */
static void
launcher_killed(bool robust)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		 marker[64], args[300], launch[400], *id, *text;
	char		*outcome = NULL;
	pid_t		 lpid;
	int		 running, left, after, spools;

	open_mode(&c, robust, NULL);
	snprintf(marker, sizeof marker, "pmx-lk-%d-%ld", robust,
	    (long)getpid());
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"trap '' HUP; "
	    "echo up; while :; do sleep 0.3; done\",\"%s\"]}", marker);
	id = pmx_start_program(&c, args, NULL);
	assert_non_null(id);
	text = pmx_read_until(&c, id, "up\n", 10000);
	assert_non_null(text);
	free(text);
	running = pmx_count_procs(marker);
	/* The launcher: the pane's process, naming our directory. */
	snprintf(launch, sizeof launch, "--launch %s/", c.dir);
	lpid = pmx_find_proc(launch);
	if (lpid > 0)
		kill(lpid, SIGKILL);
	left = wait_count(marker, 0, 15000);
	text = pmx_read_all(&c, id, 15000, &d);
	if (d != NULL && sc_str(d, "outcome") != NULL)
		outcome = xstrdup(sc_str(d, "outcome"));
	json_doc_free(d);
	free(text);
	free(id);
	/* progmux ends: the program's text goes with it. */
	close(c.to);
	c.to = -1;
	pmx_wait_exit(&c, 10000);
	spools = wait_spools_gone(c.dir, 2000);
	pmx_close(&c);
	after = pmx_count_procs(marker);
	pmx_kill_procs(marker);		/* what a failure would leave */
	print_message("%s: launcher %ld killed; program processes %d -> %d, "
	    "%d after exit, outcome %s\n", robust ? "robust" : "desktop",
	    (long)lpid, running, left, after, outcome ? outcome : "(none)");
	assert_true(running >= 1);
	assert_true(lpid > 0);
	assert_int_equal(left, 0);
	assert_non_null(outcome);
	assert_string_equal(outcome, "gone");
	assert_int_equal(after, 0);
	assert_int_equal(spools, 0);
	free(outcome);
}

static void
test_launcher_killed(void **state)
{
	(void)state;
	launcher_killed(false);
	launcher_killed(true);
}

/* The runtime directory of the progmux running in c (the one
 * progmux-* entry of its TMPDIR), or NULL. */
static char *
runtime_dir(struct pmx *c)
{
	DIR		*dd;
	struct dirent	*de;
	char		*found = NULL;
	int		 n = 0;

	if ((dd = opendir(c->dir)) == NULL)
		return (NULL);
	while ((de = readdir(dd)) != NULL)
		if (strncmp(de->d_name, "progmux-", 8) == 0 && n++ == 0)
			xasprintf(&found, "%s/%s", c->dir, de->d_name);
	closedir(dd);
	if (n != 1) {
		free(found);
		return (NULL);
	}
	return (found);
}

/* Wait up to ms for path to be gone; true if it is. */
static bool
wait_gone(const char *path, int ms)
{
	int64_t		t0 = now_ms();
	struct stat	st;

	while (lstat(path, &st) == 0 && now_ms() - t0 < ms)
		usleep(10000);
	return (lstat(path, &st) == -1 && errno == ENOENT);
}

/*
 * Front killed with SIGKILL while programs run: once its reapers have
 * cleaned up, its runtime directory (FIFOs, lock, robust mode's tmux
 * socket) is gone too, and by then none of them has printed tmux's
 * "can't find pane" (a pane already gone) on the front's stderr.
 */
static void
rundir_front_killed(bool robust)
{
	struct pmx	 c;
	char		 needle[64], args[200], *id, *dir;
	bool		 gone;
	int		 i;

	open_mode(&c, robust, NULL);
	snprintf(needle, sizeof needle, "sleep 7%d%05d", robust,
	    (int)getpid() % 100000);
	for (i = 0; i < 3; i++) {
		snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"%sexec "
		    "%s\"]}", i == 1 ? "trap '' HUP TERM; " : "", needle);
		id = pmx_start_program(&c, args, NULL);
		assert_non_null(id);
		free(id);
	}
	assert_int_equal(wait_count(needle, 3, 10000), 3);
	dir = runtime_dir(&c);
	assert_non_null(dir);
	kill(c.front, SIGKILL);
	waitpid(c.pid, NULL, 0);
	c.pid = -1;
	gone = wait_gone(dir, 10000);
	/* Gone: the last reaper let go of the lock, and each did so only
	 * after its kill-pane had run and said what it had to. */
	pmx_drain_err(&c);
	print_message("%s: runtime directory %s; stderr:\n%.*s\n",
	    robust ? "robust" : "desktop", gone ? "removed" : "LEFT",
	    (int)c.errlog.len, c.errlog.data ? c.errlog.data : "");
	assert_true(gone);
	assert_int_equal(count_spools(c.dir), 0);
	assert_null(strstr(buf_cstr(&c.errlog), "can't find pane"));
	assert_int_equal(wait_count(needle, 0, 5000), 0);
	free(dir);
	pmx_close(&c);
}

static void
test_rundir_front_killed(void **state)
{
	(void)state;
	rundir_front_killed(false);
	rundir_front_killed(true);
}

/* stop_program on a kept run_program (its pane held), then a clean exit:
 * nothing on stderr says "can't find pane". */
static void
test_stop_kept_quiet(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		 args[200], *id, *dir;

	(void)state;
	open_mode(&c, false, NULL);
	d = sc_call_ok(&c, "run_program", "{\"argv\":[\"echo\",\"kept\"],"
	    "\"keep\":true}");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	id = xstrdup(sc_str(d, "programId"));
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(sc_call_ok(&c, "stop_program", args));
	free(id);
	dir = runtime_dir(&c);
	assert_non_null(dir);
	close(c.to);
	c.to = -1;
	assert_int_equal(pmx_wait_exit(&c, 10000), 0);
	/* A clean exit leaves no runtime directory either; it goes once
	 * the reaper, done with its kill-pane, has let go of the lock. */
	assert_true(wait_gone(dir, 10000));
	pmx_drain_err(&c);
	print_message("stderr:\n%.*s\n", (int)c.errlog.len,
	    c.errlog.data ? c.errlog.data : "");
	assert_null(strstr(buf_cstr(&c.errlog), "can't find pane"));
	free(dir);
	pmx_close(&c);
}

/* Make dir/name a directory with mode, and a lock file if asked. */
static void
plant_dir(const char *dir, const char *name, mode_t mode, bool lock)
{
	char	path[1024];
	int	fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, mode), 0);
	if (lock) {
		snprintf(path, sizeof path, "%s/%s/lock", dir, name);
		assert_true((fd = open(path, O_CREAT | O_WRONLY, 0600)) != -1);
		close(fd);
	}
}

/* Make dir/name a FIFO. */
static void
plant_fifo(const char *dir, const char *name)
{
	char	path[1024];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(mkfifo(path, 0600), 0);
}

/* A unix socket at dir/name: listening (returned), or stale (-1). */
static int
plant_socket(const char *dir, const char *name, bool listening)
{
	struct sockaddr_un	sa;
	int			fd;

	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s", dir, name);
	assert_true((fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	if (!listening) {
		close(fd);
		return (-1);
	}
	assert_int_equal(listen(fd, 4), 0);
	return (fd);
}

/* Does dir/name exist (not followed if a symlink)? */
static bool
exists(const char *dir, const char *name)
{
	char		path[1024];
	struct stat	st;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return (lstat(path, &st) == 0);
}

/*
 * At start, progmux removes the runtime directories of instances that are
 * provably dead (ours, 0700, a lock file nobody holds, no tmux server
 * listening) and touches nothing else: a symlink, a directory without a
 * lock file, one whose lock is held, one of another mode, one of another
 * name, one whose tmux socket has a listener.
 */
static void
test_rundir_sweep(void **state)
{
	struct pmx	 c;
	char		 sub[600], path[600];
	int		 held, live;

	(void)state;
	open_mode(&c, false, NULL);
	close(c.to);
	c.to = -1;
	assert_int_equal(pmx_wait_exit(&c, 10000), 0);

	plant_dir(c.dir, "progmux-Dead01", 0700, true);
	snprintf(sub, sizeof sub, "%s/progmux-Dead01", c.dir);
	plant_fifo(sub, "p1.out");
	plant_fifo(sub, "p1.ctl");
	plant_fifo(sub, "p2.err");
	plant_socket(sub, "tmux", false);

	plant_dir(c.dir, "target", 0700, true);
	snprintf(sub, sizeof sub, "%s/target", c.dir);
	plant_fifo(sub, "p1.out");
	snprintf(path, sizeof path, "%s/progmux-abc123", c.dir);
	assert_int_equal(symlink(sub, path), 0);

	plant_dir(c.dir, "progmux-NoLck1", 0700, false);
	snprintf(sub, sizeof sub, "%s/progmux-NoLck1", c.dir);
	plant_fifo(sub, "p1.out");

	plant_dir(c.dir, "progmux-Held01", 0700, true);
	snprintf(path, sizeof path, "%s/progmux-Held01/lock", c.dir);
	assert_true((held = open(path, O_RDONLY)) != -1);
	assert_int_equal(flock(held, LOCK_SH), 0);

	plant_dir(c.dir, "progmux-Mode01", 0755, true);
	plant_dir(c.dir, "progmux-other-name", 0700, true);

	plant_dir(c.dir, "progmux-Live01", 0700, true);
	snprintf(sub, sizeof sub, "%s/progmux-Live01", c.dir);
	live = plant_socket(sub, "tmux", true);

	/* The next progmux on this TMPDIR. */
	assert_int_equal(pmx_spawn(&c, NULL, true), 0);
	close(held);
	close(live);

	assert_false(exists(c.dir, "progmux-Dead01"));
	assert_true(exists(c.dir, "progmux-abc123"));
	assert_true(exists(c.dir, "target/lock"));
	assert_true(exists(c.dir, "target/p1.out"));
	assert_true(exists(c.dir, "progmux-NoLck1/p1.out"));
	assert_true(exists(c.dir, "progmux-Held01/lock"));
	assert_true(exists(c.dir, "progmux-Mode01/lock"));
	assert_true(exists(c.dir, "progmux-other-name/lock"));
	assert_true(exists(c.dir, "progmux-Live01/lock"));
	assert_true(exists(c.dir, "progmux-Live01/tmux"));
	/* (pmx_close removes c.dir and all planted here.) */
	pmx_close(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_robust_private_server),
		cmocka_unit_test(test_front_killed_robust),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_tmux_killed),
		cmocka_unit_test(test_process_tree),
		cmocka_unit_test(test_slow_client),
		cmocka_unit_test(test_rundir_removed),
		cmocka_unit_test(test_no_leaks),
		cmocka_unit_test(test_permissions),
		cmocka_unit_test(test_launcher_killed),
		cmocka_unit_test(test_rundir_front_killed),
		cmocka_unit_test(test_stop_kept_quiet),
		cmocka_unit_test(test_rundir_sweep),
	};

	(void)robust_env;
	return (HARNESS_RUN("robust", tests, NULL, NULL));
}
