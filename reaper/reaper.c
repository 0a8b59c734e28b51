/*
 * reaper.c — watch one program for the front.
 *
 * The reaper owns what must outlive any single request: the pane's output
 * FIFO (fed by `tmux pipe-pane -O`), the program's lifetime deadline, and
 * the launcher's control FIFO. It turns the pane's bytes into text as they
 * come (strip.c) and streams them to the front in "text" frames, watches
 * the bytes for the launcher's end marker (proto.h), and reports how the
 * program ended in one "end" frame after the last text.
 *
 * It is a small state machine driven by one poll loop: events are frames
 * from the front, FIFO data or EOF, the launcher's exit (a pidfd), the
 * deadline, and signals. If the front goes away (EOF on fd 3), the reaper
 * ends its program and removes its pane at once and exits: nothing
 * outlives the front. If the launcher goes before the program's end was
 * read (killed, say), the program it would have ended is ended here: its
 * process group and the rest of the pane's session get SIGTERM, and
 * SIGKILL after the grace. The last process of a progmux instance to go
 * (front or reaper) removes its runtime directory (rundir.h).
 *
 * Memory is bounded whatever the output: fixed read and strip buffers, a
 * send queue that stops FIFO reads while it is full (tmux then holds the
 * rest), and past the text ceiling bytes are read (for the end marker)
 * and dropped unstripped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "proto.h"
#include "reaper.h"
#include "rundir.h"
#include "strip.h"
#include "timeutil.h"
#include "xmalloc.h"

#define REAPER_READ_CHUNK	(32u * 1024)
#define REAPER_STRIP_CHUNK	(8u * 1024)	/* stripped at a time */
#define REAPER_QUEUE_MAX	(128u * 1024)	/* stop reading the FIFO past it */
#define REAPER_FALLBACK_MS	3000		/* after grace, give up waiting */
#define REAPER_CHECK_MS		50		/* is what was left still there? */
#define REAPER_KILL_PANE_MS	5000		/* tmux kill-pane, at most */
#define REAPER_TMUX_GONE_MS	2000		/* our tmux server exiting */

enum reaper_state {
	R_INIT,		/* waiting for "start" */
	R_WAIT_PANE,	/* FIFOs made, waiting for "pane" */
	R_RUNNING,	/* the program runs */
	R_ENDING,	/* asked to end (lifetime or stop); waiting for marker */
	R_HELD,		/* ended, reported; pane kept until lifetime or quit */
	R_DONE
};

/* What the reaper itself does to a program whose launcher is gone. */
enum reaper_group {
	G_NONE,		/* nothing: the launcher ends the program */
	G_TERM,		/* SIGTERM sent; SIGKILL at group_deadline */
	G_KILLED	/* SIGKILL sent, or nothing was left */
};

static struct {
	enum reaper_state state;
	const char	*end_reason;	/* END_EXPIRED or END_STOPPED */

	int		 sock;
	struct buf	 sock_in;
	struct buf	 sock_out;
	int		 sigfd;

	char		*id;
	char		**argv;
	size_t		 argc;
	char		*dir;
	int64_t		 width, height;
	bool		 keep_pane;
	int64_t		 max_text;
	char		**tmux;		/* tmux binary and socket arguments */
	char		*out_path;
	char		*ctl_path;
	char		*pane;
	pid_t		 pane_pid;	/* the launcher (its session's id) */
	pid_t		 prog_pid;	/* the program (its group), once run */
	int		 launcher_fd;	/* pidfd of the launcher, or -1 */
	bool		 launcher_gone;
	enum reaper_group group;
	int64_t		 group_deadline;
	int64_t		 group_check;

	int		 lock_fd;	/* the runtime directory's lock */
	char		*rundir;

	int		 out_fd;	/* the FIFO pipe-pane writes */
	int		 err_fd;	/* separate standard error, or -1 */
	char		*err_path;
	struct strip	 errstrip;
	int64_t		 err_sent;
	char		*input;		/* run_program's input, or NULL */
	size_t		 input_len;
	bool		 has_input;
	int		 ctl_fd;	/* the launcher's control FIFO */
	struct buf	 ctl_out;

	int64_t		 lifetime_deadline;
	int64_t		 fallback_deadline;

	char		 nonce[MARKER_NONCE_LEN + 1];
	char		 prefix[sizeof MARKER_PREFIX + MARKER_NONCE_LEN + 2];
	size_t		 prefix_len;
	size_t		 mpos;		/* bytes of the marker matched */
	char		 mbody[MARKER_MAX];
	size_t		 mbody_len;
	bool		 in_body;

