/*
 * test_owed.c — nothing an agent is owed is lost, and nothing is
 * unbounded: every byte printed (a C1 character does not end the text;
 * an unterminated escape string costs at most its own line, counted), every
 * ended program not yet read (never evicted, however many end at once or
 * are being read), a stop that forgets what it says it forgot, replies
 * bounded whatever the client sent, and starts that say the truth when
 * descriptors run out.
 *
 * Each test starts its own progmux on a private tmux server (robust mode
 * where the test needs no pane of its own) with the settings it needs.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include "sshd.h"
#include "xmalloc.h"

#define WAIT_MS	15000

/* Wait until list_programs shows n programs, every one of them ended. */
static void
wait_all_ended(struct pmx *c, size_t n)
{
	const struct json	*progs;
	struct json_doc		*d;
	int64_t			 deadline = now_ms() + WAIT_MS;
	size_t			 i, ended;

	for (;;) {
		d = sc_call_ok(c, "list_programs", "{}");
		progs = sc_get(d, "programs");
		for (i = ended = 0; i < json_len(progs); i++)
			if (json_bool(json_get(json_at(progs, i), "ended")))
				ended++;
		if (json_len(progs) == n && ended == n) {
			json_doc_free(d);
			return;
		}
		if (now_ms() > deadline)
			fail_msg("%zu of %zu programs ended: %s", ended, n,
			    pmx_text(d));
		json_doc_free(d);
		usleep(20000);
	}
}

/* Wait until id is no longer known (evicted), failing after WAIT_MS. */
static void
wait_unknown(struct pmx *c, const char *id)
{
	int64_t	deadline = now_ms() + WAIT_MS;

	while (is_listed(c, id)) {
		if (now_ms() > deadline)
			fail_msg("%s is still known", id);
		usleep(20000);
	}
}

/*
 * U+009D (C2 9D), which double-encoded text produces from ordinary
 * letters, is text: the 1001 lines after it all come back, complete.
 */
static void
test_c1_not_swallowed(void **state)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*id, *text, *want;
	size_t		 i;
	struct buf	 b = BUF_INIT;

	(void)state;
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	id = pmx_start_program(&c, "{\"argv\":[\"sh\",\"-c\",\"printf "
	    "'caf\\\\303\\\\251 \\\\302\\\\235 next\\\\n'; seq 1 1000\"]}",
	    NULL);
	assert_non_null(id);
	text = pmx_read_all(&c, id, WAIT_MS, &d);
	buf_adds(&b, "caf\xc3\xa9 \xc2\x9d next\n");
	for (i = 1; i <= 1000; i++)
		buf_printf(&b, "%zu\n", i);
	want = xstrdup(buf_cstr(&b));
	assert_string_equal(text, want);
	assert_true(json_bool(json_get(pmx_sc(d), "outputComplete")));
	assert_null(json_get(pmx_sc(d), "droppedBytes"));
	json_doc_free(d);
	free(want);
	free(text);
	free(id);
	buf_free(&b);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * An escape string that never ends (a stray ESC ] before a line break)
 * costs only the rest of its line: the next lines are text, and the bytes
 * it held are counted (droppedBytes, in the text too), so the output is
 * not said to be complete.
 */
static void
test_unterminated_string(void **state)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", NULL };
	struct pmx	 c;
	struct json_doc	*d;

	(void)state;
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	d = sc_call_ok(&c, "run_program", "{\"argv\":[\"printf\","
	    "\"a\\u001b]0;title\\nb\\u001bPq#0\\nc\\n\"]}");
	assert_string_equal(sc_str(d, "text"), "a\nb\nc\n");
	assert_true(sc_bool(d, "ended"));
	assert_false(sc_bool(d, "outputComplete"));
	/* ESC ] 0 ; t i t l e and the pane's CR before the LF: 10; ESC P q
	 * # 0 and its CR: 6. */
	assert_int_equal(sc_int(d, "droppedBytes"), 16);
	assert_non_null(strstr(pmx_text(d), "16 bytes of escape sequences "
	    "that never ended left out"));
	json_doc_free(d);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * Ended programs nobody has read to the end are kept past
 * PROGMUX_KEEP_ENDED: a start is refused instead, naming the ceiling and
 * the programs; reading them to the end lets starts go on, and only the
 * programs read are evicted then.
 */
