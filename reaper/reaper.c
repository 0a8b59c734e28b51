/*
 * reaper.c — watch one program for the front.
 *
 * The reaper owns what must outlive any single request: the pane's output
 * FIFO (fed by `tmux pipe-pane -O`), the program's lifetime, the
 * launcher's control FIFO, and the whole of stopping the program. It turns
 * the pane's bytes into text as they come (strip.c), writes them into the
 * program's spool (spool_write.c) and tells the front how far the text
 * goes in "text" frames, scans them for the launcher's markers
 * (marker.h), and reports how the program ended in one "end" frame after
 * the last text.
 *
 * It is a state machine in the manner of s6-supervise: one state, one
 * deadline, and a table (fsm.c) that names for each (state, event) the
 * action below to run and the state that follows, and for each state
 * which descriptors poll watches. One poll loop turns what happens into
 * events: frames from the front, the output FIFO and standard error's
 * FIFO readable, the launcher's exit (a pidfd), the deadline, signals
 * (osdep.h), and the exit of the kill-pane child. No action dispatches
 * an event: what an action finds (EOF, the writer's hello, a marker, a
 * failure) it returns, and the dispatcher runs it next. A read of the
 * output FIFO stops at the first record that yields an event, the rest
 * kept; once that event has run, the loop raises E_FIFO_DATA again and
 * the read goes on where it stopped, before the next poll, so no byte is
 * skipped or reordered and each read's text still goes in one frame.
 *
 * Stopping (stop_program, or the lifetime's end) is ours: SIGTERM and
 * SIGCONT to the program's process group, SIGKILL after the grace, and
 * when the launcher's end marker is read (it ends what the program left
 * behind, being the subreaper of its tree), tmux kill-pane. If no marker
 * comes in time the launcher is killed too. If the launcher or the pane
 * goes first, what is left of the program (its group and the pane's
 * session) is ended here. If the front goes (EOF on fd 3) the program is
 * held for the grace its start frame gave (a lease, lease.c: desktop
 * mode), its text still written into the spool, while a socket in the
 * per-user rendezvous waits for a new front to adopt it; with no grace
 * (robust mode), or none adopting it by the grace's end, everything is
 * killed and the pane removed, as the front's going always did. The
 * lifetime goes on all the while. The last process of a progmux
 * instance to go (front or reaper) removes its runtime directory.
 *
 * Memory is bounded whatever the output: fixed strip buffers, one
 * record's worth of FIFO input, a chunk of text not yet written, and a
 * send queue of news, which waits (PROTO_NEWS_QUEUED) while the front
 * does not read: the text is on disk, not in a queue. The spool keeps
 * the head and the end past the ceiling or on a full file system, and
 * never makes us wait. The FIFO is read however slow the front is, so
 * the pane's writer, and tmux behind it, never wait for us.
 */
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
#include <sys/stat.h>
#include <sys/wait.h>

#include "compat.h"
#include "fdutil.h"
#include "frame.h"
#include "fsm.h"
#include "lease.h"
#include "log.h"
#include "marker.h"
#include "notify.h"
#include "osdep.h"
#include "proto.h"
#include "reaper.h"
#include "record.h"
#include "rundir.h"
#include "cspawn.h"
#include "spool.h"
#include "spool_write.h"
#include "strip.h"
#include "timeutil.h"
#include "xmalloc.h"

#define REAPER_READ_CHUNK	(64u * 1024)
#define REAPER_READ_ROUNDS	8		/* chunks per wakeup, at most */
#define REAPER_ERR_ROUNDS	8		/* standard error's, the same */
#define REAPER_STRIP_CHUNK	(8u * 1024)	/* stripped at a time */
#define REAPER_FALLBACK_MS	3000		/* after SIGKILL, the marker */
#define REAPER_CHECK_MS		50		/* is what was left still there? */
#define REAPER_KILL_PANE_MS	5000		/* tmux kill-pane, at most */
#define REAPER_TMUX_GONE_MS	2000		/* our tmux server exiting */

typedef enum fsm_event (*reaper_action)(enum fsm_event);

static struct {
	enum fsm_state	 state;
	int64_t		 deadline;	/* the one timer; DEADLINE_NONE */
	struct msg	*frame;		/* the frame being dispatched */
	struct marker	 marker;	/* the marker being dispatched */

	int		 sock;		/* the front; -1 once gone */
	struct buf	 sock_in;
	struct buf	 sock_out;
	int		 sigfd;

	char		*id;
	char		**argv;
	size_t		 argc;
	char		*dir;
	int64_t		 width, height;
	bool		 keep_pane;
	bool		 verdict;	/* the launcher gives argv a verdict
					   pipe (inheritShell's script) */
	int64_t		 max_text;
	int64_t		 expires;	/* the lifetime's end */
	char		**tmux;		/* tmux binary and socket arguments */
	char		*pane;
	pid_t		 pane_pid;	/* the launcher (its session's id) */
	pid_t		 prog_pid;	/* the program (its group), once run */
	int		 launcher_fd;	/* pidfd of the launcher, or -1 */
	bool		 launcher_gone;

	const char	*end_reason;	/* END_STOPPED, END_EXPIRED, END_GONE */
	int		 stop_sig;	/* what the group was last sent */
	int64_t		 kill_at;	/* an orphan's leftovers: SIGKILL then */
	bool		 reported;	/* "end" sent */

	pid_t		 kp_pid;	/* the kill-pane child, or -1 */
	int		 kp_err;	/* its standard error */

	int		 lock_fd;	/* the runtime directory's lock */
	char		*rundir;
	char		*rundir_id;	/* its "DEV:INO" */
	char		*text_dir;	/* the runtime directory its spool is
					   in now: ours, or an adopter's */
	char		*text_dir_id;
	int		 text_lock;	/* that one's lock, if not ours */
	struct notify	 notify;	/* the program's NOTIFY_SOCKET */
	char		*status;	/* its last STATUS= */

	int		 out_fd;	/* the FIFO the pane's writer writes */
	struct buf	 out_in;	/* its records, read (record.h) */
	struct record_scan out_scan;
	size_t		 out_off;	/* of the data record being scanned, */
	size_t		 out_left;	/* what is not yet: out_in.data + off */
	int		 out_rounds;	/* reads in this wakeup */
	bool		 out_more;	/* a read stopped at an event: go on */
	uint64_t	 lost;		/* bytes of the pane's the copy lacks */
	int		 err_fd;	/* separate standard error, or -1 */
	char		*err_name;	/* its FIFO, for the launcher */
	bool		 robust;	/* the program must not see our tmux */
	struct strip	 errstrip;
	char		*input;		/* run_program's input, or NULL */
	size_t		 input_len;
	bool		 has_input;
	int		 ctl_fd;	/* the launcher's control FIFO */
	struct buf	 ctl_out;

	char		 nonce[MARKER_NONCE_LEN + 1];
	struct marker_scan scan;

	struct strip	 strip;
	int		 spool_fd;	/* the program's spool directory */
	struct spool_w	 out_w;		/* its text */
	struct spool_w	 err_w;		/* standard error's, apart */
	struct buf	 pending;	/* text not yet written (flush_text) */
	uint64_t	 told[2];	/* the length each stream was told */
	uint64_t	 told_seg[2];	/* and its last segment */
	bool		 news_due;	/* news waits for the queue to drain */
	bool		 forgotten;	/* the front let go of the program */
	uint64_t	 dropped_sent;	/* the strippers' dropped, as told */
	bool		 cut;		/* output was lost (a hole) */

	/* The lease (proto.h): what a new front is told, and the wait. */
	int64_t		 grace_ms;	/* held this long: 0, none */
	char		*lease_dir;	/* the rendezvous, and its id */
	char		*lease_dir_id;
	char		*session;	/* the front's session and tmux */
	char		*server;	/* server: who may adopt it */
	int64_t		 lifetime_ms;
	int64_t		 started_ms;	/* the front's clock of its start */
	int64_t		 started_real;
	int64_t		 shown;		/* argv's first word as asked */
	bool		 separate_stderr;
	bool		 ready;		/* READY=1 came */
	bool		 leased;	/* the front gone: listening */
	int64_t		 lease_end;	/* then ended, unless adopted */
	int64_t		 orphaned;	/* when the front went (wall) */
	struct lease	 lease;
	char		*end_how;	/* the end as reported, or NULL */
	int64_t		 end_status, end_sig;
	bool		 end_lost;
	char		*end_why;
	bool		 end_queued;	/* "end" queued for a front */
	bool		 end_told;	/* and written to it, whole */
} r;

