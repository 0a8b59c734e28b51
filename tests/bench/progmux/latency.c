/*
 * latency.c — figures 1, 2, 7 and 8: start latency against new-window
 * over a control client, wake latency, cold start, one-shot round trip.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
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

/*
 * Figure 1, 2, 7, 8: start latency against new-window over a control
 * client, wake latency, cold start, one-shot round trip.
 */

/* A cold start's figures: until tools/list was answered, until the
 * process ended after the end of its input, and its CPU time. */
struct cold {
	double	reply_ms;
	double	exit_ms;
	double	cpu_ms;
};

/*
 * One cold start of bin (NULL: PROGMUX_BIN's, or build/progmux): spawn
 * it, initialize, tools/list, then the end of its input, and wait for it
 * to exit.
 */
static int
cold_once(struct pmx *h, const char *bin, struct cold *out, bool *has_run)
{
	struct pmx	 c;
	struct json_doc	*d;
	struct rusage	 ru;
	struct pollfd	 p;
	char		 junk[4096];
	int		 in[2], out_fd[2], null, st;
	int64_t		 t0, id, deadline;
	pid_t		 pid;

	memset(&c, 0, sizeof c);
	c.err = -1;
	if (compat_pipe2(in, O_CLOEXEC) == -1 ||
	    compat_pipe2(out_fd, O_CLOEXEC) == -1)
		return (-1);
	t0 = now_us();
	if ((pid = fork()) == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(out_fd[1], 1);
		dup2(null, 2);
		if (bin != NULL)
			setenv("PROGMUX_BIN", bin, 1);
		pmx_exec_progmux(h, NULL);
	}
	close(in[0]);
	close(out_fd[1]);
	c.to = in[1];
	c.from = out_fd[0];
	c.pid = pid;
	id = pmx_send(&c, "initialize", "{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"progmux-bench\","
	    "\"version\":\"1\"}}");
	while ((d = pmx_read_line(&c, 10000)) != NULL && bc_id(d) != id)
		json_doc_free(d);
	json_doc_free(d);
	if (d != NULL) {
		pmx_send_raw(&c, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/initialized\"}", 54);
		id = pmx_send(&c, "tools/list", NULL);
		while ((d = pmx_read_line(&c, 10000)) != NULL && bc_id(d) != id)
			json_doc_free(d);
	}
	out->reply_ms = (double)(c.read_us - t0) / 1000.0;
	if (d != NULL && has_run != NULL)
		*has_run = bc_has_tool(d, "run_program");
	json_doc_free(d);
	/* The end of its input; it exits: its stdout ends, then it is
	 * reaped (with what it used). */
	close(c.to);
	deadline = now_ms() + 5000;
	p.fd = c.from;
	p.events = POLLIN;
	while (poll(&p, 1, poll_timeout(deadline)) == 1 &&
	    read(c.from, junk, sizeof junk) > 0)
		;
	if (now_ms() >= deadline)
		kill(pid, SIGKILL);
	wait4(pid, &st, 0, &ru);
	out->exit_ms = (double)(now_us() - t0) / 1000.0;
	out->cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
	    1000.0 + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
	    1000.0;
	close(c.from);
	buf_free(&c.rbuf);
	if (d == NULL) {
		bench_broke("a cold-started progmux did not answer initialize "
		    "and tools/list");
		return (-1);
	}
	return (0);
}

/* Wake latency once: a read waits while the helper sleeps, then prints. */
static int
wake_once(struct pmx *c, double *ms)
{
	struct json_doc		*d;
	const struct json	*sc;
	char			*argv, *exe, *id;
	const char		*text;
	int64_t			 cursor = 0;
	size_t			 len;
	int			 rc = -1;

	exe = pmx_jstr(self_exe);
	xasprintf(&argv, "[%s,\"--stamp\",\"%d\"]", exe, sz.wake_ms);
	free(exe);
	id = bc_start(c, argv, NULL);
	free(argv);
	if (id == NULL)
		return (-1);
	for (;;) {
		d = bc_read(c, id, cursor, 10000);
		if ((sc = bc_ok(d, "read_program")) == NULL)
			break;
		text = json_str(json_get(sc, "text"), &len);
		cursor = json_int(json_get(sc, "cursor"));
		if (len > 0) {
			*ms = (double)(c->read_real_ns - strtoll(text, NULL, 10)) /
			    1e6;
			rc = 0;
			break;
		}
		if (json_bool(json_get(sc, "ended"))) {
			bench_broke("the wake helper ended without its line");
			break;
		}
		json_doc_free(d);
	}
	json_doc_free(d);
	bc_stop(c, id);
	free(id);
	return (rc);
}

