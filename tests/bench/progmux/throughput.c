/*
 * throughput.c — figures 3 and 4: seq through read_program pages against
 * seq through pipe-pane into a file, the reaper's peak RSS over the run,
 * and the front's RSS with many live programs.
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
 * Figures 3 and 4a: seq through read_program pages against seq through
 * pipe-pane into a file; the reaper's peak RSS over the run.
 */

/* One progmux run: seconds from start_program to the ended page. */
static int
tp_progmux(struct pmx *c, double *secs, long *hwm_kb, long *front_kb)
{
	struct json_doc		*d;
	const struct json	*sc;
	struct seqcheck		 chk = { 1, 0, 0, false, 0 };
	pid_t			 before[512], after[512], reaper = -1;
	const char		*text, *outcome;
	char			 argv[64], *id;
	int64_t			 t0, cursor = 0;
	size_t			 len;
	long			 kb;
	int			 nb, na, i, j, rc = -1;

	nb = proc_reapers(c->front, before, 512);
	snprintf(argv, sizeof argv, "[\"seq\",\"1\",\"%ld\"]", sz.seq_n);
	t0 = now_us();
	if ((id = bc_start(c, argv, NULL)) == NULL)
		return (-1);
	na = proc_reapers(c->front, after, 512);
	for (i = 0; i < na && reaper == -1; i++) {
		for (j = 0; j < nb && before[j] != after[i]; j++)
			;
		if (j == nb)
			reaper = after[i];
	}
	*hwm_kb = -1;
	for (;;) {
		d = bc_read(c, id, cursor, 30000);
		if ((sc = bc_ok(d, "read_program")) == NULL)
			break;
		text = json_str(json_get(sc, "text"), &len);
		seq_feed(&chk, text, len);
		cursor = json_int(json_get(sc, "cursor"));
		if (reaper > 0 && (kb = pmx_status_kb(reaper, "VmHWM")) >
		    *hwm_kb)
			*hwm_kb = kb;
		if (json_bool(json_get(sc, "ended"))) {
			*secs = (double)(c->read_us - t0) / 1e6;
			outcome = json_str(json_get(sc, "outcome"), NULL);
			if (!seq_done(&chk, sz.seq_n))
				bench_broke("seq 1 %ld through read_program: "
				    "line %ld missing or out of order (read "
				    "up to %ld; outputCut %d, outputComplete "
				    "%d)", sz.seq_n, chk.bad ? chk.bad_line :
				    chk.next, chk.next - 1,
				    json_bool(json_get(sc, "outputCut")),
				    json_bool(json_get(sc, "outputComplete")));
			else if (outcome == NULL ||
			    strcmp(outcome, "completed") != 0 ||
			    !json_bool(json_get(sc, "outputComplete")))
				bench_broke("seq ended as %s, outputComplete "
				    "%d", outcome ? outcome : "?",
				    json_bool(json_get(sc, "outputComplete")));
			else
				rc = 0;
			break;
		}
		json_doc_free(d);
	}
	json_doc_free(d);
	*front_kb = pmx_status_kb(c->front, "VmHWM");
	if (reaper == -1)
		bench_log("warning: the seq program's reaper was not found");
	bc_stop(c, id);
	free(id);
	return (rc);
}

/* Wait until a file holds size bytes (up to ms); its size. */
static off_t
file_wait_size(const char *path, off_t size, int ms)
{
	int64_t		deadline = now_ms() + ms;
	struct stat	st;

	st.st_size = -1;
	while (now_ms() < deadline) {
		if (stat(path, &st) == 0 && st.st_size >= size)
			break;
		sleep_ms(2);
	}
	return (st.st_size);
}

/* The bytes of `seq 1 n`. */
long
seq_bytes(long n)
{
	long	b = 0, lo, digits;

	for (lo = 1, digits = 1; lo <= n; lo *= 10, digits++)
		b += ((n < lo * 10 - 1 ? n : lo * 10 - 1) - lo + 1) *
		    (digits + 1);
	return (b);
}