static char	read_buf[REAPER_READ_CHUNK];
static char	strip_buf[STRIP_MAX_OUT(REAPER_STRIP_CHUNK)];

static enum fsm_event reaper_act_quit(enum fsm_event);
static void	reaper_forget(void);

/* News of a stream for the front: how far its text goes, where its
 * last segment begins, what was dropped (dropped: the strippers'). */
static void
reaper_news(const char *type, struct spool_w *w, int i, bool dropped)
{
	struct msg_out	m;
	bool		gap = w->drop.why != SPOOL_WHY_NONE;
	uint64_t	left = r.strip.dropped + r.errstrip.dropped;

	msg_begin(&m, type, 2 + (gap ? 6 : 0) + (dropped ? 1 : 0));
	msg_int(&m, "len", (int64_t)w->len);
	msg_int(&m, "seg", (int64_t)spool_w_seg_start(w));
	if (gap) {
		msg_int(&m, "from", (int64_t)w->drop.from);
		msg_int(&m, "to", (int64_t)w->drop.to);
		msg_int(&m, "lines", (int64_t)w->drop.lines);
		msg_int(&m, "chars", (int64_t)w->drop.chars);
		msg_str(&m, "why", spool_why_name(w->drop.why));
		msg_int(&m, "err", w->drop.err);
	}
	if (dropped) {
		msg_int(&m, "dropped", (int64_t)left);
		r.dropped_sent = left;
	}
	msg_end(&m, &r.sock_out);
	r.told[i] = w->len;
	r.told_seg[i] = spool_w_seg_start(w);
	w->changed = false;
}

/*
 * Write the pending text into the spool, and tell the front what has
 * changed: each stream's length, and the bytes the strippers dropped
 * (sequences never ended, see strip.h). While the front's queue is long
 * (it does not read) a mere length waits until the queue drains (unless
 * force); a new segment or a drop is told at once.
 */
static void
reaper_flush_text(bool force)
{
	struct spool_w	*w[2] = { &r.out_w, &r.err_w };
	const char	*type[2] = { MSG_TEXT, MSG_ERRTEXT };
	uint64_t	 dropped = r.strip.dropped + r.errstrip.dropped;
	bool		 due[2], urgent = false;
	int		 i;

	if (r.pending.len > 0) {
		spool_w_write(&r.out_w, r.pending.data, r.pending.len);
		buf_reset(&r.pending);
	}
	for (i = 0; i < 2; i++) {
		due[i] = w[i]->len != r.told[i] || w[i]->changed;
		urgent = urgent || w[i]->changed ||
		    spool_w_seg_start(w[i]) != r.told_seg[i];
	}
	if (dropped != r.dropped_sent)
		due[0] = urgent = true;
	if (!due[0] && !due[1])
		return;
	if (!force && !urgent && r.sock_out.len > PROTO_NEWS_QUEUED) {
		r.news_due = true;
		return;
	}
	r.news_due = false;
	for (i = 0; i < 2; i++)
		if (due[i])
			reaper_news(type[i], w[i], i, i == 0 &&
			    dropped != r.dropped_sent);
}

/*
 * Clean text, into the spool: gathered and written a chunk at a time,
 * not once per run of text between escape sequences.
 */
static void
reaper_send_text(const char *p, size_t len)
{
	if (len == 0)
		return;
	buf_add(&r.pending, p, len);
	if (r.pending.len >= PROTO_TEXT_CHUNK) {
		spool_w_write(&r.out_w, r.pending.data, r.pending.len);
		buf_reset(&r.pending);
	}
}

/* Standard error, stripped on its own, goes to its own stream. */
static void
reaper_send_errtext(const char *p, size_t len)
{
	spool_w_write(&r.err_w, p, len);
}

/*
 * Read what standard error has (REAPER_ERR_ROUNDS reads at most) and
 * send it; at the end (drain), until nothing is left. E_ERR_EOF: every
 * writer is gone (or a drain found no more).
 */
static enum fsm_event
reaper_read_err(bool drain)
{
	ssize_t	n;
	size_t	k;
	int	rounds = 0;

	while (r.err_fd != -1 && (drain || rounds++ < REAPER_ERR_ROUNDS)) {
		n = read(r.err_fd, read_buf, sizeof read_buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN && !drain)
			return (E_NONE);
		if (n <= 0)
			return (E_ERR_EOF);
		for (size_t off = 0; off < (size_t)n; off += REAPER_STRIP_CHUNK) {
			size_t piece = (size_t)n - off < REAPER_STRIP_CHUNK ?
			    (size_t)n - off : REAPER_STRIP_CHUNK;

			k = strip_feed(&r.errstrip, read_buf + off, piece,
			    strip_buf);
			reaper_send_errtext(strip_buf, k);
		}
	}
	return (E_NONE);
}

/* Standard error has ended: the last bytes decide held CRs; close it. */
static void
reaper_close_err(void)
{
	size_t	k;

	if (r.err_fd == -1)
		return;
	k = strip_finish(&r.errstrip, strip_buf);
	reaper_send_errtext(strip_buf, k);
	close(r.err_fd);
	r.err_fd = -1;
}

/* Strip raw pane bytes into text and queue it, a small piece at a time
 * so the output buffer stays small (text can be 3 times the bytes). */
static void
reaper_feed(const char *p, size_t len)
{
	size_t	n, k;

	while (len > 0) {
		k = len > REAPER_STRIP_CHUNK ? REAPER_STRIP_CHUNK : len;
		n = strip_feed(&r.strip, p, k, strip_buf);
		reaper_send_text(strip_buf, n);
		p += k;
		len -= k;
	}
}

/* The scanner's text callback: everything that is not a marker. */
static void
reaper_text_cb(void *arg, const char *p, size_t len)
{
	(void)arg;
	reaper_feed(p, len);
}

/* Arm the one timer at an absolute time (DEADLINE_NONE: none). */
static void
reaper_settimeout_at(int64_t when)
{
	r.deadline = when;
}

/* Arm the one timer ms from now. */
static void
reaper_settimeout(int64_t ms)
{
	reaper_settimeout_at(now_ms() + ms);
}

/* Tell the launcher something over its control FIFO. */
static void
reaper_send_ctl(const char *type)
{
	struct msg_out	m;

	if (r.ctl_fd == -1)
		return;
	msg_begin(&m, type, 0);
	msg_end(&m, &r.ctl_out);
	if (fd_flush(r.ctl_fd, &r.ctl_out) == -1)
		buf_reset(&r.ctl_out);
}

/* Close the control FIFO: the launcher reads EOF (we are gone). */
static void
reaper_close_ctl(void)
{
	if (r.ctl_fd != -1)
		close(r.ctl_fd);
	r.ctl_fd = -1;
	buf_reset(&r.ctl_out);
}

/* The end, as reported (to the front, or again to a new one). */
static void
reaper_send_end(void)
{
	struct msg_out	m;

	msg_begin(&m, MSG_END, 6);
	msg_str(&m, "how", r.end_how);
	if (r.end_status >= 0)
		msg_int(&m, "status", r.end_status);
	else
		msg_nil(&m, "status");
	if (r.end_sig > 0)
		msg_int(&m, "signal", r.end_sig);
	else
		msg_nil(&m, "signal");
	msg_bool(&m, "lost_end", r.end_lost);
	msg_bool(&m, "cut", r.cut);
	msg_str(&m, "why", r.end_why);
	msg_end(&m, &r.sock_out);
	r.end_queued = r.sock != -1;
}

