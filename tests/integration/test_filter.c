/*
 * test_filter.c — big output read the way an agent reads a log:
 * read_program's tail (how did it end), filter with line numbers and
 * context (the lines that matter), run_program's filter and tail.
 *
 * Every call goes through build/progmux (or PROGMUX_BIN) over its stdio
 * against a private tmux server, and every result is checked against its
 * outputSchema, the new fields included.
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

/* A 1 MB log with 12 ERROR lines, at these line numbers. */
#define LOG_LINES	20000
static const int log_errors[12] = {
	1, 17, 999, 1000, 4321, 9000, 12345, 15000, 17777, 19000, 19998, 20000
};


/* The python program printing the log; its argv as JSON members. */
static const char log_argv[] = "\"argv\":[\"python3\",\"-c\",\"import sys\\n"
    "e = {1, 17, 999, 1000, 4321, 9000, 12345, 15000, 17777, 19000, "
    "19998, 20000}\\nfor i in range(1, 20001):\\n    sys.stdout.write("
    "'2026-12-02 12:00:00 %s request %06d handled in 3 ms\\\\n' % ("
    "'ERROR' if i in e else 'INFO ', i))\\n\"]";

/* run_program of the log, kept readable; its programId. */
static char *
run_log(const char *extra, struct json_doc **out)
{
	struct json_doc	*d;
	char		 args[1000], *id;

	snprintf(args, sizeof args, "{%s,\"timeoutMs\":%d%s%s}", log_argv,
	    LONG_MS, extra[0] ? "," : "", extra);
	d = call_ok("run_program", args);
	assert_true(sc_bool(d, "ended"));
	id = xstrdup(sc_need_str(d, "programId"));
	if (out != NULL)
		*out = d;
	else
		json_doc_free(d);
	return (id);
}

/* The line the log has at number n. */
static void
log_line(char *buf, size_t size, int n)
{
	size_t	i;
	bool	err = false;

	for (i = 0; i < 12; i++)
		err = err || log_errors[i] == n;
	snprintf(buf, size, "2026-12-02 12:00:00 %s request %06d handled in "
	    "3 ms", err ? "ERROR" : "INFO ", n);
}

/*
 * "How did it end": one read with tail from cursor 0 of a finished
 * seq 1 200000 returns its last lines, the cursor at the end, ended, and
 * says how many lines it skipped; the next read has nothing more.
 */
static void
test_read_tail(void **state)
{
	struct json_doc	*d;
	char		*id;
	int64_t		 cursor;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"seq\",\"1\",\"200000\"],"
	    "\"maxLines\":1}");
	assert_true(sc_bool(d, "ended"));
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	d = rd(id, 0, 0, "\"tail\":3");
	assert_string_equal(sc_need_str(d, "text"), "199998\n199999\n200000\n");
	cursor = sc_int(d, "cursor");
	assert_int_equal(cursor, 1288895);
	assert_int_equal(sc_int(d, "skippedLines"), 199997);
	assert_true(sc_bool(d, "ended"));
	assert_non_null(strstr(pmx_text(d), "the last 3 lines; 199997 lines "
	    "before them skipped"));
	json_doc_free(d);
	d = rd(id, cursor, 0, "\"tail\":3");
	assert_string_equal(sc_need_str(d, "text"), "");
	assert_true(sc_bool(d, "ended"));
	json_doc_free(d);
	/* maxLines smaller than tail wins; tail from a later cursor. */
	d = rd(id, 1288895 - 14, 0, "\"tail\":5,\"maxLines\":2");
	assert_string_equal(sc_need_str(d, "text"), "199999\n200000\n");
	assert_int_equal(sc_int(d, "skippedLines"), 0);
	json_doc_free(d);
	free(id);
}

/*
 * A running program: tail waits for lines like a read, then returns the
 * last of them with the cursor after them; a later line is the next
 * read's.
 */
