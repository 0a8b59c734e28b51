/*
 * test_tools.c — stop_program, run_program, capture_pane, send_keys and
 * list_programs against a real tmux.
 *
 * Like test_programs.c, every call goes through build/progmux over its
 * stdio and every result is checked against its outputSchema.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"

static char		home[400];
static char		slowdir[] = "/tmp/progmux-slowreaper-XXXXXX";
static bool		slowdir_made;	/* removed by tools_teardown */

/* progmux runs with HOME and SHELL of our own, so inheritShell reads a
 * login profile this test wrote. */
static int
tools_setup(void **state)
{
	static char	 henv[450], penv[600];
	const char	*env[] = { henv, "SHELL=/bin/sh", NULL };
	char		 path[500];
	FILE		*f;

	(void)state;
	snprintf(home, sizeof home, "/tmp/progmux-test-home-%ld",
	    (long)getpid());
	mkdir(home, 0700);
	snprintf(path, sizeof path, "%s/bin", home);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/.profile", home);
	f = fopen(path, "w");
	fprintf(f, "PATH=\"%s/bin:$PATH\"; export PATH\n", home);
	fclose(f);
	snprintf(path, sizeof path, "%s/bin/only-in-profile", home);
	f = fopen(path, "w");
	fprintf(f, "#!/bin/sh\necho from profile path\n");
	fclose(f);
	chmod(path, 0755);
	snprintf(path, sizeof path, "%s/bin/not-executable", home);
	f = fopen(path, "w");
	fprintf(f, "#!/bin/sh\necho ran\n");
	fclose(f);
	chmod(path, 0644);
	snprintf(henv, sizeof henv, "HOME=%s", home);
	(void)penv;
	/* Programs get the tmux server's environment: start it with ours. */
	setenv("HOME", home, 1);
	setenv("SHELL", "/bin/sh", 1);
	return (group_open(env));
}

static int
tools_teardown(void **state)
{
	char	cmd[500];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
	if (system(cmd) != 0)
		return (-1);
	if (slowdir_made) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", slowdir);
		if (system(cmd) != 0)
			return (-1);
	}
	return (group_teardown(state));
}

static bool
pane_exists(const char *pane)
{
	char	*out = pmx_tmux(&group, "list-panes", "-a", "-F",
	    "#{pane_id}", NULL);
	bool	 yes;

	yes = out != NULL && pmx_has_line(out, pane);
	free(out);
	return (yes);
}

static void
wait_pane_gone(const char *pane)
{
	if (!pmx_wait_pane_gone(&group, pane, 5000))
		fail_msg("pane %s is still there", pane);
}

/* run_program: one call, output and status. */
static void
test_run_basic(void **state)
{
	struct json_doc	*d, *r;
	char		 args[200];

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"sh\",\"-c\","
	    "\"echo hi; exit 7\"]}");
	assert_string_equal(sc_str(d, "text"), "hi\n");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_int_equal(sc_int(d, "exitStatus"), 7);
	assert_true(sc_bool(d, "ended"));
	assert_true(sc_bool(d, "outputComplete"));
	assert_int_equal(sc_int(d, "omittedChars"), 0);
	assert_int_equal(sc_int(d, "effectiveTimeoutMs"), 30000);
	assert_int_equal(sc_int(d, "effectiveLifetimeMs"), 600000);
	/* Not kept: its pane is gone; its record stays readable. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}",
	    sc_str(d, "programId"));
	r = call_ok("read_program", args);
	assert_string_equal(sc_str(r, "text"), "hi\n");
	assert_true(sc_bool(r, "ended"));
	json_doc_free(r);
	wait_pane_gone(sc_str(d, "paneId"));
	json_doc_free(d);
}

/* keep: the program and its pane stay for the other tools. */
static void
test_run_keep(void **state)
{
	struct json_doc	*d, *r;
	char		 args[200];

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"printf\",\"kept\\n\"],"
	    "\"keep\":true}");
	assert_string_equal(sc_str(d, "text"), "kept\n");
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}",
	    sc_str(d, "programId"));
	r = call_ok("read_program", args);
	assert_string_equal(sc_str(r, "text"), "kept\n");
	json_doc_free(r);
	assert_true(pane_exists(sc_str(d, "paneId")));
	snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", sc_str(d, "paneId"));
	r = call_ok("capture_pane", args);
	assert_non_null(strstr(sc_str(r, "text"), "kept"));
	json_doc_free(r);
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}",
	    sc_str(d, "programId"));
	r = call_ok("stop_program", args);
	assert_false(sc_bool(r, "wasRunning"));
	assert_string_equal(sc_str(r, "outcome"), "completed");
	json_doc_free(r);
	wait_pane_gone(sc_str(d, "paneId"));
	json_doc_free(d);
}

