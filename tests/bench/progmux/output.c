/*
 * output.c — figures 22 to 27: a program's whole output, however long.
 *
 * 22: the 300,000-line task (its failures in its first, middle and last
 * thousand lines, then its summary) in calls. 23 to 25: filter, until and
 * tail over 40 MB, each one call, against grep -n over the same bytes in
 * a file (the baseline, timed the same way: from the call to the answer).
 * 26: the newest page after 1 GiB of output against after 1 MiB. 27: the
 * front's peak RSS after three programs of 40 MB were read to their end
 * and filtered whole, against its idle RSS.
 *
 * Each runs on its own harness with the default ceilings (1 GiB a
 * program), so nothing is dropped.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "client.h"
#include "json.h"
#include "timeutil.h"
#include "xmalloc.h"

#include "bench.h"

/* 40 MB of 80-byte lines, FAIL in six (python3, argv as JSON). */
static const char big_argv[] = "[\"python3\",\"-c\",\"import sys\\n"
    "w = sys.stdout.write\\nfor i in range(%ld):\\n    w('%%07d %%s\\\\n' "
    "%% (i, 'FAIL' if i %% 100000 == 7 else 'x' * 70))\\n\"]";
/* The 300,000-line run (awk). */
static const char run300k[] = "[\"awk\",\"BEGIN { for (i = 1; i <= 300000; "
    "i++) { if (i == 500 || i == 150000 || i == 299500) printf "
    "\\\"test_%06d FAIL expected 42 got 41\\\\n\\\", i; else printf "
    "\\\"test_%06d ok (%2d ms) in suite_%03d\\\\n\\\", i, i % 97, "
    "i % 1000 } print \\\"SUMMARY: 299997 passed, 3 failed\\\" }\"]";
/* N bytes of 100-byte lines, for the newest page. */
static const char fill_argv[] = "[\"python3\",\"-c\",\"import sys\\n"
    "b = ('y' * 99 + '\\\\n') * 10000\\nfor i in range(%ld):\\n"
    "    sys.stdout.write(b)\\nsys.stdout.write('last\\\\n')\\n\"]";

/* The harness, with no ceiling below the default. */
static int
output_open(struct pmx *c)
{
	static const char *const env[] = { "PROGMUX_MAX_PROGRAMS=300", NULL };

	if (pmx_open(c, env) == -1) {
		bench_broke("could not start tmux and progmux");
		pmx_close(c);
		return (-1);
	}
	live_pmx = c;
	return (0);
}

/* Start argv (JSON) and wait for its end; its programId or NULL. */
static char *
output_run(struct pmx *c, const char *argv_json)
{
	struct json_doc	*d;
	char		*id, args[300];

	if ((id = bc_start(c, argv_json, NULL)) == NULL)
		return (NULL);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"tail\":1,"
	    "\"timeoutMs\":%d}", id, CALL_MS - 1000);
	for (;;) {
		d = bc_call(c, "read_program", args, NULL);
		if (bc_ok(d, "wait for the end") == NULL) {
			json_doc_free(d);
			free(id);
			return (NULL);
		}
		if (json_bool(json_get(pmx_sc(d), "ended"))) {
			json_doc_free(d);
			return (id);
		}
		json_doc_free(d);
	}
}

/* One read_program with extra (JSON members); *ms its time; the
 * result's structuredContent in *sc (the document returned). */
static struct json_doc *
output_read(struct pmx *c, const char *id, const char *extra, double *ms,
    const struct json **sc)
{
	struct json_doc	*d;
	char		 args[600];
	int64_t		 us;

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"timeoutMs\":0,"
	    "%s}", id, extra);
	d = bc_call(c, "read_program", args, &us);
	if ((*sc = bc_ok(d, extra)) == NULL) {
		json_doc_free(d);
		return (NULL);
	}
	*ms = (double)us / 1000.0;
	return (d);
}

/* Run argv (a shell command line of ours), standard output to file;
 * the time from fork to its exit, in ms, or NAN. */
static double
output_timed(const char *cmd, const char *out)
{
	int64_t	t0;
	pid_t	pid;
	int	st, fd;

	t0 = now_us();
	if ((pid = fork()) == 0) {
		if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
			dup2(fd, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid == -1 || waitpid(pid, &st, 0) == -1 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) > 1)
		return (NAN);
	return ((double)(now_us() - t0) / 1000.0);
}

/* A figure against a baseline, as samples. */
static void
output_fig(const char *id, const char *name, struct samples *v,
    struct samples *base, const char *base_what, double max_ratio,
    const char *target)
{
	struct fig	*f;

	f = fig_new(id, name, "ms", target);
	f->base_what = base_what;
	if (v->n == 0 || base->n == 0)
		return;
	f->median = smp_q(v, 0.5);
	f->p90 = smp_q(v, 0.9);
	f->base_median = smp_q(base, 0.5);
	f->base_p90 = smp_q(base, 0.9);
	f->ratio = f->median / f->base_median;
	f->runs = (int)v->n;
	f->show_p90 = true;
	f->met = f->ratio <= max_ratio;
}