static void
test_read_tail_running(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, args[200];
	int64_t		 cursor, t0;
	bool		 waiting;

	(void)state;
	PMX_NEED_TTYWAIT();
	id = pmx_start_program(&group,
	    "{\"argv\":[\"sh\",\"-c\",\"seq 1 50; stty "
	    "-echo; read go; echo after; exec sleep 30\"]}", &pane);
	assert_non_null(id);
	free(pmx_read_until(&group, id, "\n50\n", LONG_MS));
	d = rd(id, 0, LONG_MS, "\"tail\":2");
	assert_string_equal(sc_need_str(d, "text"), "49\n50\n");
	assert_int_equal(sc_int(d, "skippedLines"), 48);
	assert_false(sc_bool(d, "ended"));
	cursor = sc_int(d, "cursor");
	waiting = sc_bool(d, "waitingForInput");
	json_doc_free(d);
	/* Keys only once it waits at its read (after stty -echo): a read
	 * from the cursor returns when it does, if the tail's did not say. */
	t0 = now_ms();
	while (!waiting) {
		d = rd(id, cursor, LONG_MS, "");
		waiting = sc_bool(d, "waitingForInput");
		assert_string_equal(sc_need_str(d, "text"), "");
		json_doc_free(d);
		if (now_ms() - t0 > 3 * LONG_MS)
			fail_msg("it never waited for input");
	}
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"go\"}",
	    pane);
	json_doc_free(call_ok("send_keys", args));
	d = rd(id, cursor, LONG_MS, "\"tail\":2");
	assert_string_equal(sc_need_str(d, "text"), "after\n");
	assert_int_equal(sc_int(d, "skippedLines"), 0);
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);
}

/*
 * "Every line containing ERROR in a 1 MB log with 12 of them": one read
 * with filter returns the 12, each with its line number, the cursor at
 * the end, and says 12 of 20000 lines matched.
 */
static void
test_read_filter(void **state)
{
	struct json_doc	*d;
	struct buf	 want;
	char		*id, line[200];
	size_t		 i;
	int64_t		 t0;

	(void)state;
	id = run_log("\"maxLines\":1", NULL);
	t0 = now_us();
	d = rd(id, 0, 0, "\"filter\":\"\\\\bERROR\\\\b\"");
	print_message("filter over the 1 MB log: %.1f ms\n",
	    (double)(now_us() - t0) / 1000);
	buf_init(&want);
	for (i = 0; i < 12; i++) {
		log_line(line, sizeof line, log_errors[i]);
		buf_printf(&want, "%d:%s\n", log_errors[i], line);
	}
	buf_addc(&want, '\0');
	assert_string_equal(sc_need_str(d, "text"), want.data);
	assert_int_equal(sc_int(d, "matchedLines"), 12);
	assert_int_equal(sc_int(d, "scannedLines"), LOG_LINES);
	assert_true(sc_bool(d, "ended"));
	assert_non_null(strstr(pmx_text(d), "[12 of 20000 lines matched (lines "
	    "1 to 20000); cursor"));
	assert_true(sc_int(d, "cursor") > 1000000);
	json_doc_free(d);

	/* From a cursor, the line numbers are still the text's. */
	d = rd(id, 16 * 51, 0, "\"filter\":\"ERROR\",\"maxLines\":2");
	assert_int_equal(sc_int(d, "matchedLines"), 2);
	log_line(line, sizeof line, 17);
	assert_non_null(strstr(sc_need_str(d, "text"), "17:"));
	assert_non_null(strstr(sc_need_str(d, "text"), line));
	assert_non_null(strstr(sc_need_str(d, "text"), "999:"));
	assert_false(sc_bool(d, "ended"));
	json_doc_free(d);
	buf_free(&want);
	free(id);
}

/* context: grep -C's lines around each match, "--" between groups,
 * no line twice. */
