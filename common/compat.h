/*
 * compat.h — the calls glibc has and other systems lack, in one place
 * (as tmux's compat/). The code calls these, never the GNU ones; each is
 * the system's own call where it has one, and otherwise a fallback made
 * of POSIX calls:
 *
 *   compat_pipe2, compat_dup3	pipe2, dup3 (macOS has neither); the
 *				fallback sets the flags with fcntl after
 *				the call, which is safe because no process
 *				of ours has a second thread that could
 *				fork in between
 *   compat_socket,		socket and socketpair with O_CLOEXEC and
 *   compat_socketpair		O_NONBLOCK given apart (macOS has no
 *				SOCK_CLOEXEC or SOCK_NONBLOCK)
 *   compat_memrchr		memrchr (GNU)
 *   compat_sigabbrev		"TERM" for SIGTERM, as glibc's sigabbrev_np
 *				names them, from a table on every system
 *				(musl and macOS have no sigabbrev_np)
 *   compat_mkfifoat		mkfifoat, which macOS has only from 13 on
 *
 * Including this header also brings getentropy (POSIX.1-2024: unistd.h
 * with glibc and musl, sys/random.h on macOS) and newlocale and uselocale
 * (locale.h, and xlocale.h on macOS).
 *
 * Built with COMPAT_FALLBACK, every fallback is used even where the
 * system has the call: `make OSDEP=posix` does, so Linux runs the code
 * macOS runs.
 */
#ifndef PROGMUX_COMPAT_H
#define PROGMUX_COMPAT_H

#include <stddef.h>
#include <sys/types.h>

#include <locale.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/random.h>
#include <xlocale.h>
#endif

#if defined(__linux__) && !defined(COMPAT_FALLBACK)
#define COMPAT_HAVE_PIPE2	/* and dup3 */
#define COMPAT_HAVE_SOCK_FLAGS	/* SOCK_CLOEXEC, SOCK_NONBLOCK */
#define COMPAT_HAVE_MEMRCHR
#endif
#if defined(__APPLE__) && defined(__ENVIRONMENT_MAC_OS_X_VERSION_MIN_REQUIRED__) && \
    __ENVIRONMENT_MAC_OS_X_VERSION_MIN_REQUIRED__ < 130000
#define COMPAT_NO_MKFIFOAT	/* mkfifoat only from macOS 13 */
#endif
#ifdef COMPAT_FALLBACK
#define COMPAT_NO_MKFIFOAT
#endif

/* flags: O_CLOEXEC and O_NONBLOCK, as pipe2 takes them. */
int	 compat_pipe2(int fd[2], int flags);
/* flags: O_CLOEXEC; oldfd equal to newfd is EINVAL, as with dup3. */
int	 compat_dup3(int oldfd, int newfd, int flags);
/* type without SOCK_* flags; flags: O_CLOEXEC and O_NONBLOCK. */
int	 compat_socket(int domain, int type, int protocol, int flags);
int	 compat_socketpair(int domain, int type, int protocol, int sv[2],
	     int flags);
void	*compat_memrchr(const void *, int, size_t);
/* The signal's name without "SIG", or NULL if it has none here. */
const char *compat_sigabbrev(int sig);
int	 compat_mkfifoat(int dfd, const char *name, mode_t mode);
/* pidfd_open(2) where the kernel has it (Linux 5.3); else ENOSYS. */
int	 compat_pidfd_open(pid_t);

#endif