/* Report the end to the front, once, after the last text. */
static void
reaper_report(const char *how, int64_t status, int64_t sig, bool lost_end,
    const char *why)
{
	char		tail[16];
	size_t		n;

	if (r.reported)
		return;
	r.reported = true;
	marker_scan_flush(&r.scan, reaper_text_cb, NULL);
	n = strip_finish(&r.strip, tail);
	reaper_send_text(tail, n);
	reaper_read_err(true);	/* and all of standard error's */
	reaper_close_err();
	reaper_flush_text(true);	/* all of it told before the end */

	if (why == NULL && r.lost > 0)
		why = "some of the pane's output was lost before progmux could "
		    "read it (the copy stops there)";
	r.end_how = xstrdup(how);
	r.end_status = status;
	r.end_sig = sig;
	r.end_lost = lost_end;
	r.end_why = why != NULL ? xstrdup(why) : NULL;
	reaper_send_end();
	log_debug("%s: %s status %lld signal %lld", r.id, how,
	    (long long)status, (long long)sig);
}

/* Report the end the launcher's marker says; reason overrides "completed". */
static void
reaper_report_marker(const char *reason)
{
	const char	*how = reason != NULL ? reason : END_COMPLETED;
	int64_t		 status = -1, sig = -1;

	switch (r.marker.kind) {
	case MARKER_K_EXIT:
		status = r.marker.value;
		break;
	case MARKER_K_SIGNAL:
		sig = r.marker.value;
		break;
	case MARKER_K_NOEXEC:
		status = r.marker.value;
		how = END_NOT_STARTED;
		break;
	case MARKER_K_RUN:
		break;
	}
	reaper_report(how, status, sig, false, NULL);
}

/* Queue a "fail" frame: this program cannot go on. */
static enum fsm_event
reaper_fail(const char *why)
{
	struct msg_out	m;

	msg_begin(&m, MSG_FAIL, 1);
	msg_str(&m, "why", why);
	msg_end(&m, &r.sock_out);
	return (E_FAIL);
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
	if (r.prog_pid <= 0 && r.pane_pid <= 0)
		return (0);
	if (r.prog_pid > 0 && sig != 0) {
		kill(-r.prog_pid, sig);
		if (sig == SIGTERM)
			kill(-r.prog_pid, SIGCONT);
	}
	return (osdep_signal_group_session(r.prog_pid, r.pane_pid, sig));
}

/*
 * Signal the program: its process group, or with its launcher gone (or
 * going) everything it left (reaper_signal_left). SIGTERM goes with
 * SIGCONT, so a stopped program gets it.
 */
static void
reaper_signal_group(int sig)
{
	r.stop_sig = sig;
	if (r.launcher_gone) {
		reaper_signal_left(sig);
		return;
	}
	if (r.prog_pid <= 0)
		return;		/* not run yet: done when its marker comes */
	kill(-r.prog_pid, sig);
	if (sig == SIGTERM)
		kill(-r.prog_pid, SIGCONT);
}

/* Is tmux's complaint that the pane (or its server) is gone already, or
 * going (it exited under our client), which is what kill-pane was for? */
static bool
reaper_pane_already_gone(const char *err)
{
	return (strstr(err, "can't find pane") != NULL ||
	    strstr(err, "no current target") != NULL ||
	    strstr(err, "no server running") != NULL ||
	    strstr(err, "error connecting to") != NULL ||
	    strstr(err, "server exited unexpectedly") != NULL ||
	    strstr(err, "lost server") != NULL);
}

/*
 * Start `tmux kill-pane` as a child (cspawn.h) whose standard error we
 * read when it has exited (E_CHILD). Without a pane or a child, the
 * kill-pane is over at once: E_CHILD.
 */
static enum fsm_event
reaper_killpane_start(void)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	char			**argv;
	size_t			 n, i;
	int			 fds[2], err;

	if (r.pane == NULL || r.tmux == NULL)
		return (E_CHILD);
	if (compat_pipe2(fds, O_CLOEXEC) == -1) {
		log_warn("%s: pipe: %s", r.id, strerror(errno));
		return (E_CHILD);
	}
	fd_nonblock(fds[0], 1);
	for (n = 0; r.tmux[n] != NULL; n++)
		;
	argv = xcalloc(n + 4, sizeof *argv);
	for (i = 0; i < n; i++)
		argv[i] = r.tmux[i];
	argv[n] = (char *)"kill-pane";
	argv[n + 1] = (char *)"-t";
	argv[n + 2] = r.pane;
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SEARCH;
	sp.fds[0] = sp.fds[1] = SPAWN_NULL;
	sp.fds[2] = fds[1];
	sp.nfds = 3;
	r.kp_pid = cspawn_start(&sp, &stage, &err);
	free(argv);
	close(fds[1]);
	if (r.kp_pid == -1 || stage != SPAWN_OK)
		log_warn("%s: cannot run %s: %s", r.id, r.tmux[0],
		    strerror(err));
	if (r.kp_pid == -1) {
		close(fds[0]);
		return (E_CHILD);
	}
	r.kp_err = fds[0];
	reaper_settimeout(REAPER_KILL_PANE_MS);
	return (E_NONE);
}

/*
 * Some of the pane's output is missing from the copy (the writer dropped
 * it, or someone else read from the FIFO): a hole in the text, which the
 * spool meets as it meets the ceiling (spool_w_hole: the head and what
 * follows are kept, the range between dropped), and the end says so
 * (outputCut).
 */
static void
reaper_lost(uint64_t n, const char *how)
{
	if (r.lost == 0)
		log_warn("%s: pane output lost: %s", r.id ? r.id : "?", how);
	r.lost += n > 0 ? n : 1;
	r.cut = true;
	if (r.pending.len > 0) {
		spool_w_write(&r.out_w, r.pending.data, r.pending.len);
		buf_reset(&r.pending);
	}
	spool_w_hole(&r.out_w);
}

/*
 * Scan what is left of the data record being read: text to the front, up
 * to the first marker, which is returned as its event (r.marker holds
 * it). The text before an end marker is framed first; nothing after the
 * end marker is read.
 */
static enum fsm_event
reaper_scan(void)
{
	size_t	k;
	bool	found;

	while (r.out_left > 0) {
		k = marker_scan(&r.scan, r.out_in.data + r.out_off, r.out_left,
		    reaper_text_cb, NULL, &r.marker, &found);
		r.out_off += k;
		r.out_left -= k;
		if (!found)
			continue;
		if (r.marker.kind == MARKER_K_RUN)
			return (E_RUN_MARKER);
		reaper_flush_text(false);
		r.out_left = 0;
		return (E_END_MARKER);
	}
	return (E_NONE);
}

/*
 * Take the records read so far, the pane's bytes scanned (scan) or
 * dropped, until one yields an event (the writer's hello, a marker),
 * which is returned; the rest stays for the next call, which goes on
 * where this one stopped. E_NONE: no whole record is left.
 */
static enum fsm_event
reaper_take_records(bool scan)
{
	enum record_kind	 k;
	enum fsm_event		 ev;
	const char		*p;
	size_t			 len;
	uint64_t		 lost;

	if (!scan)
		r.out_left = 0;		/* nobody reads the rest */
	for (;;) {
		if ((ev = reaper_scan()) != E_NONE)
			return (ev);
		k = record_take(&r.out_scan, &r.out_in, &p, &len, &lost);
		switch (k) {
		case RECORD_NONE:
			return (E_NONE);
		case RECORD_HELLO:
			return (E_PIPED);
		case RECORD_LOST:
			reaper_lost(lost, "the reaper fell behind the pane by "
			    "more than the writer's backlog (the text ceiling, "
			    "PROGMUX_OUTPUT_MAX_BYTES, at most 64 MiB) and the "
			    "writer dropped the rest");
			break;
		case RECORD_BROKEN:
			reaper_lost(lost, "another process read from the "
			    "output FIFO");
			break;
		case RECORD_DATA:
			if (scan) {
				/* record_take keeps it in out_in until its
				 * next call; out_in is not added to before. */
				r.out_off = (size_t)(p - r.out_in.data);
				r.out_left = len;
			}
			break;
		}
	}
}