/* 22: the 300,000-line task: one filter for the failures, one tail for
 * the summary (and the start). */
static void
output_300k(struct pmx *c)
{
	struct json_doc		*d;
	const struct json	*sc;
	struct fig		*f;
	char			*id;
	const char		*t;
	double			 ms;
	int			 calls = 1, found = 0;
	bool			 summary = false;

	if ((id = bc_start(c, run300k, NULL)) == NULL)
		return;
	if ((d = output_read(c, id, "\"tail\":1,\"timeoutMs\":25000", &ms,
	    &sc)) != NULL) {
		calls++;
		t = json_str(json_get(sc, "text"), NULL);
		summary = t != NULL && strstr(t, "SUMMARY: 299997 passed") !=
		    NULL;
		json_doc_free(d);
	}
	if ((d = output_read(c, id, "\"filter\":\"FAIL\"", &ms, &sc)) !=
	    NULL) {
		calls++;
		for (t = json_str(json_get(sc, "text"), NULL); t != NULL &&
		    (t = strstr(t, " FAIL ")) != NULL; t++)
			found++;
		json_doc_free(d);
	}
	bc_stop(c, id);
	free(id);
	f = fig_new("output_300k", "22 300,000-line run: failures, summary",
	    "calls", "3 calls, 3 found");
	f->median = calls;
	f->decimals = 0;
	f->runs = 1;
	f->met = calls <= 3 && found == 3 && summary;
	xasprintf(&f->text, "%d calls, %d of 3 found%s", calls, found,
	    summary ? ", summary" : ", NO summary");
	bench_log("300,000-line run: %d calls, %d failures found, summary %s",
	    calls, found, summary ? "yes" : "no");
}

/* 23 to 25: filter, until and tail over 40 MB, against grep. */
static void
output_40mb(struct pmx *c)
{
	struct samples	 sf = { 0 }, su = { 0 }, st = { 0 }, sg = { 0 };
	struct json_doc	*d;
	const struct json *sc;
	char		*id, *argv, *file, *out, *cmd, until[64];
	long		 lines = smoke ? 65536 : 524288;
	double		 ms;
	int		 i, runs = smoke ? 2 : 5;

	xasprintf(&argv, big_argv, lines);
	id = output_run(c, argv);
	xasprintf(&file, "%s/big.txt", c->dir);
	xasprintf(&out, "%s/grep.out", c->dir);
	xasprintf(&cmd, "python3 -c \"import sys\nw = sys.stdout.write\nfor i "
	    "in range(%ld):\n    w('%%07d %%s\\n' %% (i, 'FAIL' if i %% 100000 "
	    "== 7 else 'x' * 70))\n\" > '%s'", lines, file);
	if (id == NULL || isnan(output_timed(cmd, "/dev/null"))) {
		bench_broke("40 MB: the program or its file did not come");
		goto out;
	}
	free(cmd);
	xasprintf(&cmd, "grep -n FAIL '%s'", file);
	for (i = 0; i < runs; i++) {
		smp_add(&sg, output_timed(cmd, out));
		if ((d = output_read(c, id, "\"filter\":\"FAIL\"", &ms, &sc)) ==
		    NULL)
			break;
		if (json_int(json_get(sc, "matchedLines")) != (lines + 99992) /
		    100000)
			bench_broke("40 MB: filter matched %lld lines",
			    (long long)json_int(json_get(sc, "matchedLines")));
		json_doc_free(d);
		smp_add(&sf, ms);
		snprintf(until, sizeof until, "\"until\":\"^%07ld \"",
		    lines - 1);
		if ((d = output_read(c, id, until, &ms, &sc)) == NULL)
			break;
		json_doc_free(d);
		smp_add(&su, ms);
		if ((d = output_read(c, id, "\"tail\":5", &ms, &sc)) == NULL)
			break;
		json_doc_free(d);
		smp_add(&st, ms);
	}
	output_fig("output_filter", smoke ? "23 filter over 5 MB" :
	    "23 filter over 40 MB", &sf, &sg, "grep -n, same file", 10,
	    "<= 10x grep");
	output_fig("output_until", smoke ? "24 until, last line of 5 MB" :
	    "24 until, last line of 40 MB", &su, &sg, "grep -n, same file",
	    10, "<= 10x grep");
	output_fig("output_tail", smoke ? "25 tail 5 of 5 MB" :
	    "25 tail 5 of 40 MB", &st, &sg, "grep -n, same file", 10,
	    "<= 10x grep");
	bench_log("40 MB: filter %.1f ms, until %.1f ms, tail %.2f ms; grep "
	    "%.1f ms", smp_q(&sf, 0.5), smp_q(&su, 0.5), smp_q(&st, 0.5),
	    smp_q(&sg, 0.5));
out:
	if (id != NULL) {
		bc_stop(c, id);
		free(id);
	}
	unlink(file);
	unlink(out);
	free(argv);
	free(file);
	free(out);
	free(cmd);
	smp_free(&sf);
	smp_free(&su);
	smp_free(&st);
	smp_free(&sg);
}