static void
test_unread_kept(void **state)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", "PROGMUX_KEEP_ENDED=3",
	    NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*ids[6], *text, args[80], want[16];
	int		 i;

	(void)state;
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	for (i = 0; i < 5; i++) {
		/* All five run before any ends: five end unread. */
		snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\","
		    "\"sleep 1; echo e%d\"]}", i);
		ids[i] = pmx_start_program(&c, args, NULL);
		assert_non_null(ids[i]);
	}
	wait_all_ended(&c, 5);
	/* All five kept, and a sixth start refused. */
	for (i = 0; i < 5; i++)
		assert_true(is_listed(&c, ids[i]));
	d = pmx_call(&c, "start_program", "{\"argv\":[\"true\"]}", WAIT_MS);
	assert_true(pmx_is_error(d));
	assert_non_null(strstr(pmx_text(d), "PROGMUX_KEEP_ENDED"));
	assert_non_null(strstr(pmx_text(d), "5 ended programs"));
	assert_non_null(strstr(pmx_text(d), ids[0]));
	json_doc_free(d);
	/* Three read to the end: two unread are left, under the ceiling. */
	for (i = 0; i < 3; i++) {
		text = pmx_read_all(&c, ids[i], WAIT_MS, NULL);
		snprintf(want, sizeof want, "e%d\n", i);
		assert_string_equal(text, want);
		free(text);
	}
	ids[5] = pmx_start_program(&c, "{\"argv\":[\"echo\",\"e5\"]}", NULL);
	assert_non_null(ids[5]);
	/* Its end evicts those read (six closed, three kept), only them. */
	for (i = 0; i < 3; i++)
		wait_unknown(&c, ids[i]);
	for (i = 3; i < 6; i++) {
		text = pmx_read_all(&c, ids[i], WAIT_MS, NULL);
		snprintf(want, sizeof want, "e%d\n", i);
		assert_string_equal(text, want);
		free(text);
	}
	for (i = 0; i < 6; i++)
		free(ids[i]);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * Many programs ending together while reads of them are in flight, with
 * fewer kept than there are programs: every one is read whole, none
 * evicted under its reader.
 */
static void
test_reads_in_flight(void **state)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", "PROGMUX_KEEP_ENDED=2",
	    NULL };
	enum { N = 6 };
	struct pmx	 c;
	struct json_doc	*d;
	const struct json *sc = NULL;
	char		*ids[N], args[128];
	int64_t		 rid[N], cursor[N], deadline = now_ms() + 60000;
	size_t		 got[N], len;
	bool		 done[N];
	int		 i, left = N;

	(void)state;
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	for (i = 0; i < N; i++) {
		/* 288,894 bytes, after a moment so that the reads wait. */
		ids[i] = pmx_start_program(&c, "{\"argv\":[\"sh\",\"-c\","
		    "\"sleep 0.5; seq 1 50000\"]}", NULL);
		assert_non_null(ids[i]);
		cursor[i] = 0;
		got[i] = 0;
		done[i] = false;
	}
	for (i = 0; i < N; i++) {
		snprintf(args, sizeof args, "{\"name\":\"read_program\","
		    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0}}",
		    ids[i]);
		rid[i] = pmx_send(&c, "tools/call", args);
	}
	while (left > 0) {
		for (i = 0; i < N; i++) {
			if (done[i])
				continue;
			d = pmx_wait(&c, rid[i], 20000);
			if (d == NULL || pmx_is_error(d) ||
			    (sc = pmx_sc(d)) == NULL)
				fail_msg("%s: %s", ids[i], d != NULL ?
				    pmx_text(d) : "no answer");
			json_str(json_get(sc, "text"), &len);
			got[i] += len;
			cursor[i] = json_int(json_get(sc, "cursor"));
			if (json_bool(json_get(sc, "ended"))) {
				done[i] = true;
				left--;
			} else {
				snprintf(args, sizeof args, "{\"name\":"
				    "\"read_program\",\"arguments\":{"
				    "\"programId\":\"%s\",\"cursor\":%lld}}",
				    ids[i], (long long)cursor[i]);
				rid[i] = pmx_send(&c, "tools/call", args);
			}
			json_doc_free(d);
		}
		if (now_ms() > deadline)
			fail_msg("%d programs not read to the end", left);
	}
	for (i = 0; i < N; i++) {
		assert_int_equal(got[i], 288894);
		free(ids[i]);
	}
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * An ended program unread becomes evictable once its lifetime is over,
 * so unread programs cannot hold starts back for ever; past the ended
 * programs kept, the one that ended first goes first.
 */
