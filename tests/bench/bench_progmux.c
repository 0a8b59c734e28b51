/*
 * bench_progmux.c — issue 5's figures: progmux measured against the limits
 * tmux itself sets, as ratios taken in one run on one private tmux server.
 *
 * Each group of figures gets a fresh harness from tests/client.c: a private
 * tmux server on a socket in a temporary directory (tmux -S, -f /dev/null)
 * and build/progmux on it. Baselines run on the same server in the same
 * run, interleaved with the progmux samples so both see the same noise: a
 * persistent control-mode client (tmux -C attach) stands for tmux at its
 * fastest. Replies are read by our own loop, which stamps each one the
 * moment its last bytes arrive, so the figures are the server's and not
 * the client's.
 *
 *	bench_progmux [--smoke] [--strip-json FILE] [--json-out FILE]
 *	bench_progmux --stamp MS	(helper: sleep, print CLOCK_REALTIME ns)
 *
 * BENCH_SMOKE=1 is --smoke; BENCH_RUNS and BENCH_TP_RUNS set the number of
 * samples; BENCH_ONLY=latency,throughput,memory,scale,agent picks groups.
 *
 * Prints a table on stdout and writes the same figures as JSON. A slow
 * machine never fails it: it exits 0 whatever the figures, and 1 only when
 * the harness broke (progmux did not answer, a line was missing or out of
 * order, tmux refused a baseline command).
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

#define MIB		(1024.0 * 1024.0)
#define CALL_MS		30000	/* longest any one reply may take */

/* The figures to beat, from the issue (a TypeScript tmux MCP server). */
#define TS_COLD_MS	"390-450 ms"
#define TS_ECHO_MS	77.0
#define TS_IDLE_MB	88.0
#define TS_PEAK_MB	236.0
#define TS_LINE_MS	4.0
#define TS_MAX_OUT	"256 KiB"

/* Sizes: the full run, and the smoke run that only proves the harness. */
struct sizes {
	int	 runs;		/* samples per latency figure */
	int	 tp_runs;	/* throughput runs (each ~20 MB) */
	long	 seq_n;		/* seq 1 N */
	int	 live_mem;	/* live programs for the front's RSS */
	int	 live_scale;	/* live programs for the scale figure */
	int	 scale_lines;	/* lines each of them prints */
	int	 wake_ms;	/* how long the wake helper sleeps */
	int	 cold_runs;
};

static const struct sizes full_sizes = { 20, 20, 3000000, 100, 200, 1000,
	500, 20 };
static const struct sizes smoke_sizes = { 3, 2, 30000, 10, 10, 1000,
	200, 3 };

static struct sizes	 sz;
static bool		 smoke;
static bool		 broke;		/* the harness itself failed */
static int		 nbroke;	/* how many times */
static char		 self_exe[PATH_MAX];

/* Samples of one measure, in milliseconds (or MB/s). */
struct samples {
	double	*v;
	size_t	 n;
};

/* One row of the table. NAN means "none". */
struct fig {
	const char	*id;		/* key in the JSON */
	const char	*name;		/* label in the table */
	const char	*unit;
	double		 median, p90;
	double		 base_median, base_p90;
	const char	*base_what;	/* what the baseline is */
	double		 ratio;
	const char	*target;
	int		 met;		/* 1 yes, 0 no, -1 nothing to meet */
	char		*text;		/* replaces the value when set */
	int		 runs;
	bool		 show_p90;
	int		 decimals;
	int		 order;		/* when it was made */
};

#define NFIGS	64
static struct fig	figs[NFIGS];
static int		nfigs;

/* A persistent control-mode client: the baseline's way of talking to tmux. */
struct ctl {
	pid_t		 pid;
	int		 to;
	int		 from;
	struct buf	 rbuf;
};

/* What is live, so a signal can clean it up. */
static struct pmx	*live_pmx;
static struct ctl	*live_ctl;
static pid_t		 waiter_pid = -1;	/* a tmux wait-for client */
static bool		 ctl_quiet;		/* a failure is not reported */
static bool		 ctl_exit;		/* tmux said "server exited" */

