/*
 * test_talk.c — the agent's conversation with a program: prompts seen at
 * once (unfinishedLine, waitingForInput), bursts read whole, until, one
 * send_keys call per exchange, run_program's early return at a prompt
 * and its record readable after the run.
 *
 * Every call goes through build/progmux (or PROGMUX_BIN) over its stdio
 * against a private tmux server, and every result is checked against its
 * outputSchema. Waits are bounded by generous timeouts; the only timing
 * asserted is the issue's own, loosely: a read that would block for 20 s
 * returns well before that.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "needs.h"
#include "harness.h"
#include "xmalloc.h"

#define LONG_MS		20000	/* a timeout the tests must not reach */
#define WELL_BEFORE_MS	10000	/* "well before" that timeout */


/* A boolean field that must be there. */
static bool
need_bool(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	if (v == NULL || json_type(v) != JSON_BOOL)
		fail_msg("no boolean %s in the result: %s", key, pmx_text(d));
	return (json_bool(v));
}

/* send_keys keys (a JSON string) to pane, waiting up to timeout. */
static struct json_doc *
send(const char *pane, const char *keys, int64_t timeout)
{
	char	args[600];

	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":%s,"
	    "\"timeoutMs\":%lld}", pane, keys, (long long)timeout);
	return (call_ok("send_keys", args));
}

/* The same from cursor, for a program whose text is its screen's. */
static struct json_doc *
read_until_waiting_from(const char *id, int64_t cursor)
{
	return (rd_until_waiting(id, &cursor, NULL));
}

/*
 * A shell's `read` prompt (no line break) is seen by the first read at
 * once, as unfinishedLine with waitingForInput, not after the timeout;
 * list_programs says so too; the answer is one send_keys call.
 */
static void
test_shell_read_prompt(void **state)
{
	struct json_doc		*d;
	const struct json	*it;
	char			*id, *pane;
	int64_t			 t0;

	(void)state;
	id = pmx_start_program(&group,
	    "{\"argv\":[\"sh\",\"-c\",\"printf 'Name? '; "
	    "read n; echo \\\"hi $n\\\"\"]}", &pane);
	assert_non_null(id);
	t0 = now_ms();
	d = rd(id, 0, LONG_MS, "");
	if (now_ms() - t0 >= WELL_BEFORE_MS)
		fail_msg("the read waited %lld ms at a prompt",
		    (long long)(now_ms() - t0));
	assert_string_equal(sc_need_str(d, "text"), "");
	assert_int_equal(sc_int(d, "cursor"), 0);
	assert_string_equal(sc_need_str(d, "unfinishedLine"), "Name? ");
	assert_true(need_bool(d, "waitingForInput"));
	assert_false(sc_bool(d, "ended"));
	assert_non_null(strstr(pmx_text(d),
	    "waiting for input at \"Name? \""));
	json_doc_free(d);

	assert_non_null(it = listed(&group, id, &d));
	assert_non_null(json_get(it, "waitingForInput"));
	assert_true(json_bool(json_get(it, "waitingForInput")));
	assert_non_null(json_get(it, "unfinishedLine"));
	assert_string_equal(json_str(json_get(it, "unfinishedLine"), NULL),
	    "Name? ");
	json_doc_free(d);

	d = send(pane, "\"bob\"", LONG_MS);
	assert_true(sc_bool(d, "sent"));
	assert_string_equal(sc_need_str(d, "programId"), id);
	assert_non_null(strstr(sc_need_str(d, "text"), "Name? bob\n"));
	assert_non_null(strstr(sc_need_str(d, "text"), "hi bob\n"));
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);
}

/*
 * python3 -q: the prompt ">>> " is seen by the first read, and an
 * exchange is one send_keys call: its echo, the answer and the next
 * prompt, still waiting.
 */
