/*
 * agent_reads.c — figures 14 to 21: what an agent asks of a finished or
 * running program (its end, its ERROR lines, a prompt, a hostile ping)
 * and how many calls each takes with and without the fields that
 * answer it in one.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "client.h"
#include "compat.h"
#include "json.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"

#include "bench.h"

static void	bench_agent_one_call(struct pmx *, const struct json_doc *);

/* Read id from *cursor with extra until a read says it ended, or a
 * call fails (the harness broke), the text into all. */
static void
agent_read_to_end(struct agent *a, const char *id, int64_t *cursor,
    const char *extra, struct buf *all)
{
	struct json_doc		*d;
	const struct json	*sc;

	while ((d = agent_read(a, id, cursor, extra, all, &sc)) != NULL) {
		if (json_bool(json_get(sc, "ended"))) {
			json_doc_free(d);
			break;
		}
		json_doc_free(d);
	}
}

/*
 * Figure 16: run_program's early return at a prompt, from the prompt to
 * the answer (the program writes the time just after its prompt, 1.5 s
 * after it starts).
 */
static void
bench_agent_run_prompt(struct pmx *c)
{
	struct json_doc		*d;
	const struct json	*sc;
	struct fig		*f;
	char			*path, *stamp, *args;
	size_t			 len;
	int64_t			 t_ns;
	double			 seen = NAN;

	xasprintf(&path, "%s/run-prompt-stamp", c->dir);
	stamp = pmx_jstr(path);
	xasprintf(&args, "{\"argv\":[\"sh\",\"-c\",\"sleep 1.5; printf "
	    "'Proceed? [y/N] '; date +%%s%%N > \\\"$1\\\"; read a\",\"sh\","
	    "%s],\"timeoutMs\":20000}", stamp);
	free(stamp);
	d = bc_call(c, "run_program", args, NULL);
	free(args);
	if ((sc = bc_ok(d, "run_program")) != NULL &&
	    json_bool(json_get(sc, "waitingForInput"))) {
		stamp = pmx_read_file(path, &len);
		t_ns = stamp != NULL ? strtoll(stamp, NULL, 10) : 0;
		free(stamp);
		if (t_ns > 0)
			seen = (double)(c->read_real_ns - t_ns) / 1e9;
		bc_stop(c, json_str(json_get(sc, "programId"), NULL));
	} else
		bench_broke("run prompt task: the run did not return at the "
		    "prompt");
	json_doc_free(d);
	unlink(path);
	free(path);
	f = fig_new("agent_run_prompt", "16 run_program at a prompt, after it",
	    "s", "<= 0.5 s");
	f->median = seen;
	f->runs = 1;
	f->met = seen <= 0.5;
	bench_log("16 run_program at a prompt: answered %.2f s after it", seen);
}

/* One ping's round trip, in ms; NAN if it went unanswered. */
static double
bench_ping_ms(struct pmx *c)
{
	struct json_doc	*d;
	int64_t		 t0 = now_us();

	d = pmx_wait(c, pmx_send(c, "ping", NULL), CALL_MS);
	if (d == NULL)
		return (NAN);
	json_doc_free(d);
	return ((double)(c->read_us - t0) / 1000.0);
}

/*
 * Figure 17: pings while a read matches a pattern that backtracks hard
 * on each of 20,000 lines (about 1.6 ms a line), against pings with
 * nothing to do: the read's matching goes a slice at a time, so other
 * calls are answered meanwhile. (An older server with glibc's regex on
 * a worse pattern held every call for 30 s.)
 */
static void
bench_hostile_ping(struct pmx *c)
{
	struct samples	 idle = { 0 }, busy = { 0 };
	struct json_doc	*d;
	struct fig	*f;
	char		*id, *pane, *text, args[300];
	int64_t		 rid;
	int		 i;

	if (agent_start_plain(c, "[\"python3\",\"-c\",\"import sys, time\\n"
	    "sys.stdout.write(('a' * 20 + '\\\\n') * 20000 + 'end\\\\n')\\n"
	    "sys.stdout.flush()\\ntime.sleep(60)\"]", &id, &pane) == -1)
		return;
	if ((text = pmx_read_until(c, id, "end\n", CALL_MS)) == NULL) {
		bench_broke("hostile ping: the lines never came");
		goto out;
	}
	free(text);
	for (i = 0; i < 20; i++)
		smp_add(&idle, bench_ping_ms(c));
	snprintf(args, sizeof args, "{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0,"
	    "\"timeoutMs\":3000,\"until\":\"^(a|aa)*[^a]\"}}", id);
	rid = pmx_send(c, "tools/call", args);
	for (i = 0; i < 20; i++)
		smp_add(&busy, bench_ping_ms(c));
	if ((d = pmx_wait(c, rid, CALL_MS)) == NULL)
		bench_broke("hostile ping: the read never answered");
	json_doc_free(d);
	f = fig_new("hostile_ping", "17 ping while until backtracks hard",
	    "ms", "<= 20 ms");
	f->median = smp_q(&busy, 0.5);
	f->p90 = smp_q(&busy, 0.9);
	f->show_p90 = true;
	f->base_median = smp_q(&idle, 0.5);
	f->base_p90 = smp_q(&idle, 0.9);
	f->base_what = "a ping with nothing to do";
	f->ratio = f->median / f->base_median;
	f->runs = (int)busy.n;
	f->met = f->p90 <= 20;
	bench_log("17 ping while until backtracks: %.2f ms (p90 %.2f), idle "
	    "%.2f ms", f->median, f->p90, f->base_median);
	smp_free(&idle);
	smp_free(&busy);
out:
	agent_stop(c, id, pane);
}

