/*
 * compat.c — the calls of compat.h: the system's own where it has them,
 * else made of POSIX calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "compat.h"
#include "fdutil.h"

#if !defined(COMPAT_HAVE_PIPE2) || !defined(COMPAT_HAVE_SOCK_FLAGS)
/* Set O_CLOEXEC and O_NONBLOCK (as flags asks) on n descriptors; on
 * failure close them all, keeping errno. */
static int
compat_set_flags(int *fd, int n, int flags)
{
	int	i, err;

	for (i = 0; i < n; i++) {
		if (((flags & O_CLOEXEC) && fd_cloexec(fd[i], 1) == -1) ||
		    ((flags & O_NONBLOCK) && fd_nonblock(fd[i], 1) == -1)) {
			err = errno;
			for (i = 0; i < n; i++)
				close(fd[i]);
			errno = err;
			return (-1);
		}
	}
	return (0);
}
#endif

int
compat_pipe2(int fd[2], int flags)
{
#ifdef COMPAT_HAVE_PIPE2
	return (pipe2(fd, flags));
#else
	if (flags & ~(O_CLOEXEC | O_NONBLOCK)) {
		errno = EINVAL;
		return (-1);
	}
	if (pipe(fd) == -1)
		return (-1);
	return (compat_set_flags(fd, 2, flags));
#endif
}

int
compat_dup3(int oldfd, int newfd, int flags)
{
#ifdef COMPAT_HAVE_PIPE2
	return (dup3(oldfd, newfd, flags));
#else
	if (oldfd == newfd || (flags & ~O_CLOEXEC)) {
		errno = EINVAL;
		return (-1);
	}
	if (dup2(oldfd, newfd) == -1)
		return (-1);
	if ((flags & O_CLOEXEC) && fd_cloexec(newfd, 1) == -1) {
		close(newfd);
		return (-1);
	}
	return (newfd);
#endif
}

int
compat_socket(int domain, int type, int protocol, int flags)
{
#ifdef COMPAT_HAVE_SOCK_FLAGS
	return (socket(domain, type | ((flags & O_CLOEXEC) ? SOCK_CLOEXEC :
	    0) | ((flags & O_NONBLOCK) ? SOCK_NONBLOCK : 0), protocol));
#else
	int	fd;

	if ((fd = socket(domain, type, protocol)) == -1 ||
	    compat_set_flags(&fd, 1, flags) == -1)
		return (-1);
	return (fd);
#endif
}

int
compat_socketpair(int domain, int type, int protocol, int sv[2], int flags)
{
#ifdef COMPAT_HAVE_SOCK_FLAGS
	return (socketpair(domain, type | ((flags & O_CLOEXEC) ?
	    SOCK_CLOEXEC : 0) | ((flags & O_NONBLOCK) ? SOCK_NONBLOCK : 0),
	    protocol, sv));
#else
	if (socketpair(domain, type, protocol, sv) == -1)
		return (-1);
	return (compat_set_flags(sv, 2, flags));
#endif
}

void *
compat_memrchr(const void *s, int c, size_t n)
{
#ifdef COMPAT_HAVE_MEMRCHR
	return (memrchr(s, c, n));
#else
	const unsigned char	*p = s;

	while (n > 0)
		if (p[--n] == (unsigned char)c)
			return ((void *)(p + n));
	return (NULL);
#endif
}

/*
 * Signal names as glibc's sigabbrev_np gives them. Where two names share
 * a number the first listed wins (ABRT not IOT, CHLD not CLD, POLL not
 * IO on Linux, as glibc says; macOS has no SIGPOLL and says IO).
 */
static const struct {
	int		 sig;
	const char	*name;
} compat_signames[] = {
	{ SIGHUP, "HUP" }, { SIGINT, "INT" }, { SIGQUIT, "QUIT" },
	{ SIGILL, "ILL" }, { SIGTRAP, "TRAP" }, { SIGABRT, "ABRT" },
#ifdef SIGEMT
	{ SIGEMT, "EMT" },
#endif
	{ SIGBUS, "BUS" }, { SIGFPE, "FPE" }, { SIGKILL, "KILL" },
	{ SIGUSR1, "USR1" }, { SIGSEGV, "SEGV" }, { SIGUSR2, "USR2" },
	{ SIGPIPE, "PIPE" }, { SIGALRM, "ALRM" }, { SIGTERM, "TERM" },
#ifdef SIGSTKFLT
	{ SIGSTKFLT, "STKFLT" },
#endif
	{ SIGCHLD, "CHLD" }, { SIGCONT, "CONT" }, { SIGSTOP, "STOP" },
	{ SIGTSTP, "TSTP" }, { SIGTTIN, "TTIN" }, { SIGTTOU, "TTOU" },
	{ SIGURG, "URG" }, { SIGXCPU, "XCPU" }, { SIGXFSZ, "XFSZ" },
	{ SIGVTALRM, "VTALRM" }, { SIGPROF, "PROF" },
#ifdef SIGWINCH
	{ SIGWINCH, "WINCH" },
#endif
#if defined(SIGPOLL) && !defined(__APPLE__)
	{ SIGPOLL, "POLL" },
#endif
#ifdef SIGIO
	{ SIGIO, "IO" },
#endif
#ifdef SIGINFO
	{ SIGINFO, "INFO" },
#endif
#ifdef SIGPWR
	{ SIGPWR, "PWR" },
#endif
#ifdef SIGLOST
	{ SIGLOST, "LOST" },
#endif
	{ SIGSYS, "SYS" },
};

const char *
compat_sigabbrev(int sig)
{
	size_t	i;

	for (i = 0; i < sizeof compat_signames / sizeof *compat_signames; i++)
		if (compat_signames[i].sig == sig)
			return (compat_signames[i].name);
	return (NULL);
}

#ifdef COMPAT_NO_MKFIFOAT
struct compat_fifo {
	const char	*name;
	mode_t		 mode;
};

/* mkfifo, in the directory fd_in_dir entered. */
static int
compat_mkfifo_here(void *arg)
{
	struct compat_fifo	*f = arg;

	return (mkfifo(f->name, f->mode));
}
#endif

int
compat_mkfifoat(int dfd, const char *name, mode_t mode)
{
#ifndef COMPAT_NO_MKFIFOAT
	return (mkfifoat(dfd, name, mode));
#else
	struct compat_fifo	f = { name, mode };

	return (fd_in_dir(dfd, compat_mkfifo_here, &f));
#endif
}

/* A pidfd of pid where the kernel has pidfd_open(2); else ENOSYS. */
int
compat_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return ((int)syscall(SYS_pidfd_open, pid, 0));
#else
	(void)pid;
	errno = ENOSYS;
	return (-1);
#endif
}
