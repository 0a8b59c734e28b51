/*
 * bench_strip.c — throughput of strip_feed() in MB/s (10^6 bytes a second).
 *
 * Two streams of 64 MiB each, fed in 64 KiB chunks as the reaper reads its
 * FIFO: plain text (ASCII lines of words) and a mixed stream as a build or
 * a shell session writes it (SGR colours, CR-redrawn progress lines, CR LF,
 * OSC titles and hyperlinks, UTF-8, a DCS now and then). Each is stripped
 * five times; the best and the median run are reported:
 *
 *	strip plain MB/s 1234.5
 *	strip plain median MB/s 1200.0
 *	strip mixed MB/s 456.7
 *	strip mixed median MB/s 440.0
 *
 * With --json, one JSON object with the same figures. --smoke (or
 * BENCH_SMOKE=1 in the environment) runs 4 MiB once, to check it works.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rand.h"
#include "strip.h"
#include "xmalloc.h"

#define BENCH_CHUNK	65536
#define BENCH_RUNS_MAX	16

static uint64_t	bench_rng = 88172645463325252ULL;
#define bench_rand()	test_xorshift(&bench_rng)

/* Append s to the stream at *len if it fits in size. */
static void
bench_put(char *p, size_t *len, size_t size, const char *s, size_t n)
{
	if (*len + n > size)
		n = size - *len;
	memcpy(p + *len, s, n);
	*len += n;
}

/* A line of words, 40 to 100 characters, ending in LF. */
static size_t
bench_words(char *line)
{
	static const char *const words[] = {
		"the", "compiler", "linking", "object", "warning:",
		"src/main.c",
		"error", "0x7ffd", "passed", "test", "build", "[ 42%]", "=",
		"unused", "variable", "return", "42", "done.", "cc", "-O2",
	};
	size_t	n = 0, want = 40 + bench_rand() % 61, k;
	const char *w;

	while (n < want) {
		w = words[bench_rand() % (sizeof words / sizeof words[0])];
		k = strlen(w);
		memcpy(line + n, w, k);
		n += k;
		line[n++] = ' ';
	}
	line[n - 1] = '\n';
	return (n);
}

/* Fill p with size bytes of plain text. */
static void
bench_plain(char *p, size_t size)
{
	char	line[256];
	size_t	len = 0;

	while (len < size)
		bench_put(p, &len, size, line, bench_words(line));
}

/* Fill p with size bytes of a realistic escape-heavy stream. */
static void
bench_mixed(char *p, size_t size)
{
	char	line[256], tmp[512];
	size_t	len = 0, n;
	int	k;

	while (len < size) {
		switch (bench_rand() % 8) {
		case 0:		/* a coloured compiler message */
			n = bench_words(line);
			k = snprintf(tmp, sizeof tmp, "\033[1m\033[31merror:"
			    "\033[0m \033[1m%.*s\033[0m\r\n", (int)n - 1, line);
			bench_put(p, &len, size, tmp, k);
			break;
		case 1:		/* a progress bar redrawn with CR */
			for (n = 0; n <= 100; n += 20) {
				k = snprintf(tmp, sizeof tmp,
				    "\r\033[2K\033[32m%3zu%%\033[0m [%.*s%*s]",
				    n, (int)(n / 5),
				    "####################", (int)(20 - n / 5),
				    "");
				bench_put(p, &len, size, tmp, k);
			}
			bench_put(p, &len, size, "\r\n", 2);
			break;
		case 2:		/* UTF-8 text */
			k = snprintf(tmp, sizeof tmp, "caf\xc3\xa9 "
			    "\xe2\x9c\x93 \xe4\xb8\xad\xe6\x96\x87 "
			    "\xf0\x9f\x9a\x80 \xe2\x94\x80\xe2\x94\x80 "
			    "r\xc3\xa9sum\xc3\xa9\r\n");
			bench_put(p, &len, size, tmp, k);
			break;
		case 3:		/* a prompt with a title and a hyperlink */
			k = snprintf(tmp, sizeof tmp, "\033]0;user@host: ~/src"
			    "\007\033]8;;file:///home/user/src\033\\~/src"
			    "\033]8;;\033\\ \033[1;32m$\033[0m ls\r\n");
			bench_put(p, &len, size, tmp, k);
			break;
		case 4:		/* a full-screen redraw */
			k = snprintf(tmp, sizeof tmp, "\033[?1049h\033[H\033[2J"
			    "\033[7m top \033[27m\033[2;1H\033[K  PID USER"
			    "\033[3;1H\033[38;5;196m    1 root\033[39;49m\033(B"
			    "\033[m\033[?1049l\r\n");
			bench_put(p, &len, size, tmp, k);
			break;
		case 5:		/* a DCS query and its answer */
			bench_put(p, &len, size, "\033P+q544e\033\\\033[c", 12);
			break;
		default:	/* plain lines, as most of any stream */
			n = bench_words(line);
			line[n - 1] = '\r';
			line[n++] = '\n';
			bench_put(p, &len, size, line, n);
			break;
		}
	}
}