static void
test_python_repl(void **state)
{
	struct json_doc	*d;
	char		*id, *pane;
	int64_t		 cursor = 0, t0;

	(void)state;
	PMX_NEED_TTYWAIT();
	id = pmx_start_program(&group,
	    "{\"argv\":[\"python3\",\"-q\"]}", &pane);
	assert_non_null(id);
	d = rd_until_waiting(id, &cursor, NULL);
	assert_string_equal(sc_need_str(d, "unfinishedLine"), ">>> ");
	json_doc_free(d);

	t0 = now_ms();
	d = send(pane, "\"6*7\"", LONG_MS);
	if (now_ms() - t0 >= WELL_BEFORE_MS)
		fail_msg("the exchange took %lld ms",
		    (long long)(now_ms() - t0));
	assert_string_equal(sc_need_str(d, "text"), ">>> 6*7\n42\n");
	assert_string_equal(sc_need_str(d, "unfinishedLine"), ">>> ");
	assert_true(need_bool(d, "waitingForInput"));
	assert_string_equal(sc_need_str(d, "outcome"), "running");
	cursor = sc_int(d, "cursor");
	json_doc_free(d);

	/* A second exchange, from the cursor the first left. */
	d = send(pane, "\"print('a'); print('b')\"", LONG_MS);
	assert_string_equal(sc_need_str(d, "text"),
	    ">>> print('a'); print('b')\na\nb\n");
	assert_int_equal(sc_int(d, "cursor"), cursor + (int64_t)strlen(
	    ">>> print('a'); print('b')\na\nb\n"));
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);
}

/* A password prompt with echo off: seen at once; the answer's reply has
 * what came after, not the secret. */
static void
test_password_prompt(void **state)
{
	struct json_doc	*d;
	char		*id, *pane;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\",\"stty -echo; "
	    "printf 'Password: '; read p; stty echo; echo got\"]}", &pane);
	assert_non_null(id);
	d = rd(id, 0, LONG_MS, "");
	assert_string_equal(sc_need_str(d, "unfinishedLine"), "Password: ");
	assert_true(need_bool(d, "waitingForInput"));
	json_doc_free(d);
	d = send(pane, "\"s3cret\"", LONG_MS);
	assert_non_null(strstr(sc_need_str(d, "text"), "got\n"));
	assert_null(strstr(sc_need_str(d, "text"), "s3cret"));
	json_doc_free(d);
	free(id);
	free(pane);
}

/*
 * run_program on an installer that asks [Y/n]: it returns early, long
 * before its timeout, running and kept, with the question; the answer
 * goes in with send_keys and the run reads to its end.
 */
static void
test_run_installer_prompt(void **state)
{
	struct json_doc	*d;
	char		*id, *pane;
	int64_t		 t0;

	(void)state;
	t0 = now_ms();
	d = call_ok("run_program", "{\"argv\":[\"sh\",\"-c\",\"echo "
	    "Installing; printf 'Proceed? [Y/n] '; read a; echo \\\"answer "
	    "$a\\\"\"],\"timeoutMs\":20000}");
	if (now_ms() - t0 >= WELL_BEFORE_MS)
		fail_msg("run_program waited %lld ms at a prompt",
		    (long long)(now_ms() - t0));
	assert_string_equal(sc_need_str(d, "outcome"), "running");
	assert_false(sc_bool(d, "ended"));
	assert_true(need_bool(d, "waitingForInput"));
	assert_string_equal(sc_need_str(d, "unfinishedLine"), "Proceed? [Y/n] ");
	assert_string_equal(sc_need_str(d, "text"), "Installing\n");
	assert_non_null(strstr(pmx_text(d),
	    "waiting for input at \"Proceed? [Y/n] \""));
	id = xstrdup(sc_need_str(d, "programId"));
	pane = xstrdup(sc_need_str(d, "paneId"));
	json_doc_free(d);

	d = send(pane, "\"y\"", LONG_MS);
	assert_non_null(strstr(sc_need_str(d, "text"), "answer y\n"));
	json_doc_free(d);
	d = rd(id, 0, LONG_MS, "");
	assert_string_equal(sc_need_str(d, "text"),
	    "Installing\nProceed? [Y/n] y\nanswer y\n");
	json_doc_free(d);
	free(id);
	free(pane);
}

