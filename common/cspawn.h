/*
 * cspawn.h — start a child the one way: block signals, fork; in the child
 * reset every handler and the mask, setsid or setpgid as asked, run an
 * optional hook, dup2 the given descriptors onto 0, 1, 2 ..., close the
 * rest, exec. A failure in the child goes back as (stage, errno) on a
 * close-on-exec pipe and the child _exit()s (127, or what fail_status
 * says); the parent reads the pipe: 0 bytes means the exec succeeded.
 */
#ifndef PROGMUX_CSPAWN_H
#define PROGMUX_CSPAWN_H

#include <sys/types.h>

#include <spawn.h>

#define SPAWN_SETSID	0x1	/* a session (and group) of its own */
#define SPAWN_SETPGID	0x2	/* a process group of its own */
#define SPAWN_SEARCH	0x4	/* argv[0] looked up in PATH (execvp) */

#define SPAWN_NULL	(-1)	/* in fds[]: /dev/null */
#define SPAWN_MAXFD	8

enum spawn_stage {
	SPAWN_OK,		/* the exec succeeded */
	SPAWN_FAIL_SETUP,	/* fds, group or session */
	SPAWN_FAIL_HOOK,	/* the hook said no */
	SPAWN_FAIL_EXEC		/* execve */
};

struct spawn {
	char	*const *argv;
	int	 flags;
	int	 fds[SPAWN_MAXFD];	/* fds[i] becomes descriptor i */
	int	 nfds;
	/* In the child, after the handlers, mask and group are set, before
	 * the descriptors: 0, or -1 with errno set. */
	int	 (*hook)(void *);
	void	*hook_arg;
	/* The child's exit status when the exec fails (127 by default). */
	int	 (*fail_status)(enum spawn_stage, int err);
};

/*
 * Start sp. Returns the child's pid, or -1 if there is none (fork or pipe
 * failed: *stage SPAWN_FAIL_SETUP, *err the errno). With a child, *stage
 * says whether its exec succeeded (SPAWN_OK) and if not where it failed
 * and *err why; a child that failed has exited and must still be reaped.
 */
pid_t	cspawn_start(const struct spawn *, enum spawn_stage *stage, int *err);

/*
 * For posix_spawn (a vfork: no copy of a large parent's memory): attr
 * made so that the child starts with every signal at its default and
 * none blocked, as cspawn_start's children do.
 */
void	cspawn_attr_init(posix_spawnattr_t *);

#endif