static void
test_read_filter_context(void **state)
{
	struct json_doc	*d;
	char		*id;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"sh\",\"-c\",\"for i in "
	    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do case $i "
	    "in 1|5|7|15) echo \\\"$i x\\\" ;; *) echo $i ;; esac; "
	    "done\"]}");
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	d = rd(id, 0, 0, "\"filter\":\"x$\",\"context\":1");
	assert_string_equal(sc_need_str(d, "text"),
	    "1:1 x\n2-2\n--\n4-4\n5:5 x\n6-6\n7:7 x\n8-8\n--\n14-14\n"
	    "15:15 x\n16-16\n");
	assert_int_equal(sc_int(d, "matchedLines"), 4);
	json_doc_free(d);
	d = rd(id, 0, 0, "\"filter\":\"x$\",\"context\":2");
	assert_string_equal(sc_need_str(d, "text"),
	    "1:1 x\n2-2\n3-3\n4-4\n5:5 x\n6-6\n7:7 x\n8-8\n9-9\n--\n"
	    "13-13\n14-14\n15:15 x\n16-16\n17-17\n");
	json_doc_free(d);
	free(id);
}

/*
 * More matches than a page: the read stops at a full page, the cursor
 * on the first line it did not show; reads from there give the rest,
 * every match once.
 */
static void
test_read_filter_pages(void **state)
{
	struct json_doc	*d;
	char		*id;
	int64_t		 cursor = 0, matched = 0;
	int		 reads = 0;
	bool		 ended = false;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"seq\",\"1\",\"100000\"],"
	    "\"maxLines\":1}");
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	while (!ended) {
		d = rd(id, cursor, 0, "\"filter\":\"7\"");
		matched += sc_int(d, "matchedLines");
		cursor = sc_int(d, "cursor");
		ended = sc_bool(d, "ended");
		if (!ended)
			assert_non_null(strstr(pmx_text(d), "the page is "
			    "full"));
		json_doc_free(d);
		if (++reads > 100)
			fail_msg("more than 100 reads");
	}
	/* Numbers 1..100000 with a 7 in them: 100000 - 9^5 + ... */
	assert_int_equal(matched, 40951);
	assert_true(reads > 1);
	free(id);
}

/*
 * While the program runs, a filter read waits for a matching line and
 * returns it when it comes, before its timeout; lines that do not match
 * do not wake it.
 */
static void
test_read_filter_running(void **state)
{
	struct json_doc	*d;
	char		*id;
	int64_t		 t0;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\",\"echo one; "
	    "sleep 0.5; echo two; sleep 0.5; echo 'FAIL: three'; exec sleep "
	    "30\"]}", NULL);
	assert_non_null(id);
	t0 = now_ms();
	d = rd(id, 0, LONG_MS, "\"filter\":\"^FAIL\"");
	assert_string_equal(sc_need_str(d, "text"), "3:FAIL: three\n");
	assert_int_equal(sc_int(d, "scannedLines"), 3);
	if (now_ms() - t0 >= LONG_MS / 2)
		fail_msg("the filter read waited out its timeout");
	json_doc_free(d);
	stop(id);
	free(id);
}

/* run_program's filter and tail: its text is the matching lines (or the
 * last lines, or the last matching lines); context without filter and
 * bad patterns are errors naming them. */
static void
test_run_filter_tail(void **state)
{
	struct json_doc	*d;
	char		*id, line[200];

	(void)state;
	id = run_log("\"filter\":\"ERROR\",\"context\":0", &d);
	assert_int_equal(sc_int(d, "matchedLines"), 12);
	assert_int_equal(sc_int(d, "scannedLines"), LOG_LINES);
	log_line(line, sizeof line, 12345);
	assert_non_null(strstr(sc_need_str(d, "text"), line));
	assert_non_null(strstr(sc_need_str(d, "text"), "\n12345:"));
	assert_non_null(strstr(pmx_text(d), "[12 of 20000 lines matched"));
	assert_true(sc_int(d, "omittedChars") > 1000000);
	json_doc_free(d);
	free(id);

	d = call_ok("run_program", "{\"argv\":[\"seq\",\"1\",\"200000\"],"
	    "\"tail\":2}");
	assert_string_equal(sc_need_str(d, "text"), "199999\n200000\n");
	json_doc_free(d);

	/* filter with tail: the last matching lines, in one call. */
	d = call_ok("run_program", "{\"argv\":[\"seq\",\"1\",\"200000\"],"
	    "\"filter\":\"^1999[0-9]7$\",\"tail\":2}");
	assert_string_equal(sc_need_str(d, "text"),
	    "199987:199987\n199997:199997\n");
	assert_int_equal(sc_int(d, "matchedLines"), 10);
	json_doc_free(d);

	/* What is still refused, and why. */
	refused("run_program", "{\"argv\":[\"true\"],\"filter\":\"(\"}",
	    "filter", NULL);
	refused("run_program", "{\"argv\":[\"true\"],\"context\":1}",
	    "context goes with filter", NULL);
	refused("read_program", "{\"programId\":\"p1\",\"filter\":\"(\"}",
	    "filter", NULL);
	refused("read_program", "{\"programId\":\"p1\",\"until\":\"(\"}",
	    "until", NULL);
	refused("read_program", "{\"programId\":\"p1\",\"context\":1}",
	    "context goes with filter", NULL);
	refused("read_program", "{\"programId\":\"p1\",\"context\":1,"
	    "\"tail\":2,\"until\":\"a\"}", "context goes with filter", NULL);
}

