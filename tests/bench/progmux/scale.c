/*
 * scale.c — figure 5: reads on many live programs at once against the
 * same reads done through tmux.
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

/* Read every live program's lines at once, pipelined; 0 if all came. */
static int
scale_read(struct pmx *c, char **ids, int n)
{
	struct seqcheck		*chk;
	int64_t			*req, *cursor;
	struct json_doc		*d;
	const struct json	*sc;
	const char		*text;
	size_t			 len;
	int64_t			 rid;
	int			 i, left = n, rc = 0;

	chk = xcalloc((size_t)n, sizeof *chk);
	req = xcalloc((size_t)n, sizeof *req);
	cursor = xcalloc((size_t)n, sizeof *cursor);
	for (i = 0; i < n; i++) {
		chk[i].next = 1;
		req[i] = bc_send_read(c, ids[i], 0, 20000);
	}
	while (left > 0) {
		if ((d = pmx_read_line(c, CALL_MS)) == NULL) {
			bench_broke("scale: %d programs never gave all their "
			    "lines", left);
			rc = -1;
			break;
		}
		rid = bc_id(d);
		for (i = 0; i < n && req[i] != rid; i++)
			;
		if (i == n) {
			json_doc_free(d);
			continue;
		}
		if ((sc = bc_ok(d, "read_program")) == NULL) {
			json_doc_free(d);
			rc = -1;
			break;
		}
		text = json_str(json_get(sc, "text"), &len);
		seq_feed(&chk[i], text, len);
		cursor[i] = json_int(json_get(sc, "cursor"));
		json_doc_free(d);
		if (chk[i].bad) {
			bench_broke("scale: program %s line %ld missing or out "
			    "of order", ids[i], chk[i].bad_line);
			rc = -1;
			break;
		}
		if (seq_done(&chk[i], sz.scale_lines)) {
			req[i] = -1;
			left--;
		} else
			req[i] = bc_send_read(c, ids[i], cursor[i], 20000);
	}
	free(chk);
	free(req);
	free(cursor);
	return (rc);
}

/* Samples of each at each count of live programs: three times the
 * runs (a start is cheap, and the figure is a ratio of four medians). */
#define SCALE_SAMPLES	(3 * sz.runs)

/* The windows of progmux's session, or -1. */
static int
scale_windows(struct ctl *t)
{
	struct buf	out = BUF_INIT;
	int		n = -1;

	if (ctl_cmd(t, "display-message -p -t =progmux: "
	    "'#{session_windows}'", &out, 10000, NULL) == 0)
		n = atoi(buf_cstr(&out));
	buf_free(&out);
	return (n);
}

/*
 * Wait until the session is back to want windows: the window of the
 * start just measured (its `true` ended) has closed, and with it the
 * work that start left (its program's end, its reaper's, tmux's). 0, or
 * -1 if it did not within 5 s.
 */
static int
scale_settle(struct ctl *t, int want)
{
	int64_t	deadline = now_ms() + 5000;
	int	n;

	while ((n = scale_windows(t)) != want && n != -1 &&
	    now_ms() < deadline)
		poll(NULL, 0, 2);
	if (n == want)
		return (0);
	bench_broke("scale: the session has %d windows, not %d, 5 s after a "
	    "start", n, want);
	return (-1);
}

/*
 * progmux's start_program and tmux's own new-window, alternately,
 * SCALE_SAMPLES times each: both measured at the same moments, with the
 * same panes live, so a busy machine weighs on both alike. Each from a
 * settled session (scale_settle): the end of one start's `true` (for
 * progmux: its program, its reaper, its window; for tmux: its window)
 * must not fall into the other's measurement, which made tmux's
 * new-window at 1 live look slower by half and its slowdown smaller.
 * tmux's window goes where progmux puts its own, in the session holding
 * the live programs (PROGMUX_SESSION's default): a new window costs tmux
 * more in a session of 200 windows than in one of 1 (measured on tmux
 * 3.3a: 3.9 -> 9.9 ms there, 5.1 -> 6.9 ms in a session of its own),
 * and both pay that.
 */
static void
scale_samples(struct pmx *c, struct ctl *t, struct samples *ps,
    struct samples *ts)
{
	char	*id;
	int64_t	 us;
	int	 i, w, b0 = nbroke;

	if ((w = scale_windows(t)) == -1)
		return;
	free(bc_start(c, "[\"true\"]", NULL));
	for (i = 0; i < SCALE_SAMPLES && nbroke == b0; i++) {
		if (scale_settle(t, w) == -1 ||
		    (id = bc_start(c, "[\"true\"]", &us)) == NULL)
			return;
		free(id);
		smp_add(ps, (double)us / 1000.0);
		if (scale_settle(t, w) == -1 || ctl_cmd(t,
		    "new-window -d -t =progmux: true", NULL, 10000, &us) != 0)
			return;
		smp_add(ts, (double)us / 1000.0);
	}
	(void)scale_settle(t, w);
}