/* Not ended by timeoutMs: running, kept, readable later. */
static void
test_run_timeout(void **state)
{
	struct json_doc	*d, *r;
	char		 args[200];

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"sh\",\"-c\","
	    "\"echo early; sleep 1; echo late\"],\"timeoutMs\":200}");
	assert_string_equal(sc_str(d, "outcome"), "running");
	assert_false(sc_bool(d, "ended"));
	assert_int_equal(sc_int(d, "effectiveTimeoutMs"), 200);
	assert_true(sc_null(d, "exitStatus"));
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":10000}", sc_str(d, "programId"),
	    (long long)sc_int(d, "cursor"));
	{
		char	*text = pmx_read_all(&group,
		    sc_str(d, "programId"), 10000,
		    &r);

		assert_string_equal(text, "early\nlate\n");
		assert_string_equal(sc_str(r, "outcome"), "completed");
		free(text);
		json_doc_free(r);
	}
	json_doc_free(d);
}

/* input reaches standard input intact, control bytes and 1 MiB alike,
 * followed by end-of-file. */
static void
test_run_input(void **state)
{
	struct json_doc	*d;
	struct buf	 b = BUF_INIT, in = BUF_INIT;
	size_t		 i;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"od\",\"-An\",\"-tx1\"],"
	    "\"input\":\"a\\u0003\\u0004\\u001b[A\\n\"}");
	assert_non_null(strstr(sc_str(d, "text"), "61 03 04 1b 5b 41 0a"));
	assert_int_equal(sc_int(d, "exitStatus"), 0);
	json_doc_free(d);

	for (i = 0; i < 1048576; i++)
		buf_addc(&in, "abcdefghijklmnopqrstuvwxyz0123456789\n"[i % 37]);
	buf_adds(&b, "{\"argv\":[\"sh\",\"-c\",\"wc -c; \"],\"input\":");
	json_put_string(&b, in.data, in.len);
	buf_adds(&b, "}");
	d = call_ok("run_program", buf_cstr(&b));
	assert_int_equal(atoi(sc_str(d, "text")), 1048576);
	json_doc_free(d);
	buf_free(&b);
	buf_free(&in);

	/* Empty input is end-of-file at once. */
	d = call_ok("run_program", "{\"argv\":[\"wc\",\"-l\"],\"input\":\"\"}");
	assert_int_equal(atoi(sc_str(d, "text")), 0);
	json_doc_free(d);
}

/* separateStderr: standard error apart, text carries stdout only. */
static void
test_run_separate_stderr(void **state)
{
	struct json_doc	*d;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"sh\",\"-c\",\"echo out; "
	    "echo err >&2; echo out2\"],\"separateStderr\":true}");
	assert_string_equal(sc_str(d, "text"), "out\nout2\n");
	assert_string_equal(sc_str(d, "stderr"), "err\n");
	json_doc_free(d);
	d = call_ok("run_program", "{\"argv\":[\"sh\",\"-c\",\"echo out; "
	    "echo err >&2\"]}");
	assert_string_equal(sc_str(d, "text"), "out\nerr\n");
	assert_null(sc_get(d, "stderr"));
	json_doc_free(d);
}

/* inheritShell: the login profile sets PATH; argv stays separate words. */
static void
test_run_inherit_shell(void **state)
{
	struct json_doc	*d;
	char		*args, marker[500];
	struct stat	 st;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"only-in-profile\"],"
	    "\"inheritShell\":true}");
	assert_string_equal(sc_str(d, "text"), "from profile path\n");
	json_doc_free(d);
	d = call_ok("run_program", "{\"argv\":[\"only-in-profile\"]}");
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	json_doc_free(d);

	/* Not found, or not executable, in the profile's PATH: not_started
	 * with 127 or 126 and the reason, as without the shell. */
	d = call_ok("run_program", "{\"argv\":[\"no-such-program-here\"],"
	    "\"inheritShell\":true}");
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 127);
	assert_non_null(strstr(sc_str(d, "text"), "command not found"));
	json_doc_free(d);
	d = call_ok("run_program", "{\"argv\":[\"not-executable\"],"
	    "\"inheritShell\":true}");
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 126);
	assert_null(strstr(sc_str(d, "text"), "ran"));
	json_doc_free(d);
	/* A program that exits 127 itself still completed. */
	d = call_ok("run_program", "{\"argv\":[\"sh\",\"-c\",\"exit 127\"],"
	    "\"inheritShell\":true}");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_int_equal(sc_int(d, "exitStatus"), 127);
	json_doc_free(d);

	snprintf(marker, sizeof marker, "%s/pwned", home);
	xasprintf(&args, "{\"argv\":[\"printf\",\"%%s|\",\"$(touch %s)\","
	    "\";\",\"touch %s\",\"`touch %s`\"],\"inheritShell\":true}",
	    marker, marker, marker);
	d = call_ok("run_program", args);
	free(args);
	assert_non_null(strstr(sc_str(d, "text"), "$(touch "));
	assert_non_null(strstr(sc_str(d, "text"), "|;|"));
	assert_int_equal(stat(marker, &st), -1);
	json_doc_free(d);
}

/*
 * Pins: inheritShell's not_started rests on nothing a signal would say
 * of its sender: with a login shell that is a wrapper running the real
 * shell as its child (not by exec), so that the script's parent is the
 * wrapper, not the launcher, a missing or not executable argv[0] still
 * reads not_started with 127 or 126.
 */