/* Has the program whose argv[2] holds needle ended (list_programs)? */
static bool
ended_by_argv(const char *needle)
{
	struct json_doc		*d = call_ok("list_programs", "{}");
	const struct json	*l = sc_get(d, "programs"), *it, *argv;
	size_t			 i;
	bool			 ended = false;

	for (i = 0; i < json_len(l); i++) {
		it = json_at(l, i);
		argv = json_get(it, "argv");
		if (json_len(argv) > 2 && strstr(json_str(json_at(argv, 2),
		    NULL), needle) != NULL && strcmp(json_str(json_get(it,
		    "outcome"), NULL), "running") != 0)
			ended = true;
	}
	json_doc_free(d);
	return (ended);
}

/*
 * run_program's filter scans a slice per loop turn too: once the program
 * ended and the run scans 20,000 lines a hard pattern takes about 1.6 ms
 * each on, a ping sent then is answered before the run; the run answers
 * when its scan's time is up, with the cursor after what it scanned,
 * short of the end.
 */
static void
test_run_filter_bounded(void **state)
{
	struct json_doc	*d;
	int64_t		 rid, pid, t0;
	char		 args[600];

	(void)state;
	snprintf(args, sizeof args, "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"python3\",\"-c\",\"import sys\\n"
	    "sys.stdout.write(('b' * 20 + '\\\\n') * 20000)\"],"
	    "\"filter\":\"^(b|bb)*[^b]\"}}");
	rid = pmx_send(&group, "tools/call", args);
	t0 = now_ms();
	while (!ended_by_argv("('b' * 20")) {
		if (now_ms() - t0 > LONG_MS)
			fail_msg("the program never ended");
		usleep(10000);
	}
	pid = pmx_send(&group, "ping", NULL);
	d = pmx_next(&group, 40000);
	assert_non_null(d);
	if (json_int(json_get(json_root(d), "id")) != pid)
		fail_msg("the run answered before the ping: %s", pmx_text(d));
	json_doc_free(d);
	d = pmx_wait(&group, rid, 40000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	assert_int_equal(sc_int(d, "matchedLines"), 0);
	assert_true(sc_int(d, "scannedLines") > 0);
	assert_true(sc_int(d, "scannedLines") < 20000);
	assert_int_equal(sc_int(d, "cursor"), 21 * sc_int(d, "scannedLines"));
	assert_non_null(strstr(pmx_text(d), "lines matched"));
	json_doc_free(d);
}

/*
 * A filter whose every line costs many milliseconds over more lines than
 * WATCH_SCAN_MS (5 s) of scanning allow: the read returns scanLimit with
 * the cursor after what it scanned (so a read from there goes on), and
 * says so; other calls were answered meanwhile (the scan is sliced).
 */
static void
test_read_scan_limit(void **state)
{
	struct json_doc	*d;
	char		*id, args[200];
	int64_t		 cursor;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"python3\",\"-c\",\"import "
	    "sys\\nfor i in range(8000): sys.stdout.write('a' * 600 + "
	    "'\\\\n')\"],\"keep\":true,\"maxLines\":1}");
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"filter\":"
	    "\"\\\\w+\\\\d\",\"timeoutMs\":0}", id);
	d = call_ok("read_program", args);
	assert_string_equal(sc_need_str(d, "reason"), "scanLimit");
	assert_false(sc_bool(d, "ended"));
	cursor = sc_int(d, "cursor");
	assert_true(cursor > 0 && cursor < 8000 * 601);
	assert_int_equal(cursor % 601, 0);	/* after whole lines */
	assert_int_equal(sc_int(d, "scannedLines"), cursor / 601);
	assert_non_null(strstr(pmx_text(d), "ran out of time"));
	json_doc_free(d);
	stop(id);
	free(id);
}

