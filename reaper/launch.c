/*
 * launch.c — the launcher: the first process of a program's pane.
 *
 * tmux starts `progmux-reaper --launch CTL` with fixed arguments, so no
 * client text ever reaches tmux's command parser or a shell. The launcher
 * opens CTL (a FIFO in the private runtime directory) and blocks until the
 * reaper writes the spec — the reaper does that only once pipe-pane is
 * attached, so not one byte of early output is lost. It then:
 *
 *  - becomes a child subreaper, so daemons the program leaves behind are
 *    reparented to it and can be found and ended;
 *  - forks the program in its own process group, made the terminal's
 *    foreground group (C-c reaches the program, not the launcher), with
 *    PAGER=cat and GIT_PAGER=cat, in startDirectory, and execs argv
 *    without a shell; an exec or chdir failure comes back on a cloexec
 *    pipe and is printed on the terminal with the reason (status 127 not
 *    found, 126 otherwise);
 *  - on "term" sends SIGTERM (and SIGCONT) to the program's group and
 *    SIGKILL after the grace; on "kill", SIGKILL at once;
 *  - when the program has ended, ends every descendant still there, then
 *    writes the end marker (proto.h) with the wait status to the terminal;
 *  - waits for "exit" from the reaper (the end has been read), then exits
 *    and the pane closes. EOF on CTL (reaper gone) or SIGHUP (pane gone)
 *    ends everything at once.
 */
#include <ctype.h>
#include <dirent.h>
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
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "proto.h"
#include "reaper.h"
#include "timeutil.h"
#include "xmalloc.h"

#define LAUNCH_CLEANUP_GRACE_MS	200	/* leftovers: SIGTERM, then SIGKILL */
#define LAUNCH_HANGUP_GRACE_MS	500
#define LAUNCH_SPEC_WAIT_MS	30000	/* the reaper's spec, at most */

enum launch_state {
	L_RUNNING,	/* the program runs */
	L_CLEANUP,	/* it ended; ending what it left behind */
	L_HOLD		/* marker written; waiting for "exit" */
};

static struct {
	enum launch_state state;
	int		 ctl;
	struct buf	 ctl_in;
	int		 sigfd;
	pid_t		 child;
	int		 status;
	bool		 child_done;
	bool		 noexec;
	int		 noexec_status;
	bool		 hangup;	/* terminal or reaper gone: no marker */
	int64_t		 kill_deadline;	/* SIGKILL the group then */
	char		*nonce;
	int		 in_fd;		/* run_program's input, being written */
	char		*input;
	size_t		 input_len, input_off;
} l;

/* Signal the program's group and every descendant of ours. */
static void
launch_signal_tree(int sig)
{
	DIR		*d;
	struct dirent	*de;
	pid_t		*pids = NULL, *ppids = NULL, self = getpid();
	size_t		 n = 0, cap = 0, i;
	bool		*mark, changed;
	char		 path[64], line[512], *p;
	FILE		*f;

	if (l.child > 0)
		kill(-l.child, sig);
	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof path, "/proc/%.32s/stat", de->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		if (fgets(line, sizeof line, f) != NULL &&
		    (p = strrchr(line, ')')) != NULL) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				pids = xreallocarray(pids, cap, sizeof *pids);
				ppids = xreallocarray(ppids, cap,
				    sizeof *ppids);
			}
			pids[n] = (pid_t)atol(de->d_name);
			ppids[n] = (pid_t)atol(p + 4);	/* ") S ppid" */
			n++;
		}
		fclose(f);
	}
	closedir(d);
	mark = xcalloc(n + 1, sizeof *mark);
	do {
		changed = false;
		for (i = 0; i < n; i++) {
			if (mark[i])
				continue;
			if (ppids[i] == self) {
				mark[i] = changed = true;
				continue;
			}
			for (size_t j = 0; j < n; j++)
				if (mark[j] && pids[j] == ppids[i]) {
					mark[i] = changed = true;
					break;
				}
		}
	} while (changed);
	for (i = 0; i < n; i++)
		if (mark[i]) {
			kill(pids[i], sig);
			if (sig == SIGTERM)
				kill(pids[i], SIGCONT);
		}
	free(mark);
	free(pids);
	free(ppids);
}

/* The program's child side: group, terminal, environment, directory,
 * and for run_program its standard input and standard error. */
