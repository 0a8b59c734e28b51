/*
 * agent.c — figures 9 to 13: agent tasks, each a count of calls and the
 * seconds calls spent blocked while the program waited for input.
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

/* A fresh tally for a task on c. */
void
agent_begin(struct agent *a, struct pmx *c)
{
	memset(a, 0, sizeof *a);
	a->c = c;
}

/* The end of a task's program: stopped, its ids freed. */
void
agent_stop(struct pmx *c, char *id, char *pane)
{
	bc_stop(c, id);
	free(id);
	free(pane);
}

/* A call, counted; NULL (harness broke) on an error. */
static struct json_doc *
agent_call(struct agent *a, const char *tool, const char *args,
    const struct json **sc, int64_t *us)
{
	struct json_doc	*d;

	a->calls++;
	d = bc_call(a->c, tool, args, us);
	if ((*sc = bc_ok(d, tool)) == NULL) {
		json_doc_free(d);
		return (NULL);
	}
	return (d);
}

/* A read from cursor (extra: JSON members or ""); empty reads count as
 * blocked. Appends its text to all. */
struct json_doc *
agent_read(struct agent *a, const char *id, int64_t *cursor,
    const char *extra, struct buf *all, const struct json **sc)
{
	struct json_doc	*d;
	char		 args[512];
	const char	*text;
	size_t		 len;
	int64_t		 us;

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":%d%s%s}", id, (long long)*cursor, AGENT_READ_MS,
	    *extra ? "," : "", extra);
	if ((d = agent_call(a, "read_program", args, sc, &us)) == NULL)
		return (NULL);
	text = json_str(json_get(*sc, "text"), &len);
	if (len == 0)
		a->blocked += (double)us / 1e6;
	a->chars += (int64_t)utf8_count(text, len);
	buf_add(all, text, len);
	*cursor = json_int(json_get(*sc, "cursor"));
	a->new_fields = json_get(*sc, "unfinishedLine") != NULL;
	return (d);
}

/* Read until the prompt is known to the client (in unfinishedLine, or
 * on the screen after an empty read); when it was known (realtime ns). */
static int
agent_see_prompt(struct agent *a, const char *id, const char *pane,
    int64_t *cursor, const char *prompt, int64_t *seen_ns)
{
	struct json_doc		*d;
	const struct json	*sc;
	struct buf		 all = BUF_INIT;
	const char		*u;
	char			 args[128];
	int			 i, rc = -1;

	for (i = 0; i < 20 && rc == -1; i++) {
		if ((d = agent_read(a, id, cursor, "", &all, &sc)) == NULL)
			break;
		u = json_str(json_get(sc, "unfinishedLine"), NULL);
		if (u != NULL && strstr(u, prompt) != NULL)
			rc = 0;
		else if (u == NULL && json_str(json_get(sc, "text"),
		    NULL)[0] == '\0') {
			json_doc_free(d);
			snprintf(args, sizeof args, "{\"paneId\":\"%s\"}",
			    pane);
			if ((d = agent_call(a, "capture_pane", args, &sc,
			    NULL)) == NULL)
				break;
			if (strstr(json_str(json_get(sc, "text"), NULL),
			    prompt) != NULL)
				rc = 0;
		}
		*seen_ns = a->c->read_real_ns;
		json_doc_free(d);
	}
	buf_free(&all);
	return (rc);
}

/* Answer keys and get the reply holding want: one send_keys with
 * timeoutMs, or send_keys then reads (and a capture for the prompt). */