/* Seconds on the monotonic clock. */
static double
bench_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

/* Strip the stream once in chunks; returns MB/s. */
static double
bench_run(const char *p, size_t size, char *out, size_t *sum)
{
	struct strip	sp;
	size_t		off, n;
	double		t0;

	t0 = bench_now();
	strip_init(&sp);
	for (off = 0; off < size; off += n) {
		n = size - off < BENCH_CHUNK ? size - off : BENCH_CHUNK;
		*sum += strip_feed(&sp, p + off, n, out);
	}
	*sum += strip_finish(&sp, out);
	return (size / 1e6 / (bench_now() - t0));
}

/* Order two doubles, for qsort. */
static int
bench_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/* Strip the stream runs times; the best and median MB/s. */
static void
bench_measure(const char *p, size_t size, int runs, double *best,
    double *median, size_t *sum)
{
	double	 r[BENCH_RUNS_MAX];
	char	*out;
	int	 i;

	out = xmalloc(STRIP_MAX_OUT(BENCH_CHUNK));
	for (i = 0; i < runs; i++)
		r[i] = bench_run(p, size, out, sum);
	free(out);
	qsort(r, runs, sizeof r[0], bench_cmp);
	*best = r[runs - 1];
	*median = r[runs / 2];
}

int
main(int argc, char **argv)
{
	size_t		 size = 64U << 20, sum = 0;
	int		 i, json = 0, runs = 5;
	double		 pbest, pmed, mbest, mmed;
	const char	*env = getenv("BENCH_SMOKE");
	char		*p;

	if (env != NULL && *env != '\0' && strcmp(env, "0") != 0) {
		size = 4U << 20;
		runs = 1;
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--smoke") == 0) {
			size = 4U << 20;
			runs = 1;
		} else {
			fprintf(stderr, "usage: %s [--json] [--smoke]\n",
			    argv[0]);
			return (2);
		}
	}

	p = xmalloc(size);
	bench_plain(p, size);
	bench_measure(p, size, runs, &pbest, &pmed, &sum);
	bench_mixed(p, size);
	bench_measure(p, size, runs, &mbest, &mmed, &sum);
	free(p);

	if (json) {
		printf("{\"strip_plain_mbps\":%.1f,"
		    "\"strip_plain_median_mbps\":%.1f,"
		    "\"strip_mixed_mbps\":%.1f,"
		    "\"strip_mixed_median_mbps\":%.1f,"
		    "\"bytes\":%zu,\"runs\":%d}\n", pbest, pmed, mbest, mmed,
		    size, runs);
	} else {
		printf("strip plain MB/s %.1f\n", pbest);
		printf("strip plain median MB/s %.1f\n", pmed);
		printf("strip mixed MB/s %.1f\n", mbest);
		printf("strip mixed median MB/s %.1f\n", mmed);
	}
	/* The sum keeps the work from being optimised away. */
	return (sum == 0);
}