/*
 * Every combination of until, tail, filter, context and maxLines on one
 * ended program's 300 lines ("i", "i ERROR" every 40th to 280, "BUILD
 * FAILED" at 250): the exact text, skippedLines, matched, matchedLines and the
 * cursor of each; and the ones still refused (context without filter),
 * each with its reason.
 */
static void
test_read_combinations(void **state)
{
	static const struct {
		const char	*args;		/* read_program's, beyond the id */
		const char	*text;
		int64_t		 skipped;	/* -1: not in the result */
		int64_t		 matched_lines;	/* -1: not in the result */
		int		 matched;	/* until's: 1, 0, -1 none */
	} c[] = {
	{ "\"until\":\"FAILED\",\"maxLines\":3",
	    "248\n249\nBUILD FAILED\n", 247, -1, 1 },
	{ "\"until\":\"FAILED\",\"tail\":2", "249\nBUILD FAILED\n", 248, -1,
	    1 },
	{ "\"until\":\"FAILED\",\"tail\":5,\"maxLines\":1", "BUILD FAILED\n",
	    249, -1, 1 },
	{ "\"until\":\"nowhere\",\"maxLines\":2", "299\n300\n", 298, -1, 0 },
	{ "\"until\":\"FAILED\",\"filter\":\"ERROR\"", "40:40 ERROR\n"
	    "80:80 ERROR\n120:120 ERROR\n160:160 ERROR\n200:200 ERROR\n"
	    "240:240 ERROR\n250:BUILD FAILED\n", 39, 6, 1 },
	{ "\"until\":\"FAILED\",\"filter\":\"ERROR\",\"tail\":2",
	    "200:200 ERROR\n240:240 ERROR\n250:BUILD FAILED\n", 199, 6, 1 },
	{ "\"until\":\"FAILED\",\"filter\":\"ERROR\",\"tail\":1,\"context\":1",
	    "239-239\n240:240 ERROR\n241-241\n--\n249-249\n"
	    "250:BUILD FAILED\n", 238, 6, 1 },
	{ "\"tail\":3", "298\n299\n300\n", 297, -1, -1 },
	{ "\"tail\":5,\"maxLines\":2", "299\n300\n", 298, -1, -1 },
	{ "\"tail\":2,\"filter\":\"ERROR\"", "240:240 ERROR\n280:280 ERROR\n",
	    239, 7, -1 },
	{ "\"tail\":1,\"filter\":\"ERROR\",\"context\":1",
	    "279-279\n280:280 ERROR\n281-281\n", 278, 7, -1 },
	{ "\"filter\":\"ERROR\",\"maxLines\":2", "40:40 ERROR\n80:80 ERROR\n",
	    -1, 2, -1 },
	{ "\"filter\":\"^2$|^20$\",\"context\":1,\"maxLines\":7",
	    "1-1\n2:2\n3-3\n--\n19-19\n20:20\n21-21\n", -1, 2, -1 },
	{ "\"filter\":\"^2$|^20$\",\"context\":1,\"maxLines\":5",
	    "1-1\n2:2\n3-3\n", -1, 1, -1 },
	{ "\"maxLines\":2", "1\n2\n", -1, -1, -1 },
	};
	static const char *const refused_args[] = {
		"\"context\":1", "\"context\":1,\"until\":\"FAILED\"",
		"\"context\":2,\"tail\":3",
	};
	struct json_doc	*d;
	char		*id, args[400];
	size_t		 i;

	(void)state;
	d = call_ok("run_program", "{\"argv\":[\"python3\",\"-c\",\"for i in "
	    "range(1, 301): print('BUILD FAILED' if i == 250 else "
	    "'%d ERROR' % i if i % 40 == 0 else i)\"],\"keep\":true,"
	    "\"maxLines\":1}");
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		d = rd(id, 0, 0, c[i].args);
		if (strcmp(sc_need_str(d, "text"), c[i].text) != 0)
			fail_msg("%s: text\n%s\nnot\n%s", c[i].args,
			    sc_str(d, "text"), c[i].text);
		if (c[i].skipped != (json_get(pmx_sc(d), "skippedLines") ?
		    sc_int(d, "skippedLines") : -1))
			fail_msg("%s: skippedLines %lld, not %lld", c[i].args,
			    (long long)sc_int(d, "skippedLines"),
			    (long long)c[i].skipped);
		if (c[i].matched_lines >= 0 &&
		    c[i].matched_lines != sc_int(d, "matchedLines"))
			fail_msg("%s: matchedLines %lld", c[i].args,
			    (long long)sc_int(d, "matchedLines"));
		if (c[i].matched >= 0)
			assert_int_equal(sc_bool(d, "matched"), c[i].matched);
		else
			assert_null(json_get(pmx_sc(d), "matched"));
		json_doc_free(d);
	}
	for (i = 0; i < sizeof refused_args / sizeof refused_args[0]; i++) {
		snprintf(args, sizeof args, "{\"programId\":\"%s\",%s}", id,
		    refused_args[i]);
		refused("read_program", args, "context goes with filter: it is "
		    "how many lines to show around each line filter matches",
		    NULL);
	}
	stop(id);
	free(id);
}