static void
test_run_inherit_shell_wrapped(void **state)
{
	static char	 shenv[500], henv[450];
	const char	*env[] = { shenv, henv, NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		 wrap[450];
	FILE		*f;

	(void)state;
	snprintf(wrap, sizeof wrap, "%s/wrapsh", home);
	assert_non_null((f = fopen(wrap, "w")));
	fprintf(f, "#!/bin/sh\n/bin/sh \"$@\"\n");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(wrap, 0755), 0);
	snprintf(shenv, sizeof shenv, "SHELL=%s", wrap);
	snprintf(henv, sizeof henv, "HOME=%s", home);
	assert_int_equal(pmx_open(&c, env), 0);
	d = sc_call_ok(&c, "run_program", "{\"argv\":[\"no-such-program-here"
	    "\"],\"inheritShell\":true}");
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 127);
	json_doc_free(d);
	d = sc_call_ok(&c, "run_program", "{\"argv\":[\"not-executable\"],"
	    "\"inheritShell\":true}");
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 126);
	json_doc_free(d);
	d = sc_call_ok(&c, "run_program", "{\"argv\":[\"only-in-profile\"],"
	    "\"inheritShell\":true}");
	assert_string_equal(sc_str(d, "text"), "from profile path\n");
	json_doc_free(d);
	assert_int_equal(pmx_close(&c), 0);
}

/* Output longer than a page: the last page, and how much came before. */
static void
test_run_long_output(void **state)
{
	struct json_doc	*d;
	const char	*text;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"seq\",\"1\",\"20000\"]}");
	text = sc_str(d, "text");
	assert_true(strlen(text) <= 24000);
	assert_true(sc_int(d, "omittedChars") > 0);
	assert_int_equal(sc_int(d, "omittedChars") + (int64_t)strlen(text),
	    108894);	/* bytes of seq 1 20000 */
	assert_non_null(strstr(text, "\n20000\n"));
	json_doc_free(d);
	d = call_ok("run_program", "{\"argv\":[\"seq\",\"1\",\"100\"],"
	    "\"maxLines\":3}");
	assert_string_equal(sc_str(d, "text"), "98\n99\n100\n");
	json_doc_free(d);
}

/* stop_program: TERM, KILL after grace; the pane goes; a waiting read
 * answers at once with stopped. */
static void
test_stop(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, args[200], needle[64], *text;
	int64_t		 rid;

	(void)state;
	snprintf(needle, sizeof needle, "sleep 7%06d", (int)getpid() % 1000000);
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"trap '' TERM; "
	    "echo ready; exec %s\"]}", needle);
	id = pmx_start_program(&group, args, &pane);
	assert_non_null(id);
	text = pmx_read_until(&group,
	    id, "ready\n", 10000);	/* TERM ignored */
	assert_non_null(text);
	free(text);
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"cursor\":6,\"timeoutMs\":20000}}", id);
	rid = pmx_send(&group, "tools/call", args);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"graceMs\":300}",
	    id);
	d = call_ok("stop_program", args);
	assert_true(sc_bool(d, "wasRunning"));
	assert_string_equal(sc_str(d, "outcome"), "stopped");
	assert_string_equal(sc_str(d, "signal"), "SIGKILL");
	assert_string_equal(sc_str(d, "programId"), id);
	json_doc_free(d);
	d = pmx_wait(&group, rid, 5000);
	assert_non_null(d);
	assert_string_equal(sc_str(d, "outcome"), "stopped");
	json_doc_free(d);
	wait_pane_gone(pane);
	assert_int_equal(pmx_count_procs(needle), 0);
	/* Forgotten: stopping or reading again is an error. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	refused("stop_program", args, id, NULL);
	refused("read_program", args, id, NULL);
	refused("stop_program", "{\"programId\":\"nosuch\"}", "nosuch", NULL);
	refused("stop_program", "{\"programId\":\"x\",\"graceMs\":-1}",
	    "graceMs", NULL);
	free(id);
	free(pane);
}

/* capture_pane with args until the screen shows needle (10 s at most). */
static struct json_doc *
wait_screen(const char *args, const char *needle)
{
	struct json_doc	*d;
	int64_t		 t0 = now_ms();

	for (;;) {
		d = call_ok("capture_pane", args);
		if (strstr(sc_str(d, "text"), needle) != NULL)
			return (d);
		if (now_ms() - t0 > 10000)
			fail_msg("the screen never showed \"%s\": %s", needle,
			    sc_str(d, "text"));
		json_doc_free(d);
		usleep(10000);
	}
}