/* When the program wrote its prompt: the CLOCK_REALTIME ns in file. */
static int64_t
prompt_ns(const char *file)
{
	char	*s;
	size_t	 len;
	int64_t	 ns;
	int64_t	 t0 = now_ms();

	while ((s = pmx_read_file(file, &len)) == NULL || strchr(s, '\n') ==
	    NULL) {
		free(s);
		if (now_ms() - t0 > LONG_MS)
			fail_msg("%s never written", file);
		usleep(10000);
	}
	ns = strtoll(s, NULL, 10);
	free(s);
	unlink(file);
	return (ns);
}

/*
 * run_program's early return at a prompt is as quick as a read's: a
 * program that shows its prompt 1.5 s after it starts (and says when,
 * in a file) is answered by a run within a small multiple of the time a
 * read_program parked on the same kind of program takes. (The run's
 * checks for input were a second apart while the program had printed
 * nothing: about 0.55 s after the prompt, against a read's 0.1 s.)
 */
static void
test_run_prompt_latency(void **state)
{
	struct json_doc	*d;
	char		*file, *jfile, args[600], *id, *pane;
	int64_t		 run_ms, read_ms, rid;

	(void)state;
	xasprintf(&file, "%s/prompt-at", group.dir);
	jfile = pmx_jstr(file);
	/* A read parked before the prompt comes. */
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"sleep 1.5; "
	    "printf 'Proceed? [y/N] '; date +%%s%%N >\\\"$1\\\"; read a\","
	    "\"sh\",%s]}", jfile);
	id = pmx_start_program(&group, args, &pane);
	assert_non_null(id);
	snprintf(args, sizeof args, "{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"timeoutMs\":%d}}", id,
	    LONG_MS);
	rid = pmx_send(&group, "tools/call", args);
	d = pmx_wait(&group, rid, 40000);
	assert_non_null(d);
	assert_true(need_bool(d, "waitingForInput"));
	read_ms = (group.read_real_ns - prompt_ns(file)) / 1000000;
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);

	snprintf(args, sizeof args, "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"sh\",\"-c\",\"sleep 1.5; printf "
	    "'Proceed? [y/N] '; date +%%s%%N >\\\"$1\\\"; read a\",\"sh\","
	    "%s],\"timeoutMs\":%d}}", jfile, LONG_MS);
	rid = pmx_send(&group, "tools/call", args);
	d = pmx_wait(&group, rid, 40000);
	assert_non_null(d);
	assert_true(need_bool(d, "waitingForInput"));
	run_ms = (group.read_real_ns - prompt_ns(file)) / 1000000;
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	stop(id);
	free(id);
	print_message("after the prompt: read_program %lld ms, run_program "
	    "%lld ms\n", (long long)read_ms, (long long)run_ms);
	if (run_ms > 3 * read_ms + 200)
		fail_msg("run_program answered %lld ms after the prompt, "
		    "read_program %lld ms", (long long)run_ms,
		    (long long)read_ms);
	free(jfile);
	free(file);
}

/*
 * A run that is not kept stays readable after its end: read_program from
 * cursor 0 has what the run left out, as its text says.
 */
static void
test_run_record_readable(void **state)
{
	struct json_doc	*d;
	char		*id, *all;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"seq\",\"1\",\"20000\"]}");
	assert_true(sc_bool(d, "ended"));
	assert_true(sc_int(d, "omittedChars") > 0);
	assert_non_null(strstr(pmx_text(d), "read_program from cursor 0"));
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	all = pmx_read_all(&group, id, LONG_MS, &d);
	assert_non_null(all);
	assert_true(strncmp(all, "1\n2\n3\n", 6) == 0);
	assert_non_null(strstr(all, "\n19999\n20000\n"));
	assert_true(sc_bool(d, "ended"));
	json_doc_free(d);
	free(all);
	free(id);
}

/*
 * A program that keeps waiting for keys while it prints (a watch-mode
 * runner): once a read reported it waiting, later reads wait for its
 * next line instead of answering at once with nothing, and still say it
 * waits.
 */