/* Start `tmux wait-for CHAN`; the read end of its stdout, or -1. */
static int
waiter_start(const char *sock, const char *chan)
{
	int	fds[2], null;
	pid_t	pid;

	if (compat_pipe2(fds, O_CLOEXEC) == -1)
		return (-1);
	if ((pid = fork()) == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(fds[1], 1);
		dup2(null, 2);
		unsetenv("TMUX");
		execlp("tmux", "tmux", "-S", sock, "wait-for", chan,
		    (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (pid == -1) {
		close(fds[0]);
		return (-1);
	}
	waiter_pid = pid;
	return (fds[0]);
}

/* Has the waiter exited within ms? 1 yes (EOF), 0 not yet, -1 broken. */
static int
waiter_wait(int fd, int ms)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	int		r;

	while ((r = poll(&pfd, 1, ms)) == -1 && errno == EINTR)
		;
	if (r == -1)
		return (-1);
	return (r == 0 ? 0 : 1);
}

/* Wait (up to ms) for the waiter to exit: EOF on its stdout. 0 if it did. */
static int
waiter_done(int fd, int ms)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	int64_t		deadline = now_ms() + ms;
	char		chunk[256];
	ssize_t		n;
	int		rc = -1, left, st, r;

	while ((left = (int)(deadline - now_ms())) >= 0) {
		if ((r = poll(&pfd, 1, left)) == -1 && errno != EINTR)
			break;
		if (r == 0)
			break;
		if (r == -1)
			continue;
		if ((n = read(fd, chunk, sizeof chunk)) == 0) {
			rc = 0;
			break;
		}
		if (n == -1 && errno != EINTR && errno != EAGAIN)
			break;
		if (ms == 0)
			break;
	}
	close(fd);
	if (rc == -1)
		kill(waiter_pid, SIGKILL);
	if (waitpid(waiter_pid, &st, 0) == waiter_pid && rc == 0 &&
	    !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		bench_log("warning: tmux wait-for exited with status %d",
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		rc = -1;
	}
	waiter_pid = -1;
	return (rc);
}

/* One baseline run: new-window to pane death, pipe-pane into a file. */
static int
tp_tmux(struct pmx *c, struct ctl *t, int run, double *secs)
{
	struct buf	 out = BUF_INIT;
	char		 gate[400], file[400], pane[32], chan[32], *cmd;
	int64_t		 t0, end, deadline;
	off_t		 want, got;
	int		 fd, rc = -1, waiter = -1, left;

	snprintf(gate, sizeof gate, "%s/tp-gate", c->dir);
	snprintf(file, sizeof file, "%s/tp-out", c->dir);
	snprintf(chan, sizeof chan, "bench-tp-%d", run);
	unlink(gate);
	unlink(file);
	if (mkfifo(gate, 0600) == -1)
		return (-1);
	t0 = now_us();
	xasprintf(&cmd, "new-window -d -P -F '#{pane_id}' -t base: "
	    "': < %s; exec seq 1 %ld'", gate, sz.seq_n);
	if (ctl_cmd(t, cmd, &out, 10000, NULL) != 0)
		goto out;
	snprintf(pane, sizeof pane, "%.*s", (int)strcspn(out.data, "\n"),
	    out.data);
	free(cmd);
	xasprintf(&cmd, "set-option -p -t %s remain-on-exit on", pane);
	if (ctl_cmd(t, cmd, NULL, 10000, NULL) != 0)
		goto out;
	free(cmd);
	xasprintf(&cmd, "set-hook -p -t %s pane-died 'wait-for -S %s'", pane,
	    chan);
	if (ctl_cmd(t, cmd, NULL, 10000, NULL) != 0)
		goto out;
	free(cmd);
	xasprintf(&cmd, "pipe-pane -O -t %s 'cat > %s'", pane, file);
	if (ctl_cmd(t, cmd, NULL, 10000, NULL) != 0)
		goto out;
	if ((waiter = waiter_start(c->sock, chan)) == -1)
		goto out;
	/* Open the gate: the pane's shell waits in open(2) for a writer. */
	deadline = now_ms() + 10000;
	while ((fd = open(gate, O_WRONLY | O_NONBLOCK)) == -1 &&
	    errno == ENXIO && now_ms() < deadline)
		sleep_ms(1);
	if (fd == -1) {
		bench_broke("the baseline pane never opened its gate");
		goto out;
	}
	close(fd);
	/*
	 * The hook's wait-for -S ends the waiting client: the pane died.
	 * tmux 3.3a now and then dies a pane without running pane-died
	 * (seen once in ~40 runs of 20 MB), so #{pane_dead} is checked
	 * every 250 ms as well; that run's time is then up to 250 ms long.
	 */
	free(cmd);
	xasprintf(&cmd, "display-message -p -t %s '#{pane_dead}'", pane);
	deadline = now_ms() + 600000;
	while ((left = waiter_wait(waiter, 250)) == 0) {
		if (ctl_cmd(t, cmd, &out, 10000, NULL) != 0)
			goto out;
		if (out.data[0] == '1') {
			bench_log("warning: pane-died did not fire for %s; "
			    "#{pane_dead} said it died", pane);
			break;
		}
		if (now_ms() > deadline) {
			bench_broke("the baseline pane did not die in 600 s");
			goto out;
		}
	}
	end = now_us();
	waiter_done(waiter, 0);
	waiter = -1;
	if (left == -1) {
		bench_broke("tmux wait-for failed");
		goto out;
	}
	*secs = (double)(end - t0) / 1e6;
	/* Not timed: the file must hold all of it, each LF as CR LF. */
	want = (off_t)(seq_bytes(sz.seq_n) + sz.seq_n);
	if ((got = file_wait_size(file, want, 10000)) != want)
		bench_log("warning: the baseline's file holds %lld bytes, "
		    "not %lld", (long long)got, (long long)want);
	free(cmd);
	xasprintf(&cmd, "kill-pane -t %s", pane);
	ctl_cmd(t, cmd, NULL, 10000, NULL);
	rc = 0;
out:
	if (waiter != -1)
		waiter_done(waiter, 0);
	free(cmd);
	buf_free(&out);
	unlink(gate);
	unlink(file);
	return (rc);
}

/* Figures 3 and 4a. */
void
bench_throughput(void)
{
	struct pmx	 c;
	struct ctl	 t;
	struct samples	 pm = { 0 }, tm = { 0 }, hwm = { 0 }, front = { 0 };
	struct fig	*f, *fl, *fm;
	double		 secs, mb;
	long		 hwm_kb, front_kb;
	char		*txt;
	int		 i;
	int		 b0 = nbroke;

	mb = (double)seq_bytes(sz.seq_n) / 1e6;
	f = fig_new("throughput", "3 throughput, seq 1 N via read_program",
	    "MB/s", "ratio >= 0.5");
	f->base_what = "pipe-pane -O into a file";
	f->decimals = 1;
	fl = fig_new("throughput_lines", "3 every line present, in order", "",
	    "all");
	fm = fig_new("reaper_peak_rss", "4 reaper peak RSS (VmHWM), max",
	    "MiB", "<= 1.5 MiB");
	if (bench_open_ctl(&c, &t) == -1)
		return;
	for (i = 0; i < sz.tp_runs && nbroke == b0; i++) {
		/* Alternate which goes first, so neither gets a warm start. */
		if (i % 2 == 1) {
			if (tp_tmux(&c, &t, i, &secs) == -1)
				break;
			smp_add(&tm, mb / secs);
		}
		if (tp_progmux(&c, &secs, &hwm_kb, &front_kb) == -1)
			break;
		smp_add(&pm, mb / secs);
		if (hwm_kb > 0)
			smp_add(&hwm, (double)hwm_kb / 1024.0);
		if (front_kb > 0)
			smp_add(&front, (double)front_kb / 1024.0);
		bench_log("throughput run %d: progmux %.1f MB/s, reaper peak "
		    "%ld KiB", i + 1, mb / secs, hwm_kb);
		if (i % 2 == 0) {
			if (tp_tmux(&c, &t, i, &secs) == -1)
				break;
			smp_add(&tm, mb / secs);
		}
		bench_log("throughput run %d: tmux pipe-pane %.1f MB/s", i + 1,
		    tm.v[tm.n - 1]);
	}
	f->median = smp_q(&pm, 0.5);
	f->p90 = smp_q(&pm, 0.1);	/* the slowest tenth, as a rate */
	f->base_median = smp_q(&tm, 0.5);
	f->base_p90 = smp_q(&tm, 0.1);
	f->ratio = f->median / f->base_median;
	f->met = f->ratio >= 0.5;
	f->runs = (int)pm.n;
	xasprintf(&txt, "%s (%zu runs x %ld lines)",
	    nbroke == b0 ? "yes" : "NO", pm.n, sz.seq_n);
	fl->text = txt;
	fl->met = nbroke == b0 && pm.n == (size_t)sz.tp_runs;
	fl->runs = (int)pm.n;
	fm->median = smp_max(&hwm);
	fm->met = fm->median <= 1.5;
	fm->runs = (int)hwm.n;
	f = fig_new("front_peak_rss_throughput",
	    "4 front peak RSS over throughput", "MiB", "-");
	f->median = smp_max(&front);
	f->runs = (int)front.n;
	smp_free(&pm);
	smp_free(&tm);
	smp_free(&hwm);
	smp_free(&front);
	ctl_close(&t);
	bench_close(&c);
}

/* Figure 4b: the front's RSS with many live programs. */
void
bench_front_rss(void)
{
	struct pmx	 c;
	struct fig	*f, *fr;
	char		*id, name[64];
	pid_t		 reaper;
	long		 idle, live;
	int		 i;

	snprintf(name, sizeof name, "4 front RSS, %d live, minus text",
	    sz.live_mem);
	f = fig_new("front_rss_live", xstrdup(name), "MiB", "<= 8 MiB");
	f->base_what = "idle front";
	if (bench_open(&c) == -1)
		return;
	sleep_ms(100);
	idle = pmx_status_kb(c.front, "VmRSS");
	for (i = 0; i < sz.live_mem; i++) {
		if ((id = bc_start(&c, "[\"sleep\",\"60\"]", NULL)) == NULL)
			break;
		free(id);
	}
	sleep_ms(100);
	/* sleep prints nothing: the text the front keeps is 0 bytes. */
	live = pmx_status_kb(c.front, "VmRSS");
	/* An idle reaper, the baseline for the busy one's peak. */
	if (proc_reapers(c.front, &reaper, 1) == 1 &&
	    (fr = fig_find("reaper_peak_rss")) != NULL) {
		fr->base_median = (double)pmx_status_kb(reaper, "VmHWM") /
		    1024.0;
		fr->base_what = "an idle reaper";
		fr->ratio = fr->median / fr->base_median;
		bench_log("idle reaper: VmHWM %ld KiB, RssAnon %ld KiB, "
		    "RssFile %ld KiB", pmx_status_kb(reaper, "VmHWM"),
		    pmx_status_kb(reaper, "RssAnon"),
		    pmx_status_kb(reaper, "RssFile"));
	}
	if (i == sz.live_mem) {
		f->median = (double)live / 1024.0;
		f->base_median = (double)idle / 1024.0;
		f->ratio = f->median / f->base_median;
		f->met = f->median <= 8.0;
		f->runs = 1;
	}
	bench_log("front RSS: idle %ld KiB, %d live %ld KiB", idle,
	    sz.live_mem, live);
	bench_close(&c);
}