/* Figures 1, 2, 7 and 8 on one harness. */
void
bench_latency(void)
{
	struct pmx	 c;
	struct ctl	 t;
	struct samples	 pm = { 0 }, nw = { 0 }, wk = { 0 }, cold = { 0 };
	struct samples	 run = { 0 };
	struct fig	*f, *fs;
	struct json_doc	*d;
	const struct json *sc;
	char		*id;
	const char	*text;
	struct cold	 co;
	int64_t		 us;
	double		 ms;
	bool		 has_run = false;
	int		 i;
	int		 b0 = nbroke;

	fs = fig_new("start_latency", "1 start latency, start_program [true]",
	    "ms", "ratio <= 1.5");
	fs->base_what = "new-window -d over tmux -C";
	fs->show_p90 = true;
	if (bench_open_ctl(&c, &t) == -1)
		return;

	/* 7: cold start, on the same tmux server. */
	for (i = 0; i < sz.cold_runs && nbroke == b0; i++) {
		if (cold_once(&c, NULL, &co, &has_run) == -1)
			break;
		smp_add(&cold, co.reply_ms);
		sleep_ms(50);	/* its control client gone before the next */
	}
	f = fig_new("cold_start", "7 cold start, initialize+tools/list",
	    "ms", "<= 10 ms");
	f->show_p90 = true;
	f->median = smp_q(&cold, 0.5);
	f->p90 = smp_q(&cold, 0.9);
	f->met = f->median <= 10.0;
	f->runs = (int)cold.n;
	bench_log("cold start: %.2f ms", f->median);

	/* 1: warm both paths once, then interleave the samples. */
	free(bc_start(&c, "[\"true\"]", NULL));
	ctl_cmd(&t, "new-window -d -t base: true", NULL, 10000, NULL);
	for (i = 0; i < sz.runs && nbroke == b0; i++) {
		if ((id = bc_start(&c, "[\"true\"]", &us)) == NULL)
			break;
		free(id);
		smp_add(&pm, (double)us / 1000.0);
		if (ctl_cmd(&t, "new-window -d -t base: true", NULL, 10000,
		    &us) != 0)
			break;
		smp_add(&nw, (double)us / 1000.0);
	}
	fs->median = smp_q(&pm, 0.5);
	fs->p90 = smp_q(&pm, 0.9);
	fs->base_median = smp_q(&nw, 0.5);
	fs->base_p90 = smp_q(&nw, 0.9);
	fs->ratio = fs->median / fs->base_median;
	fs->met = fs->ratio <= 1.5;
	fs->runs = (int)pm.n;
	bench_log("start latency: %.2f ms vs new-window %.2f ms", fs->median,
	    fs->base_median);

	/* 2: wake latency. */
	for (i = 0; i < sz.runs && nbroke == b0; i++) {
		if (wake_once(&c, &ms) == -1)
			break;
		smp_add(&wk, ms);
	}
	/* A read gathers a burst until 15 ms of quiet (tool_read.c): a
	 * lone line wakes it that much later than the bare 3 / 10 ms. */
	f = fig_new("wake_latency_median", "2 wake latency, median", "ms",
	    "<= 15+3 ms");
	f->median = smp_q(&wk, 0.5);
	f->met = f->median <= 18.0;
	f->runs = (int)wk.n;
	f = fig_new("wake_latency_p90", "2 wake latency, p90", "ms",
	    "<= 15+10 ms");
	f->median = smp_q(&wk, 0.9);
	f->met = f->median <= 25.0;
	f->runs = (int)wk.n;
	bench_log("wake latency: median %.2f ms, p90 %.2f ms",
	    smp_q(&wk, 0.5), smp_q(&wk, 0.9));

	/* 8: run_program, once the lead's tool exists. */
	f = fig_new("run_program_echo", "8 one-shot run_program [echo,hi]",
	    "ms", "<= 35 ms");
	f->show_p90 = true;
	if (!has_run)
		f->text = xstrdup("n/a (run_program not built)");
	for (i = 0; has_run && i <= sz.runs && nbroke == b0; i++) {
		d = bc_call(&c, "run_program", "{\"argv\":[\"echo\",\"hi\"]}",
		    &us);
		if ((sc = bc_ok(d, "run_program")) == NULL) {
			json_doc_free(d);
			break;
		}
		text = json_str(json_get(sc, "text"), NULL);
		if (text == NULL || strstr(text, "hi") == NULL) {
			bench_broke("run_program [echo,hi] did not return hi: "
			    "%s", pmx_text(d));
			json_doc_free(d);
			break;
		}
		json_doc_free(d);
		if (i > 0)	/* the first one warms up */
			smp_add(&run, (double)us / 1000.0);
	}
	if (has_run) {
		f->median = smp_q(&run, 0.5);
		f->p90 = smp_q(&run, 0.9);
		f->met = f->median <= 35.0;
		f->runs = (int)run.n;
		bench_log("run_program: %.2f ms", f->median);
	}

	smp_free(&pm);
	smp_free(&nw);
	smp_free(&wk);
	smp_free(&cold);
	smp_free(&run);
	ctl_close(&t);
	bench_close(&c);
}

