/*
 * program.c — the table of programs, and the front's side of each reaper.
 *
 * A program is created by start_program, gets a reaper (fork+exec of
 * progmux-reaper with one end of a socketpair as its fd 3), a pane (made
 * over the tmux control client once the reaper's FIFOs exist), and keeps
 * its text here (textbuf.c) as the reaper streams it. It ends when the
 * reaper reports "end", or is gone when its reaper dies first. Ended
 * programs stay readable until stop_program, or until keep_ended later
 * programs have ended; then they are evicted.
 *
 * Reapers are reaped on SIGCHLD in a loop until none is left to wait for.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

extern char **environ;

static struct {
	struct program	*list;
	struct program	*dead;		/* forgotten, freed after dispatch */
	uint64_t	 seq;
	uint64_t	 ended_seq;
} pt;

void
programs_init(void)
{
	memset(&pt, 0, sizeof pt);
}

struct program *
program_first(void)
{
	return (pt.list);
}

/* By sequence number: what tmux callbacks hold, as a program may be
 * forgotten while a command is in flight. */
struct program *
program_by_seq(uint64_t seq)
{
	struct program	*p;

	for (p = pt.list; p != NULL; p = p->next)
		if (p->seq == seq)
			return (p);
	return (NULL);
}

struct program *
program_find(const char *id)
{
	struct program	*p;

	for (p = pt.list; p != NULL; p = p->next)
		if (strcmp(p->id, id) == 0)
			return (p);
	return (NULL);
}

/* Programs not yet ended: the ones the max-programs ceiling counts. */
size_t
programs_alive(void)
{
	struct program	*p;
	size_t		 n = 0;

	for (p = pt.list; p != NULL; p = p->next)
		if (p->state != P_ENDED)
			n++;
	return (n);
}

/* Bytes of text kept for every program together. */
size_t
programs_text_kept(void)
{
	struct program	*p;
	size_t		 n = 0;

	for (p = pt.list; p != NULL; p = p->next)
		n += p->text.len + p->errtext.len;
	return (n);
}

/* Past the total text ceiling, drop ended programs, oldest first. */
void
programs_make_room(void)
{
	struct program	*p, *oldest;

	while (programs_text_kept() >= (size_t)cfg.total_output_max_bytes) {
		oldest = NULL;
		for (p = pt.list; p != NULL; p = p->next)
			if (p->state == P_ENDED &&
			    (oldest == NULL || p->ended_seq < oldest->ended_seq))
				oldest = p;
		if (oldest == NULL)
			return;
		log_debug("%s evicted for room", oldest->id);
		program_forget(oldest);
	}
}