/* The 1 MB log with 12 ERROR lines of figure 15, as argv JSON. */
static const char agent_log_argv[] = "[\"python3\",\"-c\",\"import sys\\n"
    "e = {1, 17, 999, 1000, 4321, 9000, 12345, 15000, 17777, 19000, "
    "19998, 20000}\\nfor i in range(1, 20001):\\n    sys.stdout.write("
    "'2026-12-02 12:00:00 %s request %06d handled in 3 ms\\\\n' % ("
    "'ERROR' if i in e else 'INFO ', i))\\n\"]";

/*
 * Figures 14 to 16, tasks on a finished program: "how did
 * this 1.29 MB run end" (the last lines of seq 1 200000) and "every line
 * containing ERROR in a 1 MB log with 12 of them". With tail and filter
 * one read does each; without them the agent pages through everything
 * from cursor 0 (and greps it itself). And run_program's early return
 * at a prompt (16).
 */
void
bench_agent_logs(struct pmx *c, const struct json_doc *list)
{
	struct agent		 a;
	struct buf		 all = BUF_INIT;
	char			*id, *pane, *argv;
	const char		*extra;
	int64_t			 cursor;
	int			 errors = 0;
	const char		*p;

	/* 14: how did it end, once it has: with tail, one read from cursor
	 * 0; without, pages to the end. */
	agent_begin(&a, c);
	cursor = 0;
	extra = agent_has_arg(list, "read_program", "tail") ? "\"tail\":5" :
	    "";
	if (agent_start(&a, "[\"seq\",\"1\",\"200000\"]", &id, &pane) ==
	    0) {
		a.calls++;	/* the start */
		if (agent_wait_end(c, id) == -1)
			bench_broke("end task: seq did not end");
		agent_read_to_end(&a, id, &cursor, extra, &all);
		if (strstr(buf_cstr(&all), "\n199999\n200000\n") == NULL)
			bench_broke("end task: the reads did not end with "
			    "200000");
		agent_figs("agent_end", "14 how did a 1.29 MB run end (seq)",
		    "<= 2 calls", &a, "-", 1e9);
		fig_find("agent_end")->met = a.calls <= 2;
		agent_chars("agent_end", "14 how did a 1.29 MB run end (seq)",
		    "<= 1000", &a, 1000);
		agent_stop(c, id, pane);
	}
	buf_reset(&all);

	/* 15: every ERROR line of a 1 MB log. */
	agent_begin(&a, c);
	cursor = 0;
	extra = agent_has_arg(list, "read_program", "filter") ?
	    "\"filter\":\"ERROR\"" : "";
	xasprintf(&argv, "%s", agent_log_argv);
	if (agent_start(&a, argv, &id, &pane) == 0) {
		a.calls++;	/* the start */
		agent_read_to_end(&a, id, &cursor, extra, &all);
		for (p = buf_cstr(&all); (p = strstr(p, "ERROR")) != NULL; p++)
			errors++;
		if (errors != 12)
			bench_broke("log task: %d ERROR lines, not 12", errors);
		agent_figs("agent_log", "15 every ERROR line of a 1 MB log",
		    "<= 3 calls", &a, "-", 1e9);
		fig_find("agent_log")->met = a.calls <= 3;
		agent_chars("agent_log", "15 every ERROR line of a 1 MB log",
		    "<= 2000", &a, 2000);
		agent_stop(c, id, pane);
	}
	free(argv);
	buf_free(&all);
	bench_agent_run_prompt(c);
	bench_hostile_ping(c);
	bench_agent_one_call(c, list);
}

/* A task done by reads until stop says so (done: the read that ends it);
 * the calls counted are the reads, the start not. */
static int
agent_reads(struct agent *a, const char *id, const char *extra,
    struct buf *all, bool (*done)(const struct json *))
{
	struct json_doc		*d;
	const struct json	*sc;
	int64_t			 cursor = 0;
	int			 i;

	for (i = 0; i < 400; i++) {
		if ((d = agent_read(a, id, &cursor, extra, all, &sc)) == NULL)
			return (-1);
		if (done(sc)) {
			json_doc_free(d);
			return (0);
		}
		json_doc_free(d);
	}
	return (-1);
}

static bool
agent_matched(const struct json *sc)
{
	return (json_bool(json_get(sc, "matched")) ||
	    json_bool(json_get(sc, "ended")));
}