static void
test_keeps_waiting(void **state)
{
	struct json_doc	*d;
	struct buf	 all = BUF_INIT;
	char		*id;
	int64_t		 cursor = 0;
	int		 i;

	(void)state;
	PMX_NEED_TTYWAIT();
	id = pmx_start_program(&group, "{\"argv\":[\"python3\",\"-c\",\"import "
	    "select, sys\\nprint('watching', flush=True)\\nfor i in "
	    "range(200):\\n    r, _, _ = select.select([sys.stdin], [], [], "
	    "0.3)\\n    print('tick', i, flush=True)\\n\"]}", NULL);
	assert_non_null(id);
	/* Waiting, its first line read (on a loaded machine the wait can
	 * be seen before that line came through). */
	do {
		d = rd_until_waiting(id, &cursor, &all);
		json_doc_free(d);
	} while (strstr(buf_cstr(&all), "watching\n") == NULL);
	buf_free(&all);
	for (i = 0; i < 3; i++) {
		d = rd(id, cursor, LONG_MS, "");
		if (strstr(sc_need_str(d, "text"), "tick") == NULL)
			fail_msg("read %d with cursor %lld came back without "
			    "its next line: %s", i, (long long)cursor,
			    pmx_text(d));
		assert_true(need_bool(d, "waitingForInput"));
		cursor = sc_int(d, "cursor");
		json_doc_free(d);
	}
	stop(id);
	free(id);
}

/* A busy program with a partial line never reads as waiting: the read
 * waits for the line's end. */
static void
test_busy_partial_line(void **state)
{
	struct json_doc		*d;
	const struct json	*it;
	char			*id;
	int64_t			 t0 = now_ms();
	bool			 seen = false;

	(void)state;
	PMX_NEED_TTYWAIT();
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\",\"printf "
	    "'Compiling... '; sleep 3; echo done\"]}", NULL);
	assert_non_null(id);
	/* list_programs shows the partial line, not waiting. */
	while (!seen) {
		if (now_ms() - t0 > LONG_MS)
			fail_msg("list_programs never showed the partial line");
		it = listed(&group, id, &d);
		if (it != NULL && json_get(it, "unfinishedLine") != NULL &&
		    strcmp(json_str(json_get(it, "unfinishedLine"), NULL),
		    "Compiling... ") == 0) {
			seen = true;
			assert_false(json_bool(json_get(it,
			    "waitingForInput")));
		}
		json_doc_free(d);
		if (!seen)
			usleep(20000);
	}
	d = rd(id, 0, LONG_MS, "");
	assert_string_equal(sc_need_str(d, "text"), "Compiling... done\n");
	assert_false(need_bool(d, "waitingForInput"));
	json_doc_free(d);
	free(id);
}

/*
 * A server (python3 -m http.server) waits on its socket, not on the
 * keyboard: until finds its ready line in one call, and a later read
 * runs to its timeout without reading it as waiting.
 */
static void
test_server_not_waiting(void **state)
{
	struct json_doc	*d;
	char		*id;
	int64_t		 cursor;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"python3\",\"-m\","
	    "\"http.server\",\"0\",\"--bind\",\"127.0.0.1\"]}", NULL);
	assert_non_null(id);
	d = rd(id, 0, LONG_MS, "\"until\":\"^Serving HTTP on .* port "
	    "[0-9]+\"");
	assert_true(need_bool(d, "matched"));
	assert_non_null(strstr(sc_need_str(d, "text"), "Serving HTTP on"));
	assert_false(need_bool(d, "waitingForInput"));
	cursor = sc_int(d, "cursor");
	json_doc_free(d);
	d = rd(id, cursor, 1500, "");
	assert_string_equal(sc_need_str(d, "text"), "");
	assert_false(need_bool(d, "waitingForInput"));
	json_doc_free(d);
	stop(id);
	free(id);
}

/*
 * id's program (in pane) waits for a line before it prints: a read that
 * finds nothing (the old server has no early return: it runs out), then
 * a read from cursor 0 parked, then "go" typed; the parked read's reply,
 * which must be a result.
 */