/* A new program, at the end of the table. */
struct program *
program_new(void)
{
	struct program	*p, **pp;

	p = xcalloc(1, sizeof *p);
	p->seq = ++pt.seq;
	xasprintf(&p->id, "p%llu", (unsigned long long)p->seq);
	p->sock = -1;
	p->out_rfd = -1;
	p->reaper_pid = -1;
	p->exit_status = -1;
	p->started_ms = now_ms();
	p->started_real = realtime_ms();
	textbuf_init(&p->text, (size_t)cfg.output_max_bytes);
	textbuf_init(&p->errtext, (size_t)cfg.output_max_bytes);
	for (pp = &pt.list; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = p;
	return (p);
}

/* Send a frame with no fields but its type. */
static void
program_send(struct program *p, const char *type)
{
	struct msg_out	m;

	if (p->sock == -1)
		return;
	msg_begin(&m, type, 0);
	msg_end(&m, &p->sock_out);
	program_on_writable(p);
}

/* Make one of the program's FIFOs in the runtime directory. */
static int
program_mkfifo(struct program *p, const char *suffix, char **path,
    char **cause)
{
	xasprintf(path, "%s/%s.%s", cfg.rundir, p->id, suffix);
	unlink(*path);
	if (mkfifo(*path, 0600) == -1) {
		if (errno == EMFILE || errno == ENFILE)
			xasprintf(cause, "cannot make FIFO %s: %s", *path,
			    fd_strerror(errno));
		else
			xasprintf(cause, "cannot make FIFO %s: %s (is the "
			    "runtime directory still there?)", *path,
			    strerror(errno));
		free(*path);
		*path = NULL;
		return (-1);
	}
	return (0);
}

/*
 * Open each FIFO once, both ways, without blocking: a launcher or a
 * pipe-pane cat blocked in open() on one (its reaper never opened it) is
 * released and sees EOF, instead of hanging on forever.
 */
static void
program_release_fifos(struct program *p)
{
	char	*paths[] = { p->out_path, p->ctl, p->err_path };
	size_t	 i;
	int	 fd;

	for (i = 0; i < sizeof paths / sizeof *paths; i++) {
		if (paths[i] == NULL)
			continue;
		if ((fd = open(paths[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC)) !=
		    -1)
			close(fd);
		if ((fd = open(paths[i], O_WRONLY | O_NONBLOCK | O_CLOEXEC)) !=
		    -1)
			close(fd);
	}
}

/* Remove the FIFOs (the reaper removes them too when it goes). */
static void
program_unlink_fifos(struct program *p)
{
	char	**paths[] = { &p->out_path, &p->ctl, &p->err_path };
	size_t	  i;

	if (p->out_rfd != -1) {
		close(p->out_rfd);
		p->out_rfd = -1;
	}
	if (p->reaper_gone || p->sock == -1)
		program_release_fifos(p);
	for (i = 0; i < sizeof paths / sizeof *paths; i++) {
		if (*paths[i] == NULL)
			continue;
		unlink(*paths[i]);
		free(*paths[i]);
		*paths[i] = NULL;
	}
}

/*
 * Make the program's FIFOs. They exist before the pane and the reaper
 * do, so the pane can be made while the reaper starts: the launcher's
 * open of its control FIFO waits for the reaper's open.
 *
 * The output FIFO has a reader from the start: ours, handed to the
 * reaper when it is spawned. Whatever reaches the pane before the reaper
 * runs (the echo of keys typed at once, say) waits in the FIFO; with no
 * reader, pipe-pane's cat would die of EPIPE on its first write and the
 * program's output and end would never be read.
 */
int
program_make_fifos(struct program *p, char **cause)
{
	if (program_mkfifo(p, "out", &p->out_path, cause) == -1 ||
	    program_mkfifo(p, "ctl", &p->ctl, cause) == -1 ||
	    (p->separate_stderr &&
	    program_mkfifo(p, "err", &p->err_path, cause) == -1))
		goto fail;
	p->out_rfd = open(p->out_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (p->out_rfd == -1) {
		xasprintf(cause, "cannot open FIFO %s: %s", p->out_path,
		    fd_strerror(errno));
		goto fail;
	}
	return (0);
fail:
	program_unlink_fifos(p);
	return (-1);
}

/*
 * Spawn the reaper (posix_spawn: a vfork, no copy of our memory) with its
 * socket as fd 3 and the output FIFO's read end as fd 4, and send it the
 * program's particulars.
 */
int
program_spawn_reaper(struct program *p, char **cause)
{
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 attr;
	struct msg_out			 m;
	sigset_t			 none, all;
	char				*argv[] = { (char *)"progmux-reaper", NULL };
	int				 sv[2], err;
	pid_t				 pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		xasprintf(cause, "socketpair: %s", fd_strerror(errno));
		program_unlink_fifos(p);
		return (-1);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDWR, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
	    O_RDWR, 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], PROTO_REAPER_FD);
	posix_spawn_file_actions_adddup2(&fa, p->out_rfd, PROTO_OUT_FD);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF);
	/* Everything else of ours is close-on-exec. */
	err = posix_spawn(&pid, cfg.reaper_path, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(sv[1]);
	close(p->out_rfd);	/* the reaper's now */
	p->out_rfd = -1;
	if (err != 0) {
		close(sv[0]);
		xasprintf(cause, "cannot start %s: %s", cfg.reaper_path,
		    fd_strerror(err));
		program_unlink_fifos(p);
		return (-1);
	}
	p->reaper_pid = pid;
	p->sock = sv[0];
	fd_nonblock(p->sock, 1);

	msg_begin(&m, MSG_START, 14);
	msg_str(&m, "id", p->id);
	msg_strv(&m, "argv", p->argv, p->argc);
	msg_str(&m, "dir", p->dir);
	msg_int(&m, "width", p->width);
	msg_int(&m, "height", p->height);
	msg_int(&m, "lifetime_ms", p->lifetime_ms);
	msg_bool(&m, "keep_pane", p->keep_pane);
	msg_int(&m, "max_text", cfg.output_max_bytes);
	msg_str(&m, "out", p->out_path);
	msg_str(&m, "ctl", p->ctl);
	msg_str(&m, "err", p->err_path);
	if (p->has_input)
		msg_bin(&m, "input", p->input ? p->input : "", p->input_len);
	else
		msg_nil(&m, "input");
	msg_bool(&m, "separate_stderr", p->separate_stderr);
	{
		char	**tv = tmux_client_argv();
		size_t	  n = 0;

		while (tv != NULL && tv[n] != NULL)
			n++;
		msg_strv(&m, "tmux", tv, n);
	}
	msg_end(&m, &p->sock_out);
	program_on_writable(p);
	return (0);
}

/* Remove the pane over the control client (errors do not matter). */
static void
program_kill_pane(struct program *p)
{
	struct buf	b = BUF_INIT;

	if (p->pane == NULL || p->pane_killed || !tmux_alive())
		return;
	if (p->pane_gen != tmux_generation()) {
		/* Another client, maybe another server: %N may be another
		 * pane now. Its own launcher removes it, if it is there. */
		p->pane_killed = true;
		return;
	}
	p->pane_killed = true;
	buf_adds(&b, "kill-pane -t ");
	tmux_quote(&b, p->pane);
	tmux_command(buf_cstr(&b), NULL, NULL);
	buf_free(&b);
}

/* Evict the oldest ended programs past the keep_ended ceiling. */
static void
program_evict(void)
{
	struct program	*p, *oldest;
	size_t		 ended;

	for (;;) {
		ended = 0;
		oldest = NULL;
		for (p = pt.list; p != NULL; p = p->next) {
			if (p->state != P_ENDED || p->reaper_pid != -1 ||
			    p->sock != -1)
				continue;
			ended++;
			if (oldest == NULL || p->ended_seq < oldest->ended_seq)
				oldest = p;
		}
		if (ended <= (size_t)cfg.keep_ended || oldest == NULL)
			return;
		log_debug("%s evicted", oldest->id);
		program_forget(oldest);
	}
}

/* The program has ended: its text is complete. */
static void
program_ended(struct program *p, const char *how, int64_t status, int sig,
    bool lost_end, const char *why)
{
	if (p->state == P_ENDED)
		return;
	p->state = P_ENDED;
	p->ended_seq = ++pt.ended_seq;
	free(p->outcome);
	p->outcome = xstrdup(how);
	p->exit_status = status;
	p->signal = sig;
	if (status == 130 && sig == 0 && strcmp(how, "not_started") != 0) {
		/* 130 is how a shell reports SIGINT: read it so. */
		p->exit_status = -1;
		p->signal = SIGINT;
	}
	p->lost_end = p->lost_end || lost_end;
	if (why != NULL && p->why == NULL)
		p->why = xstrdup(why);
	if (!p->keep_pane)
		program_kill_pane(p);
	log_debug("%s ended: %s status %lld signal %d", p->id, how,
	    (long long)p->exit_status, p->signal);
	program_changed(p);
}

/* The program cannot go on (its pane could not be piped, its reaper
 * failed): it reads as gone, with why; its reaper and pane go. */
void
program_abandon(struct program *p, const char *why)
{
	if (p->state == P_ENDED)
		return;
	p->state = P_RUNNING;
	program_ended(p, "gone", -1, 0, true, why);
	program_send(p, MSG_QUIT);
	program_kill_pane(p);
}

/* The reaper's socket is closed: it exited or died. */
static void
program_reaper_gone(struct program *p)
{
	if (p->sock != -1) {
		close(p->sock);
		p->sock = -1;
	}
	buf_free(&p->sock_in);
	buf_free(&p->sock_out);
	p->reaper_gone = true;
	program_release_fifos(p);
	/* (The start was answered before its reaper was spawned.) */
	if (p->state != P_ENDED)
		program_ended(p, "gone", -1, 0, true,
		    "its reaper exited before the program's end was read");
	program_kill_pane(p);
	program_evict();
}

static void
program_on_end(struct program *p, struct msg *m)
{
	char	*how, *why;
	int64_t	 status = -1, sig = 0;

	how = msg_dup_str(m, "how");
	why = msg_dup_str(m, "why");
	if (!msg_get_int(m, "status", &status))
		status = -1;
	if (!msg_get_int(m, "signal", &sig))
		sig = 0;
	if (msg_get_bool(m, "cut"))
		p->cut = true;
	program_ended(p, how ? how : "gone", status, (int)sig,
	    msg_get_bool(m, "lost_end"), why);
	free(how);
	free(why);
}

static void
program_on_frame(struct program *p, struct msg *m)
{
	const char	*b;
	size_t		 len;
	int64_t		 v = 0;

	if (msg_is(m, MSG_TEXT)) {
		if ((b = msg_get_bytes(m, "b", &len)) != NULL && len > 0) {
			textbuf_append(&p->text, b, len);
			program_changed(p);
		}
	} else if (msg_is(m, MSG_ERRTEXT)) {
		if ((b = msg_get_bytes(m, "b", &len)) != NULL && len > 0)
			textbuf_append(&p->errtext, b, len);
	} else if (msg_is(m, MSG_HELLO)) {
		if (!msg_get_int(m, "v", &v) || v != PROTO_VERSION) {
			log_warn("%s: reaper speaks protocol %lld, not %d",
			    p->id, (long long)v, PROTO_VERSION);
			program_reaper_gone(p);
		}
	} else if (msg_is(m, MSG_LAUNCHED)) {
		p->launched = true;
		program_changed(p);	/* keys held for it go now */
	} else if (msg_is(m, MSG_END))
		program_on_end(p, m);
	else if (msg_is(m, MSG_FAIL)) {
		char *why = msg_dup_str(m, "why");

		/* The start was answered already: the program reads gone,
		 * with why. */
		log_warn("%s: %s", p->id, why ? why : "reaper failed");
		program_abandon(p, why ? why : "its reaper failed");
		free(why);
	} else
		log_warn("%s: unexpected frame \"%s\"", p->id, m->type);
}

void
program_on_readable(struct program *p)
{
	struct msg	 m;
	char		*cause = NULL;
	ssize_t		 n;
	int		 ret = 0, rounds = 0;

	while (p->sock != -1 && !p->forgotten && rounds++ < 16) {
		n = fd_read_into(p->sock, &p->sock_in, 256 * 1024);
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			program_reaper_gone(p);
			return;
		}
		while (p->sock != -1 && !p->forgotten &&
		    (ret = frame_take(&p->sock_in, &m, &cause)) == 1) {
			program_on_frame(p, &m);
			msg_free(&m);
		}
		if (p->sock != -1 && !p->forgotten && ret == -1) {
			log_warn("%s: bad frame from reaper: %s", p->id,
			    cause);
			free(cause);
			if (p->reaper_pid > 0)
				kill(p->reaper_pid, SIGTERM);
			program_reaper_gone(p);
			return;
		}
		if ((size_t)n < 256 * 1024)
			break;
	}
}

