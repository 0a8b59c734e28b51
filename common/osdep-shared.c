/*
 * osdep-shared.c — what the ports without Linux's facilities share
 * (osdep-darwin.c, osdep-posix.c; the build adds it to them): signals
 * through a self-pipe, a connect in the checked directory, and no
 * subreaper, parent-death signal or deferred accept (ENOSYS).
 *
 * Signals, as skalibs' selfpipe does it where there is no signalfd: a
 * handler catches each signal of the set and writes its number into a
 * pipe, and the loop reads them. The handler only writes that one
 * record, keeping errno: a write of less than PIPE_BUF is whole or not
 * at all, and a full pipe (thousands of records not yet read) loses the
 * record, as a signal already pending would be lost anyway. The pipe is this process's: a child that inherited it
 * with the handlers makes its own when it asks (cspawn.c resets the
 * handlers of a child that execs, and the pipe is close-on-exec).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "fdutil.h"
#include "osdep.h"

static int	selfpipe_fd[2] = { -1, -1 };
static pid_t	selfpipe_owner;

/* The handler: the signal's number into the pipe. */
static void
selfpipe_catch(int signo)
{
	int	saved = errno;

	(void)!write(selfpipe_fd[1], &signo, sizeof signo);
	errno = saved;
}

/* Catch the signals in set (unblocking them) into this process's pipe:
 * its read end; called again, it adds to the set, the same pipe. */
int
osdep_signals(const sigset_t *set)
{
	struct sigaction	sa;
	sigset_t		mask;
	int			sig;

	if (selfpipe_fd[0] != -1 && selfpipe_owner != getpid()) {
		/* Our parent's, inherited: not ours to read or write. */
		close(selfpipe_fd[0]);
		close(selfpipe_fd[1]);
		selfpipe_fd[0] = selfpipe_fd[1] = -1;
	}
	if (selfpipe_fd[0] == -1) {
		if (compat_pipe2(selfpipe_fd, O_CLOEXEC | O_NONBLOCK) == -1)
			return (-1);
		selfpipe_owner = getpid();
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = selfpipe_catch;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigemptyset(&mask);
	for (sig = 1; sig < NSIG; sig++) {
		if (sigismember(set, sig) != 1)
			continue;
		if (sigaction(sig, &sa, NULL) == -1)
			return (-1);
		sigaddset(&mask, sig);
	}
	if (sigprocmask(SIG_UNBLOCK, &mask, NULL) == -1)
		return (-1);
	return (selfpipe_fd[0]);
}

int
osdep_signal_next(int fd, int *signo)
{
	ssize_t	n;

	do
		n = read(fd, signo, sizeof *signo);
	while (n == -1 && errno == EINTR);
	return (n == (ssize_t)sizeof *signo);
}

int
osdep_connect_at(int sock, int dfd, const char *name)
{
	return (fd_connect_in(sock, dfd, name));
}

int
osdep_subreaper(void)
{
	errno = ENOSYS;
	return (-1);
}

int
osdep_parent_death(int sig, pid_t parent)
{
	(void)sig;
	(void)parent;
	errno = ENOSYS;
	return (-1);
}

int
osdep_defer_accept(int fd, int secs)
{
	(void)fd;
	(void)secs;
	errno = ENOSYS;
	return (-1);
}
