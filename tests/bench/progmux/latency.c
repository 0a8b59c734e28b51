/*
 * latency.c — figures 1, 2, 7 and 8: start latency against new-window
 * over a control client, wake latency, cold start, one-shot round trip.
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

/*
 * Figure 1, 2, 7, 8: start latency against new-window over a control
 * client, wake latency, cold start, one-shot round trip.
 */

/* One cold start: spawn progmux, answer initialize and tools/list. */
static int
cold_once(struct pmx *h, double *ms, bool *has_run)
{
	struct pmx	 c;
	struct json_doc	*d;
	int		 in[2], out[2], null, st;
	int64_t		 t0, id, deadline;
	pid_t		 pid;

	memset(&c, 0, sizeof c);
	c.err = -1;
	if (compat_pipe2(in, O_CLOEXEC) == -1 ||
	    compat_pipe2(out, O_CLOEXEC) == -1)
		return (-1);
	t0 = now_us();
	if ((pid = fork()) == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(null, 2);
		pmx_exec_progmux(h, NULL);
	}
	close(in[0]);
	close(out[1]);
	c.to = in[1];
	c.from = out[0];
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
	*ms = (double)(c.read_us - t0) / 1000.0;
	if (d != NULL)
		*has_run = bc_has_tool(d, "run_program");
	json_doc_free(d);
	close(c.to);
	deadline = now_ms() + 5000;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			break;
		}
		sleep_ms(1);
	}
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
		if (cold_once(&c, &ms, &has_run) == -1)
			break;
		smp_add(&cold, ms);
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