static void
test_unread_lifetime(void **state)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", "PROGMUX_KEEP_ENDED=2",
	    NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*a, *b, *x, args[200];
	int64_t		 t0, tb;

	(void)state;
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	t0 = now_ms();
	/* a ends before b starts. */
	a = pmx_start_program(&c, "{\"argv\":[\"true\"],\"lifetimeMs\":4000}",
	    NULL);
	assert_non_null(a);
	wait_all_ended(&c, 1);
	b = pmx_start_program(&c, "{\"argv\":[\"true\"],\"lifetimeMs\":4000}",
	    NULL);
	assert_non_null(b);
	tb = now_ms();
	wait_all_ended(&c, 2);
	d = pmx_call(&c, "start_program", "{\"argv\":[\"true\"]}", WAIT_MS);
	if (pmx_is_error(d))
		assert_non_null(strstr(pmx_text(d), "PROGMUX_KEEP_ENDED"));
	else {
		/* Only if the machine took a's whole lifetime to get here;
		 * that program is let go again. */
		if (now_ms() - t0 < 4000)
			fail_msg("a start with 2 unread programs kept: %s",
			    pmx_text(d));
		snprintf(args, sizeof args, "{\"programId\":\"%s\"}",
		    sc_need_str(d, "programId"));
		json_doc_free(sc_call_ok(&c, "stop_program", args));
	}
	json_doc_free(d);
	/* Once both lifetimes are over (b's is measured from before its
	 * start was answered, on the clock the test reads), a start goes. */
	while (now_ms() < tb + 4000)
		usleep(20000);
	d = sc_call_ok(&c, "start_program", "{\"argv\":[\"true\"]}");
	x = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	/* Its end makes three ended, past the two kept: a, which ended
	 * first, goes; b stays. */
	wait_unknown(&c, a);
	assert_true(is_listed(&c, b));
	assert_true(is_listed(&c, x));
	free(a);
	free(b);
	free(x);
	assert_int_equal(pmx_close(&c), 0);
}

/* FIFO names ("pN.out", "pN.ctl", "pN.err") left in dir. */
static int
count_fifo_names(const char *dir)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	if ((d = opendir(dir)) == NULL)
		fail_msg("cannot open %s", dir);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] == 'p' && (strstr(de->d_name, ".out") ||
		    strstr(de->d_name, ".ctl") || strstr(de->d_name, ".err")))
			n++;
	closedir(d);
	return (n);
}

/*
 * stop_program right after start_program, and pipelined with it (sent
 * before the start's answer, by the id it will get): each answers
 * "forgotten", and then nothing of it is listed, readable or left in the
 * runtime directory.
 */
static void
test_stop_at_start(void **state)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*id, *dir, args[160];
	int64_t		 sid, tid;
	int		 i, n = 0;

	(void)state;
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	dir = pmx_start_field(&c, "runtime directory", 5000);
	assert_non_null(dir);
	for (i = 0; i < 25; i++) {
		id = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"30\"]}",
		    NULL);
		assert_non_null(id);
		snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
		d = sc_call_ok(&c, "stop_program", args);
		assert_non_null(strstr(pmx_text(d), "forgotten"));
		json_doc_free(d);
		assert_false(is_listed(&c, id));
		free(id);
		n++;
	}
	for (i = 0; i < 25; i++) {
		/* Ids count up: this start's is p<n+1>. */
		tid = pmx_send(&c, "tools/call", "{\"name\":\"start_program\","
		    "\"arguments\":{\"argv\":[\"sleep\",\"30\"]}}");
		snprintf(args, sizeof args, "{\"name\":\"stop_program\","
		    "\"arguments\":{\"programId\":\"p%d\"}}", ++n);
		sid = pmx_send(&c, "tools/call", args);
		d = pmx_wait(&c, tid, WAIT_MS);
		assert_non_null(d);
		json_doc_free(d);	/* started, or removed before it was */
		d = pmx_wait(&c, sid, WAIT_MS);
		assert_non_null(d);
		assert_false(pmx_is_error(d));
		assert_non_null(strstr(pmx_text(d), "forgotten"));
		json_doc_free(d);
		snprintf(args, sizeof args, "p%d", n);
		assert_false(is_listed(&c, args));
	}
	d = sc_call_ok(&c, "list_programs", "{}");
	assert_int_equal(json_len(sc_get(d, "programs")), 0);
	json_doc_free(d);
	assert_int_equal(count_fifo_names(dir), 0);
	free(dir);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * list_programs stays small whatever argv was given: each argument is
 * shown cut (argvCut, with the count and characters of the whole), and
 * the list stops at its size bound, counting what it left out.
 */
