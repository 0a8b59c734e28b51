/*
 * launch.c — the launcher: the first process of a program's pane.
 *
 * tmux starts `progmux-reaper --launch DIR DEV:INO CTL` with fixed
 * arguments, so no client text ever reaches tmux's command parser or a
 * shell. That first process of the pane is a guard (launch_guard): a
 * subreaper that forks the launcher proper and outlives it, so that if
 * the launcher is killed, what its program started (even in sessions of
 * their own, through setsid) becomes the guard's and is ended; and if
 * the guard is killed, the launcher is told (a parent-death signal) and
 * ends everything itself. The launcher goes through five states in one
 * poll loop, with one deadline:
 *
 *  - gate: it opens CTL (a FIFO in the private runtime directory, reached
 *    only through that directory once it is known to be the one the
 *    front made: DEV:INO, ours, 0700), removes its name (the reaper holds
 *    the other end), and waits, bounded, for the reaper's spec, which
 *    comes only once pipe-pane is attached, so not one byte of early
 *    output is lost;
 *  - run: as a child subreaper (daemons the program leaves behind are
 *    reparented to it) it starts the program (cspawn.h) in its own
 *    process group, made the terminal's foreground group, with PAGER=cat
 *    and GIT_PAGER=cat and none of progmux's own settings (PROGMUX_*,
 *    LIBTMUX_*; in robust mode not TMUX either: the private server is not
 *    the program's to drive), in startDirectory, argv exec'd without a
 *    shell; a
 *    chdir or exec failure is printed on the terminal with the reason
 *    (status 127 not found, 126 otherwise; for inheritShell the login
 *    shell's script says which on a pipe, descriptor 3 of the shell,
 *    which the program never gets). Signals it gets (C-c typed
 *    before the program had the terminal, a SIGTERM) are passed on to the
 *    program's group. Stopping is the reaper's: it signals the group;
 *  - cleanup: when the program has ended, every descendant still there
 *    gets SIGTERM, then SIGKILL; once none is left the end marker
 *    (marker.h) with the wait status goes to the terminal. On a system
 *    without subreapers (osdep.h) there is no guard, and what the
 *    program left is not reparented to us: every process of its group
 *    or of the pane's session is ended with it instead (found by walking
 *    the process table), which leaves only what left the session;
 *  - hold: it waits for "exit" from the reaper (the end has been read),
 *    then exits and the pane closes;
 *  - hangup: EOF on CTL (the reaper is gone) or SIGHUP (the pane is, or
 *    the guard): everything still there is ended at once (SIGTERM,
 *    SIGKILL after a short grace) and the launcher leaves without a
 *    marker.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "compat.h"
#include "cspawn.h"
#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "marker.h"
#include "osdep.h"
#include "proto.h"
#include "reaper.h"
#include "rundir.h"
#include "timeutil.h"
#include "xmalloc.h"

#define LAUNCH_CLEANUP_GRACE_MS	200	/* leftovers: SIGTERM, then SIGKILL */
#define LAUNCH_HANGUP_GRACE_MS	500
#define LAUNCH_RECHECK_MS	50	/* after SIGKILL: anything left? */
#define LAUNCH_SPEC_WAIT_MS	30000	/* the reaper's spec, at most */
#define LAUNCH_GUARD_GRACE_MS	500	/* the guard's sweep: SIGTERM, SIGKILL */

enum launch_state {
	L_GATE,		/* waiting for the spec */
	L_RUNNING,	/* the program runs */
	L_CLEANUP,	/* it ended; ending what it left behind */
	L_HOLD,		/* marker written; waiting for "exit" */
	L_HANGUP	/* nobody will read the end: ending all, then leaving */
};

static void	launch_signals(void);

static struct {
	enum launch_state state;
	int		 front;		/* the front's pidfd at the gate, or -1 */
	int64_t		 deadline;	/* the one timer */
	int		 ctl;
	struct buf	 ctl_in;
	int		 dfd;		/* the runtime directory, till the spec */
	int		 sigfd;
	pid_t		 child;
	bool		 subreaper;	/* orphans below come to us */
	int		 status;
	bool		 child_done;
	bool		 noexec;
	int		 noexec_status;
	int		 verdict;	/* the script's verdict pipe, or -1 */
	char		*nonce;
	int		 in_fd;		/* run_program's input, being written */
	char		*input;
	size_t		 input_len, input_off;
} l;