	struct strip	 strip;
	struct buf	 pending;	/* text not yet framed (reaper_flush_text) */
	int64_t		 text_sent;
	bool		 cut;
} r;

static char	read_buf[REAPER_READ_CHUNK];
static char	strip_buf[STRIP_MAX_OUT(REAPER_STRIP_CHUNK)];

static void	reaper_cleanup_exit(bool front_gone) __attribute__((noreturn));

/* Frame the pending text for the front, PROTO_TEXT_CHUNK at most each. */
static void
reaper_flush_text(void)
{
	struct msg_out	m;
	size_t		off, n;

	for (off = 0; off < r.pending.len; off += n) {
		n = r.pending.len - off;
		if (n > PROTO_TEXT_CHUNK)
			n = PROTO_TEXT_CHUNK;
		msg_begin(&m, MSG_TEXT, 1);
		msg_bin(&m, "b", r.pending.data + off, n);
		msg_end(&m, &r.sock_out);
	}
	buf_reset(&r.pending);
}

/*
 * Clean text for the front, up to the ceiling (then only cut). It is
 * gathered and framed once per read from the FIFO (or a chunk's worth),
 * not once per run of text between escape sequences.
 */
static void
reaper_send_text(const char *p, size_t len)
{
	if (len == 0)
		return;
	if (r.text_sent >= r.max_text) {
		r.cut = true;
		return;
	}
	buf_add(&r.pending, p, len);
	r.text_sent += (int64_t)len;
	if (r.pending.len >= PROTO_TEXT_CHUNK)
		reaper_flush_text();
}

/* Standard error, stripped on its own, goes as "errtext". */
static void
reaper_send_errtext(const char *p, size_t len)
{
	struct msg_out	m;
	size_t		n;

	while (len > 0 && r.err_sent < r.max_text) {
		n = len > PROTO_TEXT_CHUNK ? PROTO_TEXT_CHUNK : len;
		msg_begin(&m, MSG_ERRTEXT, 1);
		msg_bin(&m, "b", p, n);
		msg_end(&m, &r.sock_out);
		r.err_sent += (int64_t)n;
		p += n;
		len -= n;
	}
}

/* Read what standard error has; at the end (drain) until EOF. */
static void
reaper_read_err(bool drain)
{
	ssize_t	n;
	size_t	k;
	int	rounds = 0;

	while (r.err_fd != -1 && (drain || rounds++ < 8) &&
	    (drain || r.sock_out.len < REAPER_QUEUE_MAX)) {
		n = read(r.err_fd, read_buf, sizeof read_buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN && !drain)
			return;
		if (n <= 0) {
			/* EOF: every writer is gone (or a drain found none
			 * left); the last bytes decide held CRs. */
			k = strip_finish(&r.errstrip, strip_buf);
			reaper_send_errtext(strip_buf, k);
			close(r.err_fd);
			r.err_fd = -1;
			return;
		}
		for (size_t off = 0; off < (size_t)n; off += REAPER_STRIP_CHUNK) {
			size_t piece = (size_t)n - off < REAPER_STRIP_CHUNK ?
			    (size_t)n - off : REAPER_STRIP_CHUNK;

			k = strip_feed(&r.errstrip, read_buf + off, piece,
			    strip_buf);
			reaper_send_errtext(strip_buf, k);
		}
	}
}

/* Strip raw pane bytes into text and queue it, a small piece at a time
 * so the output buffer stays small (text can be 3 times the bytes). */
static void
reaper_feed(const char *p, size_t len)
{
	size_t	n, k;

	if (len > 0 && r.text_sent >= r.max_text) {
		r.cut = true;		/* past the ceiling: not even stripped */
		return;
	}
	while (len > 0) {
		k = len > REAPER_STRIP_CHUNK ? REAPER_STRIP_CHUNK : len;
		n = strip_feed(&r.strip, p, k, strip_buf);
		reaper_send_text(strip_buf, n);
		p += k;
		len -= k;
	}
}

static void
reaper_send_ctl(const char *type, int64_t grace)
{
	struct msg_out	m;

	if (r.ctl_fd == -1)
		return;
	if (strcmp(type, MSG_TERM) == 0) {
		msg_begin(&m, type, 1);
		msg_int(&m, "grace_ms", grace);
	} else
		msg_begin(&m, type, 0);
	msg_end(&m, &r.ctl_out);
	if (fd_flush(r.ctl_fd, &r.ctl_out) == -1)
		buf_reset(&r.ctl_out);
}