static struct json_doc *
read_parked_then_go(const char *id, const char *pane)
{
	struct json_doc	*d;
	char		 args[400];
	int64_t		 rid;

	d = rd(id, 0, 3000, "");
	assert_string_equal(sc_need_str(d, "text"), "");
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0,"
	    "\"timeoutMs\":%d}}", id, LONG_MS);
	rid = pmx_send(&group, "tools/call", args);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"go\"}",
	    pane);
	json_doc_free(call_ok("send_keys", args));
	d = pmx_wait(&group, rid, 40000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	return (d);
}

/*
 * `git log -5 --stat` (printed at once) comes in one read, by a read that
 * was already waiting when it came: the program holds it back until the
 * test has parked the read (a line on its terminal, not echoed), and
 * the read that says it waits for that line is made first, so the parked
 * read has no new episode to return early for.
 */
static void
test_git_log_burst(void **state)
{
	struct json_doc	*d;
	char		*out, *dir, *id, *pane, args[800];
	int		 reads;
	int64_t		 cursor;

	(void)state;
	assert_non_null(dir = pmx_git_repo(&group));
	out = pmx_jstr(dir);
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"stty -echo; "
	    "read go; exec git log -5 --stat\"],\"startDirectory\":%s}", out);
	free(out);
	free(dir);
	id = pmx_start_program(&group, args, &pane);
	assert_non_null(id);
	/* (The old server has no early return: this read runs out.) */
	d = read_parked_then_go(id, pane);
	assert_non_null(strstr(sc_need_str(d, "text"), "commit 6 with"));
	cursor = sc_int(d, "cursor");
	json_doc_free(d);
	/* Whatever later reads find is what the first one missed. */
	for (reads = 1; reads < 100; reads++) {
		d = rd(id, cursor, LONG_MS, "");
		if (sc_need_str(d, "text")[0] != '\0')
			fail_msg("the burst came in pieces: read %d has %s",
			    reads + 1, sc_need_str(d, "text"));
		cursor = sc_int(d, "cursor");
		if (sc_bool(d, "ended")) {
			json_doc_free(d);
			break;
		}
		json_doc_free(d);
	}
	free(id);
	free(pane);
}

/*
 * `seq 1 200000` read while it runs fills its pages: about
 * ceil(chars / 24000) reads, with a little slack. As for git above, the
 * first read of its output is parked before it starts.
 */
static void
test_seq_pages(void **state)
{
	struct json_doc	*d;
	char		*id, *pane;
	int64_t		 cursor = 0, chars = 0, want;
	int		 reads = 0;
	bool		 ended = false;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\",\"stty -echo; "
	    "read go; exec seq 1 200000\"]}", &pane);
	assert_non_null(id);
	d = read_parked_then_go(id, pane);
	for (;;) {
		chars += (int64_t)strlen(sc_need_str(d, "text"));	/* ASCII */
		cursor = sc_int(d, "cursor");
		ended = sc_bool(d, "ended");
		json_doc_free(d);
		reads++;
		if (ended)
			break;
		if (reads > 1000)
			fail_msg("more than 1000 reads");
		d = rd(id, cursor, LONG_MS, "");
	}
	assert_int_equal(chars, 1288895);
	want = (chars + 23999) / 24000;
	print_message("seq 1 200000: %d reads (%lld full pages)\n", reads,
	    (long long)want);
	if (reads > want + 3)
		fail_msg("%d reads for %lld characters (%lld pages)", reads,
		    (long long)chars, (long long)want);
	free(id);
	free(pane);
}

/* until: a match ends the text at its line; no match runs to the
 * timeout (matched false); a bad expression is an error naming until. */