/* Signal the program's group and every descendant of ours; without a
 * subreaper, every process of its group and of our session too. */
static void
launch_signal_tree(int sig)
{
	if (l.child > 0)
		kill(-l.child, sig);
	osdep_signal_descendants(getpid(), sig);
	if (!l.subreaper)
		osdep_signal_group_session(l.child, getsid(0), sig);
}

/* The program's side of the fork, before exec: the terminal, the
 * environment, the directory (cspawn.h's hook). */
static int
launch_child_hook(void *arg)
{
	const char	*dir = arg;

	signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(STDIN_FILENO, getpid());
	signal(SIGTTOU, SIG_DFL);
	setenv("PAGER", "cat", 1);
	setenv("GIT_PAGER", "cat", 1);
	if (dir != NULL && chdir(dir) == -1)
		return (-1);
	return (0);
}

/* The child's status when it could not exec. */
static int
launch_fail_status(enum spawn_stage stage, int err)
{
	if (stage == SPAWN_FAIL_EXEC && (err == ENOENT || err == ENOTDIR))
		return (127);
	return (126);
}

/* Say on the terminal why the program could not start. */
static void
launch_say_noexec(char **argv, const char *dir, enum spawn_stage stage,
    int err)
{
	l.noexec = true;
	l.noexec_status = launch_fail_status(stage, err);
	if (stage == SPAWN_FAIL_HOOK)
		dprintf(STDERR_FILENO, "progmux: cannot enter start directory "
		    "\"%s\": %s\n", dir, strerror(err));
	else if (stage == SPAWN_FAIL_EXEC && l.noexec_status == 127)
		dprintf(STDERR_FILENO, "progmux: \"%s\": command not found "
		    "(%s)\n", argv[0], strerror(err));
	else if (stage == SPAWN_FAIL_EXEC)
		dprintf(STDERR_FILENO, "progmux: \"%s\": cannot be executed "
		    "(%s)\n", argv[0], strerror(err));
	else
		dprintf(STDERR_FILENO, "progmux: cannot start %s: %s\n",
		    argv[0], strerror(err));
}

/* Start the program: its group, the terminal, run_program's standard
 * input (a pipe we feed), standard error (the reaper's FIFO) and, for
 * inheritShell's script, the verdict pipe as descriptor 3. */
static void
launch_start(char **argv, const char *dir, bool has_input,
    const char *err_name, bool verdict)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	int			 ip[2] = { -1, -1 }, vp[2] = { -1, -1 };
	int			 efd = -1, err;

	if (has_input && compat_pipe2(ip, O_CLOEXEC) == -1)
		ip[0] = ip[1] = -1;
	if (verdict && compat_pipe2(vp, O_CLOEXEC) == -1)
		vp[0] = vp[1] = -1;
	/* The reaper holds the FIFO's read end: this open does not wait. */
	if (err_name != NULL && l.dfd != -1 && (efd = rundir_open_fifo(l.dfd,
	    err_name, O_WRONLY | O_NONBLOCK)) != -1) {
		unlinkat(l.dfd, err_name, 0);	/* both ends open */
		fd_nonblock(efd, 0);
	}
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SETPGID | SPAWN_SEARCH;
	sp.fds[0] = ip[0] != -1 ? ip[0] : STDIN_FILENO;
	sp.fds[1] = STDOUT_FILENO;
	sp.fds[2] = efd != -1 ? efd : STDERR_FILENO;
	sp.nfds = 3;
	if (vp[1] != -1)
		sp.fds[sp.nfds++] = vp[1];
	sp.hook = launch_child_hook;
	sp.hook_arg = (void *)dir;
	sp.fail_status = launch_fail_status;
	l.child = cspawn_start(&sp, &stage, &err);
	if (efd != -1)
		close(efd);
	if (ip[0] != -1)
		close(ip[0]);
	if (vp[1] != -1)
		close(vp[1]);
	if ((l.verdict = vp[0]) != -1)
		fd_nonblock(l.verdict, 1);	/* read once the shell is gone */
	if (l.child == -1)
		l.child_done = true;	/* nothing ran */
	if (stage != SPAWN_OK)
		launch_say_noexec(argv, dir, stage, err);
	if (ip[1] != -1) {
		/* We write the input as the program takes it. */
		l.in_fd = ip[1];
		fd_nonblock(l.in_fd, 1);
		if (l.input_len == 0 || l.child == -1) {
			close(l.in_fd);
			l.in_fd = -1;
		}
	}
}