/* A start latency figure and tmux's, at live programs against 1 live. */
static void
scale_figures(int live, struct samples *one, struct samples *nw1,
    struct samples *many, struct samples *nwn)
{
	struct fig	*fl, *ft, *fs;
	char		 name[96];

	snprintf(name, sizeof name, "5 start latency at %d live", live);
	fl = fig_new(live == sz.live_scale ? "scale_start_latency" :
	    "scale_start_latency_mid", xstrdup(name), "ms", "-");
	fl->base_what = "at 1 live";
	fl->show_p90 = true;
	snprintf(name, sizeof name, "5 tmux new-window at %d live", live);
	ft = fig_new(live == sz.live_scale ? "scale_tmux_new_window" :
	    "scale_tmux_new_window_mid", xstrdup(name), "ms", "-");
	ft->base_what = "at 1 live, tmux -C";
	ft->show_p90 = true;
	ft->median = smp_q(nwn, 0.5);
	ft->p90 = smp_q(nwn, 0.9);
	ft->base_median = smp_q(nw1, 0.5);
	ft->base_p90 = smp_q(nw1, 0.9);
	ft->ratio = ft->median / ft->base_median;
	ft->runs = (int)nwn->n;
	fl->median = smp_q(many, 0.5);
	fl->p90 = smp_q(many, 0.9);
	fl->base_median = smp_q(one, 0.5);
	fl->base_p90 = smp_q(one, 0.9);
	fl->ratio = fl->median / fl->base_median;
	fl->met = -1;
	fl->runs = (int)many->n;
	bench_log("scale: start %.2f ms at %d live vs %.2f ms at 1; tmux "
	    "new-window %.2f vs %.2f", fl->median, live, fl->base_median,
	    ft->median, ft->base_median);
	/* How much more progmux slows down than tmux itself does. */
	snprintf(name, sizeof name, "5 start slowdown at %d live over "
	    "tmux's own", live);
	fs = fig_new(live == sz.live_scale ? "scale_slowdown_over_tmux" :
	    "scale_slowdown_over_tmux_mid", xstrdup(name), "x", "<= 1.25");
	fs->median = fl->ratio / ft->ratio;
	fs->ratio = fs->median;
	fs->base_what = "new-window's slowdown";
	fs->met = many->n > 0 && nwn->n > 0 ? fs->median <= 1.25 : -1;
	fs->runs = (int)many->n;
}

/* Figure 5: many programs alive at once. */
void
bench_scale(void)
{
	struct pmx	 c;
	struct ctl	 t;
	struct samples	 one = { 0 }, nw1 = { 0 }, mid = { 0 },
			 nwmid = { 0 }, many = { 0 }, nwn = { 0 };
	struct fig	*fr;
	char		**ids, argv[128], name[96];
	int64_t		 t0;
	double		 read_ms;
	int		 i, n = 0, live_mid;
	int		 b0 = nbroke;

	live_mid = sz.live_scale < 100 ? sz.live_scale / 2 : 100;
	snprintf(name, sizeof name, "5 scale: %d x %d lines read complete",
	    sz.live_scale, sz.scale_lines);
	fr = fig_new("scale_read_complete", xstrdup(name), "", "all");
	if (bench_open_ctl(&c, &t) == -1)
		return;
	ids = xcalloc((size_t)sz.live_scale, sizeof *ids);
	snprintf(argv, sizeof argv, "[\"sh\",\"-c\",\"seq 1 %d; exec sleep "
	    "60\"]", sz.scale_lines);
	if ((ids[n] = bc_start(&c, argv, NULL)) != NULL)
		n++;
	scale_samples(&c, &t, &one, &nw1);
	for (; n < live_mid && nbroke == b0; n++)
		if ((ids[n] = bc_start(&c, argv, NULL)) == NULL)
			break;
	if (n == live_mid)
		scale_samples(&c, &t, &mid, &nwmid);
	scale_figures(live_mid, &one, &nw1, &mid, &nwmid);
	for (; n < sz.live_scale && nbroke == b0; n++)
		if ((ids[n] = bc_start(&c, argv, NULL)) == NULL)
			break;
	if (n == sz.live_scale) {
		t0 = now_us();
		if (scale_read(&c, ids, n) == 0) {
			read_ms = (double)(now_us() - t0) / 1000.0;
			xasprintf(&fr->text, "yes, all read in %.0f ms",
			    read_ms);
			fr->median = read_ms;
			fr->met = 1;
		} else {
			fr->text = xstrdup("NO");
			fr->met = 0;
		}
		fr->runs = 1;
		scale_samples(&c, &t, &many, &nwn);
	}
	scale_figures(n, &one, &nw1, &many, &nwn);
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	smp_free(&one);
	smp_free(&nw1);
	smp_free(&mid);
	smp_free(&nwmid);
	smp_free(&many);
	smp_free(&nwn);
	ctl_close(&t);
	bench_close(&c);
}