static void
test_until(void **state)
{
	struct json_doc	*d;
	char		*id, args[300];
	const char	*text;
	int64_t		 cursor;

	(void)state;
	id = pmx_start_program(&group,
	    "{\"argv\":[\"sh\",\"-c\",\"for i in 1 2 3 "
	    "4 5; do echo noise $i; done; sleep 0.5; echo 'ready on port "
	    "8080'; echo after; exec sleep 30\"]}", NULL);
	assert_non_null(id);
	d = rd(id, 0, LONG_MS, "\"until\":\"^ready on port [0-9]+$\"");
	assert_true(need_bool(d, "matched"));
	text = sc_need_str(d, "text");
	assert_non_null(strstr(text, "noise 5\n"));
	if (strlen(text) < 19 || strcmp(text + strlen(text) - 19,
	    "ready on port 8080\n") != 0)
		fail_msg("the text does not end with the matching line: %s",
		    text);
	cursor = sc_int(d, "cursor");
	json_doc_free(d);
	/* The line after it is still to read. */
	d = rd(id, cursor, LONG_MS, "\"until\":\"^after$\"");
	assert_true(need_bool(d, "matched"));
	assert_string_equal(sc_need_str(d, "text"), "after\n");
	cursor = sc_int(d, "cursor");
	json_doc_free(d);
	d = rd(id, cursor, 800, "\"until\":\"never\"");
	assert_false(need_bool(d, "matched"));
	assert_string_equal(sc_need_str(d, "text"), "");
	assert_int_equal(sc_int(d, "cursor"), cursor);
	json_doc_free(d);

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"until\":\"(\"}",
	    id);
	d = sc_call_err(&group, "read_program", args);
	assert_non_null(strstr(pmx_text(d), "until"));
	json_doc_free(d);
	stop(id);
	free(id);
}

/*
 * until speaks the dialect models write: \d+ and \s+ find a port line
 * (glibc's ERE read \d as a literal d and waited out the timeout), (?i)
 * ignores case, a lazy quantifier and a lookahead work.
 */
static void
test_until_dialect(void **state)
{
	static const char *const pats[] = {
		"listening on port \\\\d+", "port\\\\s+\\\\d",
		"(?i)LISTENING ON", "^l.*?port (?=8)\\\\d{4}$"
	};
	struct json_doc	*d;
	char		*id, extra[200];
	size_t		 i;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\",\"echo noise; "
	    "echo 'listening on port 8123'; exec sleep 30\"]}", NULL);
	assert_non_null(id);
	for (i = 0; i < sizeof pats / sizeof pats[0]; i++) {
		snprintf(extra, sizeof extra, "\"until\":\"%s\"", pats[i]);
		d = rd(id, 0, LONG_MS, extra);
		if (!need_bool(d, "matched"))
			fail_msg("until %s did not match: %s", pats[i],
			    pmx_text(d));
		assert_string_equal(sc_need_str(d, "text"),
		    "noise\nlistening on port 8123\n");
		json_doc_free(d);
	}
	stop(id);
	free(id);
}

/*
 * A pattern that backtracks hard on every line is bounded: while a read
 * matches it against 20,000 such lines, a ping sent after it is answered
 * first; the read answers at its timeout with matched false and its
 * cursor after what was scanned, short of the end. A pattern over the
 * match limit is an error naming until and the limit, and the issue's
 * hostile patterns end with a result or an error.
 */