/* Feed run_program's input; end-of-file once all of it went. */
static void
launch_write_input(void)
{
	ssize_t	n;

	while (l.in_fd != -1 && l.input_off < l.input_len) {
		n = write(l.in_fd, l.input + l.input_off, l.input_len -
		    l.input_off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n == -1)
			break;		/* EPIPE: it stopped reading */
		l.input_off += (size_t)n;
	}
	if (l.in_fd != -1) {
		close(l.in_fd);
		l.in_fd = -1;
	}
	free(l.input);
	l.input = NULL;
}

/* Reap everything; note the program's own status. */
static void
launch_reap(void)
{
	pid_t	pid;
	int	st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == l.child && !l.child_done) {
			l.status = st;
			l.child_done = true;
		}
	}
}

/* Is any child (the program, or a descendant reparented to us) left?
 * Without a subreaper, any process of its group or our session? */
static bool
launch_has_children(void)
{
	siginfo_t	si;

	launch_reap();
	memset(&si, 0, sizeof si);
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
		return (true);
	return (!l.subreaper &&
	    osdep_signal_group_session(l.child, getsid(0), 0) > 0);
}

/* Write a marker to the terminal, behind all output so far. */
static void
launch_write_marker(enum marker_kind kind, long value)
{
	char	m[MARKER_MAX + 64];
	size_t	n;

	n = marker_format(m, sizeof m, l.nonce, kind, value);
	(void)fd_write_all(STDOUT_FILENO, m, n);
}

/* Arm the one timer ms from now. */
static void
launch_settimeout(int64_t ms)
{
	l.deadline = now_ms() + ms;
}

/* Nobody will read the end: end everything, then leave. */
static void
launch_hangup(void)
{
	if (l.state == L_HANGUP)
		return;
	if (l.state == L_GATE || l.state == L_HOLD)
		_exit(l.state == L_GATE ? 1 : 0);	/* nothing runs */
	l.state = L_HANGUP;
	launch_signal_tree(SIGTERM);
	launch_settimeout(LAUNCH_HANGUP_GRACE_MS);
}

/*
 * inheritShell's script found argv[0] missing or not executable if it
 * wrote that status (127, 126) on the verdict pipe and the shell exited
 * with it: the program never started.
 */
static void
launch_read_verdict(void)
{
	char	v[8];
	ssize_t	n;
	int	status;

	if (l.verdict == -1)
		return;
	n = read(l.verdict, v, sizeof v - 1);
	close(l.verdict);
	l.verdict = -1;
	if (n <= 0 || l.noexec || !WIFEXITED(l.status))
		return;
	v[n] = '\0';
	status = WEXITSTATUS(l.status);
	if ((status == 127 || status == 126) && atoi(v) == status) {
		l.noexec = true;
		l.noexec_status = status;
	}
}

/* Write the end marker: every byte before it has reached the terminal. */
static void
launch_marker(void)
{
	launch_signals();	/* a hangup sent before the exit counts */
	if (l.state != L_CLEANUP)
		return;		/* a hangup came with it */
	launch_read_verdict();
	signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(STDOUT_FILENO, getpgrp());
	if (l.noexec)
		launch_write_marker(MARKER_K_NOEXEC, l.noexec_status);
	else if (WIFSIGNALED(l.status))
		launch_write_marker(MARKER_K_SIGNAL, WTERMSIG(l.status));
	else
		launch_write_marker(MARKER_K_EXIT, WEXITSTATUS(l.status));
	l.state = L_HOLD;
	l.deadline = DEADLINE_NONE;
}

/*
 * Where the program's end takes us: from running to cleanup once it has
 * ended (its leftovers get SIGTERM), from cleanup to hold once nothing is
 * left; a hangup ends once nothing is left.
 */