void
program_on_writable(struct program *p)
{
	if (p->sock != -1 && fd_flush(p->sock, &p->sock_out) == -1)
		buf_reset(&p->sock_out);	/* EOF will follow */
}

/* Reap every child that has exited. */
void
program_reap_children(void)
{
	struct program	*p;
	pid_t		 pid;
	int		 st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (tmux_reaped(pid))
			continue;
		for (p = pt.list; p != NULL; p = p->next)
			if (p->reaper_pid == pid) {
				p->reaper_pid = -1;
				if (WIFSIGNALED(st)) {
					log_warn("%s: reaper killed by signal "
					    "%d", p->id, WTERMSIG(st));
					mcp_log(MCP_LOG_WARNING, "reaper", "%s: "
					    "its reaper was killed by signal "
					    "%d; the program reads as gone",
					    p->id, WTERMSIG(st));
				}
				break;
			}
	}
	program_evict();
}

/*
 * Forget a program: it is unknown from now on. Whatever waits on it is
 * answered, its reaper told to quit, its pane removed. The memory is freed
 * by programs_collect() once the loop is done dispatching, since callers
 * up the stack may still hold it.
 */
void
program_forget(struct program *p)
{
	struct program	**pp;

	if (p->forgotten)
		return;
	p->forgotten = true;
	program_requests_settle(p);
	if (p->sock != -1) {
		if (p->state != P_ENDED)
			program_send(p, MSG_QUIT);
		close(p->sock);
		p->sock = -1;
	}
	program_kill_pane(p);
	program_unlink_fifos(p);
	for (pp = &pt.list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	p->next = pt.dead;
	pt.dead = p;
}

/* The live program whose pane is pane on the tmux server of now. */
struct program *
program_by_pane(const char *pane)
{
	struct program	*p;

	for (p = pt.list; p != NULL; p = p->next)
		if (p->pane != NULL && strcmp(p->pane, pane) == 0 &&
		    p->pane_gen == tmux_generation() && !p->forgotten)
			return (p);
	return (NULL);
}

/* Free what was forgotten. */
void
programs_collect(void)
{
	struct program	*p;

	while ((p = pt.dead) != NULL) {
		pt.dead = p->next;
		free(p->id);
		strv_free(p->argv);
		free(p->pane);
		free(p->from_pane);
		free(p->dir);
		free(p->outcome);
		free(p->why);
		buf_free(&p->sock_in);
		buf_free(&p->sock_out);
		textbuf_free(&p->text);
		textbuf_free(&p->errtext);
		free(p->input);
		free(p->ctl);
		free(p->out_path);
		free(p->err_path);
		free(p);
	}
}

/* Ask the reaper to end the program (SIGTERM, SIGKILL after grace). */
void
program_stop(struct program *p, int64_t grace_ms)
{
	struct msg_out	m;

	if (p->sock == -1)
		return;
	msg_begin(&m, MSG_STOP, 1);
	msg_int(&m, "grace_ms", grace_ms);
	msg_end(&m, &p->sock_out);
	program_on_writable(p);
}

/* At exit: every program ends and its pane goes. */
void
programs_shutdown(void)
{
	struct program	*p;

	for (p = pt.list; p != NULL; p = p->next) {
		if (p->sock != -1) {
			program_send(p, MSG_QUIT);
			(void)fd_flush(p->sock, &p->sock_out);
		}
		program_kill_pane(p);
		program_unlink_fifos(p);	/* none of it is wanted now */
	}
}

const char *
signal_name(int sig)
{
	static char	 buf[16];
	const char	*abbrev;

	if (sig <= 0)
		return (NULL);
	if ((abbrev = sigabbrev_np(sig)) != NULL) {
		snprintf(buf, sizeof buf, "SIG%s", abbrev);
		return (buf);
	}
	snprintf(buf, sizeof buf, "SIG%d", sig);
	return (buf);
}