static void
test_list_bounded(void **state)
{
	const char	*env[] = { "PROGMUX_ROBUST=1",
	    "PROGMUX_KEEP_ENDED=100", NULL };
	const struct json *progs, *e, *argv;
	struct pmx	 c;
	struct json_doc	*d;
	struct buf	 args = BUF_INIT;
	char		*id, *arg;
	size_t		 i, k, len, n;

	(void)state;
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	/* Two programs of 255 arguments of 60,000 characters each. */
	arg = xmalloc(60001);
	memset(arg, 'x', 60000);
	arg[60000] = '\0';
	for (k = 0; k < 2; k++) {
		buf_reset(&args);
		buf_adds(&args, "{\"argv\":[\"true\"");
		for (i = 1; i < 255; i++)
			buf_printf(&args, ",\"%s\"", arg);
		buf_adds(&args, "]}");
		id = pmx_start_program(&c, buf_cstr(&args), NULL);
		assert_non_null(id);
		free(id);
	}
	free(arg);
	d = sc_call_ok(&c, "list_programs", "{}");
	assert_true(c.line_len < 64 * 1024);
	progs = sc_get(d, "programs");
	assert_int_equal(json_len(progs), 2);
	for (k = 0; k < 2; k++) {
		e = json_at(progs, k);
		argv = json_get(e, "argv");
		assert_int_equal(json_len(argv), 32);
		for (i = 1; i < 32; i++) {
			json_str(json_at(argv, i), &len);
			assert_int_equal(len, 200);
		}
		assert_true(json_bool(json_get(e, "argvCut")));
		assert_int_equal(json_int(json_get(e, "argvCount")), 255);
		assert_int_equal(json_int(json_get(e, "argvChars")),
		    4 + 254 * 60000);
	}
	assert_non_null(strstr(pmx_text(d), "argv shown cut: 255 arguments"));
	json_doc_free(d);

	/* Sixty programs with 32 arguments of 150 characters: the list stops
	 * near 256 KiB and counts the rest. */
	arg = xmalloc(151);
	memset(arg, 'y', 150);
	arg[150] = '\0';
	buf_reset(&args);
	buf_adds(&args, "{\"argv\":[\"true\"");
	for (i = 1; i < 32; i++)
		buf_printf(&args, ",\"%s\"", arg);
	buf_adds(&args, "]}");
	free(arg);
	for (k = 0; k < 60; k++) {
		id = pmx_start_program(&c, buf_cstr(&args), NULL);
		assert_non_null(id);
		free(id);
	}
	d = sc_call_ok(&c, "list_programs", "{}");
	assert_true(c.line_len < 1024 * 1024);
	n = json_len(sc_get(d, "programs"));
	assert_true(n < 62);
	assert_int_equal(sc_int(d, "omittedPrograms"), (int64_t)(62 - n));
	assert_non_null(strstr(pmx_text(d), "more programs not listed"));
	json_doc_free(d);
	buf_free(&args);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * With descriptors short (RLIMIT_NOFILE 64 for progmux and its tmux), a
 * start that cannot get what it needs is an error that says so; every
 * start answered as started really runs.
 */
static void
test_start_descriptors(void **state)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*ids[60], args[128];
	int		 i, n = 0, refused = 0;

	(void)state;
	pmx_set_nofile(64, 64);
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	pmx_set_nofile(0, 0);
	for (i = 0; i < 60; i++) {
		d = pmx_call(&c, "start_program", "{\"argv\":[\"sleep\","
		    "\"30\"]}", WAIT_MS);
		assert_non_null(d);
		if (pmx_is_error(d)) {
			if (strstr(pmx_text(d), "open files") == NULL &&
			    strstr(pmx_text(d), "RLIMIT_NOFILE") == NULL &&
			    strstr(pmx_text(d), "descriptors") == NULL)
				fail_msg("refused for another reason: %s",
				    pmx_text(d));
			refused++;
		} else
			ids[n++] = xstrdup(sc_need_str(d, "programId"));
		json_doc_free(d);
	}
	/* The limit bites, and some still start. */
	assert_true(refused > 0);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		snprintf(args, sizeof args, "{\"programId\":\"%s\","
		    "\"timeoutMs\":0}", ids[i]);
		d = sc_call_ok(&c, "read_program", args);
		if (strcmp(sc_str(d, "outcome"), "running") != 0)
			fail_msg("%s answered started but reads %s: %s",
			    ids[i], sc_str(d, "outcome"), pmx_text(d));
		json_doc_free(d);
		free(ids[i]);
	}
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * progmux driven through ssh, as "Driving other hosts" in docs/clients.md
 * shows, when the connection hangs (the client's ssh stopped: no packet
 * is answered, nothing is closed): with ClientAliveInterval on the far
 * sshd the session ends, and progmux there ends its programs, its tmux
 * server and itself. A private sshd on 127.0.0.1, with keys made here.
 */