/* capture_pane: the screen, scrollback, maxLines, errors. */
static void
test_capture(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, args[200];

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\",\"seq 1 50; "
	    "printf '\\\\033[2;5Hmoved'; exec sleep 30\"],\"width\":40,"
	    "\"height\":10}", &pane);
	assert_non_null(id);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", pane);
	d = wait_screen(args, "moved");
	/* Row 2 held "43"; the cursor moved there and wrote over it. */
	assert_non_null(strstr(sc_str(d, "text"), "\n43  moved\n"));
	assert_int_equal(sc_int(d, "totalLines"), 9);
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"start\":-100,"
	    "\"maxLines\":5}", pane);
	d = call_ok("capture_pane", args);
	assert_int_equal(sc_int(d, "droppedLines"),
	    sc_int(d, "totalLines") - 5);
	assert_true(sc_int(d, "totalLines") >= 50);
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"start\":-100}", pane);
	d = call_ok("capture_pane", args);
	assert_non_null(strstr(sc_str(d, "text"), "1\n2\n3\n"));
	json_doc_free(d);
	refused("capture_pane", "{\"paneId\":\"%99999\"}", "%99999", NULL);
	refused("capture_pane", "{\"paneId\":\"%1; kill-server\"}",
	    "paneId", NULL);
	refused("capture_pane", "{\"paneId\":\"#{pane_id}\"}", "paneId", NULL);
	free(id);
	free(pane);
}

/* send_keys: text arrives as typed, whatever tmux would make of it
 * (%if and %hidden, bare, are directives to tmux's parser). */
static void
test_send_keys_literal(void **state)
{
	static const char *const keys[] = {
		"; kill-server; ", "\\\\;", ";", "#{pane_id}", "'quoted'",
		"\\\"dq\\\"", "$HOME", "a b  c", "~user", "{x}", "%1",
		"%if", "%hidden",
	};
	struct json_doc	*d;
	char		*id, *pane, args[300], *text;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		id = pmx_start_program(&group,
		    "{\"argv\":[\"head\",\"-n\",\"1\"]}",
		    &pane);
		assert_non_null(id);
		snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"%s\","
		    "\"literal\":%s}", pane, keys[i], i % 2 ? "true" : "false");
		d = call_ok("send_keys", args);
		assert_true(sc_bool(d, "sent"));
		json_doc_free(d);
		text = pmx_read_all(&group, id, 10000, &d);
		{
			/* The echo of the typing and head's copy: both. */
			struct json_doc	*k;
			char		 j[300];
			const char	*want;

			snprintf(j, sizeof j, "\"%s\"", keys[i]);
			k = json_parse(j, strlen(j), NULL);
			want = json_str(json_root(k), NULL);
			if (strstr(text, want) == NULL)
				fail_msg("keys \"%s\" read back as \"%s\"",
				    want, text);
			json_doc_free(k);
		}
		assert_string_equal(sc_str(d, "outcome"), "completed");
		free(text);
		json_doc_free(d);
		free(id);
		free(pane);
	}
	/* tmux is still there and serving. */
	d = call_ok("run_program", "{\"argv\":[\"echo\",\"ok\"]}");
	assert_string_equal(sc_str(d, "text"), "ok\n");
	json_doc_free(d);
}

/*
 * Keys typed the moment start_program answers reach the program, and
 * their echo and the program's output are read, even when the reaper is
 * slow to come up: here a copy of progmux whose reaper sleeps 300 ms
 * before it runs. So does a C-c typed at once. (The output FIFO must have a reader before pipe-pane
 * writes to it, or pipe-pane's cat dies and the end is never read.)
 */