/* The newest page of a program that printed n_10k times 1 MB: reads
 * from a cursor one page before the end, timed. */
static void
output_newest(struct pmx *c, long n_10k, struct samples *s)
{
	struct json_doc		*d;
	const struct json	*sc;
	char			*id, *argv, extra[100];
	int64_t			 end;
	double			 ms;
	int			 i;

	xasprintf(&argv, fill_argv, n_10k);
	if ((id = output_run(c, argv)) == NULL) {
		free(argv);
		return;
	}
	end = n_10k * 1000000 + 5;
	for (i = 0; i < (smoke ? 5 : 20); i++) {
		/* The last 200 lines and "last": one page. */
		snprintf(extra, sizeof extra, "\"cursor\":%lld",
		    (long long)(end - 5 - 20000));
		if ((d = output_read(c, id, extra, &ms, &sc)) == NULL)
			break;
		if (json_int(json_get(sc, "cursor")) != end)
			bench_broke("newest page: cursor %lld, not %lld",
			    (long long)json_int(json_get(sc, "cursor")),
			    (long long)end);
		json_doc_free(d);
		smp_add(s, ms);
	}
	bc_stop(c, id);
	free(id);
	free(argv);
}

/* 26: the newest page after 1 GiB against after 1 MiB. */
static void
output_newest_fig(struct pmx *c)
{
	struct samples	small = { 0 }, big = { 0 };
	long		n = smoke ? 16 : 1074;	/* MB: about 1 GiB */

	output_newest(c, 1, &small);
	output_newest(c, n, &big);
	output_fig("output_newest", smoke ? "26 newest page after 16 MB" :
	    "26 newest page after 1 GiB", &big, &small, "after 1 MB", 3,
	    "<= 3x after 1 MB");
	bench_log("newest page: after 1 MB %.2f ms, after %ld MB %.2f ms",
	    smp_q(&small, 0.5), n, smp_q(&big, 0.5));
	smp_free(&small);
	smp_free(&big);
}

/* 27: the front's peak RSS after three programs of 40 MB, read to their
 * end and filtered whole. */
static void
output_rss(struct pmx *c)
{
	struct json_doc		*d;
	const struct json	*sc;
	struct fig		*f;
	char			*id[3], *argv, args[300];
	long			 idle, hwm, lines = smoke ? 65536 : 524288;
	double			 ms;
	int			 i;

	idle = pmx_status_kb(c->front, "VmRSS");
	xasprintf(&argv, big_argv, lines);
	for (i = 0; i < 3; i++)
		id[i] = bc_start(c, argv, NULL);
	for (i = 0; i < 3; i++) {
		if (id[i] == NULL)
			continue;
		snprintf(args, sizeof args, "\"tail\":1,\"timeoutMs\":%d",
		    CALL_MS - 1000);
		do {
			if ((d = output_read(c, id[i], args, &ms, &sc)) ==
			    NULL)
				break;
			ms = json_bool(json_get(sc, "ended"));
			json_doc_free(d);
		} while (ms == 0);
		if ((d = output_read(c, id[i], "\"filter\":\"FAIL\"", &ms,
		    &sc)) != NULL)
			json_doc_free(d);
	}
	hwm = pmx_status_kb(c->front, "VmHWM");
	f = fig_new("output_rss", smoke ? "27 front peak RSS, 3 x 5 MB" :
	    "27 front peak RSS, 3 x 40 MB", "MiB", "<= 12 MiB");
	f->base_what = "idle front";
	f->median = (double)hwm / 1024.0;
	f->base_median = (double)idle / 1024.0;
	f->ratio = f->median / f->base_median;
	f->runs = 1;
	f->met = f->median <= 12.0;
	bench_log("front: idle %ld KiB, peak %ld KiB after 3 programs of %ld "
	    "lines", idle, hwm, lines);
	for (i = 0; i < 3; i++)
		if (id[i] != NULL) {
			bc_stop(c, id[i]);
			free(id[i]);
		}
	free(argv);
}

/* Figures 22 to 27. */
void
bench_output(void)
{
	static struct pmx	c;	/* (live_pmx points at it) */

	if (output_open(&c) == -1)
		return;
	output_rss(&c);
	output_300k(&c);
	output_40mb(&c);
	output_newest_fig(&c);
	bench_close(&c);
}