static void
launch_progress(void)
{
	launch_reap();
	if (l.state == L_RUNNING && l.child_done) {
		l.state = L_CLEANUP;
		l.deadline = DEADLINE_NONE;
		if (launch_has_children()) {
			launch_signal_tree(SIGTERM);
			launch_settimeout(LAUNCH_CLEANUP_GRACE_MS);
		}
	}
	if (l.state == L_CLEANUP && !launch_has_children())
		launch_marker();
	if (l.state == L_HANGUP && !launch_has_children())
		_exit(0);
}

/* The deadline: no spec came, or leftovers outlived their grace. */
static void
launch_on_deadline(void)
{
	if (l.state == L_GATE)
		_exit(1);		/* no reaper came */
	launch_signal_tree(SIGKILL);
	launch_settimeout(LAUNCH_RECHECK_MS);
}

/*
 * Signals, from their descriptor (osdep.h). HUP: the pane or the server is going.
 * INT, QUIT, TERM: for the program (C-c typed while we still had the
 * terminal, or someone ending us). USR1, USR2: caught and let be, so
 * that a program signalling its parent does not end us. CHLD: reaped by
 * launch_progress.
 */
static void
launch_signals(void)
{
	int	signo;

	while (osdep_signal_next(l.sigfd, &signo)) {
		switch (signo) {
		case SIGHUP:
			launch_hangup();
			break;
		case SIGINT:
		case SIGQUIT:
		case SIGTERM:
			if (l.state == L_RUNNING) {
				kill(-l.child, signo);
				if (signo == SIGTERM)
					kill(-l.child, SIGCONT);
			} else if (signo == SIGTERM)
				launch_hangup();
			break;
		}
	}
}

/*
 * The program gets none of progmux's own settings (PROGMUX_*, LIBTMUX_*)
 * and, in robust mode, nothing that points at the private tmux server
 * (TMUX, TMUX_PANE): a program's `tmux kill-session` must not reach the
 * server all the other programs run in.
 */
static void
launch_scrub_env(bool robust)
{
	extern char	**environ;
	char		  name[256];
	size_t		  i, n;

	for (i = 0; environ[i] != NULL;) {
		n = strcspn(environ[i], "=");
		if (n >= sizeof name ||
		    (strncmp(environ[i], "PROGMUX_", 8) != 0 &&
		    strncmp(environ[i], "LIBTMUX_", 8) != 0 &&
		    !(robust && ((n == 4 && strncmp(environ[i], "TMUX", 4) ==
		    0) || (n == 9 && strncmp(environ[i], "TMUX_PANE", 9) ==
		    0))))) {
			i++;
			continue;
		}
		memcpy(name, environ[i], n);
		name[n] = '\0';
		unsetenv(name);		/* environ[i] is the next one now */
	}
}

/* NOTIFY_SOCKET: the reaper's socket for the program, never one of
 * whatever started progmux. */
static void
launch_notify_env(struct msg *spec)
{
	char	*path = msg_dup_str(spec, "notify");

	if (path != NULL)
		setenv("NOTIFY_SOCKET", path, 1);
	else
		unsetenv("NOTIFY_SOCKET");
	free(path);
}

/* The spec: the gate opens and the program starts. */
static void
launch_on_spec(struct msg *spec)
{
	struct winsize	 ws;
	char		**argv, *dir, *err_name;
	const char	*in;
	bool		 has_input;
	int64_t		 w = 0, h = 0;

	argv = msg_dup_strv(spec, "argv", NULL);
	dir = msg_dup_str(spec, "dir");
	l.nonce = msg_dup_str(spec, "nonce");
	err_name = msg_dup_str(spec, "err");
	if ((in = msg_get_bytes(spec, "input", &l.input_len)) != NULL) {
		l.input = xmemdup(in, l.input_len);
		has_input = true;
	} else
		has_input = false;
	msg_get_int(spec, "width", &w);
	msg_get_int(spec, "height", &h);
	if (argv == NULL || argv[0] == NULL || l.nonce == NULL)
		_exit(1);
	if (w > 0 && h > 0 && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) {
		ws.ws_col = (unsigned short)w;
		ws.ws_row = (unsigned short)h;
		ioctl(STDIN_FILENO, TIOCSWINSZ, &ws);
	}
	if (l.front != -1) {		/* past the gate: the reaper has us */
		close(l.front);
		l.front = -1;
	}
	l.state = L_RUNNING;
	l.deadline = DEADLINE_NONE;
	launch_scrub_env(msg_get_bool(spec, "robust"));
	launch_notify_env(spec);
	launch_start(argv, dir, has_input, err_name,
	    msg_get_bool(spec, "verdict"));
	close(l.dfd);
	l.dfd = -1;
	if (!l.noexec)
		/* The program runs and has the terminal: the front holds keys
		 * typed before this, when a C-c would reach no program. */
		launch_write_marker(MARKER_K_RUN, (long)l.child);
	strv_free(argv);
	free(dir);
	free(err_name);
}