static void
test_send_keys_before_reaper(void **state)
{
	static char	 binenv[400];
	const char	*env[] = { binenv, NULL };
	struct pmx	 c2;
	struct json_doc	*d;
	const char	*dir = slowdir;
	char		 real[PATH_MAX], path[PATH_MAX + 16];
	char		 cmd[2 * PATH_MAX + 64], args[200], *id, *pane, *text;
	const char	*bin = getenv("PROGMUX_BIN");
	FILE		*f;
	int		 i;

	(void)state;
	assert_non_null(mkdtemp(slowdir));
	slowdir_made = true;
	if (bin == NULL)
		bin = "build/progmux";
	assert_non_null(realpath(bin, real));
	snprintf(path, sizeof path, "%s-reaper", real);
	if (access(path, X_OK) != 0) {
		/* PROGMUX_BIN is a wrapper (make test-valgrind): no copy. */
		print_message("skipped: PROGMUX_BIN is a wrapper: no "
		    "progmux-reaper beside it to slow down\n");
		skip();
	}
	snprintf(cmd, sizeof cmd, "cp '%s' '%s/progmux'", real, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof path, "%s/progmux-reaper", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	/* The launcher (--launch) is not slowed, only the reaper. */
	fprintf(f, "#!/bin/sh\n[ \"$1\" = --launch ] || sleep 0.3\n"
	    "exec '%s-reaper' \"$@\"\n", real);
	fclose(f);
	chmod(path, 0755);
	snprintf(binenv, sizeof binenv, "PROGMUX_BIN=%s/progmux", dir);

	memset(&c2, 0, sizeof c2);
	assert_int_equal(pmx_open(&c2, env), 0);
	for (i = 0; i < 3; i++) {
		id = pmx_start_program(&c2, "{\"argv\":[\"head\",\"-n\",\"1\"]}",
		    &pane);
		assert_non_null(id);
		snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":"
		    "\"typed at once\"}", pane);
		json_doc_free(sc_call_ok(&c2, "send_keys", args));
		text = pmx_read_all(&c2, id, 10000, &d);
		assert_non_null(text);
		assert_string_equal(text, "typed at once\ntyped at once\n");
		assert_string_equal(sc_str(d, "outcome"), "completed");
		assert_int_equal(sc_int(d, "exitStatus"), 0);
		free(text);
		json_doc_free(d);
		free(id);
		free(pane);
	}
	/* Held keys whose request is cancelled are never typed; keys sent
	 * after them are. */
	id = pmx_start_program(&c2, "{\"argv\":[\"head\",\"-n\",\"1\"]}",
	    &pane);
	assert_non_null(id);
	snprintf(cmd, sizeof cmd, "{\"jsonrpc\":\"2.0\",\"id\":\"held\","
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"send_keys\","
	    "\"arguments\":{\"paneId\":\"%s\",\"keys\":\"cancelled\"}}}",
	    pane);
	pmx_send_raw(&c2, cmd, strlen(cmd));
	snprintf(cmd, sizeof cmd, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":"
	    "\"held\"}}");
	pmx_send_raw(&c2, cmd, strlen(cmd));
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"after\"}",
	    pane);
	json_doc_free(sc_call_ok(&c2, "send_keys", args));
	text = pmx_read_all(&c2, id, 10000, &d);
	assert_string_equal(text, "after\nafter\n");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	free(text);
	json_doc_free(d);
	/* Nothing came for the cancelled request: ping's reply is next. */
	{
		int64_t	ping = pmx_send(&c2, "ping", NULL);

		d = pmx_next(&c2, 5000);
		assert_non_null(d);
		if (json_int(json_get(json_root(d), "id")) != ping)
			fail_msg("something came before ping's reply");
		json_doc_free(d);
	}
	free(id);
	free(pane);

	/* A C-c typed at once, while the launcher still has the terminal,
	 * still interrupts the program. */
	id = pmx_start_program(&c2, "{\"argv\":[\"sleep\",\"30\"]}", &pane);
	assert_non_null(id);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"C-c\","
	    "\"enter\":false}", pane);
	json_doc_free(sc_call_ok(&c2, "send_keys", args));
	text = pmx_read_all(&c2, id, 10000, &d);
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_string_equal(sc_str(d, "signal"), "SIGINT");
	free(text);
	json_doc_free(d);
	free(id);
	free(pane);

	assert_int_equal(pmx_close(&c2), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* C-c reaches the program as SIGINT. */
static void
test_send_keys_ctrl_c(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, args[200], *text;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sleep\",\"30\"]}", &pane);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"C-c\","
	    "\"enter\":false}", pane);
	d = call_ok("send_keys", args);
	json_doc_free(d);
	text = pmx_read_all(&group, id, 10000, &d);
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_string_equal(sc_str(d, "signal"), "SIGINT");
	free(text);
	json_doc_free(d);
	refused("send_keys", "{\"paneId\":\"%99999\",\"keys\":\"x\"}",
	    "%99999", NULL);
	free(id);
	free(pane);
}

/* Start a program that ignores SIGTERM and wait until it runs. */
static char *
start_term_proof(void)
{
	char	*id, *text;

	id = pmx_start_program(&group,
	    "{\"argv\":[\"sh\",\"-c\",\"trap '' TERM; "
	    "echo ready; exec sleep 30\"]}", NULL);
	assert_non_null(id);
	text = pmx_read_until(&group, id, "ready\n", 10000);
	assert_non_null(text);
	free(text);
	return (id);
}

/*
 * A second stop_program while one is under way waits for the same end;
 * a stop whose request is cancelled still forgets the program once it
 * has ended.
 */
static void
test_stop_twice_and_cancelled(void **state)
{
	struct json_doc	*d;
	char		*id, args[300];
	int64_t		 first, t0;

	(void)state;
	id = start_term_proof();
	snprintf(args, sizeof args, "{\"name\":\"stop_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"graceMs\":300}}", id);
	first = pmx_send(&group, "tools/call", args);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"graceMs\":300}",
	    id);
	d = call_ok("stop_program", args);
	assert_string_equal(sc_str(d, "outcome"), "stopped");
	assert_string_equal(sc_str(d, "signal"), "SIGKILL");
	json_doc_free(d);
	d = pmx_wait(&group, first, 10000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	assert_string_equal(sc_str(d, "outcome"), "stopped");
	json_doc_free(d);
	assert_false(is_listed(&group, id));
	free(id);

	id = start_term_proof();
	snprintf(args, sizeof args, "{\"jsonrpc\":\"2.0\",\"id\":\"stop-c\","
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"stop_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"graceMs\":300}}}", id);
	pmx_send_raw(&group, args, strlen(args));
	snprintf(args, sizeof args, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":"
	    "\"stop-c\"}}");
	pmx_send_raw(&group, args, strlen(args));
	t0 = now_ms();
	while (is_listed(&group, id)) {
		if (now_ms() - t0 > 10000)
			fail_msg("%s is still listed after its stop", id);
		usleep(20000);
	}
	free(id);
}