static int
agent_exchange(struct agent *a, const char *id, const char *pane,
    int64_t *cursor, const char *keys, const char *want, const char *next)
{
	struct json_doc		*d;
	const struct json	*sc;
	struct buf		 all = BUF_INIT;
	char			 args[256];
	int			 i, rc = -1;

	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"%s\"%s}",
	    pane, keys, a->new_fields ? ",\"timeoutMs\":5000" : "");
	if ((d = agent_call(a, "send_keys", args, &sc, NULL)) == NULL)
		return (-1);
	if (a->new_fields) {
		if (strstr(json_str(json_get(sc, "text"), NULL), want) != NULL)
			rc = 0;
		*cursor = json_int(json_get(sc, "cursor"));
		json_doc_free(d);
		return (rc);
	}
	json_doc_free(d);
	for (i = 0; i < 20 && strstr(buf_cstr(&all), want) == NULL; i++) {
		if ((d = agent_read(a, id, cursor, "", &all, &sc)) == NULL)
			break;
		json_doc_free(d);
	}
	if (strstr(buf_cstr(&all), want) != NULL)
		rc = 0;
	if (rc == 0 && next != NULL) {	/* is it ready again? look */
		snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", pane);
		if ((d = agent_call(a, "capture_pane", args, &sc, NULL)) ==
		    NULL)
			rc = -1;
		json_doc_free(d);
	}
	buf_free(&all);
	return (rc);
}

/* Two figures for a task: its calls and its seconds blocked. */
void
agent_figs(const char *id, const char *name, const char *target,
    struct agent *a, const char *blocked_target, double blocked_max)
{
	struct fig	*f;
	char		*fid, *fname;

	f = fig_new(id, name, "calls", target);
	f->median = a->calls;
	f->decimals = 0;
	f->runs = 1;
	f->met = target[0] == '1' ? a->calls <= 1 : -1;
	xasprintf(&fid, "%s_blocked", id);
	xasprintf(&fname, "%s, blocked", name);
	f = fig_new(fid, fname, "s", blocked_target);
	f->median = a->blocked;
	f->runs = 1;
	f->met = a->blocked <= blocked_max;
	bench_log("%s: %d calls, %.2f s blocked", name, a->calls, a->blocked);
}

/* A program started outside any task's count. */
int
agent_start_plain(struct pmx *c, const char *argv_json, char **id,
    char **pane)
{
	struct agent	a;

	agent_begin(&a, c);
	return (agent_start(&a, argv_json, id, pane));
}

/* A task's characters returned, as a figure. */
void
agent_chars(const char *id, const char *name, const char *target,
    struct agent *a, int64_t max)
{
	struct fig	*f;
	char		*fid, *fname;

	xasprintf(&fid, "%s_chars", id);
	xasprintf(&fname, "%s, characters", name);
	f = fig_new(fid, fname, "chars", target);
	f->median = (double)a->chars;
	f->decimals = 0;
	f->runs = 1;
	f->met = max > 0 ? a->chars <= max : -1;
	bench_log("%s: %lld characters returned", name, (long long)a->chars);
}

/* Does the served tool take this argument? */
bool
agent_has_arg(const struct json_doc *list, const char *tool, const char *arg)
{
	const struct json	*tools, *t;
	size_t			 i;

	tools = json_get(json_get(json_root(list), "result"), "tools");
	for (i = 0; i < json_len(tools); i++) {
		t = json_at(tools, i);
		if (strcmp(json_str(json_get(t, "name"), NULL), tool) == 0)
			return (json_get(json_get(json_get(t, "inputSchema"),
			    "properties"), arg) != NULL);
	}
	return (false);
}

/* Wait (bounded, not counted as the agent's) until list_programs says
 * program id has ended. */
int
agent_wait_end(struct pmx *c, const char *id)
{
	struct json_doc		*d;
	const struct json	*sc, *l, *it;
	int64_t			 t0 = now_ms();
	size_t			 i;
	bool			 ended = false;

	while (!ended && now_ms() - t0 < 60000) {
		d = bc_call(c, "list_programs", "{}", NULL);
		if ((sc = bc_ok(d, "list_programs")) == NULL) {
			json_doc_free(d);
			return (-1);
		}
		l = json_get(sc, "programs");
		for (i = 0; i < json_len(l); i++) {
			it = json_at(l, i);
			if (strcmp(json_str(json_get(it, "programId"), NULL),
			    id) == 0 && strcmp(json_str(json_get(it,
			    "outcome"), NULL), "running") != 0)
				ended = true;
		}
		json_doc_free(d);
		if (!ended)
			sleep_ms(50);
	}
	return (ended ? 0 : -1);
}