static bool
agent_ended(const struct json *sc)
{
	return (json_bool(json_get(sc, "ended")));
}

/* A calls figure: met at or under max. */
static void
agent_calls_fig(const char *id, const char *name, const char *target,
    int calls, int max)
{
	struct fig	*f;

	f = fig_new(id, name, "calls", target);
	f->median = calls;
	f->decimals = 0;
	f->runs = 1;
	f->met = calls <= max;
	bench_log("%s: %d calls", name, calls);
}

/*
 * Figures 18 to 21, one call for what the agent asked: "wait for BUILD
 * FAILED after 1.29 MB" (until; without it, reads page through), "wait
 * for a 1.29 MB build to end, then its last 5 lines" (tail; without its
 * wait, reads to the end), "the last 3 ERROR lines of a 1 MB log" (filter
 * and tail) and q to less with timeoutMs, 50 tries, errors counted.
 */
static void
bench_agent_one_call(struct pmx *c, const struct json_doc *list)
{
	static const char build[] = "[\"sh\",\"-c\",\"seq 1 200000; echo "
	    "'BUILD FAILED: 3 errors'; exit 3\"]";
	struct agent		 a;
	struct json_doc		*d;
	const struct json	*sc;
	struct buf		 all = BUF_INIT;
	char			*id, *pane, *file, *jfile, args[600];
	bool			 until = agent_has_arg(list, "read_program",
				    "until"), waiting;
	int			 i, k, errors = 0;

	/* 18: until BUILD FAILED, right after the start. */
	agent_begin(&a, c);
	if (agent_start(&a, build, &id, &pane) == 0) {
		if (agent_reads(&a, id, until ? "\"until\":\"BUILD FAILED\"" :
		    "", &all, until ? agent_matched : agent_ended) == -1 ||
		    strstr(buf_cstr(&all), "BUILD FAILED") == NULL)
			bench_broke("until task: no BUILD FAILED line");
		agent_calls_fig("agent_until", "18 wait for BUILD FAILED after "
		    "1.29 MB", "1 call", a.calls, 1);
		agent_stop(c, id, pane);
	}
	buf_reset(&all);
	/* 19: the end, then its last 5 lines: one read with tail. */
	agent_begin(&a, c);
	if (agent_start(&a, build, &id, &pane) == 0) {
		if (agent_reads(&a, id, "\"tail\":5", &all, agent_ended) ==
		    -1 || strstr(buf_cstr(&all), "200000\nBUILD FAILED") ==
		    NULL)
			bench_broke("tail task: not its last lines");
		agent_calls_fig("agent_tail_end", "19 a 1.29 MB build's end, then "
		    "its last 5 lines", "1 call", a.calls, 1);
		agent_stop(c, id, pane);
	}
	buf_reset(&all);
	/* 20: the last 3 ERROR lines of the 1 MB log, once it ended. */
	agent_begin(&a, c);
	if (agent_start(&a, agent_log_argv, &id, &pane) == 0) {
		if (agent_wait_end(c, id) == -1 || agent_reads(&a, id,
		    "\"filter\":\"ERROR\",\"tail\":3", &all, agent_ended) ==
		    -1 || strstr(buf_cstr(&all), "19998") == NULL ||
		    strstr(buf_cstr(&all), "19000") == NULL)
			bench_broke("filter tail task: not the last 3");
		agent_calls_fig("agent_filter_tail", "20 the last 3 ERROR lines "
		    "of a 1 MB log", "1 call", a.calls, 1);
		agent_stop(c, id, pane);
	}
	/* 21: q to less with timeoutMs: the reply is its end, never an
	 * error. */
	agent_begin(&a, c);
	file = pmx_lines_file(c, "less.txt", 200);
	jfile = file != NULL ? pmx_jstr(file) : NULL;
	for (i = 0; jfile != NULL && i < 50; i++) {
		snprintf(args, sizeof args, "[\"less\",%s]", jfile);
		if (agent_start_plain(c, args, &id, &pane) == -1)
			break;
		/* Once it waits for keys. */
		snprintf(args, sizeof args, "{\"programId\":\"%s\","
		    "\"timeoutMs\":5000}", id);
		for (k = 0; k < 10; k++) {
			d = bc_call(c, "read_program", args, NULL);
			sc = d != NULL ? pmx_sc(d) : NULL;
			waiting = sc != NULL &&
			    json_bool(json_get(sc, "waitingForInput"));
			json_doc_free(d);
			if (waiting)
				break;
		}
		snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"q\","
		    "\"enter\":false,\"timeoutMs\":10000}", pane);
		d = bc_call(c, "send_keys", args, NULL);
		if (d == NULL || pmx_is_error(d))
			errors++;
		json_doc_free(d);
		agent_stop(c, id, pane);
	}
	agent_calls_fig("agent_less_q", "21 q to less with timeoutMs: errors "
	    "in 50", "0", errors, 0);
	fig_find("agent_less_q")->unit = "errors";
	free(jfile);
	if (file != NULL)
		unlink(file);
	free(file);
	buf_free(&all);
}