static struct {
	struct pmx	 c;
	bool		 open;
	struct sshd	 sshd;
} ssh = { .sshd = { .pid = -1 } };

/* Whatever happened, the stopped client, sshd, and the directory go. */
static int
ssh_teardown(void **state)
{
	(void)state;
	if (ssh.c.pid > 0) {
		kill(ssh.c.pid, SIGKILL);
		waitpid(ssh.c.pid, NULL, 0);
		ssh.c.pid = -1;
	}
	sshd_stop(&ssh.sshd);
	if (ssh.open)
		pmx_close(&ssh.c);
	ssh.open = false;
	return (0);
}

static void
test_ssh_hung(void **state)
{
	struct pmx	*cp = &ssh.c;
	char		 path[600], script[2000], marker[64], words[800];
	char		 envmark[400], cfg[200], *bin, *id, *cause;
	const char	*why;
	int64_t		 deadline;

	(void)state;
	if ((why = sshd_missing(false)) != NULL)
		fail_msg("%s", why);
	assert_int_equal(pmx_prepare(cp), 0);
	ssh.open = true;
	snprintf(path, sizeof path, "%s/sshd", cp->dir);
	if (sshd_start(&ssh.sshd, path, NULL, NULL, "ClientAliveInterval 1\n"
	    "ClientAliveCountMax 2\n", &cause) == -1)
		fail_msg("%s", cause);
	sshd_ssh(&ssh.sshd, words, sizeof words);

	/* The client's command: ssh HOST progmux --robust, its runtime
	 * directory in ours, and all it starts found by PMX_FAR. */
	bin = realpath(getenv("PROGMUX_BIN") ? getenv("PROGMUX_BIN") :
	    "build/progmux", NULL);
	assert_non_null(bin);
	snprintf(script, sizeof script, "#!/bin/sh\nexec %s env TMPDIR=%s "
	    "PMX_FAR=%s %s --robust --tmux-bin %s\n", words, cp->dir,
	    cp->dir, bin, pmx_tmux_bin());
	free(bin);
	snprintf(path, sizeof path, "%s/remote.sh", cp->dir);
	write_file(path, script, 0700);
	setenv("PMX_SAVED_BIN", getenv("PROGMUX_BIN") ? getenv("PROGMUX_BIN") :
	    "", 1);
	setenv("PROGMUX_BIN", path, 1);
	assert_int_equal(pmx_spawn(cp, NULL, true), 0);
	if (*getenv("PMX_SAVED_BIN") != '\0')
		setenv("PROGMUX_BIN", getenv("PMX_SAVED_BIN"), 1);
	else
		unsetenv("PROGMUX_BIN");

	/* A program there, and everything of that progmux. */
	snprintf(marker, sizeof marker, "317.%d", (int)getpid());
	snprintf(cfg, sizeof cfg, "{\"argv\":[\"sleep\",\"%s\"]}", marker);
	id = pmx_start_program(cp, cfg, NULL);
	assert_non_null(id);
	free(id);
	/* (PMX_FAR: what runs there, not this side's ssh.) */
	snprintf(envmark, sizeof envmark, "PMX_FAR=%s", cp->dir);
	deadline = now_ms() + WAIT_MS;
	while (pmx_count_procs(marker) != 1) {	/* it runs once the gate opens */
		if (now_ms() > deadline)
			fail_msg("the program does not run");
		usleep(20000);
	}
	assert_true(pmx_count_env(envmark) >= 4);	/* front, tmux, ... */
	json_doc_free(sc_call_ok(cp, "list_programs", "{}"));

	/* The connection hangs: its client answers nothing any more. */
	assert_int_equal(kill(cp->pid, SIGSTOP), 0);
	deadline = now_ms() + 30000;
	while (pmx_count_env(envmark) > 0 || pmx_count_procs(marker) > 0) {
		if (now_ms() > deadline)
			fail_msg("%d processes of the far progmux left, %d of "
			    "its program", pmx_count_env(envmark),
			    pmx_count_procs(marker));
		usleep(50000);
	}
	ssh_teardown(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c1_not_swallowed),
		cmocka_unit_test(test_unterminated_string),
		cmocka_unit_test(test_unread_kept),
		cmocka_unit_test(test_reads_in_flight),
		cmocka_unit_test(test_unread_lifetime),
		cmocka_unit_test(test_stop_at_start),
		cmocka_unit_test(test_list_bounded),
		cmocka_unit_test(test_start_descriptors),
		cmocka_unit_test_teardown(test_ssh_hung, ssh_teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