/*
 * Lines of a pane that look like control-mode guard lines ("%end ...")
 * come back in capture_pane's text, and later answers still go to the
 * right calls.
 */
static void
test_capture_guard_lines(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, *text, args[200];

	(void)state;
	id = pmx_start_program(&group,
	    "{\"argv\":[\"sh\",\"-c\",\"printf '%%end 1 "
	    "1 1\\\\n%%error 2 2 1\\\\n%%begin 3 3 1\\\\nafter\\\\n'; exec sleep "
	    "30\"]}", &pane);
	assert_non_null(id);
	text = pmx_read_until(&group, id, "after\n", 10000);
	assert_non_null(text);
	free(text);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", pane);
	d = wait_screen(args, "after");
	text = (char *)sc_str(d, "text");
	if (strstr(text, "%end 1 1 1\n%error 2 2 1\n%begin 3 3 1\n") == NULL)
		fail_msg("capture_pane lost lines: %s", text);
	json_doc_free(d);
	d = call_ok("run_program", "{\"argv\":[\"echo\",\"ok\"]}");
	assert_string_equal(sc_str(d, "text"), "ok\n");
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(call_ok("stop_program", args));
	free(id);
	free(pane);
}

/* list_programs: every program held, with its particulars. */
static void
test_list_programs(void **state)
{
	struct json_doc		*d;
	const struct json	*it;
	char			*id;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sleep\",\"20\"],"
	    "\"lifetimeMs\":60000}", NULL);
	assert_non_null(it = listed(&group, id, &d));
	assert_string_equal(json_str(json_at(json_get(it, "argv"), 0), NULL),
	    "sleep");
	assert_string_equal(json_str(json_get(it, "outcome"), NULL),
	    "running");
	assert_true(json_int(json_get(it, "lifetimeLeftMs")) <= 60000);
	assert_true(json_int(json_get(it, "lifetimeLeftMs")) > 50000);
	json_doc_free(d);
	/* A field it does not know is ignored, and said. */
	d = call_ok("list_programs", "{\"x\":1}");
	assert_non_null(strstr(pmx_text(d), "ignored unknown field \"x\""));
	json_doc_free(d);
	free(id);
}

/*
 * Pins: a NUL in an id is a tool error naming the field, for every tool
 * that takes one, and acts on nothing: "p1\u0000junk" neither stops nor
 * reads p1, "%N\u0000junk" neither captures nor types into %N, and a
 * start beside such a pane starts nothing.
 */
static void
test_nul_in_ids(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, *text, args[400];
	const char	*tails[] = { "\\u0000junk", "\\u0000" };
	size_t		 t, listed_before;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\",\"echo ready; "
	    "exec sleep 30\"]}", &pane);
	assert_non_null(id);
	text = pmx_read_until(&group, id, "ready\n", 10000);
	assert_non_null(text);
	free(text);
	d = call_ok("list_programs", "{}");
	listed_before = json_len(sc_get(d, "programs"));
	json_doc_free(d);
	for (t = 0; t < sizeof tails / sizeof *tails; t++) {
		snprintf(args, sizeof args, "{\"programId\":\"%s%s\"}", id,
		    tails[t]);
		refused("stop_program", args, "programId contains a NUL", NULL);
		refused("read_program", args, "programId contains a NUL", NULL);
		snprintf(args, sizeof args, "{\"paneId\":\"%s%s\"}", pane,
		    tails[t]);
		refused("capture_pane", args, "paneId contains a NUL", NULL);
		snprintf(args, sizeof args, "{\"paneId\":\"%s%s\",\"keys\":"
		    "\"exit\"}", pane, tails[t]);
		refused("send_keys", args, "paneId contains a NUL", NULL);
		snprintf(args, sizeof args, "{\"argv\":[\"true\"],"
		    "\"fromPaneId\":\"%s%s\"}", pane, tails[t]);
		refused("start_program", args, "fromPaneId contains a NUL",
		    NULL);
		refused("run_program", args, "fromPaneId contains a NUL", NULL);
		snprintf(args, sizeof args, "{\"argv\":[\"true\"],"
		    "\"fromPaneId\":\"%s\",\"placement\":\"split%s\"}", pane,
		    tails[t]);
		refused("start_program", args, "placement contains a NUL",
		    NULL);
	}
	/* Nothing was stopped, typed, or started beside it. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"timeoutMs\":0}",
	    id);
	d = call_ok("read_program", args);
	assert_string_equal(sc_str(d, "outcome"), "running");
	assert_int_equal(sc_int(d, "cursor"), 6);
	json_doc_free(d);
	d = call_ok("list_programs", "{}");
	assert_int_equal(json_len(sc_get(d, "programs")), listed_before);
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(call_ok("stop_program", args));
	free(id);
	free(pane);
}

/* Is there a window of this size ("WxH") on c's tmux server? */
static bool
window_sized(struct pmx *c, const char *size)
{
	char	*out = pmx_tmux(c, "list-windows", "-a", "-F",
	    "#{window_width}x#{window_height}", NULL);
	bool	 yes;

	assert_non_null(out);
	yes = pmx_has_line(out, size);
	free(out);
	return (yes);
}