/* Report the end to the front, after the last text. */
static void
reaper_send_end(const char *how, int64_t status, int64_t sig, bool lost_end,
    const char *why)
{
	struct msg_out	m;
	char		tail[16];
	size_t		n;

	n = strip_finish(&r.strip, tail);
	reaper_send_text(tail, n);
	reaper_flush_text();	/* all text goes before the end */
	reaper_read_err(true);

	msg_begin(&m, MSG_END, 6);
	msg_str(&m, "how", how);
	if (status >= 0)
		msg_int(&m, "status", status);
	else
		msg_nil(&m, "status");
	if (sig > 0)
		msg_int(&m, "signal", sig);
	else
		msg_nil(&m, "signal");
	msg_bool(&m, "lost_end", lost_end);
	msg_bool(&m, "cut", r.cut);
	msg_str(&m, "why", why);
	msg_end(&m, &r.sock_out);
	log_debug("%s: %s status %lld signal %lld", r.id, how,
	    (long long)status, (long long)sig);
}

/*
 * The marker's body is "kind;value": "run" when the program has started,
 * else its end, all read.
 */
static void
reaper_marker(void)
{
	struct msg_out	 m;
	const char	*how = END_COMPLETED;
	int64_t		 status = -1, sig = -1;
	char		*semi, *end;
	long		 v;

	r.mbody[r.mbody_len] = '\0';
	if (strncmp(r.mbody, MARKER_RUN ";", 4) == 0) {
		/* Not the end: the program was started, in a process group
		 * of its own whose id is its pid. */
		r.prog_pid = (pid_t)strtol(r.mbody + 4, NULL, 10);
		msg_begin(&m, MSG_LAUNCHED, 0);
		msg_end(&m, &r.sock_out);
		return;
	}
	if ((semi = strchr(r.mbody, ';')) != NULL) {
		*semi = '\0';
		v = strtol(semi + 1, &end, 10);
		if (strcmp(r.mbody, MARKER_EXIT) == 0)
			status = v;
		else if (strcmp(r.mbody, MARKER_SIGNAL) == 0)
			sig = v;
		else if (strcmp(r.mbody, MARKER_NOEXEC) == 0) {
			status = v;
			how = END_NOT_STARTED;
		}
	}
	if (r.state == R_ENDING && strcmp(how, END_NOT_STARTED) != 0)
		how = r.end_reason;
	reaper_send_end(how, status, sig, false, NULL);
	if (r.keep_pane && r.lifetime_deadline > now_ms()) {
		r.state = R_HELD;
		r.fallback_deadline = DEADLINE_NONE;
		return;
	}
	reaper_send_ctl(MSG_EXIT, 0);
	r.state = R_DONE;
}

/*
 * Scan raw bytes for the end marker; everything else is text. The marker
 * starts with ESC, which appears nowhere else in it, so a failed partial
 * match only needs its held bytes replayed as text.
 */
static void
reaper_scan(const char *p, size_t len)
{
	const char	*esc;
	size_t		 i = 0, run;
	char		 c;

	while (i < len && r.state != R_HELD && r.state != R_DONE) {
		if (r.in_body) {
			c = p[i++];
			if (c == '\007') {
				r.in_body = false;
				reaper_marker();
			} else if (r.mbody_len < sizeof r.mbody - 1)
				r.mbody[r.mbody_len++] = c;
			continue;
		}
		if (r.mpos == 0) {
			esc = memchr(p + i, '\033', len - i);
			run = esc == NULL ? len - i : (size_t)(esc - (p + i));
			reaper_feed(p + i, run);
			i += run;
			if (esc == NULL)
				break;
		}
		c = p[i];
		if (c == r.prefix[r.mpos]) {
			i++;
			if (++r.mpos == r.prefix_len) {
				r.mpos = 0;
				r.in_body = true;
				r.mbody_len = 0;
			}
			continue;
		}
		/* Not the marker: replay what was held, retry this byte. */
		reaper_feed(r.prefix, r.mpos);
		r.mpos = 0;
		if (c != '\033') {
			reaper_feed(&c, 1);
			i++;
		}
	}
}

/*
 * Send sig (0: only count) to what a gone launcher left of its program:
 * the program's process group and every other process of the pane's
 * session (background jobs the launcher would have ended). Neither id
 * can be reused while a process still carries it. Zombies do not count.
 * Returns how many processes there were.
 */