static void
test_until_hostile(void **state)
{
	static const char *const hostile[] = {
		"(a*)\\\\1*$", "(|)(\\\\1\\\\1)*", "[[:alpha:]]{1,1000}{1,1000}"
	};
	struct json_doc	*d, *ping;
	char		*id, args[400], *all;
	int64_t		 rid, pid, total, cursor, t0;
	size_t		 i;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"python3\",\"-c\",\"import "
	    "sys, time\\nsys.stdout.write(('a' * 20 + '\\\\n') * 20000)\\n"
	    "sys.stdout.write('end\\\\n')\\nsys.stdout.flush()\\n"
	    "time.sleep(60)\"]}", NULL);
	assert_non_null(id);
	all = pmx_read_until(&group, id, "end\n", LONG_MS);
	assert_non_null(all);
	total = (int64_t)strlen(all);
	free(all);

	snprintf(args, sizeof args, "{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0,"
	    "\"timeoutMs\":3000,\"until\":\"^(a|aa)*[^a]\"}}", id);
	rid = pmx_send(&group, "tools/call", args);
	t0 = now_us();
	pid = pmx_send(&group, "ping", NULL);
	/* Replies come in order of answering: the ping's first. */
	ping = pmx_next(&group, 40000);
	assert_non_null(ping);
	print_message("ping answered in %.1f ms while the read matched\n",
	    (double)(group.read_us - t0) / 1000);
	if (json_int(json_get(json_root(ping), "id")) != pid)
		fail_msg("the read answered before the ping: %s",
		    pmx_text(ping));
	json_doc_free(ping);
	d = pmx_wait(&group, rid, 40000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	assert_false(need_bool(d, "matched"));
	cursor = sc_int(d, "cursor");
	if (cursor <= 0 || cursor >= total)
		fail_msg("cursor %lld: not short of the end %lld",
		    (long long)cursor, (long long)total);
	assert_int_equal(cursor % 21, 0);	/* after whole lines */
	json_doc_free(d);

	/* Over the match limit: an error naming until and the limit. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"timeoutMs\":0,"
	    "\"until\":\"^(a|aa|aaa)*[^a]\"}", id);
	d = sc_call_err(&group, "read_program", args);
	assert_non_null(strstr(pmx_text(d), "until"));
	assert_non_null(strstr(pmx_text(d), "limit"));
	json_doc_free(d);

	for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		snprintf(args, sizeof args, "{\"programId\":\"%s\","
		    "\"timeoutMs\":0,\"until\":\"%s\"}", id, hostile[i]);
		d = pmx_call(&group, "read_program", args, 40000);
		if (d == NULL)
			fail_msg("until %s: no answer", hostile[i]);
		if (pmx_is_error(d))
			assert_non_null(strstr(pmx_text(d), "until"));
		json_doc_free(d);
	}
	/* And the server is still there. */
	pid = pmx_send(&group, "ping", NULL);
	ping = pmx_wait(&group, pid, 40000);
	assert_non_null(ping);
	json_doc_free(ping);
	stop(id);
	free(id);
}

/* Stop the less of a test on file, remove the file, free them all. */
static void
less_end(char *id, char *pane, char *file, char *jfile)
{
	stop(id);
	free(id);
	free(pane);
	free(jfile);
	unlink(file);
	free(file);
}

/*
 * A full-screen program answers keys with a screen: less on a 200-line
 * file, send_keys 100g with timeoutMs returns the settled screen (line
 * 100 at its top) in screen and in the text, not the pager's redraw
 * stream; a second key does the same from there.
 */
static void
test_send_keys_screen(void **state)
{
	struct json_doc	*d;
	char		*file, *jfile, args[600], *id, *pane;
	const char	*screen;

	(void)state;
	assert_non_null(file = pmx_lines_file(&group, "lines.txt", 200));
	jfile = pmx_jstr(file);
	snprintf(args, sizeof args, "{\"argv\":[\"less\",%s]}", jfile);
	id = pmx_start_program(&group, args, &pane);
	assert_non_null(id);
	json_doc_free(read_until_waiting_from(id, 0));

	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"100g\","
	    "\"enter\":false,\"timeoutMs\":%d}", pane, LONG_MS);
	d = call_ok("send_keys", args);
	screen = sc_need_str(d, "screen");
	if (strncmp(screen, "line 100\n", 9) != 0)
		fail_msg("the screen does not start at line 100: %s", screen);
	assert_non_null(strstr(screen, "line 110\n"));
	assert_null(strstr(screen, "line 001"));
	assert_string_equal(sc_need_str(d, "text"), "");
	assert_non_null(strstr(pmx_text(d), "line 100\nline 101\n"));
	assert_true(strlen(pmx_text(d)) < 1500);
	assert_string_equal(sc_need_str(d, "programId"), id);
	json_doc_free(d);

	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"G\","
	    "\"enter\":false,\"timeoutMs\":%d}", pane, LONG_MS);
	d = call_ok("send_keys", args);
	assert_non_null(strstr(sc_need_str(d, "screen"), "line 200"));
	assert_null(strstr(sc_need_str(d, "screen"), "line 100"));
	json_doc_free(d);
	less_end(id, pane, file, jfile);
}