/* A frame from the reaper: the spec at the gate, then only "exit". */
static int
launch_on_frame(void *arg, struct msg *m)
{
	(void)arg;
	if (l.state == L_GATE) {
		if (!msg_is(m, MSG_SPEC))
			_exit(1);
		launch_on_spec(m);
	} else if (msg_is(m, MSG_EXIT) && l.state == L_HOLD)
		_exit(0);	/* (sent only once the marker was read) */
	return (0);
}

/* The control FIFO is readable: frames, or EOF (the reaper is gone). */
static void
launch_on_ctl(void)
{
	char	*cause = NULL;
	ssize_t	 n;

	n = fd_read_into(l.ctl, &l.ctl_in, 64 * 1024);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || frame_each(&l.ctl_in, launch_on_frame, NULL,
	    &cause) == -1) {
		free(cause);
		launch_hangup();
	}
}

/*
 * The front died while we wait at the gate. A reaper it started holds
 * the control FIFO's other end, and keeps the program on its lease for
 * a new front: a read that finds no EOF says it is there, and the spec
 * will come. A read finding EOF says nobody holds it: no reaper will
 * come, and we leave (launch_hangup).
 */
static void
launch_front_gone(void)
{
	close(l.front);
	l.front = -1;
	launch_on_ctl();
}

/*
 * A pidfd for the front (PROGMUX_FRONT_PID, which the program must not
 * see), or -1. *gone is set if the front has exited already: then the
 * gate waits only if a reaper holds the control FIFO (launch_front_gone).
 */
static int
launch_front_pidfd(bool *gone)
{
	const char	*v = getenv("PROGMUX_FRONT_PID");
	long		 pid = v != NULL ? strtol(v, NULL, 10) : 0;
	int		 fd = -1;

	*gone = false;
	if (pid > 1 && (fd = osdep_pidfd((pid_t)pid)) == -1 && errno == ESRCH)
		*gone = true;
	unsetenv("PROGMUX_FRONT_PID");
	return (fd);
}

/*
 * The guard, once the launcher has gone (normally only once everything
 * it started has): anything left under us now (a subreaper, so orphans
 * anywhere below come to us) gets SIGTERM, then SIGKILL after the grace,
 * until nothing is; then the guard leaves, with the launcher's exit
 * status, and the pane closes.
 */
static void __attribute__((noreturn))
launch_guard_sweep(int sigfd, int status)
{
	struct pollfd		pfd = { sigfd, POLLIN, 0 };
	siginfo_t		info;
	int64_t			kill_at = now_ms() + LAUNCH_GUARD_GRACE_MS;
	int			sig = SIGTERM, signo;

	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		memset(&info, 0, sizeof info);
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) ==
		    -1 && errno == ECHILD)
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
		if (now_ms() >= kill_at)
			sig = SIGKILL;
		if (osdep_signal_descendants(getpid(), sig) == 0 &&
		    sig == SIGKILL)
			kill_at = now_ms() + LAUNCH_RECHECK_MS; /* zombies */
		poll(&pfd, 1, sig == SIGKILL ? LAUNCH_RECHECK_MS :
		    poll_timeout(kill_at));
		while (osdep_signal_next(sigfd, &signo))
			;
	}
}

/* The guard's loop: pass SIGHUP and SIGTERM on to the launcher, and
 * sweep once it has exited. */
static void __attribute__((noreturn))
launch_guard_run(pid_t launcher)
{
	struct pollfd		pfd;
	sigset_t		set;
	pid_t			pid;
	int			sigfd, st, signo;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	if ((sigfd = osdep_signals(&set)) == -1)
		_exit(1);	/* the launcher hears of it (SIGHUP) */
	pfd = (struct pollfd){ sigfd, POLLIN, 0 };
	for (;;) {
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			if (pid == launcher)
				launch_guard_sweep(sigfd, st);
		if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
			_exit(1);
		while (osdep_signal_next(sigfd, &signo))
			if (signo != SIGCHLD)
				kill(launcher, signo);
	}
}