/* Say the harness broke; the run goes on, but exits 1. */
static void __attribute__((format(printf, 1, 2)))
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
static void __attribute__((format(printf, 1, 2)))
bench_log(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* CLOCK_REALTIME in nanoseconds. */
static int64_t
realtime_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

/* Sleep ms milliseconds. */
static void
sleep_ms(int ms)
{
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Add one sample. */
static void
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
static double
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
static double
smp_max(struct samples *s)
{
	return (smp_q(s, 1.0));
}

/* Free the samples. */
static void
smp_free(struct samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* A new row of the table. */
static struct fig *
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
static struct fig *
fig_find(const char *id)
{
	int	i;

	for (i = 0; i < nfigs; i++)
		if (strcmp(figs[i].id, id) == 0)
			return (&figs[i]);
	return (NULL);
}

/* Kill what a signal interrupted: progmux, the control client, tmux. */
static void
bench_signal(int sig)
{
	pid_t	pid;

	(void)sig;
	if (live_ctl != NULL && live_ctl->pid > 0)
		kill(live_ctl->pid, SIGKILL);
	if (waiter_pid > 0)
		kill(waiter_pid, SIGKILL);
	if (live_pmx != NULL) {
		if (live_pmx->pid > 0)
			kill(live_pmx->pid, SIGTERM);
		if ((pid = fork()) == 0) {
			execlp("tmux", "tmux", "-S", live_pmx->sock,
			    "kill-server", (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		if (strncmp(live_pmx->dir, "/tmp/progmux-test-", 18) == 0 &&
		    (pid = fork()) == 0) {
			execlp("rm", "rm", "-rf", live_pmx->dir, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	_exit(2);
}

/*
 * The client loop. These read progmux's stdout through the pmx's own
 * buffer, so they must not be mixed with pmx_wait() on the same pmx after
 * pmx_open() (which leaves nothing held).
 */

/* The id of a reply, or -1. */
static int64_t
bc_id(const struct json_doc *d)
{
	const struct json	*v = json_get(json_root(d), "id");

	if (v == NULL || json_type(v) != JSON_NUMBER || !json_is_int(v))
		return (-1);
	return (json_int(v));
}

/* Send a tools/call; returns its id. */
static int64_t
bc_send(struct pmx *c, const char *tool, const char *args)
{
	struct buf	b = BUF_INIT;
	int64_t		id;

	buf_printf(&b, "{\"name\":\"%s\",\"arguments\":%s}", tool, args);
	id = pmx_send(c, "tools/call", buf_cstr(&b));
	buf_free(&b);
	return (id);
}

/* Call a tool and wait for its reply; *us is call to receipt. */
static struct json_doc *
bc_call(struct pmx *c, const char *tool, const char *args, int64_t *us)
{
	struct json_doc	*d;
	int64_t		 t0, id, deadline = now_ms() + CALL_MS;

	t0 = now_us();
	id = bc_send(c, tool, args);
	while ((d = pmx_read_line(c, (int)(deadline - now_ms()))) != NULL) {
		if (bc_id(d) == id) {
			if (us != NULL)
				*us = c->read_us - t0;
			return (d);
		}
		json_doc_free(d);
	}
	bench_broke("%s %s: no reply from progmux within %d ms", tool, args,
	    CALL_MS);
	return (NULL);
}

/* A reply that is a result and not an error; else say why and NULL. */
static const struct json *
bc_ok(struct json_doc *d, const char *what)
{
	const struct json	*sc;

	if (d == NULL)
		return (NULL);
	if (pmx_result(d) == NULL || pmx_is_error(d) ||
	    (sc = pmx_sc(d)) == NULL) {
		bench_broke("%s failed: %s", what, pmx_text(d));
		return (NULL);
	}
	return (sc);
}

/* start_program argv (JSON array text); the programId or NULL. */
static char *
bc_start(struct pmx *c, const char *argv_json, int64_t *us)
{
	struct json_doc		*d;
	const struct json	*sc;
	char			*args, *id = NULL;

	xasprintf(&args, "{\"argv\":%s}", argv_json);
	d = bc_call(c, "start_program", args, us);
	if ((sc = bc_ok(d, "start_program")) != NULL)
		id = xstrdup(json_str(json_get(sc, "programId"), NULL));
	json_doc_free(d);
	free(args);
	return (id);
}

/* stop_program, waiting for its answer. */
static void
bc_stop(struct pmx *c, const char *id)
{
	char	*args;

	xasprintf(&args, "{\"programId\":\"%s\"}", id);
	json_doc_free(bc_call(c, "stop_program", args, NULL));
	free(args);
}

/* Send a read_program; returns its id. */
static int64_t
bc_send_read(struct pmx *c, const char *id, int64_t cursor, int timeout)
{
	char	args[256];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":%d}", id, (long long)cursor, timeout);
	return (bc_send(c, "read_program", args));
}

/* read_program from cursor, waiting for its reply. */
static struct json_doc *
bc_read(struct pmx *c, const char *id, int64_t cursor, int timeout)
{
	char	args[256];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":%d}", id, (long long)cursor, timeout);
	return (bc_call(c, "read_program", args, NULL));
}

/* Does tools/list name this tool? */
static bool
bc_has_tool(const struct json_doc *d, const char *name)
{
	const struct json	*tools, *n;
	size_t			 i;

	tools = json_get(json_get(json_root(d), "result"), "tools");
	for (i = 0; i < json_len(tools); i++) {
		n = json_get(json_at(tools, i), "name");
		if (n != NULL && strcmp(json_str(n, NULL), name) == 0)
			return (true);
	}
	return (false);
}

/* The ceilings the figures need. */
static const char *const bench_env[] = {
	"PROGMUX_MAX_PROGRAMS=300",
	"PROGMUX_KEEP_ENDED=300",
	"PROGMUX_OUTPUT_MAX_BYTES=67108864",
	NULL
};

/* Open the harness with those ceilings. */
static int
bench_open(struct pmx *c)
{
	const char *const	*env = bench_env;

	if (pmx_open(c, env) == -1) {
		bench_broke("could not start tmux and progmux (%s)",
		    c->errlog.len ? c->errlog.data : "no stderr");
		pmx_close(c);
		return (-1);
	}
	live_pmx = c;
	return (0);
}

/* Close the harness: progmux, its programs, the private tmux server. */
static void
bench_close(struct pmx *c)
{
	live_pmx = NULL;
	pmx_close(c);
}

/*
 * The control-mode client: one `tmux -C attach` kept open, one command a
 * line, each answered by a %begin ... %end (or %error) block whose flags
 * field is 1 because it came from this client.
 */

/* The next line from the control client (allocated), or NULL. */
static char *
ctl_line(struct ctl *t, int ms)
{
	int64_t		 deadline = now_ms() + ms;
	struct pollfd	 pfd;
	char		*nl, *line;
	ssize_t		 n;
	int		 left;

	for (;;) {
		if (t->rbuf.len > 0 && (nl = memchr(t->rbuf.data, '\n',
		    t->rbuf.len)) != NULL) {
			line = xstrndup(t->rbuf.data,
			    (size_t)(nl - t->rbuf.data));
			buf_drain(&t->rbuf, (size_t)(nl - t->rbuf.data) + 1);
			return (line);
		}
		if ((left = (int)(deadline - now_ms())) <= 0)
			return (NULL);
		pfd = (struct pollfd){ t->from, POLLIN, 0 };
		if (poll(&pfd, 1, left) <= 0)
			continue;
		buf_reserve(&t->rbuf, 65536);
		n = read(t->from, t->rbuf.data + t->rbuf.len, 65536);
		if (n == 0)
			return (NULL);
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return (NULL);
		}
		t->rbuf.len += (size_t)n;
	}
}

/* Wait for the block answering our command; 0, 1 for %error, -1 broken. */
static int
ctl_reply(struct ctl *t, struct buf *out, int ms)
{
	int64_t	 deadline = now_ms() + ms;
	char	*line;
	bool	 in = false;
	int	 rc;
	size_t	 len;

	while ((line = ctl_line(t, (int)(deadline - now_ms()))) != NULL) {
		len = strlen(line);
		if (strncmp(line, "%exit server exited", 19) == 0)
			ctl_exit = true;
		if (!in) {
			if (strncmp(line, "%begin ", 7) == 0 &&
			    len > 2 && strcmp(line + len - 2, " 1") == 0)
				in = true;
			free(line);
			continue;
		}
		if ((strncmp(line, "%end ", 5) == 0 ||
		    strncmp(line, "%error ", 7) == 0) &&
		    strcmp(line + len - 2, " 1") == 0) {
			rc = line[1] == 'e' && line[2] == 'r';
			free(line);
			if (out != NULL)
				buf_cstr(out);
			return (rc);
		}
		if (out != NULL) {
			buf_adds(out, line);
			buf_addc(out, '\n');
		}
		free(line);
	}
	return (-1);
}

/* Run one tmux command over the control client; *us is its round trip. */
static int
ctl_cmd(struct ctl *t, const char *cmd, struct buf *out, int ms, int64_t *us)
{
	struct buf	line = BUF_INIT, body = BUF_INIT;
	int64_t		t0;
	int		rc;
	size_t		off = 0;
	ssize_t		n;

	if (out != NULL)
		buf_reset(out);
	buf_adds(&line, cmd);
	buf_addc(&line, '\n');
	t0 = now_us();
	while (off < line.len) {
		if ((n = write(t->to, line.data + off, line.len - off)) ==
		    -1) {
			if (errno == EINTR)
				continue;
			buf_free(&line);
			return (-1);
		}
		off += (size_t)n;
	}
	rc = ctl_reply(t, out != NULL ? out : &body, ms);
	if (us != NULL)
		*us = now_us() - t0;
	if (rc != 0 && !ctl_quiet)
		bench_broke("tmux control client: `%s` %s%s", cmd,
		    rc == 1 ? "answered %error: " : "did not answer",
		    rc == 1 ? buf_cstr(out != NULL ? out : &body) : "");
	buf_free(&line);
	buf_free(&body);
	return (rc);
}

/* Start `tmux -S SOCK -C attach -t SESSION` with output notifications off. */
static int
ctl_open(struct ctl *t, const char *sock, const char *session)
{
	char	*line;
	bool	 done;
	int	 in[2], out[2], null, rc;

	memset(t, 0, sizeof *t);
	t->pid = -1;
	if (compat_pipe2(in, O_CLOEXEC) == -1 ||
	    compat_pipe2(out, O_CLOEXEC) == -1)
		return (-1);
	if ((t->pid = fork()) == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(null, 2);
		unsetenv("TMUX");
		unsetenv("TMUX_PANE");
		execlp("tmux", "tmux", "-S", sock, "-f", "/dev/null", "-C",
		    "attach-session", "-t", session, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	t->to = in[1];
	t->from = out[0];
	live_ctl = t;
	/* Commands sent before the attach is done fail ("no current
	 * client"): wait for the attach's %session-changed. */
	while ((line = ctl_line(t, 10000)) != NULL) {
		if (strncmp(line, "%exit server exited", 19) == 0)
			ctl_exit = true;
		done = strncmp(line, "%session-changed ", 17) == 0;
		free(line);
		if (done)
			break;
	}
	if (line == NULL)
		return (-1);
	ctl_quiet = true;
	rc = ctl_cmd(t, "refresh-client -f no-output", NULL, 10000, NULL);
	ctl_quiet = false;
	return (rc);
}

/* End the control client. */
static void
ctl_close(struct ctl *t)
{
	int64_t	deadline = now_ms() + 2000;

	live_ctl = NULL;
	if (t->pid <= 0)
		return;
	close(t->to);
	while (waitpid(t->pid, NULL, WNOHANG) == 0) {
		if (now_ms() > deadline) {
			kill(t->pid, SIGKILL);
			waitpid(t->pid, NULL, 0);
			break;
		}
		sleep_ms(2);
	}
	close(t->from);
	buf_free(&t->rbuf);
	t->pid = -1;
}

/*
 * The harness with a control client for baselines. The control client
 * attaches first, to a quiet server, and progmux after it: tmux 3.3a (to
 * 3.5a at least; tmux PR #4980) crashes ("segfault at 20") when a control
 * notification reaches a control client still between MSG_IDENTIFY_FLAGS
 * and MSG_IDENTIFY_DONE, which two control clients attaching at once
 * (ours and progmux's) make likely. If it happens anyway, start again.
 */
static int
bench_open_ctl(struct pmx *c, struct ctl *t)
{
	const char	*why;
	char		*out;
	int		 try;

	for (try = 0; try < 3; try++) {
		ctl_exit = false;
		memset(c, 0, sizeof *c);
		c->pid = -1;
		c->to = c->from = c->err = -1;
		snprintf(c->dir, sizeof c->dir, "/tmp/progmux-test-%ld-XXXXXX",
		    (long)getpid());
		if (mkdtemp(c->dir) == NULL)
			break;
		snprintf(c->sock, sizeof c->sock, "%s/tmux.sock", c->dir);
		live_pmx = c;
		why = "tmux new-session failed";
		if ((out = pmx_tmux(c, "-f", "/dev/null", "new-session", "-d",
		    "-s", "base", "-x", "80", "-y", "24", NULL)) != NULL) {
			free(out);
			c->own_tmux = true;
			why = "the control client did not attach";
			if (ctl_open(t, c->sock, "base") == 0) {
				why = "progmux did not start";
				if (pmx_spawn(c, bench_env, true) == 0)
					return (0);
			}
		}
		pmx_drain_err(c);
		bench_log("warning: %s%s; starting again (%.*s)", why,
		    ctl_exit ? " (the tmux server crashed: tmux "
		    "control-mode bug, see the notes)" : "",
		    (int)c->errlog.len, c->errlog.data ? c->errlog.data : "");
		ctl_close(t);
		bench_close(c);
	}
	bench_broke("could not start tmux, its control client and progmux");
	return (-1);
}

/*
 * /proc: the reapers of a front and the memory of a process.
 */

/* The parent pid of pid, or -1. */
static pid_t
proc_ppid(pid_t pid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd, ppid;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY)) == -1)
		return (-1);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %d", &ppid) != 1)
		return (-1);
	return (ppid);
}

/* Is pid's argv[0] a progmux-reaper? */
static bool
proc_is_reaper(pid_t pid)
{
	char	 path[64], buf[512];
	ssize_t	 n;
	int	 fd;

	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY)) == -1)
		return (false);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return (false);
	buf[n] = '\0';
	return (strstr(buf, "progmux-reaper") != NULL);
}

/* The reapers whose parent is front: up to max pids in out; the count. */
static int
proc_reapers(pid_t front, pid_t *out, int max)
{
	DIR		*d;
	struct dirent	*de;
	pid_t		 pid;
	int		 n = 0;

	if ((d = opendir("/proc")) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL && n < max) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (proc_ppid(pid) == front && proc_is_reaper(pid))
			out[n++] = pid;
	}
	closedir(d);
	return (n);
}

/* A "Key:  N kB" field of /proc/PID/status in KiB, or -1. */
static long
proc_status_kb(pid_t pid, const char *key)
{
	char	 path[64], buf[4096], *p;
	ssize_t	 n;
	size_t	 klen = strlen(key);
	int	 fd;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((fd = open(path, O_RDONLY)) == -1)
		return (-1);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	for (p = buf; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, key, klen) == 0 && p[klen] == ':')
			return (strtol(p + klen + 1, NULL, 10));
	}
	return (-1);
}