/* The number of programs list_programs shows on c. */
static size_t
count_programs(struct pmx *c)
{
	struct json_doc	*d = pmx_call(c, "list_programs", "{}", 20000);
	size_t		 n;

	assert_non_null(d);
	n = json_len(sc_get(d, "programs"));
	json_doc_free(d);
	return (n);
}

/* run_program stty size at width x height on c: its text, or NULL (and
 * *err the error text) if it was refused. */
static char *
run_stty(struct pmx *c, int width, int height, char **err)
{
	struct json_doc	*d;
	char		 args[200], *text = NULL;

	snprintf(args, sizeof args, "{\"argv\":[\"stty\",\"size\"],\"width\":"
	    "%d,\"height\":%d,\"timeoutMs\":20000}", width, height);
	d = pmx_call(c, "run_program", args, 40000);
	assert_non_null(d);
	*err = NULL;
	if (pmx_is_error(d))
		*err = xstrdup(pmx_text(d));
	else
		text = xstrdup(sc_str(d, "text"));
	json_doc_free(d);
	return (text);
}

/*
 * Pins: a pane whose cells, counting the history tmux keeps for it (the
 * session's history-limit, 2000 here), pass PROGMUX_PANE_MAX_CELLS
 * (default 4,000,000) is refused by start_program and run_program with
 * an error naming the setting, before anything starts (no more programs
 * listed, no window of that size on the tmux server); 1000x1000 (3
 * million with history) runs at that size; the setting moves the line.
 */
static void
test_pane_max_cells(void **state)
{
	struct pmx	 c2;
	const char	*env[] = { "PROGMUX_PANE_MAX_CELLS=6000000", NULL };
	char		*text, *err;
	size_t		 progs;

	(void)state;
	progs = count_programs(&group);
	refused("start_program", "{\"argv\":[\"true\"],\"width\":2000,"
	    "\"height\":1000}", "PROGMUX_PANE_MAX_CELLS", NULL);
	refused("run_program", "{\"argv\":[\"true\"],\"width\":2000,"
	    "\"height\":1000}", "PROGMUX_PANE_MAX_CELLS", NULL);
	refused("start_program", "{\"argv\":[\"true\"],\"width\":10000,"
	    "\"height\":10000}", "PROGMUX_PANE_MAX_CELLS", NULL);
	assert_int_equal(count_programs(&group), progs);
	assert_false(window_sized(&group, "2000x1000"));
	assert_false(window_sized(&group, "10000x10000"));

	text = run_stty(&group, 1000, 1000, &err);
	if (text == NULL)
		fail_msg("1000x1000 refused: %s", err);
	assert_string_equal(text, "1000 1000\n");
	free(text);

	assert_int_equal(pmx_open(&c2, env), 0);
	text = run_stty(&c2, 2000, 1000, &err);
	if (text == NULL)
		fail_msg("2000x1000 refused with 6000000 allowed: %s", err);
	assert_string_equal(text, "1000 2000\n");
	free(text);
	text = run_stty(&c2, 2001, 1000, &err);
	if (text != NULL)
		fail_msg("2001x1000 ran with 6000000 allowed: %s", text);
	assert_null(text);
	assert_non_null(strstr(err, "PROGMUX_PANE_MAX_CELLS"));
	assert_non_null(strstr(err, "6000000"));
	assert_non_null(strstr(err, "history-limit"));
	free(err);

	assert_int_equal(pmx_close(&c2), 0);
}

#define OWN_WAIT_MS	30000	/* progmux in a pane, on a loaded machine */

/* A tools/call through P that must be refused as the own pane. */
static void
expect_own_refused(struct pmx *p, const char *tool, const char *args)
{
	struct json_doc	*d = pmx_call(p, tool, args, OWN_WAIT_MS);

	if (d == NULL)
		fail_msg("%s %s: no answer", tool, args);
	if (!pmx_is_error(d))
		fail_msg("%s %s acted on progmux's own pane", tool, args);
	if (strstr(pmx_text(d), "the pane this server runs in") == NULL)
		fail_msg("%s %s: not the own-pane error: %s", tool, args,
		    pmx_text(d));
	json_doc_free(d);
}

/*
 * The own pane found without the environment. progmux runs in a
 * pane of the private server as the child of that pane's shell, with
 * TMUX and TMUX_PANE removed, speaking over FIFOs this test holds. Its
 * capture_pane and send_keys refuse that pane (send_keys runs there when
 * forced) and act on another pane; the harness's progmux, which runs in
 * no pane, may capture that pane.
 */
