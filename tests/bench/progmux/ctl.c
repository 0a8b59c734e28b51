/*
 * ctl.c — the baselines' side: a persistent control-mode client (tmux -C
 * attach) standing for tmux at its fastest, the processes read from
 * /proc, and the check that seq's output came whole and in order.
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

static bool		 ctl_quiet;		/* a failure is not reported */
static bool		 ctl_exit;		/* tmux said "server exited" */

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
int
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
void
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
int
bench_open_ctl(struct pmx *c, struct ctl *t)
{
	const char	*why;
	char		*out;
	int		 try;

	for (try = 0; try < 3; try++) {
		ctl_exit = false;
		if (pmx_prepare(c) == -1)
			break;
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
int
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
		if (pmx_ppid(pid) == front && proc_is_reaper(pid))
			out[n++] = pid;
	}
	closedir(d);
	return (n);
}

/* Feed a piece of text to the check. */
void
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
bool
seq_done(struct seqcheck *s, long n)
{
	return (!s->bad && s->digits == 0 && s->next == n + 1);
}