/*
 * Checking seq's output: every line a number, each one more than the last.
 */
struct seqcheck {
	long	 next;		/* the number the next line must hold */
	long	 acc;
	int	 digits;
	bool	 bad;
	long	 bad_line;
};

/* Feed a piece of text to the check. */
static void
seq_feed(struct seqcheck *s, const char *t, size_t len)
{
	size_t	i;
	char	ch;

	for (i = 0; i < len && !s->bad; i++) {
		ch = t[i];
		if (ch >= '0' && ch <= '9') {
			s->acc = s->acc * 10 + (ch - '0');
			s->digits++;
		} else if (ch == '\n' && s->digits > 0 && s->acc == s->next) {
			s->next++;
			s->acc = 0;
			s->digits = 0;
		} else {
			s->bad = true;
			s->bad_line = s->next;
		}
	}
}

/* Did the check see exactly 1..n? */
static bool
seq_done(struct seqcheck *s, long n)
{
	return (!s->bad && s->digits == 0 && s->next == n + 1);
}

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
	char		 sockenv[400];
	const char	*bin;
	pid_t		 pid;

	memset(&c, 0, sizeof c);
	c.err = -1;
	if (compat_pipe2(in, O_CLOEXEC) == -1 ||
	    compat_pipe2(out, O_CLOEXEC) == -1)
		return (-1);
	snprintf(sockenv, sizeof sockenv, "PROGMUX_SOCKET_PATH=%s", h->sock);
	t0 = now_us();
	if ((pid = fork()) == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(null, 2);
		unsetenv("TMUX");
		unsetenv("TMUX_PANE");
		unsetenv("PROGMUX_SOCKET_NAME");
		unsetenv("LIBTMUX_SOCKET_NAME");
		unsetenv("LIBTMUX_SOCKET_PATH");
		putenv(sockenv);
		setenv("TMPDIR", h->dir, 1);
		setenv("TMUX_TMPDIR", h->dir, 1);	/* its attach lock */
		bin = getenv("PROGMUX_BIN") ? getenv("PROGMUX_BIN") :
		    "build/progmux";
		execl(bin, bin, (char *)NULL);
		_exit(127);
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
static void
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
		if (reaper > 0 && (kb = proc_status_kb(reaper, "VmHWM")) >
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
	*front_kb = proc_status_kb(c->front, "VmHWM");
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
static long
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
static void
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
static void
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
	idle = proc_status_kb(c.front, "VmRSS");
	for (i = 0; i < sz.live_mem; i++) {
		if ((id = bc_start(&c, "[\"sleep\",\"60\"]", NULL)) == NULL)
			break;
		free(id);
	}
	sleep_ms(100);
	/* sleep prints nothing: the text the front keeps is 0 bytes. */
	live = proc_status_kb(c.front, "VmRSS");
	/* An idle reaper, the baseline for the busy one's peak. */
	if (proc_reapers(c.front, &reaper, 1) == 1 &&
	    (fr = fig_find("reaper_peak_rss")) != NULL) {
		fr->base_median = (double)proc_status_kb(reaper, "VmHWM") /
		    1024.0;
		fr->base_what = "an idle reaper";
		fr->ratio = fr->median / fr->base_median;
		bench_log("idle reaper: VmHWM %ld KiB, RssAnon %ld KiB, "
		    "RssFile %ld KiB", proc_status_kb(reaper, "VmHWM"),
		    proc_status_kb(reaper, "RssAnon"),
		    proc_status_kb(reaper, "RssFile"));
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

/*
 * progmux's start_program and tmux's own new-window, alternately, runs
 * times each: both measured at the same moments, with the same panes
 * live, so a busy machine weighs on both alike.
 */
static void
scale_samples(struct pmx *c, struct ctl *t, struct samples *ps,
    struct samples *ts)
{
	char	*id;
	int64_t	 us;
	int	 i, b0 = nbroke;

	free(bc_start(c, "[\"true\"]", NULL));
	for (i = 0; i < sz.runs && nbroke == b0; i++) {
		if ((id = bc_start(c, "[\"true\"]", &us)) == NULL)
			return;
		free(id);
		smp_add(ps, (double)us / 1000.0);
		if (ctl_cmd(t, "new-window -d -t base: true", NULL, 10000,
		    &us) != 0)
			return;
		smp_add(ts, (double)us / 1000.0);
	}
}

/* A start latency figure and tmux's, at live programs against 1 live. */
static void
scale_figures(int live, struct samples *one, struct samples *nw1,
    struct samples *many, struct samples *nwn, bool slowdown)
{
	struct fig	*fl, *ft, *fs;
	char		 name[96];

	snprintf(name, sizeof name, "5 start latency at %d live", live);
	fl = fig_new(live == sz.live_scale ? "scale_start_latency" :
	    "scale_start_latency_mid", xstrdup(name), "ms", slowdown ?
	    "-" : "ratio <= 1.5");
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
	fl->met = many->n > 0 && !slowdown ? fl->ratio <= 1.5 : -1;
	fl->runs = (int)many->n;
	bench_log("scale: start %.2f ms at %d live vs %.2f ms at 1; tmux "
	    "new-window %.2f vs %.2f", fl->median, live, fl->base_median,
	    ft->median, ft->base_median);
	if (!slowdown)
		return;
	/* How much more progmux slows down than tmux itself does. */
	snprintf(name, sizeof name, "5 start slowdown at %d live over "
	    "tmux's own", live);
	fs = fig_new("scale_slowdown_over_tmux", xstrdup(name), "x",
	    "<= 1.25");
	fs->median = fl->ratio / ft->ratio;
	fs->ratio = fs->median;
	fs->base_what = "new-window's slowdown";
	fs->met = many->n > 0 && nwn->n > 0 ? fs->median <= 1.25 : -1;
	fs->runs = (int)many->n;
}

/* Figure 5: many programs alive at once. */
static void
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
	scale_figures(live_mid, &one, &nw1, &mid, &nwmid, true);
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
	scale_figures(n, &one, &nw1, &many, &nwn, false);
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

/* Figure 6: fold in bench_strip --json, if it ran. */
static void
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

/* Rows in the order: by the figure number that opens the name. */
static int
fig_cmp(const void *a, const void *b)
{
	const struct fig	*x = a, *y = b;

	if (x->name[0] != y->name[0])
		return (x->name[0] < y->name[0] ? -1 : 1);
	return (x->order - y->order);
}

/* The table on stdout, then the notes. */
static void
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
static int
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
static char *
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

/*
 * Figures 9-13: agent tasks (issue 13), each a count of calls and the
 * seconds calls spent blocked while the program waited for input (reads
 * that came back empty at a prompt), measured in one run. The client
 * does what an agent must with the server it has: with unfinishedLine
 * and waitingForInput it sees a prompt in the read and answers with one
 * send_keys timeoutMs call; without them (an older server) an empty read
 * at a prompt is followed by capture_pane to see the screen, and an
 * answer by reads until the reply is in. Reads wait AGENT_READ_MS.
 */
#define AGENT_READ_MS	5000

/* One agent task's tally. */
struct agent {
	struct pmx	*c;
	int		 calls;
	double		 blocked;	/* s in empty reads */
	bool		 new_fields;	/* the server has unfinishedLine */
	int64_t		 chars;		/* of text returned to the agent */
};

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
static struct json_doc *
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
static void
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

static int	agent_start(struct agent *, const char *, char **, char **);
static void	bench_agent_one_call(struct pmx *, const struct json_doc *);

/* A program started outside any task's count. */
static int
agent_start_plain(struct pmx *c, const char *argv_json, char **id,
    char **pane)
{
	struct agent	a;

	memset(&a, 0, sizeof a);
	a.c = c;
	return (agent_start(&a, argv_json, id, pane));
}

/* A task's characters returned, as a figure. */
static void
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
static bool
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
static int
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
	bc_stop(c, id);
	free(id);
	free(pane);
}

/* The 1 MB log with 12 ERROR lines of figure 15, as argv JSON. */
static const char agent_log_argv[] = "[\"python3\",\"-c\",\"import sys\\n"
    "e = {1, 17, 999, 1000, 4321, 9000, 12345, 15000, 17777, 19000, "
    "19998, 20000}\\nfor i in range(1, 20001):\\n    sys.stdout.write("
    "'2026-12-02 12:00:00 %s request %06d handled in 3 ms\\\\n' % ("
    "'ERROR' if i in e else 'INFO ', i))\\n\"]";

/*
 * Figures 14 to 16, the issue 19 tasks on a finished program: "how did
 * this 1.29 MB run end" (the last lines of seq 1 200000) and "every line
 * containing ERROR in a 1 MB log with 12 of them". With tail and filter
 * one read does each; without them the agent pages through everything
 * from cursor 0 (and greps it itself). And run_program's early return
 * at a prompt (16).
 */
static void
bench_agent_logs(struct pmx *c, const struct json_doc *list)
{
	struct agent		 a;
	struct json_doc		*d;
	const struct json	*sc;
	struct buf		 all = BUF_INIT;
	char			*id, *pane, *argv;
	const char		*extra;
	int64_t			 cursor;
	int			 errors = 0;
	const char		*p;

	/* 14: how did it end, once it has: with tail, one read from cursor
	 * 0; without, pages to the end. */
	memset(&a, 0, sizeof a);
	a.c = c;
	cursor = 0;
	extra = agent_has_arg(list, "read_program", "tail") ? "\"tail\":5" :
	    "";
	if (agent_start(&a, "[\"seq\",\"1\",\"200000\"]", &id, &pane) ==
	    0) {
		a.calls++;	/* the start */
		if (agent_wait_end(c, id) == -1)
			bench_broke("end task: seq did not end");
		for (;;) {
			if ((d = agent_read(&a, id, &cursor, extra, &all,
			    &sc)) == NULL)
				break;
			if (json_bool(json_get(sc, "ended"))) {
				json_doc_free(d);
				break;
			}
			json_doc_free(d);
		}
		if (strstr(buf_cstr(&all), "\n199999\n200000\n") == NULL)
			bench_broke("end task: the reads did not end with "
			    "200000");
		agent_figs("agent_end", "14 how did a 1.29 MB run end (seq)",
		    "<= 2 calls", &a, "-", 1e9);
		fig_find("agent_end")->met = a.calls <= 2;
		agent_chars("agent_end", "14 how did a 1.29 MB run end (seq)",
		    "<= 1000", &a, 1000);
		bc_stop(c, id);
		free(id);
		free(pane);
	}
	buf_reset(&all);

	/* 15: every ERROR line of a 1 MB log. */
	memset(&a, 0, sizeof a);
	a.c = c;
	cursor = 0;
	extra = agent_has_arg(list, "read_program", "filter") ?
	    "\"filter\":\"ERROR\"" : "";
	xasprintf(&argv, "%s", agent_log_argv);
	if (agent_start(&a, argv, &id, &pane) == 0) {
		a.calls++;	/* the start */
		for (;;) {
			if ((d = agent_read(&a, id, &cursor, extra, &all,
			    &sc)) == NULL)
				break;
			if (json_bool(json_get(sc, "ended"))) {
				json_doc_free(d);
				break;
			}
			json_doc_free(d);
		}
		for (p = buf_cstr(&all); (p = strstr(p, "ERROR")) != NULL; p++)
			errors++;
		if (errors != 12)
			bench_broke("log task: %d ERROR lines, not 12", errors);
		agent_figs("agent_log", "15 every ERROR line of a 1 MB log",
		    "<= 3 calls", &a, "-", 1e9);
		fig_find("agent_log")->met = a.calls <= 3;
		agent_chars("agent_log", "15 every ERROR line of a 1 MB log",
		    "<= 2000", &a, 2000);
		bc_stop(c, id);
		free(id);
		free(pane);
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
	memset(&a, 0, sizeof a);
	a.c = c;
	if (agent_start(&a, build, &id, &pane) == 0) {
		if (agent_reads(&a, id, until ? "\"until\":\"BUILD FAILED\"" :
		    "", &all, until ? agent_matched : agent_ended) == -1 ||
		    strstr(buf_cstr(&all), "BUILD FAILED") == NULL)
			bench_broke("until task: no BUILD FAILED line");
		agent_calls_fig("agent_until", "18 wait for BUILD FAILED after "
		    "1.29 MB", "1 call", a.calls, 1);
		bc_stop(c, id);
		free(id);
		free(pane);
	}
	buf_reset(&all);
	/* 19: the end, then its last 5 lines: one read with tail. */
	memset(&a, 0, sizeof a);
	a.c = c;
	if (agent_start(&a, build, &id, &pane) == 0) {
		if (agent_reads(&a, id, "\"tail\":5", &all, agent_ended) ==
		    -1 || strstr(buf_cstr(&all), "200000\nBUILD FAILED") ==
		    NULL)
			bench_broke("tail task: not its last lines");
		agent_calls_fig("agent_tail_end", "19 a 1.29 MB build's end, then "
		    "its last 5 lines", "1 call", a.calls, 1);
		bc_stop(c, id);
		free(id);
		free(pane);
	}
	buf_reset(&all);
	/* 20: the last 3 ERROR lines of the 1 MB log, once it ended. */
	memset(&a, 0, sizeof a);
	a.c = c;
	if (agent_start(&a, agent_log_argv, &id, &pane) == 0) {
		if (agent_wait_end(c, id) == -1 || agent_reads(&a, id,
		    "\"filter\":\"ERROR\",\"tail\":3", &all, agent_ended) ==
		    -1 || strstr(buf_cstr(&all), "19998") == NULL ||
		    strstr(buf_cstr(&all), "19000") == NULL)
			bench_broke("filter tail task: not the last 3");
		agent_calls_fig("agent_filter_tail", "20 the last 3 ERROR lines "
		    "of a 1 MB log", "1 call", a.calls, 1);
		bc_stop(c, id);
		free(id);
		free(pane);
	}
	/* 21: q to less with timeoutMs: the reply is its end, never an
	 * error. */
	memset(&a, 0, sizeof a);
	a.c = c;
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
		bc_stop(c, id);
		free(id);
		free(pane);
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

/* The start of a program for a task: programId and pane (allocated). */
static int
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
static void
bench_agent(void)
{
	struct pmx		 c;
	struct agent		 a;
	struct json_doc		*d;
	const struct json	*sc;
	struct buf		 all = BUF_INIT;
	struct fig		*f;
	char			*id, *pane, *path, *stamp, *argv;
	char			*gitv[] = { "sh", "-c", NULL, "sh", NULL, NULL };
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
	memset(&a, 0, sizeof a);
	a.c = &c;
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
		bc_stop(&c, id);
		free(id);
		free(pane);
	}
	free(argv);
	free(path);

	/* 10: REPL exchange after the first read: 6*7 → 42, >>> again. */
	memset(&a, 0, sizeof a);
	a.c = &c;
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
		bc_stop(&c, id);
		free(id);
		free(pane);
	}

	/* 11: burst read: git log -5 --stat printed at once. */
	memset(&a, 0, sizeof a);
	a.c = &c;
	gitv[2] = "set -e; cd \"$1\"; git init -q repo; cd repo\n"
	    "for i in 1 2 3 4 5 6; do\n"
	    "  for f in a b c d; do seq 1 $((i * 7)) > \"$f$i.txt\"; done\n"
	    "  git add .\n"
	    "  git -c user.name=T -c user.email=t@example.org commit -q "
	    "-m \"commit $i with a longer subject line\"\n"
	    "done\n";
	gitv[4] = c.dir;
	free(pmx_run_capture(gitv, &st));
	xasprintf(&path, "%s/repo", c.dir);
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
	memset(&a, 0, sizeof a);
	a.c = &c;
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
		bc_stop(&c, id);
		free(id);
		free(pane);
	}
	buf_reset(&all);

	/* 13: big output streamed: seq 1 200000 read while it runs. */
	memset(&a, 0, sizeof a);
	a.c = &c;
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

/* Is this group of figures wanted? BENCH_ONLY=latency,throughput,... */
static bool
bench_wanted(const char *group)
{
	const char	*only = getenv("BENCH_ONLY");

	return (only == NULL || *only == '\0' || strstr(only, group) != NULL);
}

/*
 * The helper the wake figure starts: sleep, print the time, and stay a
 * while (stop_program ends it), so the read wakes on a lone line and not
 * on the program's end.
 */
static int
stamp_main(const char *ms)
{
	char	line[32];
	int	n;

	sleep_ms(atoi(ms));
	n = snprintf(line, sizeof line, "%lld\n", (long long)realtime_ns());
	if (write(1, line, (size_t)n) != n)
		return (1);
	sleep_ms(2000);
	return (0);
}

/* Run every figure; print the table; write the JSON. */
int
main(int argc, char **argv)
{
	const char	*strip_json = NULL, *json_out = "build/bench.json";
	char		*tmuxv, *commit, nproc[16];
	cpu_set_t	 cpus;
	int64_t		 t0;
	double		 secs;
	int		 i;

	if (argc == 3 && strcmp(argv[1], "--stamp") == 0)
		return (stamp_main(argv[2]));
	smoke = getenv("BENCH_SMOKE") != NULL &&
	    strcmp(getenv("BENCH_SMOKE"), "0") != 0;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--smoke") == 0)
			smoke = true;
		else if (strcmp(argv[i], "--strip-json") == 0 && i + 1 < argc)
			strip_json = argv[++i];
		else if (strcmp(argv[i], "--json-out") == 0 && i + 1 < argc)
			json_out = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--smoke] [--strip-json "
			    "FILE] [--json-out FILE]\n", argv[0]);
			return (2);
		}
	}
	sz = smoke ? smoke_sizes : full_sizes;
	if (getenv("BENCH_RUNS") != NULL && atoi(getenv("BENCH_RUNS")) > 0)
		sz.runs = sz.cold_runs = atoi(getenv("BENCH_RUNS"));
	if (getenv("BENCH_TP_RUNS") != NULL &&
	    atoi(getenv("BENCH_TP_RUNS")) > 0)
		sz.tp_runs = atoi(getenv("BENCH_TP_RUNS"));
	if (realpath("/proc/self/exe", self_exe) == NULL) {
		fprintf(stderr, "bench: cannot find my own path\n");
		return (1);
	}
	if (access("build/progmux", X_OK) == -1) {
		fprintf(stderr, "bench: run from the repository root after "
		    "`make all`\n");
		return (1);
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, bench_signal);
	signal(SIGTERM, bench_signal);
	signal(SIGHUP, bench_signal);
	unsetenv("TMUX");

	t0 = now_us();
	if (bench_wanted("latency"))
		bench_latency();
	if (bench_wanted("throughput"))
		bench_throughput();
	if (bench_wanted("memory"))
		bench_front_rss();
	if (bench_wanted("scale"))
		bench_scale();
	if (bench_wanted("agent"))
		bench_agent();
	bench_strip_figures(strip_json);
	secs = (double)(now_us() - t0) / 1e6;

	CPU_ZERO(&cpus);
	snprintf(nproc, sizeof nproc, "%d",
	    sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) :
	    (int)sysconf(_SC_NPROCESSORS_ONLN));
	tmuxv = cmd_line("tmux -V 2>/dev/null");
	if (strncmp(tmuxv, "tmux ", 5) == 0)
		memmove(tmuxv, tmuxv + 5, strlen(tmuxv + 5) + 1);
	commit = cmd_line("git rev-parse HEAD 2>/dev/null");
	print_table(nproc, tmuxv, commit);
	printf("\n%s took %.1f s; JSON in %s\n", smoke ? "bench-smoke" :
	    "bench", secs, json_out);
	if (write_json(json_out, nproc, tmuxv, commit, secs) == -1) {
		fprintf(stderr, "bench: cannot write %s\n", json_out);
		broke = true;
	}
	free(tmuxv);
	free(commit);
	return (broke ? 1 : 0);
}