/*
 * Read the FIFO and take its records, REAPER_READ_ROUNDS reads per
 * wakeup at most. The text of one read goes to the front in one frame,
 * once its records are taken. A record that yields an event stops the
 * reading and the event is returned, with out_more set so that the loop
 * raises E_FIFO_DATA again at once and the reading goes on where it
 * stopped; after the end marker this wakeup reads no more. The FIFO is
 * read whatever the front's queue holds: the writer must never wait on
 * us, and the text we queue is bounded by the text ceiling. EOF:
 * E_FIFO_EOF.
 */
static enum fsm_event
reaper_read_fifo(bool scan)
{
	enum fsm_event	ev;
	ssize_t		n;

	for (;;) {
		if ((ev = reaper_take_records(scan)) != E_NONE) {
			r.out_more = ev != E_END_MARKER;
			return (ev);
		}
		reaper_flush_text(false);
		if (r.out_fd == -1 || r.out_rounds >= REAPER_READ_ROUNDS)
			return (E_NONE);
		r.out_rounds++;
		n = fd_read_into(r.out_fd, &r.out_in, REAPER_READ_CHUNK);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return (E_NONE);
		if (n <= 0) {
			if (n == -1)
				log_warn("%s: reading the output FIFO: %s",
				    r.id, strerror(errno));
			return (E_FIFO_EOF);
		}
	}
}

/*
 * The FIFOs came from the front, open: the output's read end as fd 4,
 * the launcher's control FIFO read-write as fd 6 (so the launcher's
 * reads see EOF only when we are gone), standard error's read end as
 * fd 7; and the spool's directory as fd 8. Nothing is opened by a path
 * here.
 */
static enum fsm_event
reaper_open_fifos(struct msg *m)
{
	r.err_name = msg_dup_str(m, "err");
	r.rundir = msg_dup_str(m, "rundir");
	r.rundir_id = msg_dup_str(m, "rundir_id");
	r.text_dir = msg_dup_str(m, "rundir");
	r.text_dir_id = msg_dup_str(m, "rundir_id");
	r.robust = msg_get_bool(m, "robust");
	if (r.out_fd == -1 || r.ctl_fd == -1 ||
	    (r.err_name != NULL && r.err_fd == -1))
		return (reaper_fail("the front gave no FIFOs"));
	if (r.spool_fd == -1)
		return (reaper_fail("the front gave no spool directory"));
	spool_w_init(&r.out_w, r.spool_fd, SPOOL_OUT, (uint64_t)r.max_text);
	spool_w_init(&r.err_w, r.spool_fd, SPOOL_ERR, (uint64_t)r.max_text);
	return (E_NONE);
}

/* Nothing to do here. */
static enum fsm_event
reaper_act_ignore(enum fsm_event ev)
{
	(void)ev;
	return (E_NONE);
}

/* A frame this state does not take. */
static enum fsm_event
reaper_act_unexpected(enum fsm_event ev)
{
	log_warn("%s: unexpected frame \"%s\" (%s)", r.id ? r.id : "?",
	    fsm_event_name(ev), fsm_state_name(r.state));
	return (E_NONE);
}

/* The program's NOTIFY_SOCKET: without one (a path too long for a
 * socket, say) it runs as well, its NOTIFY_SOCKET unset. */
static void
reaper_notify_open(void)
{
	char	*cause = NULL;

	if (notify_open(&r.notify, r.rundir, r.rundir_id, r.id,
	    &cause) == -1) {
		log_debug("%s: no NOTIFY_SOCKET: %s", r.id, cause);
		free(cause);
	}
}

/* NOTIFY_SOCKET is readable: READY=1 and STATUS= go to the front. */
static enum fsm_event
reaper_act_notify(enum fsm_event ev)
{
	struct msg_out	m;
	bool		ready;

	(void)ev;
	if (!notify_read(&r.notify, &ready, &r.status))
		return (E_NONE);
	r.ready = r.ready || ready;
	msg_begin(&m, MSG_NOTIFY, 2);
	msg_bool(&m, "ready", ready);
	if (r.status != NULL)
		msg_str(&m, "status", r.status);
	else
		msg_nil(&m, "status");
	msg_end(&m, &r.sock_out);
	return (E_NONE);
}

/* "start": keep the program's particulars and open its FIFOs. */
static enum fsm_event
reaper_act_start(enum fsm_event ev)
{
	struct msg	*m = r.frame;
	const char	*in;
	int64_t		 lifetime = 0;
	enum fsm_event	 next;

	(void)ev;
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
	r.lifetime_ms = lifetime;
	r.keep_pane = msg_get_bool(m, "keep_pane");
	r.separate_stderr = msg_get_bool(m, "separate_stderr");
	if (!msg_get_int(m, "grace_ms", &r.grace_ms) || r.grace_ms < 0)
		r.grace_ms = 0;
	msg_get_int(m, "started_ms", &r.started_ms);
	msg_get_int(m, "started_real", &r.started_real);
	msg_get_int(m, "shown", &r.shown);
	r.session = msg_dup_str(m, "session");
	r.server = msg_dup_str(m, "server");
	r.lease_dir = msg_dup_str(m, "lease");
	r.lease_dir_id = msg_dup_str(m, "lease_id");
	r.verdict = msg_get_bool(m, "verdict");
	if ((in = msg_get_bytes(m, "input", &r.input_len)) != NULL) {
		r.input = xmemdup(in, r.input_len);
		r.has_input = true;
	}
	if (r.id == NULL || r.argv == NULL || r.argc == 0 ||
	    r.tmux == NULL || lifetime <= 0)
		return (reaper_fail("start frame lacks a field"));
	r.expires = now_ms() + lifetime;
	reaper_settimeout_at(r.expires);
	if (marker_nonce(r.nonce) == -1)
		return (reaper_fail("getentropy failed"));
	marker_scan_init(&r.scan, r.nonce);
	if ((next = reaper_open_fifos(m)) != E_NONE)
		return (next);
	reaper_notify_open();
	return (E_NONE);
}

/* "pane": pipe-pane is attached; watch the launcher, and wait for the
 * pane's writer to open the FIFO. */
static enum fsm_event
reaper_act_pane(enum fsm_event ev)
{
	int64_t	pid = 0;

	(void)ev;
	free(r.pane);
	r.pane = msg_dup_str(r.frame, "pane");
	msg_get_int(r.frame, "pid", &pid);
	r.pane_pid = (pid_t)pid;
	reaper_settimeout(PROTO_WRITER_WAIT_MS);
	/* If the launcher is killed, its program is ours to end; gone
	 * already, the same, found at once. */
	if (r.pane_pid > 0) {
		r.launcher_fd = osdep_pidfd(r.pane_pid);
		if (r.launcher_fd == -1 && errno == ESRCH) {
			r.launcher_gone = true;
			return (E_LAUNCHER_GONE);
		}
	}
	return (E_NONE);
}

/* The writer is there: open the launcher's gate with the spec. */
static enum fsm_event
reaper_act_gate(enum fsm_event ev)
{
	struct msg_out	m;

	(void)ev;
	reaper_settimeout_at(r.expires);
	msg_begin(&m, MSG_SPEC, 11);
	msg_str(&m, "notify", r.notify.path);
	if (r.has_input)
		msg_bin(&m, "input", r.input, r.input_len);
	else
		msg_nil(&m, "input");
	msg_str(&m, "err", r.err_name);
	msg_bool(&m, "robust", r.robust);
	free(r.input);
	r.input = NULL;
	msg_strv(&m, "argv", r.argv, r.argc);
	msg_str(&m, "dir", r.dir);
	msg_str(&m, "nonce", r.nonce);
	msg_int(&m, "width", r.width);
	msg_int(&m, "height", r.height);
	msg_bool(&m, "keep", r.keep_pane);
	msg_bool(&m, "verdict", r.verdict);
	msg_end(&m, &r.ctl_out);
	if (fd_flush(r.ctl_fd, &r.ctl_out) == -1)
		return (reaper_fail("cannot write to the launcher's control "
		    "FIFO"));
	return (E_NONE);
}

/* The pane's writer never opened the FIFO: nothing can be read. */
static enum fsm_event
reaper_act_no_writer(enum fsm_event ev)
{
	reaper_fail("the pane's output writer (pipe-pane) did not start");
	return (reaper_act_quit(ev));
}

