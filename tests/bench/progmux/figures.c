/*
 * figures.c — samples, the figures they make, and how the run reports
 * them: the table on stdout and the same figures as JSON (figure 6, the
 * stripper's, folded in from bench_strip --json).
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

bool		 broke;		/* the harness itself failed */
int		 nbroke;	/* how many times */
static struct fig	figs[NFIGS];
static int		nfigs;

/* Say the harness broke; the run goes on, but exits 1. */
void
bench_broke(const char *fmt, ...)
{
	va_list	ap;

	broke = true;
	nbroke++;
	fprintf(stderr, "bench: HARNESS BROKE: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Progress on stderr, so the table on stdout stays clean. */
void
bench_log(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Add one sample. */
void
smp_add(struct samples *s, double v)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
	s->v[s->n++] = v;
}

/* qsort order for doubles. */
static int
smp_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

/* The q-quantile (0..1), nearest rank; NAN with no samples. */
double
smp_q(struct samples *s, double q)
{
	size_t	k;

	if (s->n == 0)
		return (NAN);
	qsort(s->v, s->n, sizeof *s->v, smp_cmp);
	if (q == 0.5 && s->n % 2 == 0)
		return ((s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2);
	k = (size_t)ceil(q * (double)s->n);
	return (s->v[k == 0 ? 0 : k - 1]);
}

/* The largest sample. */
double
smp_max(struct samples *s)
{
	return (smp_q(s, 1.0));
}

/* Free the samples. */
void
smp_free(struct samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* A new row of the table. */
struct fig *
fig_new(const char *id, const char *name, const char *unit,
    const char *target)
{
	struct fig	*f;

	if (nfigs == NFIGS)
		abort();
	f = &figs[nfigs++];
	memset(f, 0, sizeof *f);
	f->id = id;
	f->name = name;
	f->unit = unit;
	f->target = target;
	f->median = f->p90 = f->base_median = f->base_p90 = f->ratio = NAN;
	f->met = -1;
	f->decimals = 2;
	f->order = nfigs;
	return (f);
}

/* The row with this id, or NULL. */
struct fig *
fig_find(const char *id)
{
	int	i;

	for (i = 0; i < nfigs; i++)
		if (strcmp(figs[i].id, id) == 0)
			return (&figs[i]);
	return (NULL);
}

/* Figure 6: fold in bench_strip --json, if it ran. */
void
bench_strip_figures(const char *path)
{
	struct json_doc		*d = NULL;
	const struct json	*r;
	struct fig		*fp, *fx;
	char			*text;
	size_t			 len;

	fp = fig_new("strip_plain", "6 stripper, plain text (best)", "MB/s",
	    ">= 300 MB/s");
	fp->decimals = 1;
	fx = fig_new("strip_mixed", "6 stripper, escape-heavy (best)",
	    "MB/s", "-");
	fx->decimals = 1;
	if (path != NULL && (text = pmx_read_file(path, &len)) != NULL) {
		d = json_parse(text, len, NULL);
		free(text);
	}
	if (d == NULL) {
		fp->text = xstrdup("n/a (bench_strip not run)");
		fx->text = xstrdup("n/a (bench_strip not run)");
		return;
	}
	r = json_root(d);
	fp->median = json_num(json_get(r, "strip_plain_mbps"));
	fp->p90 = json_num(json_get(r, "strip_plain_median_mbps"));
	fp->met = fp->median >= 300.0;
	fp->runs = (int)json_int(json_get(r, "runs"));
	fx->median = json_num(json_get(r, "strip_mixed_mbps"));
	fx->p90 = json_num(json_get(r, "strip_mixed_median_mbps"));
	fx->runs = fp->runs;
	json_doc_free(d);
}

/* A number with a unit, or "-" for none. */
static void
fmt_num(char *s, size_t size, double v, int decimals, const char *unit)
{
	if (isnan(v))
		snprintf(s, size, "-");
	else
		snprintf(s, size, "%.*f%s%s", decimals, v, *unit ? " " : "",
		    unit);
}

/* A median with its p90 when the row shows one. */
static void
fmt_pair(char *s, size_t size, double m, double p, bool show,
    const struct fig *f)
{
	if (isnan(m))
		snprintf(s, size, "-");
	else if (show && !isnan(p))
		snprintf(s, size, "%.*f / %.*f %s", f->decimals, m,
		    f->decimals, p, f->unit);
	else
		fmt_num(s, size, m, f->decimals, f->unit);
}

/* Rows in order: by the figure number that opens the name. */
static int
fig_cmp(const void *a, const void *b)
{
	const struct fig	*x = a, *y = b;

	if (x->name[0] != y->name[0])
		return (x->name[0] < y->name[0] ? -1 : 1);
	return (x->order - y->order);
}

/* The table on stdout, then the notes. */
void
print_table(const char *nproc, const char *tmuxv, const char *commit)
{
	struct fig	*f, *fc = NULL, *fe = NULL, *fw = NULL, *ft = NULL;
	char		 val[64], base[96], ratio[16];
	int		 i;

	printf("\nprogmux benchmarks%s: tmux %s, nproc %s, commit %.12s\n",
	    smoke ? " (SMOKE: small sizes, 3 runs; figures not meaningful)" :
	    "", tmuxv, nproc, commit);
	printf("%-40s %-28s %-46s %-6s %-13s %s\n", "figure", "value",
	    "baseline", "ratio", "target", "met");
	for (i = 0; i < 142; i++)
		putchar('-');
	putchar('\n');
	qsort(figs, (size_t)nfigs, sizeof *figs, fig_cmp);
	for (i = 0; i < nfigs; i++) {
		f = &figs[i];
		if (f->text != NULL)
			snprintf(val, sizeof val, "%s", f->text);
		else
			fmt_pair(val, sizeof val, f->median, f->p90,
			    f->show_p90, f);
		if (isnan(f->base_median))
			snprintf(base, sizeof base, "-");
		else {
			fmt_pair(base, sizeof base, f->base_median,
			    f->base_p90, f->show_p90, f);
			if (f->base_what != NULL) {
				size_t l = strlen(base);

				snprintf(base + l, sizeof base - l, " (%s)",
				    f->base_what);
			}
		}
		if (isnan(f->ratio))
			snprintf(ratio, sizeof ratio, "-");
		else
			snprintf(ratio, sizeof ratio, "%.2f", f->ratio);
		printf("%-40s %-28s %-46s %-6s %-13s %s\n", f->name, val, base,
		    ratio, f->target, f->met == 1 ? "yes" : f->met == 0 ?
		    "NO" : "-");
		if (strcmp(f->id, "cold_start") == 0)
			fc = f;
		else if (strcmp(f->id, "run_program_echo") == 0)
			fe = f;
		else if (strcmp(f->id, "wake_latency_median") == 0)
			fw = f;
		else if (strcmp(f->id, "front_peak_rss_throughput") == 0)
			ft = f;
	}
	printf("\nValues are median / p90 over the runs (throughput: median "
	    "/ slowest tenth);\nmemory is VmHWM or VmRSS from /proc; "
	    "baselines ran on the same private tmux server, interleaved.\n");
	printf("\nNotes: the figures to beat (a TypeScript tmux MCP server "
	    "on this machine):\n");
	printf("  cold start          %-14s progmux: ", TS_COLD_MS);
	if (fc != NULL && !isnan(fc->median))
		printf("%.1f ms (%.0fx faster)\n", fc->median,
		    390.0 / fc->median);
	else
		printf("-\n");
	printf("  one-shot echo hi    %-14s progmux: ", "77 ms");
	if (fe != NULL && !isnan(fe->median))
		printf("%.1f ms (%.1fx faster)\n", fe->median,
		    TS_ECHO_MS / fe->median);
	else
		printf("n/a (run_program not built)\n");
	printf("  RSS idle / peak     %-14s progmux: ", "88 / 236 MB");
	if (ft != NULL && !isnan(ft->median))
		printf("front peak %.1f MiB while holding %.1f MB of text\n",
		    ft->median, (double)seq_bytes(sz.seq_n) / 1e6);
	else
		printf("-\n");
	printf("  line to client      %-14s progmux: ", "~4 ms");
	if (fw != NULL && !isnan(fw->median))
		printf("%.2f ms median wake latency\n", fw->median);
	else
		printf("-\n");
	printf("  output returned     %-14s progmux: all of %.1f MB, every "
	    "line checked\n", "<= 256 KiB", (double)seq_bytes(sz.seq_n) /
	    1e6);
	if (broke)
		printf("\nTHE HARNESS BROKE: see the messages on stderr; the "
		    "figures above are incomplete.\n");
}

/* A number, or null when there is none. */
static void
jw_num(struct jw *w, double v)
{
	if (isnan(v) || isinf(v))
		jw_null(w);
	else
		jw_double(w, v);
}

/* The same figures as JSON. */
int
write_json(const char *path, const char *nproc, const char *tmuxv,
    const char *commit, double secs)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;
	struct fig	*f;
	FILE		*fp;
	char		 date[64];
	time_t		 now = time(NULL);
	int		 i;

	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "date");
	jw_str(&w, date);
	jw_key(&w, "smoke");
	jw_bool(&w, smoke);
	jw_key(&w, "nproc");
	jw_int(&w, atoi(nproc));
	jw_key(&w, "tmux");
	jw_str(&w, tmuxv);
	jw_key(&w, "commit");
	jw_str(&w, commit);
	jw_key(&w, "harness_ok");
	jw_bool(&w, !broke);
	jw_key(&w, "seconds");
	jw_num(&w, secs);
	jw_key(&w, "figures");
	jw_arr_begin(&w);
	for (i = 0; i < nfigs; i++) {
		f = &figs[i];
		jw_obj_begin(&w);
		jw_key(&w, "id");
		jw_str(&w, f->id);
		jw_key(&w, "figure");
		jw_str(&w, f->name);
		jw_key(&w, "unit");
		jw_str(&w, f->unit);
		jw_key(&w, "value");
		jw_num(&w, f->median);
		jw_key(&w, "p90");
		jw_num(&w, f->p90);
		jw_key(&w, "baseline");
		jw_num(&w, f->base_median);
		jw_key(&w, "baseline_p90");
		jw_num(&w, f->base_p90);
		jw_key(&w, "baseline_is");
		jw_str(&w, f->base_what);
		jw_key(&w, "ratio");
		jw_num(&w, f->ratio);
		jw_key(&w, "target");
		jw_str(&w, f->target);
		jw_key(&w, "met");
		if (f->met == -1)
			jw_null(&w);
		else
			jw_bool(&w, f->met == 1);
		jw_key(&w, "text");
		jw_str(&w, f->text);
		jw_key(&w, "runs");
		jw_int(&w, f->runs);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "to_beat");
	jw_obj_begin(&w);
	jw_key(&w, "what");
	jw_str(&w, "a TypeScript tmux MCP server, same machine");
	jw_key(&w, "cold_start_ms");
	jw_str(&w, TS_COLD_MS);
	jw_key(&w, "one_shot_echo_ms");
	jw_double(&w, TS_ECHO_MS);
	jw_key(&w, "rss_idle_mb");
	jw_double(&w, TS_IDLE_MB);
	jw_key(&w, "rss_peak_mb");
	jw_double(&w, TS_PEAK_MB);
	jw_key(&w, "line_to_client_ms");
	jw_double(&w, TS_LINE_MS);
	jw_key(&w, "max_output");
	jw_str(&w, TS_MAX_OUT);
	jw_obj_end(&w);
	jw_obj_end(&w);
	buf_addc(&b, '\n');
	if ((fp = fopen(path, "w")) == NULL) {
		buf_free(&b);
		return (-1);
	}
	fwrite(b.data, 1, b.len, fp);
	fclose(fp);
	buf_free(&b);
	return (0);
}

/* The first line a command prints (allocated), or "unknown". */
char *
cmd_line(const char *cmd)
{
	char	 line[256];
	FILE	*p;

	if ((p = popen(cmd, "r")) == NULL)
		return (xstrdup("unknown"));
	if (fgets(line, sizeof line, p) == NULL)
		snprintf(line, sizeof line, "unknown");
	line[strcspn(line, "\n")] = '\0';
	if (pclose(p) != 0 || *line == '\0')
		snprintf(line, sizeof line, "unknown");
	return (xstrdup(line));
}
