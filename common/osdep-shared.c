/*
 * osdep-shared.c — what the ports without Linux's facilities share
 * (osdep-darwin.c, osdep-posix.c; the build adds it to them): signals
 * through a self-pipe, a connect in the checked directory, and no
 * subreaper, parent-death signal or deferred accept (ENOSYS).
 *
 * Signals, as skalibs' selfpipe does it where there is no signalfd: a
 * handler catches each signal of the set and writes its number and
 * sender into a pipe, and the loop reads them. The handler only writes
 * one record (the signal and who sent it, from SA_SIGINFO), keeping errno: a write of less than
 * PIPE_BUF is whole or not at all, and a full pipe (thousands of records
 * not yet read) loses the record, as a signal already pending would be
 * lost anyway. The pipe is this process's: a child that inherited it
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

struct selfpipe_rec {
	int	signo;
	pid_t	from;
};

static int	selfpipe_fd[2] = { -1, -1 };
static pid_t	selfpipe_owner;

/* The handler: one record into the pipe. */
static void
selfpipe_catch(int signo, siginfo_t *si, void *uctx)
{
	struct selfpipe_rec	rec;
	int			saved = errno;

	(void)uctx;
	rec.signo = signo;
	/* A sender only where there is one: kill(2), sigqueue(3), a child. */
	rec.from = si != NULL && (si->si_code == SI_USER ||
	    si->si_code == SI_QUEUE || signo == SIGCHLD) ? si->si_pid : 0;
	(void)!write(selfpipe_fd[1], &rec, sizeof rec);
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
	sa.sa_sigaction = selfpipe_catch;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
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
osdep_signal_next(int fd, int *signo, pid_t *from)
{
	struct selfpipe_rec	rec;
	ssize_t			n;

	do
		n = read(fd, &rec, sizeof rec);
	while (n == -1 && errno == EINTR);
	if (n != (ssize_t)sizeof rec)
		return (0);
	*signo = rec.signo;
	if (from != NULL)
		*from = rec.from;
	return (1);
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