/*
 * Figure 7b: what the secret page costs a cold start (initialize,
 * tools/list, the end of the input, the exit), against the build without
 * it (base, make bench's SECRET_PAGE= build), in pairs on the same tmux
 * server, the order swapped every pair: the wall time and the CPU time
 * (the process and what it reaped). The columns are each build's median;
 * the ratio is the median of the pairs' own ratios (the two of a pair see
 * the same load of the machine, the medians of a shared machine move by
 * more than the 5 % to be seen). Three times figure 7's runs.
 */
void
bench_cold_page(const char *base)
{
	struct pmx	 c;
	struct ctl	 t;
	struct samples	 wall[2] = { { 0 }, { 0 } }, cpu[2] = { { 0 }, { 0 } };
	struct samples	 rwall = { 0 }, rcpu = { 0 };
	struct cold	 co[2];
	struct fig	*fw, *fc;
	int		 i, k, which, b0 = nbroke;

	fw = fig_new("cold_start_page_wall", "7b cold start to exit, wall",
	    "ms", "ratio <= 1.05");
	fc = fig_new("cold_start_page_cpu", "7c cold start to exit, CPU",
	    "ms", "ratio <= 1.05");
	fw->base_what = fc->base_what = "no page";
	fw->show_p90 = fc->show_p90 = true;
	if (base == NULL || access(base, X_OK) == -1) {
		fw->text = xstrdup("n/a (no build without the page)");
		fc->text = xstrdup("n/a (no build without the page)");
		return;
	}
	if (bench_open_ctl(&c, &t) == -1)
		return;
	for (i = 0; i < 3 * sz.cold_runs && nbroke == b0; i++) {
		for (k = 0; k < 2 && nbroke == b0; k++) {
			which = (i + k) % 2;	/* 0: this build, 1: base */
			if (cold_once(&c, which == 0 ? NULL : base, &co[which],
			    NULL) == -1)
				break;
			smp_add(&wall[which], co[which].exit_ms);
			smp_add(&cpu[which], co[which].cpu_ms);
			sleep_ms(50);	/* its control client gone */
		}
		if (k == 2) {
			smp_add(&rwall, co[0].exit_ms / co[1].exit_ms);
			smp_add(&rcpu, co[0].cpu_ms / co[1].cpu_ms);
		}
	}
	fw->median = smp_q(&wall[0], 0.5);
	fw->p90 = smp_q(&wall[0], 0.9);
	fw->base_median = smp_q(&wall[1], 0.5);
	fw->base_p90 = smp_q(&wall[1], 0.9);
	fw->ratio = smp_q(&rwall, 0.5);
	fw->met = fw->ratio <= 1.05;
	fw->runs = (int)rwall.n;
	fc->median = smp_q(&cpu[0], 0.5);
	fc->p90 = smp_q(&cpu[0], 0.9);
	fc->base_median = smp_q(&cpu[1], 0.5);
	fc->base_p90 = smp_q(&cpu[1], 0.9);
	fc->ratio = smp_q(&rcpu, 0.5);
	fc->met = fc->ratio <= 1.05;
	fc->runs = (int)rcpu.n;
	bench_log("cold start to exit: %.2f ms (CPU %.2f) vs %.2f ms (CPU "
	    "%.2f) without the page; ratios %.2f, %.2f", fw->median,
	    fc->median, fw->base_median, fc->base_median, fw->ratio,
	    fc->ratio);
	for (k = 0; k < 2; k++) {
		smp_free(&wall[k]);
		smp_free(&cpu[k]);
	}
	smp_free(&rwall);
	smp_free(&rcpu);
	ctl_close(&t);
	bench_close(&c);
}