static int
reaper_signal_left(int sig)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64], line[512], *p, state;
	int		 ppid, pgrp, sess, n = 0, fd;
	ssize_t		 len;
	pid_t		 pid, self = getpid();

	if (r.prog_pid <= 0 && r.pane_pid <= 0)
		return (0);
	if (r.prog_pid > 0 && sig != 0) {
		kill(-r.prog_pid, sig);
		if (sig == SIGTERM)
			kill(-r.prog_pid, SIGCONT);
	}
	if ((d = opendir("/proc")) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		if ((pid = (pid_t)atoi(de->d_name)) <= 0 || pid == self)
			continue;
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = read(fd, line, sizeof line - 1);
		close(fd);
		if (len <= 0)
			continue;
		line[len] = '\0';
		/* "pid (comm) state ppid pgrp session ...": comm may hold
		 * anything, so parse from its last ')'. */
		if ((p = strrchr(line, ')')) == NULL ||
		    sscanf(p + 1, " %c %d %d %d", &state, &ppid, &pgrp,
		    &sess) != 4 || state == 'Z')
			continue;
		if ((r.prog_pid > 0 && pgrp == r.prog_pid) ||
		    (r.pane_pid > 0 && sess == r.pane_pid)) {
			n++;
			if (sig != 0)
				kill(pid, sig);
			if (sig == SIGTERM)
				kill(pid, SIGCONT);
		}
	}
	closedir(d);
	return (n);
}

/*
 * The launcher is gone (or its pane is) before the program's end was
 * read: nobody else will end the program, so we do, as the launcher
 * would have: SIGTERM now, SIGKILL after the grace.
 */
static void
reaper_orphaned(void)
{
	if (r.group != G_NONE)
		return;
	log_debug("%s: launcher gone; ending what it left", r.id);
	r.group = G_TERM;
	r.group_deadline = now_ms() + PROTO_GRACE_MS;
	r.group_check = now_ms() + REAPER_CHECK_MS;
	if (reaper_signal_left(SIGTERM) == 0)
		r.group = G_KILLED;	/* nothing was left */
}

/* The group's grace: SIGKILL at its end, or done once nothing is left. */
static void
reaper_group_deadline(int64_t now)
{
	if (r.group != G_TERM)
		return;
	if (now >= r.group_deadline) {
		reaper_signal_left(SIGKILL);
		r.group = G_KILLED;
	} else if (now >= r.group_check) {
		if (reaper_signal_left(0) == 0)
			r.group = G_KILLED;
		r.group_check = now + REAPER_CHECK_MS;
	}
}

/* The launcher's pidfd is readable: it has exited. */
static void
reaper_launcher_exited(void)
{
	close(r.launcher_fd);
	r.launcher_fd = -1;
	r.launcher_gone = true;
	if (r.state != R_RUNNING && r.state != R_ENDING)
		return;
	reaper_orphaned();
	/* Its pane's stream should end now (EOF on the FIFO); if a pane
	 * that stays (remain-on-exit) keeps it open, give up in time. */
	if (r.state == R_RUNNING) {
		r.end_reason = END_GONE;
		r.state = R_ENDING;
		r.fallback_deadline = now_ms() + PROTO_GRACE_MS +
		    REAPER_FALLBACK_MS;
	}
}

/* Drain the FIFO (bounded per wakeup); EOF means the pane is gone. */
static void
reaper_read_fifo(void)
{
	ssize_t	n;
	int	rounds = 0;

	while (r.out_fd != -1 && rounds++ < 8 &&
	    r.sock_out.len < REAPER_QUEUE_MAX) {
		n = read(r.out_fd, read_buf, sizeof read_buf);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			log_warn("%s: reading %s: %s", r.id, r.out_path,
			    strerror(errno));
			n = 0;
		}
		if (n == 0) {
			close(r.out_fd);
			r.out_fd = -1;
			if (r.state == R_RUNNING || r.state == R_ENDING) {
				/* The pane went before the end marker came. */
				if (r.mpos > 0)
					reaper_feed(r.prefix, r.mpos);
				r.mpos = 0;
				reaper_orphaned();
				reaper_send_end(r.state == R_ENDING ?
				    r.end_reason : END_GONE, -1, -1, true,
				    "the pane was closed before the program's "
				    "end was read");
				r.state = R_DONE;
			} else if (r.state == R_HELD)
				r.state = R_DONE;	/* kept pane removed */
			return;
		}
		log_debug("%s: %zd bytes from the pane", r.id, n);
		if (r.state == R_RUNNING || r.state == R_ENDING) {
			reaper_scan(read_buf, (size_t)n);
			reaper_flush_text();
		}
	}
}