/*
 * Become the guard: a subreaper that forks the launcher and outlives it.
 * Returns in the launcher (or, if no guard can be had, in the one
 * process there is); never in the guard. Every signal is blocked in the
 * guard; a C-c typed before the program has the terminal reaches the
 * launcher, which passes it on, and the guard ignores it.
 */
static void
launch_guard(void)
{
	sigset_t	all, old;
	pid_t		guard = getpid(), pid;

	if (osdep_subreaper() == -1)
		return;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if ((pid = fork()) == -1) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return;
	}
	if (pid == 0) {
		/* The guard killed is a hangup: end everything, go. */
		if (osdep_parent_death(SIGHUP, guard) == -1)
			_exit(1);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return;
	}
	launch_guard_run(pid);
}

int
launch_main(const char *dir, const char *id, const char *ctl)
{
	struct pollfd	 pfd[4];
	sigset_t	 set;
	char		*cause = NULL;
	int		 np, i_front;
	bool		 front_gone;

	launch_guard();

	/*
	 * Until the program has the terminal we are its foreground group: a
	 * C-c or C-\ typed as soon as the pane exists signals us. Held
	 * (blocked, read from their descriptor) they are passed on to the
	 * program once it runs, as if typed a moment later; job control
	 * keys are ignored.
	 */
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	memset(&l, 0, sizeof l);
	l.state = L_GATE;
	l.front = l.dfd = -1;
	l.in_fd = l.verdict = -1;
	/* (Our descriptors are close-on-exec; the program's child closes
	 * all but 0, 1, 2 before exec: cspawn.c.) */
	if ((l.dfd = rundir_open_checked(dir, id, &cause)) == -1) {
		dprintf(STDERR_FILENO, "progmux: %s\n", cause);
		free(cause);
		return (1);
	}
	if ((l.ctl = rundir_open_fifo(l.dfd, ctl, O_RDONLY | O_NONBLOCK)) ==
	    -1) {
		dprintf(STDERR_FILENO, "progmux: cannot open %s/%s: %s\n",
		    dir, ctl, strerror(errno));
		return (1);
	}
	unlinkat(l.dfd, ctl, 0);	/* the reaper holds the other end */
	if ((l.sigfd = osdep_signals(&set)) == -1) {
		dprintf(STDERR_FILENO, "progmux: cannot take signals as "
		    "events: %s\n", strerror(errno));
		return (1);
	}
	l.subreaper = osdep_subreaper() == 0;
	/* A reaper that never comes (it died, or the front did, before it
	 * opened its end) does not leave us in the pane for ever. */
	launch_settimeout(LAUNCH_SPEC_WAIT_MS);
	/* Nor does a front that died before it started the reaper. */
	l.front = launch_front_pidfd(&front_gone);
	if (front_gone)
		launch_on_ctl();	/* (launch_front_gone) */

	for (;;) {
		if (l.state != L_GATE) {
			launch_progress();
			launch_write_input();
		}
		pfd[0] = (struct pollfd){ l.sigfd, POLLIN, 0 };
		pfd[1] = (struct pollfd){ l.ctl, POLLIN, 0 };
		np = 2;
		if (l.in_fd != -1)
			pfd[np++] = (struct pollfd){ l.in_fd, POLLOUT, 0 };
		i_front = -1;
		if (l.state == L_GATE && l.front != -1)
			pfd[i_front = np++] = (struct pollfd){ l.front, POLLIN,
			    0 };
		if (poll(pfd, np, poll_timeout(l.deadline)) == -1 &&
		    errno != EINTR)
			_exit(1);
		if (i_front != -1 && pfd[i_front].revents != 0 &&
		    pfd[1].revents == 0)
			launch_front_gone();
		if (pfd[0].revents & POLLIN)
			launch_signals();
		if (pfd[1].revents)
			launch_on_ctl();
		if (l.deadline != DEADLINE_NONE && now_ms() >= l.deadline)
			launch_on_deadline();
	}
}