/* No program yet: it reads stopped, or expired. */
static enum fsm_event
reaper_act_end_early(enum fsm_event ev)
{
	reaper_report(ev == E_STOP ? END_STOPPED : END_EXPIRED, -1, -1,
	    false, NULL);
	return (E_NONE);
}

/* Forget it: end what runs, no report. */
static enum fsm_event
reaper_act_quit(enum fsm_event ev)
{
	(void)ev;
	reaper_signal_group(SIGKILL);
	reaper_close_ctl();	/* the launcher ends the rest and leaves */
	return (E_NONE);
}

/* The front is gone, or we are told to go: nobody else will end the
 * program or remove its pane. */
static enum fsm_event
reaper_act_leave(enum fsm_event ev)
{
	reaper_act_quit(ev);
	return (reaper_killpane_start());
}

/* Pane bytes: text and markers. */
static enum fsm_event
reaper_act_read(enum fsm_event ev)
{
	(void)ev;
	return (reaper_read_fifo(true));
}

/* Pane bytes nobody reads now: drop them, so tmux never blocks. */
static enum fsm_event
reaper_act_drain(enum fsm_event ev)
{
	(void)ev;
	return (reaper_read_fifo(false));
}

/* The FIFO ended. */
static enum fsm_event
reaper_act_close_fifo(enum fsm_event ev)
{
	(void)ev;
	if (r.out_fd != -1)
		close(r.out_fd);
	r.out_fd = -1;
	return (E_NONE);
}

/* Standard error's bytes: "errtext". */
static enum fsm_event
reaper_act_err_read(enum fsm_event ev)
{
	(void)ev;
	return (reaper_read_err(false));
}

/* Standard error ended. */
static enum fsm_event
reaper_act_err_close(enum fsm_event ev)
{
	(void)ev;
	reaper_close_err();
	return (E_NONE);
}

/* The launcher is gone, or its pane: end what it left (its program's
 * group and the pane's session): SIGTERM now, SIGKILL after the grace. */
static enum fsm_event
reaper_act_orphaned(enum fsm_event ev)
{
	(void)ev;
	log_debug("%s: launcher or pane gone; ending what is left", r.id);
	if (r.end_reason == NULL)
		r.end_reason = END_GONE;
	r.kill_at = now_ms() + PROTO_GRACE_MS;
	reaper_settimeout(REAPER_CHECK_MS);
	if (reaper_signal_left(SIGTERM) == 0)
		return (E_LEFT_GONE);
	return (E_NONE);
}

/* The pane went before the end marker came: its end is lost. */
static enum fsm_event
reaper_act_pane_closed(enum fsm_event ev)
{
	reaper_act_close_fifo(ev);
	reaper_report(r.end_reason != NULL ? r.end_reason : END_GONE, -1, -1,
	    true, "the pane was closed before the program's end was read");
	return (reaper_act_orphaned(ev));
}

/* The run marker: the program runs, in a group of its own whose id is
 * its pid, and has the terminal. */
static enum fsm_event
reaper_act_launched(enum fsm_event ev)
{
	struct msg_out	m;

	(void)ev;
	r.prog_pid = (pid_t)r.marker.value;
	msg_begin(&m, MSG_LAUNCHED, 0);
	msg_end(&m, &r.sock_out);
	return (E_NONE);
}

/* The run marker of a program being ended: it gets the signal now. */
static enum fsm_event
reaper_act_launched_signal(enum fsm_event ev)
{
	reaper_act_launched(ev);
	reaper_signal_group(r.stop_sig);
	return (E_NONE);
}

/* The end marker: report; the launcher leaves unless the pane is kept. */
static enum fsm_event
reaper_act_ended(enum fsm_event ev)
{
	(void)ev;
	reaper_report_marker(NULL);
	if (!r.keep_pane)
		return (E_RELEASE);
	reaper_settimeout_at(r.expires);
	return (E_NONE);
}

/* The end marker of a stopped (or expired) program: report, remove the
 * pane. */
static enum fsm_event
reaper_act_stopped(enum fsm_event ev)
{
	(void)ev;
	reaper_report_marker(r.end_reason);
	reaper_send_ctl(MSG_EXIT);
	return (reaper_killpane_start());
}

/* The launcher wrote the end before it went. */
static enum fsm_event
reaper_act_orphan_ended(enum fsm_event ev)
{
	(void)ev;
	reaper_report_marker(strcmp(r.end_reason, END_GONE) == 0 ? NULL :
	    r.end_reason);
	return (E_NONE);
}

/* The end has been read: the launcher may leave (its pane closes). */
static enum fsm_event
reaper_act_release(enum fsm_event ev)
{
	(void)ev;
	reaper_send_ctl(MSG_EXIT);
	return (E_NONE);
}

/* A kept pane's time is over, or it is stopped: it goes. */
static enum fsm_event
reaper_act_release_killpane(enum fsm_event ev)
{
	reaper_act_release(ev);
	return (reaper_killpane_start());
}

/* Remove the pane. */
static enum fsm_event
reaper_act_killpane(enum fsm_event ev)
{
	(void)ev;
	return (reaper_killpane_start());
}

/* The running program's deadline. */
static enum fsm_event
reaper_act_tick(enum fsm_event ev)
{
	(void)ev;
	if (now_ms() >= r.expires)
		return (E_EXPIRE);
	reaper_settimeout_at(r.expires);
	return (E_NONE);
}

/* Stop (or expire): SIGTERM to the group, SIGKILL after the grace. */
static enum fsm_event
reaper_act_term(enum fsm_event ev)
{
	int64_t	grace = PROTO_GRACE_MS;

	if (ev == E_STOP) {
		r.end_reason = END_STOPPED;
		if (!msg_get_int(r.frame, "grace_ms", &grace) || grace < 0)
			grace = PROTO_GRACE_MS;
	} else
		r.end_reason = END_EXPIRED;
	log_debug("%s: %s: SIGTERM, grace %lld ms", r.id, r.end_reason,
	    (long long)grace);
	reaper_signal_group(SIGTERM);
	reaper_settimeout(grace);
	return (E_NONE);
}

/* The grace is over: SIGKILL; the launcher's marker should follow. */
static enum fsm_event
reaper_act_kill(enum fsm_event ev)
{
	(void)ev;
	log_debug("%s: SIGKILL", r.id);
	reaper_signal_group(SIGKILL);
	reaper_settimeout(REAPER_FALLBACK_MS);
	return (E_NONE);
}

/* No marker after SIGKILL: the launcher is stuck; kill it too. */
static enum fsm_event
reaper_act_give_up(enum fsm_event ev)
{
	(void)ev;
	reaper_signal_group(SIGKILL);
	if (r.pane_pid > 0 && !r.launcher_gone)
		kill(r.pane_pid, SIGKILL);
	reaper_report(r.end_reason, -1, SIGKILL, true,
	    "the launcher did not report the program's end");
	return (reaper_killpane_start());
}

/* Is anything of an orphaned program left? SIGKILL it at the grace's
 * end. */
static enum fsm_event
reaper_act_orphan_check(enum fsm_event ev)
{
	int64_t	now = now_ms();

	(void)ev;
	if (now >= r.kill_at) {
		reaper_signal_left(SIGKILL);
		return (E_LEFT_GONE);
	}
	if (reaper_signal_left(0) == 0)
		return (E_LEFT_GONE);
	reaper_settimeout_at(now + REAPER_CHECK_MS < r.kill_at ?
	    now + REAPER_CHECK_MS : r.kill_at);
	return (E_NONE);
}

/* Nothing of an orphaned program is left. */
static enum fsm_event
reaper_act_orphan_done(enum fsm_event ev)
{
	(void)ev;
	reaper_report(r.end_reason, -1, -1, true, "the program's launcher "
	    "went away before its end was read; what it left was ended");
	return (E_NONE);
}

/* kill-pane has exited: a pane already gone is no error; anything
 * else tmux said is passed on. */