static void
reaper_fail(const char *why)
{
	struct msg_out	m;

	msg_begin(&m, MSG_FAIL, 1);
	msg_str(&m, "why", why);
	msg_end(&m, &r.sock_out);
	r.state = R_DONE;
}

/* "start": keep the program's particulars and open its FIFOs. */
static void
reaper_on_start(struct msg *m)
{
	unsigned char	 rnd[MARKER_NONCE_LEN / 2];
	char		*cause = NULL;
	int64_t		 lifetime = 0;
	size_t		 i;

	r.id = msg_dup_str(m, "id");
	r.argv = msg_dup_strv(m, "argv", &r.argc);
	r.dir = msg_dup_str(m, "dir");
	r.tmux = msg_dup_strv(m, "tmux", NULL);
	if (!msg_get_int(m, "width", &r.width))
		r.width = 0;
	if (!msg_get_int(m, "height", &r.height))
		r.height = 0;
	if (!msg_get_int(m, "max_text", &r.max_text))
		r.max_text = INT64_MAX;
	msg_get_int(m, "lifetime_ms", &lifetime);
	r.keep_pane = msg_get_bool(m, "keep_pane");
	{
		const char	*in;
		size_t		 inlen;

		if ((in = msg_get_bytes(m, "input", &inlen)) != NULL) {
			r.input = xmemdup(in, inlen);
			r.input_len = inlen;
			r.has_input = true;
		}
	}
	if (r.id == NULL || r.argv == NULL || r.argc == 0 ||
	    r.tmux == NULL || lifetime <= 0) {
		reaper_fail("start frame lacks a field");
		return;
	}
	r.lifetime_deadline = now_ms() + lifetime;

	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		reaper_fail("getrandom failed");
		return;
	}
	for (i = 0; i < sizeof rnd; i++)
		snprintf(r.nonce + 2 * i, 3, "%02x", rnd[i]);
	r.prefix_len = (size_t)snprintf(r.prefix, sizeof r.prefix, "%s%s;",
	    MARKER_PREFIX, r.nonce);

	/* The front made the FIFOs; we own them from here. */
	r.out_path = msg_dup_str(m, "out");
	r.ctl_path = msg_dup_str(m, "ctl");
	r.err_path = msg_dup_str(m, "err");
	if (r.out_path == NULL || r.ctl_path == NULL) {
		reaper_fail("start frame lacks the FIFO paths");
		return;
	}
	/*
	 * The output FIFO's read end came from the front as fd 4 (it has
	 * been open since the FIFO was made, so pipe-pane's writer never
	 * found it without a reader). The control FIFO is opened read-write
	 * so the launcher's open never blocks and its reads see EOF only
	 * when we are gone.
	 */
	if (r.out_fd == -1)
		r.out_fd = open(r.out_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	r.ctl_fd = open(r.ctl_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (r.err_path != NULL)
		r.err_fd = open(r.err_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r.out_fd == -1 || r.ctl_fd == -1 ||
	    (r.err_path != NULL && r.err_fd == -1)) {
		xasprintf(&cause, "cannot open FIFOs in the runtime "
		    "directory: %s", strerror(errno));
		reaper_fail(cause);
		free(cause);
		return;
	}
	r.state = R_WAIT_PANE;
}

/* "pane": pipe-pane is attached; open the gate with the spec. */
static void
reaper_on_pane(struct msg *m)
{
	struct msg_out	m2;
	int64_t		pid = 0;

	free(r.pane);
	r.pane = msg_dup_str(m, "pane");
	msg_get_int(m, "pid", &pid);
	r.pane_pid = (pid_t)pid;
	/* Watch the launcher: if it is killed, its program is ours to end.
	 * (Gone already: the same, found at once.) */
	if (r.pane_pid > 0 && r.launcher_fd == -1) {
		r.launcher_fd = (int)syscall(SYS_pidfd_open, r.pane_pid, 0);
		if (r.launcher_fd == -1 && errno == ESRCH)
			r.launcher_gone = true;
	}

	msg_begin(&m2, MSG_SPEC, 8);
	if (r.has_input)
		msg_bin(&m2, "input", r.input, r.input_len);
	else
		msg_nil(&m2, "input");
	msg_str(&m2, "err", r.err_path);
	free(r.input);
	r.input = NULL;
	msg_strv(&m2, "argv", r.argv, r.argc);
	msg_str(&m2, "dir", r.dir);
	msg_str(&m2, "nonce", r.nonce);
	msg_int(&m2, "width", r.width);
	msg_int(&m2, "height", r.height);
	msg_bool(&m2, "keep", r.keep_pane);
	msg_end(&m2, &r.ctl_out);
	if (fd_flush(r.ctl_fd, &r.ctl_out) == -1) {
		reaper_fail("cannot write to the launcher's control FIFO");
		return;
	}
	r.state = R_RUNNING;
}

/* Ask the launcher to end the program: SIGTERM, SIGKILL after grace. */
static void
reaper_end_program(const char *reason, int64_t grace)
{
	if (r.state == R_HELD) {
		reaper_send_ctl(MSG_EXIT, 0);
		r.state = R_DONE;
		return;
	}
	if (r.state != R_RUNNING)
		return;
	r.end_reason = reason;
	r.state = R_ENDING;
	reaper_send_ctl(MSG_TERM, grace);
	r.fallback_deadline = now_ms() + grace + REAPER_FALLBACK_MS;
}

static void
reaper_on_frame(struct msg *m)
{
	int64_t	grace = PROTO_GRACE_MS;

	if (msg_is(m, MSG_START) && r.state == R_INIT)
		reaper_on_start(m);
	else if (msg_is(m, MSG_PANE) && r.state == R_WAIT_PANE)
		reaper_on_pane(m);
	else if (msg_is(m, MSG_STOP)) {
		msg_get_int(m, "grace_ms", &grace);
		if (r.state == R_WAIT_PANE || r.state == R_INIT) {
			reaper_send_end(END_STOPPED, -1, -1, false, NULL);
			r.state = R_DONE;
		} else
			reaper_end_program(END_STOPPED, grace);
	} else if (msg_is(m, MSG_QUIT))
		reaper_cleanup_exit(false);
	else if (msg_is(m, MSG_PANE) && r.state == R_DONE)
		;	/* stopped before its pane was ready: nothing to start */
	else
		log_warn("%s: unexpected frame \"%s\"", r.id ? r.id : "?",
		    m->type);
}

/* Does tmux's complaint say the pane (or its server) is gone already,
 * which is what kill-pane was for? */
static bool
reaper_pane_already_gone(const char *err)
{
	return (strstr(err, "can't find pane") != NULL ||
	    strstr(err, "no current target") != NULL ||
	    strstr(err, "no server running") != NULL ||
	    strstr(err, "error connecting to") != NULL);
}

/*
 * With the front gone nobody else will remove the pane: run `tmux
 * kill-pane` and wait for it (bounded: we are on our way out). A pane
 * already gone is no error; anything else tmux says is passed on.
 */
static void
reaper_kill_pane(void)
{
	struct pollfd	 pfd;
	sigset_t	 none;
	char		**argv, err[1024];
	size_t		 n, i, len = 0;
	ssize_t		 k;
	int		 fds[2], null;
	int64_t		 deadline = now_ms() + REAPER_KILL_PANE_MS;
	pid_t		 pid;

	for (n = 0; r.tmux[n] != NULL; n++)
		;
	argv = xcalloc(n + 4, sizeof *argv);
	for (i = 0; i < n; i++)
		argv[i] = r.tmux[i];
	argv[n] = (char *)"kill-pane";
	argv[n + 1] = (char *)"-t";
	argv[n + 2] = r.pane;
	if (pipe2(fds, O_CLOEXEC) == -1) {
		free(argv);
		return;
	}
	if ((pid = fork()) == 0) {
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if ((null = open("/dev/null", O_RDWR)) != -1) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(fds[1], STDERR_FILENO);
		fd_closefrom(STDERR_FILENO + 1, -1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	free(argv);
	if (pid == -1) {
		close(fds[0]);
		return;
	}
	for (;;) {
		pfd = (struct pollfd){ fds[0], POLLIN, 0 };
		if (poll(&pfd, 1, poll_timeout(deadline)) <= 0)
			break;
		k = read(fds[0], err + len, sizeof err - 1 - len);
		if (k == -1 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if ((len += (size_t)k) == sizeof err - 1)
			break;
	}
	close(fds[0]);
	err[len] = '\0';
	if (waitpid(pid, NULL, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (len > 0 && !reaper_pane_already_gone(err))
		log_warn("%s: tmux kill-pane -t %s: %.*s", r.id ? r.id : "?",
		    r.pane, (int)strcspn(err, "\n"), err);
}

/*
 * The end of the reaper. The launcher is told to kill the program (or,
 * if it is gone, what it left is killed here). With the front gone
 * nobody else will remove the pane, so we do; closing the control FIFO
 * makes the launcher end the program first. Last, our hold on the
 * runtime directory's lock goes, and if we were the last of our
 * instance, the directory with it.
 */
static void
reaper_cleanup_exit(bool front_gone)
{
	if (r.ctl_fd != -1 && (r.state == R_RUNNING || r.state == R_ENDING))
		reaper_send_ctl(MSG_KILL, 0);
	if (r.group == G_TERM || (r.launcher_gone &&
	    (r.state == R_RUNNING || r.state == R_ENDING)))
		reaper_signal_left(SIGKILL);
	if (r.out_path != NULL)
		unlink(r.out_path);
	if (r.ctl_path != NULL)
		unlink(r.ctl_path);
	if (r.err_path != NULL)
		unlink(r.err_path);
	if (r.ctl_fd != -1) {
		close(r.ctl_fd);
		r.ctl_fd = -1;
	}
	if (front_gone && r.pane != NULL && r.tmux != NULL)
		reaper_kill_pane();
	if (r.lock_fd != -1) {
		close(r.lock_fd);
		r.lock_fd = -1;
		if (r.rundir != NULL)
			rundir_remove_path(r.rundir, REAPER_TMUX_GONE_MS);
	}
	_exit(0);
}

static void
reaper_read_sock(void)
{
	struct msg	 m;
	char		*cause = NULL;
	ssize_t		 n;
	int		 ret;

	n = fd_read_into(r.sock, &r.sock_in, 64 * 1024);
	if (n == 0 || (n == -1 && errno != EAGAIN))
		reaper_cleanup_exit(true);
	while ((ret = frame_take(&r.sock_in, &m, &cause)) == 1) {
		reaper_on_frame(&m);
		msg_free(&m);
	}
	if (ret == -1) {
		log_warn("bad frame from the front: %s", cause);
		free(cause);
		reaper_cleanup_exit(true);
	}
}

static void
reaper_on_deadline(void)
{
	int64_t	now = now_ms();

	if (now >= r.lifetime_deadline &&
	    (r.state == R_RUNNING || r.state == R_HELD))
		reaper_end_program(END_EXPIRED, PROTO_GRACE_MS);
	else if (now >= r.lifetime_deadline && r.state == R_WAIT_PANE) {
		reaper_send_end(END_EXPIRED, -1, -1, false, NULL);
		r.state = R_DONE;
	}
	if (r.state == R_ENDING && now >= r.fallback_deadline &&
	    r.launcher_gone) {
		/* Its pane stays (remain-on-exit), so no EOF comes. */
		reaper_signal_left(SIGKILL);
		r.group = G_KILLED;
		reaper_send_end(r.end_reason, -1, -1, true, "the program's "
		    "launcher went away before its end was read; what it "
		    "left was ended");
		r.state = R_DONE;
	} else if (r.state == R_ENDING && now >= r.fallback_deadline) {
		/* The launcher did not answer: kill the program's group
		 * (it is not the launcher's) and the launcher. */
		if (r.prog_pid > 0)
			kill(-r.prog_pid, SIGKILL);
		if (r.pane_pid > 0)
			kill(r.pane_pid, SIGKILL);
		reaper_send_end(r.end_reason, -1, SIGKILL, true,
		    "the launcher did not report the program's end");
		r.state = R_DONE;
	}
	reaper_group_deadline(now);
}

static int64_t
reaper_deadline(void)
{
	int64_t	d = DEADLINE_NONE;

	if (r.state == R_RUNNING || r.state == R_HELD ||
	    r.state == R_WAIT_PANE)
		d = r.lifetime_deadline;
	if (r.state == R_ENDING)
		d = r.fallback_deadline;
	if (r.group == G_TERM && r.group_check < d)
		d = r.group_check < r.group_deadline ? r.group_check :
		    r.group_deadline;
	return (d);
}

/* The runtime directory: where our lock file is. */
static void
reaper_find_rundir(void)
{
	char	path[PATH_MAX], *slash;
	ssize_t	n;

	n = readlink("/proc/self/fd/" PROTO_STR(PROTO_LOCK_FD), path,
	    sizeof path - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	if ((slash = strrchr(path, '/')) == NULL ||
	    strcmp(slash + 1, RUNDIR_LOCK) != 0)
		return;		/* moved, or "(deleted)" */
	*slash = '\0';
	r.rundir = xstrdup(path);
}

static int
reaper_setup(void)
{
	sigset_t	set;
	struct stat	st;

	memset(&r, 0, sizeof r);
	r.sock = PROTO_REAPER_FD;
	r.out_fd = r.ctl_fd = r.err_fd = r.launcher_fd = r.lock_fd = -1;
	r.fallback_deadline = r.lifetime_deadline = DEADLINE_NONE;
	if (fstat(r.sock, &st) == -1 || !S_ISSOCK(st.st_mode)) {
		log_warn("fd %d is not a socket: this program is started by "
		    "progmux", r.sock);
		return (-1);
	}
	fd_cloexec(r.sock, 1);
	fd_nonblock(r.sock, 1);
	if (fstat(PROTO_OUT_FD, &st) == 0 && S_ISFIFO(st.st_mode)) {
		r.out_fd = PROTO_OUT_FD;	/* see reaper_on_start */
		fd_cloexec(r.out_fd, 1);
		fd_nonblock(r.out_fd, 1);
	}
	if (fstat(PROTO_LOCK_FD, &st) == 0 && S_ISREG(st.st_mode)) {
		/* Held while we live; where it is names the directory. */
		r.lock_fd = PROTO_LOCK_FD;
		fd_cloexec(r.lock_fd, 1);
		reaper_find_rundir();
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	r.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	strip_init(&r.strip);
	strip_init(&r.errstrip);
	return (0);
}

int
reaper_main(void)
{
	struct msg_out	m;
	struct pollfd	pfd[6];
	int		n, i_sock, i_out, i_ctl, i_sig, i_err, i_pid;

	if (reaper_setup() == -1)
		return (2);
	msg_begin(&m, MSG_HELLO, 2);
	msg_int(&m, "v", PROTO_VERSION);
	msg_int(&m, "pid", getpid());
	msg_end(&m, &r.sock_out);

	for (;;) {
		if (fd_flush(r.sock, &r.sock_out) == -1)
			reaper_cleanup_exit(true);
		if (r.state == R_DONE && r.sock_out.len == 0 &&
		    r.group != G_TERM)
			reaper_cleanup_exit(false);
		if (r.ctl_fd != -1 && r.ctl_out.len > 0 &&
		    fd_flush(r.ctl_fd, &r.ctl_out) == -1)
			buf_reset(&r.ctl_out);

		n = 0;
		i_out = i_ctl = i_err = i_pid = -1;
		pfd[i_sock = n++] = (struct pollfd){ r.sock, POLLIN |
		    (r.sock_out.len ? POLLOUT : 0), 0 };
		pfd[i_sig = n++] = (struct pollfd){ r.sigfd, POLLIN, 0 };
		if (r.out_fd != -1 && r.sock_out.len < REAPER_QUEUE_MAX &&
		    r.state != R_WAIT_PANE && r.state != R_INIT)
			pfd[i_out = n++] = (struct pollfd){ r.out_fd, POLLIN,
			    0 };
		if (r.ctl_fd != -1 && r.ctl_out.len > 0)
			pfd[i_ctl = n++] = (struct pollfd){ r.ctl_fd, POLLOUT,
			    0 };
		if (r.err_fd != -1 && r.sock_out.len < REAPER_QUEUE_MAX &&
		    (r.state == R_RUNNING || r.state == R_ENDING))
			pfd[i_err = n++] = (struct pollfd){ r.err_fd, POLLIN,
			    0 };
		if (r.launcher_fd != -1)
			pfd[i_pid = n++] = (struct pollfd){ r.launcher_fd,
			    POLLIN, 0 };
		if (poll(pfd, n, poll_timeout(reaper_deadline())) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("poll: %s", strerror(errno));
			reaper_cleanup_exit(true);
		}
		if (pfd[i_sig].revents & POLLIN) {
			/* Told to go by someone other than the front. */
			reaper_cleanup_exit(true);
		}
		if (pfd[i_sock].revents & (POLLIN | POLLHUP | POLLERR))
			reaper_read_sock();
		if (i_err != -1 && pfd[i_err].revents)
			reaper_read_err(false);
		if (i_out != -1 && pfd[i_out].revents)
			reaper_read_fifo();
		if (i_pid != -1 && pfd[i_pid].revents)
			reaper_launcher_exited();
		reaper_on_deadline();
	}
}