/*
 * One call answers what the agent asked, whatever comes before it: a
 * build printing 1.29 MB and then the line that matters gives that line
 * to one read with until (its cursor just after it), and gives its last
 * 5 lines and its end to one read with tail, both issued right after the
 * start.
 */
static void
test_one_call(void **state)
{
	static const char build[] = "{\"argv\":[\"sh\",\"-c\",\"seq 1 200000; "
	    "echo 'BUILD FAILED: 3 errors'; exit 3\"]}";
	struct json_doc	*d;
	char		*id;

	(void)state;
	id = pmx_start_program(&group, build, NULL);
	assert_non_null(id);
	d = rd(id, 0, LONG_MS, "\"until\":\"BUILD FAILED\"");
	assert_true(sc_bool(d, "matched"));
	assert_string_equal(sc_need_str(d, "reason"), "matched");
	assert_int_equal(sc_int(d, "cursor"), 1288895 + 23);
	assert_true(sc_int(d, "skippedLines") > 190000);
	if (strstr(sc_need_str(d, "text"), "200000\nBUILD FAILED: 3 errors\n") ==
	    NULL)
		fail_msg("not the line and the lines before it: %.300s",
		    sc_str(d, "text"));
	json_doc_free(d);
	free(id);

	id = pmx_start_program(&group, build, NULL);
	assert_non_null(id);
	d = rd(id, 0, LONG_MS, "\"tail\":5");
	assert_string_equal(sc_need_str(d, "text"), "199997\n199998\n199999\n"
	    "200000\nBUILD FAILED: 3 errors\n");
	assert_true(sc_bool(d, "ended"));
	assert_int_equal(sc_int(d, "exitStatus"), 3);
	assert_string_equal(sc_need_str(d, "reason"), "ended");
	assert_int_equal(sc_int(d, "skippedLines"), 199996);
	json_doc_free(d);
	free(id);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_tail),
		cmocka_unit_test(test_read_tail_running),
		cmocka_unit_test(test_read_filter),
		cmocka_unit_test(test_read_filter_context),
		cmocka_unit_test(test_read_filter_pages),
		cmocka_unit_test(test_read_filter_running),
		cmocka_unit_test(test_run_filter_tail),
		cmocka_unit_test(test_run_filter_bounded),
		cmocka_unit_test(test_read_scan_limit),
		cmocka_unit_test(test_read_combinations),
		cmocka_unit_test(test_one_call),
	};

	return (HARNESS_RUN("filter", tests, group_setup, group_teardown));
}
