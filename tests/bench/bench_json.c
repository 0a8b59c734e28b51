/*
 * bench_json.c — speed of json_parse() and json_put_string().
 *
 * Three figures, each the best of several runs (the median beside it):
 *
 *	parse big MB/s		a 1 MiB string reply (text with escapes, line
 *				breaks and UTF-8), as a client reads one
 *	parse small us		one small tools/call request (about 200
 *				bytes), parsed 100,000 times
 *	write big MB/s		json_put_string() of the same 1 MiB of text
 *
 * Times are CPU time of the process, so that other work on a loaded machine
 * counts less. --smoke runs each once on less, to check it works. A slow
 * machine never fails this: it only prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "json.h"
#include "xmalloc.h"

#define BENCH_RUNS	11
#define BENCH_BIG	(1024 * 1024)

static const char bench_small[] =
    "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":"
    "{\"name\":\"start_program\",\"arguments\":{\"argv\":[\"sh\",\"-c\","
    "\"make -j2 && ./run --flag=1\"],\"lifetimeMs\":60000,\"width\":120,"
    "\"placement\":\"window\",\"env\":{\"LANG\":\"C.UTF-8\"}}}}";

/* Seconds of CPU time used. */
static double
bench_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

/* Sort doubles, for the median. */
static int
bench_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

/* 1 MiB of program output: words, line breaks, tabs, quotes, UTF-8. */
static char *
bench_text(size_t *len)
{
	static const char *const parts[] = {
		"make[1]: Entering directory ", "\"/src\"", "\t", "caf\xc3\xa9 ",
		"\xe2\x9c\x93 passed ", "\n", "cc -O2 -c main.c ", "\\path ",
		"\xf0\x9f\x98\x80 ", "[ 42%] Building ", "error: ", "\r\n"
	};
	char	*s = xmalloc(BENCH_BIG);
	size_t	 n = 0, i = 0, k;

	for (;;) {
		k = strlen(parts[i % 12]);
		if (n + k > BENCH_BIG)
			break;
		memcpy(s + n, parts[i % 12], k);
		n += k;
		i = i * 7 + 3;
	}
	*len = n;
	return (s);
}

/* Print the best and median of t[0..n-1] scaled by k. */
static void
bench_report(const char *name, double *t, int n, double k, int rate)
{
	qsort(t, n, sizeof *t, bench_cmp);
	if (rate)
		printf("%s MB/s %.1f (median %.1f)\n", name, k / t[0],
		    k / t[n / 2]);
	else
		printf("%s us %.3f (median %.3f)\n", name, t[0] * k,
		    t[n / 2] * k);
}

int
main(int argc, char **argv)
{
	struct buf	 reply = BUF_INIT, out = BUF_INIT;
	struct json_doc	*d;
	double		 t[BENCH_RUNS], t0;
	char		*text, *cause;
	size_t		 len;
	int		 runs = BENCH_RUNS, r, i, small = 100000;

	if ((argc > 1 && strcmp(argv[1], "--smoke") == 0) ||
	    getenv("BENCH_SMOKE") != NULL) {
		runs = 1;
		small = 1000;
	}
	text = bench_text(&len);
	buf_adds(&reply, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
	    "{\"content\":[{\"type\":\"text\",\"text\":");
	json_put_string(&reply, text, len);
	buf_adds(&reply, "}]}}");

	for (r = 0; r < runs; r++) {
		t0 = bench_now();
		for (i = 0; i < 20; i++) {
			if ((d = json_parse(reply.data, reply.len,
			    &cause)) == NULL) {
				fprintf(stderr, "bench_json: %s\n", cause);
				return (1);
			}
			json_doc_free(d);
		}
		t[r] = (bench_now() - t0) / 20;
	}
	bench_report("parse big", t, runs, reply.len / 1e6, 1);

	for (r = 0; r < runs; r++) {
		t0 = bench_now();
		for (i = 0; i < small; i++) {
			d = json_parse(bench_small, sizeof bench_small - 1,
			    NULL);
			if (d == NULL)
				return (1);
			json_doc_free(d);
		}
		t[r] = (bench_now() - t0) / small;
	}
	bench_report("parse small", t, runs, 1e6, 0);

	for (r = 0; r < runs; r++) {
		t0 = bench_now();
		for (i = 0; i < 20; i++) {
			out.len = 0;
			json_put_string(&out, text, len);
		}
		t[r] = (bench_now() - t0) / 20;
	}
	bench_report("write big", t, runs, len / 1e6, 1);

	buf_free(&reply);
	buf_free(&out);
	free(text);
	return (0);
}