static void __attribute__((noreturn))
launch_child(char **argv, const char *dir, int errfd, int infd,
    const char *err_path)
{
	sigset_t	set;
	int		rec[2], sig, fd;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	setpgid(0, 0);
	signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(STDIN_FILENO, getpid());
	signal(SIGTTOU, SIG_DFL);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	setenv("PAGER", "cat", 1);
	setenv("GIT_PAGER", "cat", 1);
	if (infd != -1)
		dup2(infd, STDIN_FILENO);
	if (err_path != NULL && (fd = open(err_path, O_WRONLY)) != -1)
		dup2(fd, STDERR_FILENO);	/* the reaper reads it apart */
	fd_closefrom(3, errfd);
	if (dir != NULL && chdir(dir) == -1) {
		rec[0] = 1;
		rec[1] = errno;
		(void)!write(errfd, rec, sizeof rec);
		_exit(126);
	}
	execvp(argv[0], argv);
	rec[0] = 2;
	rec[1] = errno;
	(void)!write(errfd, rec, sizeof rec);
	_exit(errno == ENOENT || errno == ENOTDIR ? 127 : 126);
}

/* Start the program; a chdir or exec failure is said on the terminal. */
static void
launch_start(char **argv, const char *dir, bool has_input,
    const char *err_path)
{
	int	ep[2], rec[2], ip[2] = { -1, -1 };
	ssize_t	n;

	if (has_input && pipe2(ip, O_CLOEXEC) == -1)
		ip[0] = ip[1] = -1;
	if (pipe2(ep, O_CLOEXEC) == -1) {
		dprintf(STDERR_FILENO, "progmux: cannot start %s: %s\n",
		    argv[0], strerror(errno));
		l.noexec = true;
		l.noexec_status = 126;
		l.child_done = true;
		return;
	}
	l.child = fork();
	if (l.child == -1) {
		dprintf(STDERR_FILENO, "progmux: cannot start %s: %s\n",
		    argv[0], strerror(errno));
		l.noexec = true;
		l.noexec_status = 126;
		l.child_done = true;
		close(ep[0]);
		close(ep[1]);
		return;
	}
	if (l.child == 0) {
		close(ep[0]);
		launch_child(argv, dir, ep[1], ip[0], err_path);
	}
	setpgid(l.child, l.child);
	close(ep[1]);
	if (ip[0] != -1) {
		/* We write the input as the program takes it. */
		close(ip[0]);
		l.in_fd = ip[1];
		fd_nonblock(l.in_fd, 1);
		if (l.input_len == 0) {
			close(l.in_fd);
			l.in_fd = -1;
		}
	}
	do
		n = read(ep[0], rec, sizeof rec);
	while (n == -1 && errno == EINTR);
	close(ep[0]);
	if (n != (ssize_t)sizeof rec)
		return;		/* exec succeeded */
	l.noexec = true;
	if (rec[0] == 1) {
		l.noexec_status = 126;
		dprintf(STDERR_FILENO, "progmux: cannot enter start directory "
		    "\"%s\": %s\n", dir, strerror(rec[1]));
	} else if (rec[1] == ENOENT || rec[1] == ENOTDIR) {
		l.noexec_status = 127;
		dprintf(STDERR_FILENO, "progmux: \"%s\": command not found "
		    "(%s)\n", argv[0], strerror(rec[1]));
	} else {
		l.noexec_status = 126;
		dprintf(STDERR_FILENO, "progmux: \"%s\": cannot be executed "
		    "(%s)\n", argv[0], strerror(rec[1]));
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

/* Is any child (the program, or a descendant reparented to us) left? */
static bool
launch_has_children(void)
{
	siginfo_t	si;

	launch_reap();
	memset(&si, 0, sizeof si);
	return (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0);
}

/* Write a marker (proto.h) to the terminal, behind all output so far. */
static void
launch_write_marker(const char *kind, long value)
{
	char	m[MARKER_MAX + 64];
	int	n;

	n = snprintf(m, sizeof m, "%s%s;%s;%ld\007", MARKER_PREFIX, l.nonce,
	    kind, value);
	(void)fd_write_all(STDOUT_FILENO, m, (size_t)n);
}

/*
 * Signals, from the signalfd. HUP or TERM: the pane or the server is
 * going. INT or QUIT: typed while we still had the terminal, for the
 * program. USR2 or USR1 from the program itself: the login shell of
 * inheritShell found argv[0] missing (127) or not executable (126), so
 * the program never started.
 */
static void
launch_signals(void)
{
	struct signalfd_siginfo	si;

	while (read(l.sigfd, &si, sizeof si) == sizeof si) {
		switch (si.ssi_signo) {
		case SIGHUP:
		case SIGTERM:
			l.hangup = true;
			break;
		case SIGINT:
		case SIGQUIT:
			if (l.child > 0 && !l.child_done)
				kill(-l.child, (int)si.ssi_signo);
			break;
		case SIGUSR1:
		case SIGUSR2:
			if (l.child > 0 && (pid_t)si.ssi_pid == l.child) {
				l.noexec = true;
				l.noexec_status = si.ssi_signo == SIGUSR2 ?
				    127 : 126;
			}
			break;
		}
	}
}

/* Write the end marker: every byte before it has reached the terminal. */
static void
launch_marker(void)
{
	launch_signals();	/* a USR1/USR2 sent before the exit counts */
	signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(STDOUT_FILENO, getpgrp());
	if (l.noexec)
		launch_write_marker(MARKER_NOEXEC, l.noexec_status);
	else if (WIFSIGNALED(l.status))
		launch_write_marker(MARKER_SIGNAL, WTERMSIG(l.status));
	else
		launch_write_marker(MARKER_EXIT, WEXITSTATUS(l.status));
	l.state = L_HOLD;
}

/* Act on the frames from the reaper that are buffered. */
static void
launch_ctl_frames(void)
{
	struct msg	 m;
	char		*cause = NULL;
	int64_t		 grace = PROTO_GRACE_MS;

	while (frame_take(&l.ctl_in, &m, &cause) == 1) {
		if (msg_is(&m, MSG_TERM) && l.state == L_RUNNING) {
			msg_get_int(&m, "grace_ms", &grace);
			launch_signal_tree(SIGTERM);
			l.kill_deadline = now_ms() + grace;
		} else if (msg_is(&m, MSG_KILL))
			launch_signal_tree(SIGKILL);
		else if (msg_is(&m, MSG_EXIT) && l.state == L_HOLD)
			_exit(0);	/* (sent only once the marker was read) */
		msg_free(&m);
	}
	free(cause);
}

/* Frames from the reaper after the spec. */
static void
launch_on_ctl(void)
{
	ssize_t	n;

	n = fd_read_into(l.ctl, &l.ctl_in, 4096);
	if (n == -1 && errno == EAGAIN)
		return;
	if (n <= 0) {
		l.hangup = true;	/* the reaper is gone */
		return;
	}
	launch_ctl_frames();
}

/*
 * A pidfd for the front (PROGMUX_FRONT_PID, which the program must not
 * see), or -1. *gone is set if the front has exited already.
 */
static int
launch_front_pidfd(bool *gone)
{
	const char	*v = getenv("PROGMUX_FRONT_PID");
	long		 pid = v != NULL ? strtol(v, NULL, 10) : 0;
	int		 fd = -1;

	*gone = false;
#ifdef SYS_pidfd_open
	if (pid > 1 && (fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)) ==
	    -1 && errno == ESRCH)
		*gone = true;
#endif
	unsetenv("PROGMUX_FRONT_PID");
	return (fd);
}

/*
 * Read the spec: this is the gate. The FIFO is opened without blocking and
 * waited on with a bound, so a reaper that never comes (it died, or the
 * front did, before it opened its end) does not leave us in the pane for
 * ever; its EOF (reaper gone) ends the wait too, and so does the front's
 * death before it started the reaper (front, a pidfd, or -1).
 */
static struct msg *
launch_read_spec(int front)
{
	static struct msg	 m;
	struct pollfd		 pfd[2];
	char			*cause = NULL;
	int64_t			 deadline = now_ms() + LAUNCH_SPEC_WAIT_MS;
	ssize_t			 n;
	int			 ret;

	for (;;) {
		if ((ret = frame_take(&l.ctl_in, &m, &cause)) == 1)
			break;
		if (ret == -1)
			return (NULL);
		pfd[0] = (struct pollfd){ l.ctl, POLLIN, 0 };
		pfd[1] = (struct pollfd){ front, POLLIN, 0 };
		if (poll(pfd, front != -1 ? 2 : 1, poll_timeout(deadline)) == 0)
			return (NULL);		/* no reaper came */
		if (front != -1 && pfd[1].revents != 0 && pfd[0].revents == 0)
			return (NULL);		/* nor will one now */
		n = fd_read_into(l.ctl, &l.ctl_in, 64 * 1024);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			return (NULL);
	}
	if (!msg_is(&m, MSG_SPEC)) {
		msg_free(&m);
		return (NULL);
	}
	return (&m);
}

int
launch_main(const char *ctl_path)
{
	struct msg	*spec;
	struct winsize	 ws;
	struct pollfd	 pfd[3];
	sigset_t	 set;
	char		**argv, *dir, *err_path;
	const char	*in;
	bool		 has_input;
	int		 np, front;
	bool		 front_gone;
	int64_t		 w = 0, h = 0, deadline;

	/*
	 * Until the program has the terminal we are its foreground group: a
	 * C-c or C-\ typed as soon as the pane exists signals us. Held
	 * (blocked) here, they are passed on to the program once it runs,
	 * as if typed a moment later; job control keys are ignored.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);

	memset(&l, 0, sizeof l);
	l.kill_deadline = DEADLINE_NONE;
	l.in_fd = -1;
	/* (Our descriptors are close-on-exec; the program's child closes
	 * all but 0, 1, 2 before exec: fd_closefrom in launch_child.) */
	if ((l.ctl = open(ctl_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) ==
	    -1) {
		dprintf(STDERR_FILENO, "progmux: cannot open %s: %s\n",
		    ctl_path, strerror(errno));
		return (1);
	}
	front = launch_front_pidfd(&front_gone);
	spec = front_gone ? NULL : launch_read_spec(front);
	if (front != -1)
		close(front);
	if (spec == NULL)
		return (1);
	argv = msg_dup_strv(spec, "argv", NULL);
	dir = msg_dup_str(spec, "dir");
	l.nonce = msg_dup_str(spec, "nonce");
	err_path = msg_dup_str(spec, "err");
	if ((in = msg_get_bytes(spec, "input", &l.input_len)) != NULL) {
		l.input = xmemdup(in, l.input_len);
		has_input = true;
	} else
		has_input = false;
	msg_get_int(spec, "width", &w);
	msg_get_int(spec, "height", &h);
	msg_free(spec);
	if (argv == NULL || argv[0] == NULL || l.nonce == NULL)
		return (1);
	fd_nonblock(l.ctl, 1);

	if (w > 0 && h > 0 && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) {
		ws.ws_col = (unsigned short)w;
		ws.ws_row = (unsigned short)h;
		ioctl(STDIN_FILENO, TIOCSWINSZ, &ws);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
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
	l.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);

	launch_start(argv, dir, has_input, err_path);
	if (!l.noexec)
		/* The program runs and has the terminal: the front holds keys
		 * typed before this, when a C-c would reach no program. */
		launch_write_marker(MARKER_RUN, (long)l.child);
	/* Frames that came with the spec (a quick stop) count too. */
	launch_ctl_frames();

	for (;;) {
		launch_reap();
		if (l.hangup) {
			/* Nobody will read the end: end everything, leave. */
			launch_signal_tree(SIGTERM);
			deadline = now_ms() + LAUNCH_HANGUP_GRACE_MS;
			while (launch_has_children() && now_ms() < deadline)
				poll(NULL, 0, 10);
			launch_signal_tree(SIGKILL);
			while (launch_has_children())
				poll(NULL, 0, 5);
			_exit(0);
		}
		if (l.state == L_RUNNING && l.child_done) {
			l.state = L_CLEANUP;
			if (launch_has_children()) {
				launch_signal_tree(SIGTERM);
				l.kill_deadline = now_ms() +
				    LAUNCH_CLEANUP_GRACE_MS;
			}
		}
		if (l.state != L_HOLD && l.kill_deadline != DEADLINE_NONE &&
		    now_ms() >= l.kill_deadline) {
			launch_signal_tree(SIGKILL);
			l.kill_deadline = now_ms() + 50;
		}
		if (l.state == L_CLEANUP && !launch_has_children()) {
			launch_marker();
		}

		launch_write_input();
		pfd[0] = (struct pollfd){ l.sigfd, POLLIN, 0 };
		pfd[1] = (struct pollfd){ l.ctl, POLLIN, 0 };
		np = 2;
		if (l.in_fd != -1)
			pfd[np++] = (struct pollfd){ l.in_fd, POLLOUT, 0 };
		if (poll(pfd, np, poll_timeout(l.state == L_HOLD ?
		    DEADLINE_NONE : l.kill_deadline)) == -1 && errno != EINTR)
			_exit(1);
		if (pfd[0].revents & POLLIN)
			launch_signals();
		if (pfd[1].revents)
			launch_on_ctl();
	}
}