static enum fsm_event
reaper_act_pane_killed(enum fsm_event ev)
{
	char	err[1024];
	ssize_t	n;

	(void)ev;
	if (r.kp_err == -1)
		return (E_NONE);
	n = read(r.kp_err, err, sizeof err - 1);
	close(r.kp_err);
	r.kp_err = -1;
	if (n <= 0)
		return (E_NONE);
	err[n] = '\0';
	if (!reaper_pane_already_gone(err))
		log_warn("%s: tmux kill-pane -t %s: %.*s", r.id ? r.id : "?",
		    r.pane, (int)strcspn(err, "\n"), err);
	return (E_NONE);
}

/* kill-pane takes too long: kill it (its exit comes as E_CHILD). */
static enum fsm_event
reaper_act_killpane_timeout(enum fsm_event ev)
{
	(void)ev;
	if (r.kp_pid > 0)
		kill(r.kp_pid, SIGKILL);
	reaper_settimeout_at(DEADLINE_NONE);
	return (E_NONE);
}

/*
 * The front is gone: hold the program for its grace, listening in the
 * rendezvous for a new front (never past the lifetime). With no grace (robust
 * mode, or asked), nothing the front let go of, or no socket to be had,
 * it is left now: lease_end follows.
 */
static enum fsm_event
reaper_act_lease(enum fsm_event ev)
{
	char	*cause = NULL;
	int64_t	 now = now_ms();

	(void)ev;
	/* (Ending, its end told: nothing is left to hand over.) */
	if (r.forgotten || r.robust || r.grace_ms <= 0 || r.pane == NULL ||
	    r.lease_dir == NULL || now >= r.expires || (r.end_told &&
	    (r.state == S_KILLPANE || r.state == S_DONE))) {
		reaper_forget();
		return (E_LEASE_END);
	}
	if (lease_listen(&r.lease, r.lease_dir, r.lease_dir_id, &cause) ==
	    -1) {
		log_warn("%s: its front is gone and no new one can adopt it "
		    "(%s): it ends now", r.id, cause);
		free(cause);
		reaper_forget();
		return (E_LEASE_END);
	}
	r.leased = true;
	r.orphaned = realtime_ms();
	r.lease_end = now + r.grace_ms < r.expires ? now + r.grace_ms :
	    r.expires;
	log_debug("%s: its front is gone: held %lld ms for a new one", r.id,
	    (long long)(r.lease_end - now));
	return (E_NONE);
}

/*
 * A new front adopted the program: it is told what the old one was, in
 * the same frames (the run, READY=1 and STATUS=, how far the text goes
 * in the spool, the end), after "adopted".
 */
static enum fsm_event
reaper_act_adopt(enum fsm_event ev)
{
	struct msg_out	m;

	(void)ev;
	msg_begin(&m, MSG_ADOPTED, 0);
	msg_end(&m, &r.sock_out);
	if (r.prog_pid > 0) {
		msg_begin(&m, MSG_LAUNCHED, 0);
		msg_end(&m, &r.sock_out);
	}
	if (r.ready || r.status != NULL) {
		msg_begin(&m, MSG_NOTIFY, 2);
		msg_bool(&m, "ready", r.ready);
		if (r.status != NULL)
			msg_str(&m, "status", r.status);
		else
			msg_nil(&m, "status");
		msg_end(&m, &r.sock_out);
	}
	if (r.pending.len > 0) {
		spool_w_write(&r.out_w, r.pending.data, r.pending.len);
		buf_reset(&r.pending);
	}
	reaper_news(MSG_TEXT, &r.out_w, 0, true);
	if (r.separate_stderr)
		reaper_news(MSG_ERRTEXT, &r.err_w, 1, false);
	r.news_due = false;
	if (r.end_how != NULL)
		reaper_send_end();
	log_debug("%s: adopted by a new front", r.id);
	return (E_NONE);
}

/* After a failure ("fail" sent): end whatever runs. */
static enum fsm_event
reaper_act_fail(enum fsm_event ev)
{
	return (reaper_act_quit(ev));
}

static const reaper_action reaper_actions[A_COUNT] = {
	[A_INVALID] = reaper_act_unexpected,
	[A_IGNORE] = reaper_act_ignore,
	[A_UNEXPECTED] = reaper_act_unexpected,
	[A_START] = reaper_act_start,
	[A_PANE] = reaper_act_pane,
	[A_GATE] = reaper_act_gate,
	[A_NO_WRITER] = reaper_act_no_writer,
	[A_END_EARLY] = reaper_act_end_early,
	[A_QUIT] = reaper_act_quit,
	[A_LEAVE] = reaper_act_leave,
	[A_READ] = reaper_act_read,
	[A_DRAIN] = reaper_act_drain,
	[A_CLOSE_FIFO] = reaper_act_close_fifo,
	[A_ERR_READ] = reaper_act_err_read,
	[A_ERR_CLOSE] = reaper_act_err_close,
	[A_PANE_CLOSED] = reaper_act_pane_closed,
	[A_LAUNCHED] = reaper_act_launched,
	[A_LAUNCHED_SIGNAL] = reaper_act_launched_signal,
	[A_ENDED] = reaper_act_ended,
	[A_STOPPED] = reaper_act_stopped,
	[A_ORPHAN_ENDED] = reaper_act_orphan_ended,
	[A_RELEASE] = reaper_act_release,
	[A_RELEASE_KILLPANE] = reaper_act_release_killpane,
	[A_KILLPANE] = reaper_act_killpane,
	[A_TICK] = reaper_act_tick,
	[A_TERM] = reaper_act_term,
	[A_KILL] = reaper_act_kill,
	[A_GIVE_UP] = reaper_act_give_up,
	[A_ORPHANED] = reaper_act_orphaned,
	[A_ORPHAN_CHECK] = reaper_act_orphan_check,
	[A_ORPHAN_DONE] = reaper_act_orphan_done,
	[A_PANE_KILLED] = reaper_act_pane_killed,
	[A_KILLPANE_TIMEOUT] = reaper_act_killpane_timeout,
	[A_FAIL] = reaper_act_fail,
	[A_NOTIFY] = reaper_act_notify,
	[A_LEASE] = reaper_act_lease,
	[A_ADOPT] = reaper_act_adopt,
};

/*
 * Dispatch an event: the table names the action and the next state; the
 * state changes first (a new state starts with no deadline; its action
 * arms one), then the action runs, and the follow-up it returns is
 * dispatched next, until one returns E_NONE. Only the loop's event
 * sources below call this, never an action (all are defined above it,
 * undeclared here).
 */
static void
reaper_event(enum fsm_event ev)
{
	const struct fsm_cell	*c;
	enum fsm_event		 next;

	while (ev != E_NONE) {
		c = fsm_transition(r.state, ev);
		log_debug("%s: %s + %s -> %s (%s)", r.id ? r.id : "-",
		    fsm_state_name(r.state), fsm_event_name(ev),
		    fsm_state_name(c->next), fsm_action_name(c->action));
		if (c->next != r.state)
			r.deadline = DEADLINE_NONE;
		r.state = c->next;
		next = reaper_actions[c->action](ev);
		if (!fsm_may_return(c->action, next))
			log_warn("%s: %s returned %s, which fsm.c does not "
			    "list for it", r.id ? r.id : "-",
			    fsm_action_name(c->action), fsm_event_name(next));
		ev = next;
	}
}

/* Reap our children (kill-pane's only); its exit is E_CHILD. */
static void
reaper_reap(void)
{
	pid_t	pid;
	int	st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == r.kp_pid) {
			r.kp_pid = -1;
			reaper_event(E_CHILD);
		}
	}
}

/*
 * The end of the reaper: a program the front let go of (or that outlived
 * it) takes its text with it; with our hold on the runtime directory's
 * lock, the directory goes too if we were the last of our instance.
 */