static void
test_own_pane_from_ancestry(void **state)
{
	struct pmx	 P;
	struct json_doc	*d;
	char		 in[300], out[300], status[300], bin[PATH_MAX];
	char		 cmd[6000], args[200], own[32], other[32];
	char		*got, *st;
	pid_t		 shell, kids[4];
	long		 pid;
	int64_t		 id, t0;
	size_t		 len;

	(void)state;
	if (realpath(getenv("PROGMUX_BIN") ? getenv("PROGMUX_BIN") :
	    "build/progmux", bin) == NULL)
		fail_msg("no progmux binary");
	snprintf(in, sizeof in, "%s/own-in", group.dir);
	snprintf(out, sizeof out, "%s/own-out", group.dir);
	snprintf(status, sizeof status, "%s/own-status", group.dir);
	assert_int_equal(mkfifo(in, 0600), 0);
	assert_int_equal(mkfifo(out, 0600), 0);
	memset(&P, 0, sizeof P);
	P.pid = -1;
	P.err = -1;
	/* Read-write: opening does not wait for the other side. */
	P.to = open(in, O_RDWR | O_CLOEXEC);
	P.from = open(out, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	assert_true(P.to != -1 && P.from != -1);
	/* A command follows progmux, so the shell stays its parent. */
	snprintf(cmd, sizeof cmd, "unset TMUX TMUX_PANE; "
	    "PROGMUX_SOCKET_PATH='%s' PROGMUX_SESSION=own TMPDIR='%s' "
	    "TMUX_TMPDIR='%s' '%s' <'%s' >'%s' 2>/dev/null; echo $? >'%s'",
	    group.sock, group.dir, group.dir, bin, in, out, status);
	got = pmx_tmux(&group, "new-window", "-d", "-t", "base", "-P", "-F",
	    "#{pane_id} #{pane_pid}", "sh", "-c", cmd, NULL);
	assert_non_null(got);
	assert_int_equal(sscanf(got, "%31s %ld", own, &pid), 2);
	shell = (pid_t)pid;
	free(got);

	id = pmx_send(&P, "initialize", "{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"own-pane\","
	    "\"version\":\"1\"}}");
	d = pmx_wait(&P, id, OWN_WAIT_MS);
	if (d == NULL)
		fail_msg("progmux in pane %s did not answer initialize", own);
	json_doc_free(d);
	pmx_send_raw(&P, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}", 54);
	/* What is under test: progmux below the pane's process, no TMUX. */
	assert_int_equal(pmx_children(shell, kids, 4), 1);
	assert_true(kids[0] != shell);
	assert_int_equal(pmx_has_env_var(kids[0], "TMUX"), 0);
	assert_int_equal(pmx_has_env_var(kids[0], "TMUX_PANE"), 0);

	snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", own);
	expect_own_refused(&P, "capture_pane", args);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"x\","
	    "\"enter\":false}", own);
	expect_own_refused(&P, "send_keys", args);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"x\","
	    "\"enter\":false,\"force\":true}", own);
	json_doc_free(sc_call_ok(&P, "send_keys", args));

	/* Another pane, listed after the first list: allowed. */
	got = pmx_tmux(&group, "new-window", "-d", "-t", "base", "-P", "-F",
	    "#{pane_id}", "cat", NULL);
	assert_non_null(got);
	assert_int_equal(sscanf(got, "%31s", other), 1);
	free(got);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", other);
	json_doc_free(sc_call_ok(&P, "capture_pane", args));
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"typed\","
	    "\"enter\":false}", other);
	json_doc_free(sc_call_ok(&P, "send_keys", args));
	/* The own pane is still refused once the panes were listed again. */
	snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", own);
	expect_own_refused(&P, "capture_pane", args);
	/* A progmux outside that pane may capture it. */
	json_doc_free(sc_call_ok(&group, "capture_pane", args));

	/* EOF: progmux exits 0, then its pane's shell. */
	close(P.to);
	t0 = now_ms();
	while ((st = pmx_read_file(status, &len)) == NULL || len == 0) {
		free(st);
		if (now_ms() - t0 > OWN_WAIT_MS)
			fail_msg("progmux in pane %s did not exit", own);
		usleep(20000);
	}
	assert_string_equal(st, "0\n");
	free(st);
	close(P.from);
	buf_free(&P.rbuf);
	json_doc_free(pmx_next(&P, 0));
	free(pmx_tmux(&group, "kill-pane", "-t", other, NULL));
	unlink(in);
	unlink(out);
	unlink(status);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_basic),
		cmocka_unit_test(test_run_keep),
		cmocka_unit_test(test_run_timeout),
		cmocka_unit_test(test_run_input),
		cmocka_unit_test(test_run_separate_stderr),
		cmocka_unit_test(test_run_inherit_shell),
		cmocka_unit_test(test_run_inherit_shell_wrapped),
		cmocka_unit_test(test_run_long_output),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_capture_guard_lines),
		cmocka_unit_test(test_stop_twice_and_cancelled),
		cmocka_unit_test(test_send_keys_literal),
		cmocka_unit_test(test_send_keys_before_reaper),
		cmocka_unit_test(test_send_keys_ctrl_c),
		cmocka_unit_test(test_list_programs),
		cmocka_unit_test(test_nul_in_ids),
		cmocka_unit_test(test_pane_max_cells),
		cmocka_unit_test(test_own_pane_from_ancestry),
	};

	return (HARNESS_RUN("tools", tests, tools_setup, tools_teardown));
}
