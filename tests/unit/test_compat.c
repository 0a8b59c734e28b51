/*
 * test_compat.c — the calls of common/compat.h, whichever way this build
 * makes them (the system's own, or with COMPAT_FALLBACK, as `make
 * OSDEP=posix` builds, the POSIX fallbacks macOS runs): the flags each
 * asks for are set on every descriptor it makes and no others, the
 * errors are dup3's and pipe2's, memrchr finds the last byte, mkfifoat
 * makes a FIFO in the directory it is given and leaves the working
 * directory alone, and the signal names are glibc's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "compat.h"

/* Is fd close-on-exec, non-blocking? As asked by flags. */
static void
check_flags(int fd, int flags)
{
	int	fdfl, fl;

	assert_int_not_equal((fdfl = fcntl(fd, F_GETFD)), -1);
	assert_int_not_equal((fl = fcntl(fd, F_GETFL)), -1);
	if (((fdfl & FD_CLOEXEC) != 0) != ((flags & O_CLOEXEC) != 0))
		fail_msg("descriptor %d: close-on-exec %s, asked %s", fd,
		    (fdfl & FD_CLOEXEC) ? "set" : "not set",
		    (flags & O_CLOEXEC) ? "set" : "not set");
	if (((fl & O_NONBLOCK) != 0) != ((flags & O_NONBLOCK) != 0))
		fail_msg("descriptor %d: non-blocking %s, asked %s", fd,
		    (fl & O_NONBLOCK) ? "set" : "not set",
		    (flags & O_NONBLOCK) ? "set" : "not set");
}

static const int flag_sets[] = { 0, O_CLOEXEC, O_NONBLOCK,
    O_CLOEXEC | O_NONBLOCK };

/* Pins: pipe2's flags on both ends, and a pipe that carries bytes. */
static void
test_pipe2(void **state)
{
	int	fd[2];
	char	c = 0;
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof flag_sets / sizeof *flag_sets; i++) {
		assert_int_equal(compat_pipe2(fd, flag_sets[i]), 0);
		check_flags(fd[0], flag_sets[i]);
		check_flags(fd[1], flag_sets[i]);
		assert_int_equal(write(fd[1], "x", 1), 1);
		assert_int_equal(read(fd[0], &c, 1), 1);
		assert_int_equal(c, 'x');
		close(fd[0]);
		close(fd[1]);
	}
}

/* Pins: dup3 onto a chosen number, close-on-exec only if asked, and
 * EINVAL for the same number (dup2 would succeed). */
static void
test_dup3(void **state)
{
	int	fd[2], target = 200;

	(void)state;
	assert_int_equal(compat_pipe2(fd, O_CLOEXEC), 0);
	assert_int_equal(compat_dup3(fd[0], target, O_CLOEXEC), target);
	check_flags(target, O_CLOEXEC);
	assert_int_equal(compat_dup3(fd[0], target, 0), target);
	check_flags(target, 0);
	errno = 0;
	assert_int_equal(compat_dup3(fd[0], fd[0], O_CLOEXEC), -1);
	assert_int_equal(errno, EINVAL);
	close(target);
	close(fd[0]);
	close(fd[1]);
}

/* Pins: socket and socketpair with each set of flags. */
static void
test_socket(void **state)
{
	int	fd, sv[2];
	char	c = 0;
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof flag_sets / sizeof *flag_sets; i++) {
		assert_int_not_equal((fd = compat_socket(AF_UNIX, SOCK_STREAM,
		    0, flag_sets[i])), -1);
		check_flags(fd, flag_sets[i]);
		close(fd);
		assert_int_equal(compat_socketpair(AF_UNIX, SOCK_STREAM, 0, sv,
		    flag_sets[i]), 0);
		check_flags(sv[0], flag_sets[i]);
		check_flags(sv[1], flag_sets[i]);
		assert_int_equal(write(sv[0], "y", 1), 1);
		assert_int_equal(read(sv[1], &c, 1), 1);
		assert_int_equal(c, 'y');
		close(sv[0]);
		close(sv[1]);
	}
}

/* Pins: the last occurrence, within the length given, NULL if none. */
static void
test_memrchr(void **state)
{
	const char		s[] = "a\nbc\nd";
	const unsigned char	hi[] = { 0xff, 'a', 0xff, 'b' };

	(void)state;
	assert_ptr_equal(compat_memrchr(s, '\n', 6), s + 4);
	assert_ptr_equal(compat_memrchr(s, '\n', 4), s + 1);
	assert_ptr_equal(compat_memrchr(s, 'a', 6), s);
	assert_null(compat_memrchr(s, '\n', 1));
	assert_null(compat_memrchr(s, 'a', 0));
	assert_ptr_equal(compat_memrchr(s, '\0', sizeof s), s + 6);
	/* c is taken as an unsigned char. */
	assert_ptr_equal(compat_memrchr(hi, 0xff, sizeof hi), hi + 2);
	assert_ptr_equal(compat_memrchr(hi, -1, sizeof hi), hi + 2);
}

/* Pins: the names a result's signal field is made of, and on glibc the
 * same names as sigabbrev_np for every signal number. */
static void
test_sigabbrev(void **state)
{
	int	sig;

	(void)state;
	assert_string_equal(compat_sigabbrev(SIGTERM), "TERM");
	assert_string_equal(compat_sigabbrev(SIGKILL), "KILL");
	assert_string_equal(compat_sigabbrev(SIGINT), "INT");
	assert_string_equal(compat_sigabbrev(SIGHUP), "HUP");
	assert_string_equal(compat_sigabbrev(SIGABRT), "ABRT");
	assert_string_equal(compat_sigabbrev(SIGCHLD), "CHLD");
	assert_string_equal(compat_sigabbrev(SIGSEGV), "SEGV");
	assert_null(compat_sigabbrev(0));
	assert_null(compat_sigabbrev(-1));
	for (sig = 1; sig < NSIG; sig++) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
		const char	*g = sigabbrev_np(sig), *c;

		c = compat_sigabbrev(sig);
		if ((g == NULL) != (c == NULL) || (g != NULL &&
		    strcmp(g, c) != 0))
			fail_msg("signal %d: glibc says %s, compat %s", sig,
			    g ? g : "(none)", c ? c : "(none)");
#else
		(void)compat_sigabbrev(sig);
#endif
	}
}

#define FIFO	"progmux-compat-fifo"

/* Pins: a FIFO made in the directory given (not the working one), which
 * stays what it was; EEXIST the second time. */
static void
test_mkfifoat(void **state)
{
	char		 dir[] = "/tmp/progmux-compat-XXXXXX", cwd[4096],
			 after[4096];
	struct stat	 st;
	int		 dfd;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_non_null(mkdtemp(dir));
	assert_int_not_equal((dfd = open(dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)), -1);
	assert_int_equal(compat_mkfifoat(dfd, FIFO, 0600), 0);
	assert_int_equal(fstatat(dfd, FIFO, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	errno = 0;
	assert_int_equal(compat_mkfifoat(dfd, FIFO, 0600), -1);
	assert_int_equal(errno, EEXIST);
	assert_non_null(getcwd(after, sizeof after));
	assert_string_equal(after, cwd);
	assert_int_equal(access(FIFO, F_OK), -1);	/* not made here */
	assert_int_equal(unlinkat(dfd, FIFO, 0), 0);
	close(dfd);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe2),
		cmocka_unit_test(test_dup3),
		cmocka_unit_test(test_socket),
		cmocka_unit_test(test_memrchr),
		cmocka_unit_test(test_sigabbrev),
		cmocka_unit_test(test_mkfifoat),
	};

	umask(022);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