static void __attribute__((noreturn))
reaper_exit(void)
{
	reaper_close_ctl();
	notify_close(&r.notify);
	spool_w_free(&r.out_w);
	spool_w_free(&r.err_w);
	if (r.forgotten && r.spool_fd != -1)
		spool_dir_empty(r.spool_fd);
	if (r.lock_fd != -1) {
		close(r.lock_fd);
		r.lock_fd = -1;
		if (r.rundir != NULL)
			rundir_remove_path(r.rundir, REAPER_TMUX_GONE_MS);
	}
	if (r.text_lock != -1) {	/* an adopter's, where the text is */
		close(r.text_lock);
		r.text_lock = -1;
		rundir_remove_path(r.text_dir, REAPER_TMUX_GONE_MS);
	}
	_exit(0);
}

/* The front let go of the program, or is gone: its text is nobody's,
 * nothing more is kept of it. */
static void
reaper_forget(void)
{
	r.forgotten = true;
	spool_w_stop(&r.out_w);
	spool_w_stop(&r.err_w);
	buf_reset(&r.pending);
}

/* A frame from the front is an event. */
static int
reaper_on_frame(void *arg, struct msg *m)
{
	enum fsm_event	ev;

	(void)arg;
	if (msg_is(m, MSG_START))
		ev = E_START;
	else if (msg_is(m, MSG_PANE))
		ev = E_PANE;
	else if (msg_is(m, MSG_STOP))
		ev = E_STOP;
	else if (msg_is(m, MSG_QUIT)) {
		ev = E_QUIT;
		reaper_forget();
	} else {
		log_warn("%s: unknown frame \"%s\"", r.id ? r.id : "?",
		    m->type);
		return (0);
	}
	r.frame = m;
	reaper_event(ev);
	r.frame = NULL;
	return (0);
}

/* The front is gone (or spoke nonsense): it gets nothing more; the
 * program is held for a new one (a lease), or its text is nobody's. */
static void
reaper_front_gone(void)
{
	if (r.sock != -1)
		close(r.sock);
	r.sock = -1;
	buf_reset(&r.sock_out);
	buf_reset(&r.sock_in);
	r.end_queued = false;
	reaper_event(E_FRONT_GONE);
	if (!r.leased)
		reaper_forget();
}

/* The lease is over (its grace, or a signal): no front will come. */
static void
reaper_unlease(void)
{
	lease_close(&r.lease);
	r.leased = false;
	reaper_forget();
}

/*
 * The grace is over and no front adopted the program: it is left. If
 * its lifetime is what is over, it is ended as the lifetime ends it
 * with a front (SIGTERM, SIGKILL after the grace), by the deadline.
 */
static void
reaper_lease_over(void)
{
	log_debug("%s: no front adopted it in its %s", r.id,
	    now_ms() >= r.expires ? "lifetime" : "grace");
	reaper_unlease();
	if (now_ms() < r.expires)
		reaper_event(E_LEASE_END);
}

/*
 * The front that adopts us has moved the spool into its runtime
 * directory (its adopt says which): we take part in that one's
 * instance too (its lock held), so that it stays while we write there,
 * and a later lease names it. Ours stays too: the program's
 * NOTIFY_SOCKET is in it. An earlier adopter's is let go of (its front
 * is gone, its keeper could not remove it while we held it).
 */
static void
reaper_text_moved(struct msg *m)
{
	char	*dir = msg_dup_str(m, "rundir"), *id = msg_dup_str(m,
		    "rundir_id"), *cause = NULL;
	int	 fd;

	if (dir == NULL || id == NULL || (r.text_dir != NULL &&
	    strcmp(id, r.text_dir_id) == 0)) {
		free(dir);
		free(id);
		return;
	}
	if ((fd = rundir_join(dir, id, &cause)) == -1) {
		log_warn("%s: %s", r.id, cause);
		free(cause);
	}
	if (r.text_lock != -1) {	/* an earlier adopter's, gone: its
					   directory goes if we were its last */
		close(r.text_lock);
		(void)rundir_remove_path(r.text_dir, 0);
	}
	r.text_lock = fd;
	free(r.text_dir);
	free(r.text_dir_id);
	r.text_dir = dir;
	r.text_dir_id = id;
}

/* The lease's frame: who we are and what the program is, for a front
 * to decide whether it is its to adopt. */
static void
reaper_lease_frame(struct buf *out)
{
	struct msg_out	m;

	msg_begin(&m, MSG_LEASE, 23);
	msg_int(&m, "v", PROTO_VERSION);
	msg_int(&m, "pid", getpid());
	msg_str(&m, "id", r.id);
	msg_str(&m, "session", r.session);
	msg_str(&m, "server", r.server);
	msg_str(&m, "rundir", r.text_dir);
	msg_str(&m, "rundir_id", r.text_dir_id);
	msg_strv(&m, "argv", r.argv, r.argc);
	msg_int(&m, "shown", r.shown);
	msg_str(&m, "dir", r.dir);
	msg_int(&m, "width", r.width);
	msg_int(&m, "height", r.height);
	msg_int(&m, "lifetime_ms", r.lifetime_ms);
	msg_int(&m, "started_ms", r.started_ms);
	msg_int(&m, "started_real", r.started_real);
	msg_bool(&m, "keep_pane", r.keep_pane);
	msg_bool(&m, "separate_stderr", r.separate_stderr);
	msg_bool(&m, "verdict", r.verdict);
	msg_str(&m, "pane", r.pane);
	msg_int(&m, "pane_pid", r.pane_pid);
	msg_int(&m, "grace_ms", r.grace_ms);
	msg_bool(&m, "stopping", r.end_reason != NULL &&
	    strcmp(r.end_reason, END_STOPPED) == 0);
	msg_int(&m, "orphaned", r.orphaned);
	msg_end(&m, out);
}

/*
 * The lease's socket (i -1: a front connects; it is told who we are) or
 * a front's connection: the first to say "adopt" has the program, its
 * socket the front's from now on; one that says anything else goes.
 */
static void
reaper_on_lease(int i)
{
	struct msg	 m;
	char		*cause = NULL;

	if (i == -1) {
		while ((i = lease_accept(&r.lease)) != -1) {
			reaper_lease_frame(lease_out(&r.lease, i));
			lease_flush(&r.lease, i);
		}
		return;
	}
	lease_flush(&r.lease, i);
	if (lease_read(&r.lease, i, &m) != 1)
		return;
	if (!msg_is(&m, MSG_ADOPT)) {
		log_debug("%s: a front on the lease said \"%s\"", r.id,
		    m.type);
		msg_free(&m);
		lease_drop(&r.lease, i);
		return;
	}
	reaper_text_moved(&m);
	msg_free(&m);
	r.sock = lease_take(&r.lease, i, &r.sock_in);
	r.leased = false;
	buf_reset(&r.sock_out);
	reaper_event(E_ADOPTED);
	/* What the new front sent after its adopt, if anything. */
	if (frame_each(&r.sock_in, reaper_on_frame, NULL, &cause) == -1) {
		log_warn("bad frame from the front: %s", cause);
		free(cause);
		reaper_front_gone();
	}
}

/* Read frames from the front. */
static void
reaper_read_sock(void)
{
	char	*cause = NULL;
	ssize_t	 n;

	n = fd_read_into(r.sock, &r.sock_in, 64 * 1024);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0 && frame_each(&r.sock_in, reaper_on_frame, NULL,
	    &cause) == 0)
		return;
	if (cause != NULL) {
		log_warn("bad frame from the front: %s", cause);
		free(cause);
	}
	reaper_front_gone();
}

/* Signals: SIGCHLD reaps, the others tell us to go. */
static void
reaper_on_signals(void)
{
	bool	go = false;
	int	signo;

	while (osdep_signal_next(r.sigfd, &signo)) {
		if (signo == SIGCHLD)
			reaper_reap();
		else
			go = true;
	}
	if (go && r.leased)
		reaper_unlease();	/* told to go: no front will have it */
	if (go)
		reaper_event(E_SIGNAL);
}

/* The launcher's pidfd is readable: it has exited. */
static void
reaper_on_launcher_exit(void)
{
	close(r.launcher_fd);
	r.launcher_fd = -1;
	r.launcher_gone = true;
	reaper_event(E_LAUNCHER_GONE);
}

/*
 * The output FIFO is readable: a wakeup's worth of reading (its rounds
 * counted afresh). A read that stopped at an event, which has been
 * dispatched, is raised again until it has gone through what it read.
 */
