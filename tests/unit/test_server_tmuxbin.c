/*
 * test_server_tmuxbin.c — where the tmux binary is looked for
 * (server/tmux_probe.c): the directories of PATH in order, then where
 * macOS's package managers put it (tmux_dirs: Homebrew on arm64 and on
 * Intel, MacPorts), which the PATH a GUI app gets from launchd lacks;
 * only an executable regular file counts; and the install advice, which
 * names the package manager on PATH first. On directories made here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "server.h"

static char	top[] = "/tmp/progmux-tmuxbin-XXXXXX";

/* top/name, made, into out. */
static void
sub(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", top, name);
	assert_int_equal(mkdir(out, 0700), 0);
}

/* dir/tmux as a file of mode mode. */
static void
file(const char *dir, mode_t mode)
{
	char	 path[600];
	FILE	*f;

	snprintf(path, sizeof path, "%s/tmux", dir);
	assert_non_null((f = fopen(path, "w")));
	fputs("#!/bin/sh\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* Pins: PATH's directories first, in order; then the fixed ones; a
 * file that is not executable, a directory, an empty PATH entry (not
 * the working directory) and a missing directory are passed over; none
 * anywhere is -1. */
static void
test_search(void **state)
{
	char		 empty[500], exe[500], noexec[500], isdir[500];
	char		 missing[500], path[2600], want[600], got[600];
	const char	*dirs[] = { NULL, NULL };

	(void)state;
	assert_non_null(mkdtemp(top));
	sub(empty, sizeof empty, "empty");
	sub(exe, sizeof exe, "exe");
	sub(noexec, sizeof noexec, "noexec");
	sub(isdir, sizeof isdir, "isdir");
	snprintf(missing, sizeof missing, "%s/missing", top);
	file(exe, 0755);
	file(noexec, 0644);
	snprintf(want, sizeof want, "%s/tmux", isdir);
	assert_int_equal(mkdir(want, 0700), 0);
	assert_int_equal(chdir(exe), 0);	/* "" must not find it */

	/* On PATH, past what is no executable file. */
	snprintf(path, sizeof path, "%s::%s:%s:%s:%s", missing, empty, noexec,
	    isdir, exe);
	snprintf(want, sizeof want, "%s/tmux", exe);
	assert_int_equal(tmux_search("tmux", path, NULL, got, sizeof got), 0);
	assert_string_equal(got, want);
	/* Not on PATH (as a GUI app's): in the directories after it. */
	snprintf(path, sizeof path, "%s:%s:", empty, noexec);
	dirs[0] = exe;
	assert_int_equal(tmux_search("tmux", path, dirs, got, sizeof got), 0);
	assert_string_equal(got, want);
	assert_int_equal(tmux_search("tmux", NULL, dirs, got, sizeof got), 0);
	assert_string_equal(got, want);
	/* Nowhere. */
	dirs[0] = isdir;
	assert_int_equal(tmux_search("tmux", path, dirs, got, sizeof got), -1);
	assert_int_equal(tmux_search("no-such-tmux", path, dirs, got,
	    sizeof got), -1);
	assert_int_equal(chdir("/"), 0);
	snprintf(path, sizeof path, "rm -rf '%s'", top);
	assert_int_equal(system(path), 0);
}

/* Pins: the advice names the package manager on PATH, the one the user
 * runs, before any other the system has where package managers live (on
 * Debian, apt-get in /usr/bin): apk alone on PATH gives "apk add tmux". */
static void
test_advice_path_first(void **state)
{
	char		 at[] = "/tmp/progmux-advice-XXXXXX";
	char		 dir[500], cmd[600];
	char		*old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	FILE		*f;

	(void)state;
	assert_non_null(mkdtemp(at));
	snprintf(dir, sizeof dir, "%s/apk", at);
	assert_non_null((f = fopen(dir, "w")));
	fputs("#!/bin/sh\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(setenv("PATH", at, 1), 0);
	assert_string_equal(tmux_install_advice(), "apk add tmux");
	if (old != NULL)
		assert_int_equal(setenv("PATH", old, 1), 0);
	free(old);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", at);
	assert_int_equal(system(cmd), 0);
}

/* Pins: the fixed directories are Homebrew's (arm64, then Intel) and
 * MacPorts', in that order. */
static void
test_dirs(void **state)
{
	(void)state;
	assert_string_equal(tmux_dirs[0], "/opt/homebrew/bin");
	assert_string_equal(tmux_dirs[1], "/usr/local/bin");
	assert_string_equal(tmux_dirs[2], "/opt/local/bin");
	assert_null(tmux_dirs[3]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_dirs),
		cmocka_unit_test(test_advice_path_first),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