/*
 * send_keys' reply follows the program: q to less with timeoutMs ends it,
 * and the reply is its end (completed, exit status 0), never an error,
 * however the pane's going and the end's report race (10 rounds); and
 * 100g typed right after start_program, before less has switched to its
 * alternate screen, still gets the settled screen, not the redraws.
 */
static void
test_send_keys_follows(void **state)
{
	struct json_doc	*d;
	char		*file, *jfile, args[600], *id, *pane;
	const char	*screen;
	int		 i;

	(void)state;
	assert_non_null(file = pmx_lines_file(&group, "lines.txt", 200));
	jfile = pmx_jstr(file);
	snprintf(args, sizeof args, "{\"argv\":[\"less\",%s]}", jfile);
	for (i = 0; i < 10; i++) {
		id = pmx_start_program(&group, args, &pane);
		assert_non_null(id);
		json_doc_free(read_until_waiting_from(id, 0));
		snprintf(args + 300, 300, "{\"paneId\":\"%s\",\"keys\":\"q\","
		    "\"enter\":false,\"timeoutMs\":%d}", pane, LONG_MS);
		d = call_ok("send_keys", args + 300);
		if (!sc_bool(d, "ended") ||
		    strcmp(sc_need_str(d, "outcome"), "completed") != 0 ||
		    sc_int(d, "exitStatus") != 0)
			fail_msg("round %d: not its end: %s", i, pmx_text(d));
		assert_null(json_get(pmx_sc(d), "screen"));
		json_doc_free(d);
		free(id);
		free(pane);
	}
	id = pmx_start_program(&group, args, &pane);
	assert_non_null(id);
	snprintf(args + 300, 300, "{\"paneId\":\"%s\",\"keys\":\"100g\","
	    "\"enter\":false,\"timeoutMs\":%d}", pane, LONG_MS);
	d = call_ok("send_keys", args + 300);
	screen = sc_need_str(d, "screen");
	if (strncmp(screen, "line 100\n", 9) != 0)
		fail_msg("not the screen at line 100: %s", pmx_text(d));
	assert_string_equal(sc_need_str(d, "reason"), "screen");
	json_doc_free(d);
	less_end(id, pane, file, jfile);
}

/* send_keys with timeoutMs on a pane that is not a program's: the keys
 * go, answered at once with a note, no reply fields. */
static void
test_send_keys_not_program(void **state)
{
	struct json_doc	*d;
	char		*pane;

	(void)state;
	pane = pmx_tmux(&group, "new-session", "-d", "-s", "talk-other", "-P",
	    "-F", "#{pane_id}", "sleep 60", NULL);
	assert_non_null(pane);
	pane[strcspn(pane, "\n")] = '\0';
	d = send(pane, "\"x\"", LONG_MS);
	assert_true(sc_bool(d, "sent"));
	assert_null(sc_get(d, "programId"));
	assert_non_null(strstr(pmx_text(d), "not the pane of a program"));
	json_doc_free(d);
	free(pmx_tmux(&group, "kill-session", "-t", "talk-other", NULL));
	free(pane);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shell_read_prompt),
		cmocka_unit_test(test_python_repl),
		cmocka_unit_test(test_password_prompt),
		cmocka_unit_test(test_run_installer_prompt),
		cmocka_unit_test(test_run_prompt_latency),
		cmocka_unit_test(test_run_record_readable),
		cmocka_unit_test(test_keeps_waiting),
		cmocka_unit_test(test_busy_partial_line),
		cmocka_unit_test(test_server_not_waiting),
		cmocka_unit_test(test_git_log_burst),
		cmocka_unit_test(test_seq_pages),
		cmocka_unit_test(test_until),
		cmocka_unit_test(test_until_dialect),
		cmocka_unit_test(test_until_hostile),
		cmocka_unit_test(test_send_keys_screen),
		cmocka_unit_test(test_send_keys_follows),
		cmocka_unit_test(test_send_keys_not_program),
	};

	return (HARNESS_RUN("talk", tests, group_setup, group_teardown));
}
