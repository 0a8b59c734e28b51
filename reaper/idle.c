/*
 * idle.c — `progmux-reaper --idle FRONTPID DIR`: what the session's own
 * window runs.
 *
 * tmux makes a session with a window in it. Left to itself that window
 * would run the person's login shell (their profile, for nothing, killed
 * half-way at shutdown). Ours runs this instead: it holds no descriptor
 * of anyone's (only the pane's terminal as 0, 1 and 2, and a pidfd of its
 * own), ignores the keys and signals a person may send it by mistake,
 * and exits as soon as the front is gone, so the window closes by itself
 * and an empty session, and an empty server, go with it. It also exits
 * when its terminal goes (the pane was killed). On its way out it
 * removes the front's runtime directory DIR if nobody of the instance
 * holds it any more (rundir.h): when the front and the process that
 * started it were killed together, nobody else is left to.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdutil.h"
#include "osdep.h"
#include "reaper.h"
#include "rundir.h"
#include "timeutil.h"

#define IDLE_CHECK_MS	500	/* without pidfd: how often to look */
#define IDLE_KIDS_MAX	8	/* the front's children followed */
#define IDLE_KIDS_MS	2000	/* how long they may take to go */
#define IDLE_LINGER_MS	250	/* then, before the window closes */
#define IDLE_RUNDIR_WAIT_MS 3000 /* for a private server to let go */

static int	idle_wait(const char *);

/*
 * pidfds for the front's children now (its tmux control client among
 * them), up to max; how many.
 */
static int
idle_kids(pid_t front, int *fds, int max)
{
	pid_t	kids[IDLE_KIDS_MAX];
	int	i, n, m = 0;

	n = osdep_children(front, kids, max < IDLE_KIDS_MAX ? max :
	    IDLE_KIDS_MAX);
	for (i = 0; i < n; i++)
		if ((fds[m] = osdep_pidfd(kids[i])) != -1)
			m++;
	return (m);
}

/*
 * The front is gone: wait (IDLE_KIDS_MS at most) for the children it had
 * when we started to go too. Its tmux control client is one: it dies with
 * the front, and this window must close after it has left, not while it
 * is still being dropped (tmux 3.3a can crash when a session's last window
 * goes as a control client leaves).
 */
static void
idle_wait_kids(int *fds, int n)
{
	struct pollfd	pfd[IDLE_KIDS_MAX];
	int64_t		deadline = now_ms() + IDLE_KIDS_MS;
	int		i, m;

	for (;;) {
		for (i = m = 0; i < n; i++)
			if (fds[i] != -1)
				pfd[m++] = (struct pollfd){ fds[i], POLLIN, 0 };
		if (m == 0 || now_ms() >= deadline)
			return;
		if (poll(pfd, m, poll_timeout(deadline)) == -1 &&
		    errno != EINTR)
			return;
		for (i = 0; i < m; i++) {
			if (pfd[i].revents == 0)
				continue;
			for (int k = 0; k < n; k++)
				if (fds[k] == pfd[i].fd) {
					close(fds[k]);
					fds[k] = -1;
				}
		}
	}
}

/* Drain what was typed; false once the terminal is gone. */
static bool
idle_drain_tty(void)
{
	char	buf[256];
	ssize_t	n;

	n = read(STDIN_FILENO, buf, sizeof buf);
	if (n == -1)
		return (errno == EINTR || errno == EAGAIN);
	return (n > 0);
}

/*
 * Wait for the front (pid) to die, then exit 0: by _exit, since there is
 * nothing to flush and no exit handler (a sanitizer's leak check, say)
 * should run in a process whose terminal may be gone.
 */
int
idle_main(const char *arg, const char *rundir)
{
	int	ret = idle_wait(arg);

	if (ret == 0)
		rundir_remove_path(rundir, IDLE_RUNDIR_WAIT_MS);
	_exit(ret);
}

/*
 * A control client's exit reaches the tmux server as its socket's EOF,
 * which the server reads on a later turn of its loop than the one that
 * may see this window's end: stay IDLE_LINGER_MS more, so that the
 * session's last window never closes while tmux still holds a departing
 * control client. Bounded, and only after the front has died.
 */
static void
idle_linger(void)
{
	int64_t	deadline = now_ms() + IDLE_LINGER_MS;

	while (now_ms() < deadline)
		if (poll(NULL, 0, poll_timeout(deadline)) == -1 &&
		    errno != EINTR)
			return;
}

/* The body of idle_main: what to exit with. */
static int
idle_wait(const char *arg)
{
	struct pollfd	 pfd[2];
	char		*end;
	long		 v;
	pid_t		 front;
	int		 pidfd, n, timeout, kids[IDLE_KIDS_MAX], nkids = 0;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || v <= 1 ||
	    v > 0x7fffffff) {
		fprintf(stderr, "progmux-reaper --idle: bad pid \"%s\"\n", arg);
		return (2);
	}
	front = (pid_t)v;
	fd_closefrom(STDERR_FILENO + 1, -1);
	/* A C-c or a hangup meant for someone else does not end us. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if ((pidfd = osdep_pidfd(front)) == -1 && errno == ESRCH)
		return (0);
	if (pidfd == -1 && kill(front, 0) == -1 && errno == ESRCH)
		return (0);
	if (pidfd != -1)
		nkids = idle_kids(front, kids, IDLE_KIDS_MAX);
	printf("progmux (pid %ld) keeps this session; its programs open "
	    "windows beside this one.\r\n", (long)front);
	fflush(stdout);
	fd_nonblock(STDIN_FILENO, 1);
	for (;;) {
		n = 0;
		pfd[n++] = (struct pollfd){ STDIN_FILENO, POLLIN, 0 };
		if (pidfd != -1)
			pfd[n++] = (struct pollfd){ pidfd, POLLIN, 0 };
		timeout = pidfd != -1 ? -1 : IDLE_CHECK_MS;
		if (poll(pfd, n, timeout) == -1) {
			if (errno == EINTR)
				continue;
			return (1);
		}
		if (pidfd != -1 && pfd[1].revents != 0) {
			idle_wait_kids(kids, nkids);
			idle_linger();
			return (0);	/* the front has exited */
		}
		if (pidfd == -1 && kill(front, 0) == -1 && errno == ESRCH)
			return (0);
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			return (0);	/* our pane is gone */
		if ((pfd[0].revents & POLLIN) && !idle_drain_tty())
			return (0);
	}
}