static void
reaper_on_fifo(void)
{
	r.out_rounds = 0;
	r.out_more = true;
	while (r.out_more && r.out_fd != -1) {
		r.out_more = false;
		reaper_event(E_FIFO_DATA);
	}
}

/* A FIFO the front handed us as fd, or -1 (see reaper_open_fifos). */
static int
reaper_take_fifo(int fd)
{
	struct stat	st;

	if (fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode))
		return (-1);
	fd_cloexec(fd, 1);
	fd_nonblock(fd, 1);
	return (fd);
}

/* Descriptors and signals as the front left them to us. */
static int
reaper_setup(void)
{
	sigset_t	set;
	struct stat	st;

	memset(&r, 0, sizeof r);
	r.state = S_INIT;
	r.deadline = DEADLINE_NONE;
	r.sock = PROTO_REAPER_FD;
	r.out_fd = r.ctl_fd = r.err_fd = r.launcher_fd = r.lock_fd = -1;
	r.notify.fd = r.notify.dfd = -1;
	r.kp_pid = r.kp_err = r.spool_fd = r.text_lock = -1;
	lease_init(&r.lease);
	spool_w_init(&r.out_w, -1, SPOOL_OUT, 0);
	spool_w_init(&r.err_w, -1, SPOOL_ERR, 0);
	r.out_w.stopped = r.err_w.stopped = true;	/* till "start" */
	if (fstat(r.sock, &st) == -1 || !S_ISSOCK(st.st_mode)) {
		log_warn("fd %d is not a socket: this program is started by "
		    "progmux", r.sock);
		return (-1);
	}
	fd_cloexec(r.sock, 1);
	fd_nonblock(r.sock, 1);
	r.out_fd = reaper_take_fifo(PROTO_OUT_FD);
	r.ctl_fd = reaper_take_fifo(PROTO_CTL_FD);
	r.err_fd = reaper_take_fifo(PROTO_ERR_FD);
	if (fstat(PROTO_LOCK_FD, &st) == 0 && S_ISREG(st.st_mode)) {
		/* Held while we live (rundir.h). */
		r.lock_fd = PROTO_LOCK_FD;
		fd_cloexec(r.lock_fd, 1);
	}
	if (fstat(PROTO_SPOOL_FD, &st) == 0 && S_ISDIR(st.st_mode)) {
		r.spool_fd = PROTO_SPOOL_FD;
		fd_cloexec(r.spool_fd, 1);
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);	/* a file too large: EFBIG, met */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if ((r.sigfd = osdep_signals(&set)) == -1) {
		log_warn("cannot take signals as events: %s",
		    strerror(errno));
		return (-1);
	}
	strip_init(&r.strip);
	strip_init(&r.errstrip);
	return (0);
}

/* Where reaper_pollfds put each source of events: -1, not polled;
 * the lease's, from lease (its entries' connections in lease_ix). */
struct reaper_polled {
	int	sig, sock, out, err, pid, notify;
	int	lease, nlease, lease_ix[LEASE_POLL_MAX];
};

#define REAPER_POLL_MAX	(7 + LEASE_POLL_MAX)

/*
 * What to poll: the sources of events the state wants (fsm_polls), of
 * those still open, and the writes whose queues hold something.
 */
static int
reaper_pollfds(struct pollfd *pfd, struct reaper_polled *ix)
{
	unsigned	want = fsm_polls(r.state);
	short		events;
	int		n = 0;

	ix->sig = ix->sock = ix->out = ix->err = ix->pid = ix->notify = -1;
	ix->nlease = 0;
	if (want & FSM_POLL_SIGNALS)
		pfd[ix->sig = n++] = (struct pollfd){ r.sigfd, POLLIN, 0 };
	events = ((want & FSM_POLL_FRONT) ? POLLIN : 0) |
	    (r.sock_out.len > 0 ? POLLOUT : 0);
	if (r.sock != -1 && events != 0)
		pfd[ix->sock = n++] = (struct pollfd){ r.sock, events, 0 };
	if ((want & FSM_POLL_FIFO) && r.out_fd != -1)
		pfd[ix->out = n++] = (struct pollfd){ r.out_fd, POLLIN, 0 };
	if (r.ctl_fd != -1 && r.ctl_out.len > 0)
		pfd[n++] = (struct pollfd){ r.ctl_fd, POLLOUT, 0 };
	if ((want & FSM_POLL_ERR) && r.err_fd != -1)
		pfd[ix->err = n++] = (struct pollfd){ r.err_fd, POLLIN, 0 };
	if ((want & FSM_POLL_LAUNCHER) && r.launcher_fd != -1)
		pfd[ix->pid = n++] = (struct pollfd){ r.launcher_fd, POLLIN,
		    0 };
	if ((want & FSM_POLL_NOTIFY) && r.notify.fd != -1)
		pfd[ix->notify = n++] = (struct pollfd){ r.notify.fd, POLLIN,
		    0 };
	ix->lease = n;
	if ((want & FSM_POLL_FRONT) && r.leased)
		ix->nlease = lease_pollfds(&r.lease, pfd + n, ix->lease_ix);
	return (n + ix->nlease);
}

int
reaper_main(void)
{
	struct msg_out		m;
	struct pollfd		pfd[REAPER_POLL_MAX];
	struct reaper_polled	ix;
	int64_t			when;
	int			n, i;

	if (reaper_setup() == -1)
		return (2);
	msg_begin(&m, MSG_HELLO, 2);
	msg_int(&m, "v", PROTO_VERSION);
	msg_int(&m, "pid", getpid());
	msg_end(&m, &r.sock_out);

	for (;;) {
		/* A front that cannot be written to is gone, but what it
		 * sent before it went (a start, its pane) is read first: the
		 * read finds its end. */
		if (r.sock != -1 && fd_flush(r.sock, &r.sock_out) == -1)
			reaper_read_sock();
		if (r.sock != -1 && r.sock_out.len == 0 && r.end_queued)
			r.end_told = true;
		if (r.sock == -1)
			buf_reset(&r.sock_out);	/* nobody to tell */
		if (r.news_due && r.sock != -1 &&
		    r.sock_out.len <= PROTO_NEWS_QUEUED)
			reaper_flush_text(false);
		if (r.state == S_DONE && r.sock_out.len == 0 && !r.leased)
			reaper_exit();
		if (r.ctl_fd != -1 && r.ctl_out.len > 0 &&
		    fd_flush(r.ctl_fd, &r.ctl_out) == -1)
			buf_reset(&r.ctl_out);

		n = reaper_pollfds(pfd, &ix);
		when = r.leased && r.lease_end < r.deadline ? r.lease_end :
		    r.deadline;
		if (poll(pfd, n, poll_timeout(when)) == -1) {
			if (errno == EINTR)
				continue;
			fatalx("poll: %s", strerror(errno));
		}
		if (ix.sig != -1 && (pfd[ix.sig].revents & POLLIN))
			reaper_on_signals();
		if (ix.sock != -1 && r.sock != -1 &&
		    (pfd[ix.sock].revents & (POLLIN | POLLHUP | POLLERR)))
			reaper_read_sock();
		if (ix.err != -1 && r.err_fd != -1 && pfd[ix.err].revents)
			reaper_event(E_ERR_DATA);
		if (ix.out != -1 && r.out_fd != -1 && pfd[ix.out].revents)
			reaper_on_fifo();
		if (ix.pid != -1 && r.launcher_fd != -1 &&
		    pfd[ix.pid].revents)
			reaper_on_launcher_exit();
		if (ix.notify != -1 && r.notify.fd != -1 &&
		    pfd[ix.notify].revents)
			reaper_event(E_NOTIFY_DATA);
		for (i = 0; i < ix.nlease && r.leased; i++)
			if (pfd[ix.lease + i].revents)
				reaper_on_lease(ix.lease_ix[i]);
		if (r.leased && now_ms() >= r.lease_end)
			reaper_lease_over();
		if (r.deadline != DEADLINE_NONE && now_ms() >= r.deadline)
			reaper_event(E_DEADLINE);
	}
}