/* The start of a program for a task: programId and pane (allocated). */
int
agent_start(struct agent *a, const char *argv_json, char **id, char **pane)
{
	struct json_doc		*d;
	const struct json	*sc;
	char			*args;

	xasprintf(&args, "{\"argv\":%s}", argv_json);
	d = bc_call(a->c, "start_program", args, NULL);
	free(args);
	if ((sc = bc_ok(d, "start_program")) == NULL) {
		json_doc_free(d);
		return (-1);
	}
	*id = xstrdup(json_str(json_get(sc, "programId"), NULL));
	*pane = xstrdup(json_str(json_get(sc, "paneId"), NULL));
	json_doc_free(d);
	return (0);
}

/* Figures 9-13 on one harness. */
void
bench_agent(void)
{
	struct pmx		 c;
	struct agent		 a;
	struct json_doc		*d;
	const struct json	*sc;
	struct buf		 all = BUF_INIT;
	struct fig		*f;
	char			*id, *pane, *path, *stamp, *argv;
	int64_t			 cursor, seen_ns = 0, t_ns;
	size_t			 len;
	int			 st, reads;
	double			 seen;
	bool			 has_until;

	if (bench_open(&c) == -1)
		return;
	/* Does this server offer until (and so the other new fields)? */
	d = pmx_wait(&c, pmx_send(&c, "tools/list", NULL), CALL_MS);
	has_until = false;
	for (st = 0; d != NULL && st < (int)json_len(json_get(json_get(
	    json_root(d), "result"), "tools")); st++) {
		sc = json_at(json_get(json_get(json_root(d), "result"),
		    "tools"), (size_t)st);
		if (json_get(json_get(json_get(sc, "inputSchema"),
		    "properties"), "until") != NULL)
			has_until = true;
	}
	if (d != NULL)
		bench_agent_logs(&c, d);
	json_doc_free(d);

	/* 9: prompt answer: see "Proceed? [y/N] ", answer y, get "ok y". */
	agent_begin(&a, &c);
	xasprintf(&path, "%s/prompt-stamp", c.dir);
	stamp = pmx_jstr(path);
	xasprintf(&argv, "[\"sh\",\"-c\",\"sleep 0.3; date +%%s%%N > \\\"$1\\\"; "
	    "printf 'Proceed? [y/N] '; read a; echo \\\"ok $a\\\"\",\"sh\","
	    "%s]", stamp);
	free(stamp);
	cursor = 0;
	if (agent_start(&a, argv, &id, &pane) == 0) {
		if (agent_see_prompt(&a, id, pane, &cursor, "Proceed?",
		    &seen_ns) == -1)
			bench_broke("prompt task: the prompt was never seen");
		else if (agent_exchange(&a, id, pane, &cursor, "y", "ok y",
		    NULL) == -1)
			bench_broke("prompt task: no reply to the answer");
		stamp = pmx_read_file(path, &len);
		t_ns = stamp != NULL ? strtoll(stamp, NULL, 10) : 0;
		free(stamp);
		seen = t_ns > 0 ? (double)(seen_ns - t_ns) / 1e9 : NAN;
		/* Blocked: from the prompt to the client knowing of it. */
		a.blocked = seen > 0 ? seen : 0;
		agent_figs("agent_prompt", "9 prompt answer", "<= 2 calls", &a,
		    "<= 0.5 s", 0.5);
		fig_find("agent_prompt")->met = a.calls <= 2;
		f = fig_new("agent_prompt_seen", "9 prompt seen after", "s",
		    "<= 0.5 s");
		f->median = seen;
		f->runs = 1;
		f->met = seen <= 0.5;
		agent_stop(&c, id, pane);
	}
	free(argv);
	free(path);

	/* 10: REPL exchange after the first read: 6*7 → 42, >>> again. */
	agent_begin(&a, &c);
	cursor = 0;
	if (agent_start(&a, "[\"python3\",\"-q\"]", &id, &pane) == 0) {
		if (agent_see_prompt(&a, id, pane, &cursor, ">>>",
		    &seen_ns) == -1)
			bench_broke("REPL task: >>> was never seen");
		a.calls = 0;
		a.blocked = 0;
		if (agent_exchange(&a, id, pane, &cursor, "6*7", "42\n",
		    ">>>") == -1)
			bench_broke("REPL task: no 42");
		agent_figs("agent_repl", "10 REPL exchange (6*7)", "1 call",
		    &a, "<= 0.5 s", 0.5);
		agent_stop(&c, id, pane);
	}

	/* 11: burst read: git log -5 --stat printed at once. */
	agent_begin(&a, &c);
	if ((path = pmx_git_repo(&c)) != NULL)
		st = 0;
	else {
		st = 1;		/* git failed: no figure */
		xasprintf(&path, "%s/repo", c.dir);
	}
	stamp = pmx_jstr(path);
	xasprintf(&argv, "{\"argv\":[\"sh\",\"-c\",\"sleep 0.5; exec git log "
	    "-5 --stat\"],\"startDirectory\":%s}", stamp);
	free(stamp);
	free(path);
	d = bc_call(&c, "start_program", argv, NULL);
	free(argv);
	if (st == 0 && (sc = bc_ok(d, "start_program")) != NULL) {
		id = xstrdup(json_str(json_get(sc, "programId"), NULL));
		cursor = 0;
		reads = 0;
		for (;;) {
			json_doc_free(d);
			if ((d = agent_read(&a, id, &cursor, "", &all,
			    &sc)) == NULL)
				break;
			if (json_str(json_get(sc, "text"), NULL)[0] != '\0')
				reads++;
			if (json_bool(json_get(sc, "ended")))
				break;
		}
		a.calls = reads;	/* reads that brought text */
		agent_figs("agent_burst", "11 burst read (git log -5 --stat)",
		    "1 call", &a, "-", 1e9);
		free(id);
	} else if (st != 0)
		bench_broke("burst task: could not make the git repository");
	json_doc_free(d);
	buf_reset(&all);

	/* 12: server-ready wait: 30 lines of start-up, then the ready line. */
	agent_begin(&a, &c);
	cursor = 0;
	if (agent_start(&a, "[\"sh\",\"-c\",\"for i in $(seq 1 30); do echo "
	    "starting module $i; sleep 0.01; done; echo ready on port 8080; "
	    "exec sleep 30\"]", &id, &pane) == 0) {
		for (reads = 0; reads < 200 &&
		    strstr(buf_cstr(&all), "ready on port") == NULL; reads++) {
			d = agent_read(&a, id, &cursor, has_until ?
			    "\"until\":\"^ready on port\"" : "", &all, &sc);
			if (d == NULL)
				break;
			json_doc_free(d);
		}
		agent_figs("agent_ready", "12 server-ready wait (until)",
		    "1 call", &a, "-", 1e9);
		agent_stop(&c, id, pane);
	}
	buf_reset(&all);

	/* 13: big output streamed: seq 1 200000 read while it runs. */
	agent_begin(&a, &c);
	cursor = 0;
	if (agent_start(&a, "[\"seq\",\"1\",\"200000\"]", &id, &pane) == 0) {
		for (;;) {
			if ((d = agent_read(&a, id, &cursor, "", &all,
			    &sc)) == NULL)
				break;
			buf_reset(&all);
			if (json_bool(json_get(sc, "ended"))) {
				json_doc_free(d);
				break;
			}
			json_doc_free(d);
		}
		agent_figs("agent_stream", "13 big output (seq 1 200000)",
		    "<= 57 calls", &a, "-", 1e9);
		f = fig_find("agent_stream");
		f->met = a.calls <= 57;
		agent_chars("agent_stream", "13 big output (seq 1 200000)",
		    "-", &a, 0);
		free(id);
		free(pane);
	}
	buf_free(&all);
	bench_close(&c);
}
