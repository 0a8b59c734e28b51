/*
 * rundir.h — the runtime directory's lock, and removing a dead one.
 *
 * Each progmux makes one private runtime directory, progmux-XXXXXX (0700),
 * under XDG_RUNTIME_DIR, TMPDIR or /tmp. In it the front makes a file
 * "lock" and holds flock(LOCK_SH) on it; each reaper inherits that open
 * file (fd PROTO_LOCK_FD), so the lock is held for as long as anyone of
 * the instance lives. Whoever then gets LOCK_EX on a fresh open of it is
 * provably the last: it removes what it knows of the directory (the
 * FIFOs p<N>.out/ctl/err, the reapers' sockets p<N>.notify, the
 * programs' spools p<N>.text, the tmux
 * socket if no server listens on it, *.conf files, the lock) and the
 * directory itself. The next progmux to
 * start does the same for any such directory whose instance died whole.
 *
 * Beside them, one rendezvous per user, progmux.lease.UID (0700): where
 * a reaper whose front went listens for the next front to adopt its
 * program (proto.h, "The lease"). It is made and checked as a runtime
 * directory is (ours, mode 0700, a directory and not a link, opened
 * under a parent no other user can change), reached only through its
 * descriptor, and never removed: it holds only the reapers' sockets,
 * each removed by its reaper.
 */
#ifndef PROGMUX_RUNDIR_H
#define PROGMUX_RUNDIR_H

#include <stddef.h>
#include <stdint.h>

#define RUNDIR_PREFIX	"progmux-"
#define RUNDIR_LOCK	"lock"
#define RUNDIR_LEASE	"progmux.lease."	/* + our uid: the rendezvous */

/* Make the lock file in the directory dfd and hold LOCK_SH on it: the
 * fd (close-on-exec), or -1 with errno. */
int	rundir_lock_at(int dfd);
/* base, opened, if no other user can change it or a directory above
 * it; else -1 with *cause saying which one and why. */
int	rundir_base_open(const char *base, char **cause);
/* Make a fresh progmux-XXXXXX (0700) in basefd: its fd; its name in
 * name (at least 16 bytes). -1 with errno. */
int	rundir_make(int basefd, char *name, size_t len);
/* The rendezvous progmux.lease.UID in basefd, made if missing: its fd
 * and its name in name (at least 32 bytes); -1 with *cause when it is
 * not a private directory of ours (its owner, its mode, a link). */
int	rundir_lease_open(int basefd, char *name, size_t len, char **cause);
/* "DEV:INO" of the directory dfd. */
void	rundir_id(int dfd, char *buf, size_t len);
/* dir, opened, only if it is the directory id names, ours and 0700;
 * else -1 with *cause. */
int	rundir_open_checked(const char *dir, const char *id, char **cause);
/* Take part in the instance of the runtime directory dir (only if it is
 * the one id names, ours, 0700): LOCK_SH on its lock, held on the fd
 * returned (close-on-exec), so the directory stays while we live; -1
 * with *cause. (An adopted program's reaper, for where its text is.) */
int	rundir_join(const char *dir, const char *id, char **cause);
/* dfd/name opened with flags as a FIFO of ours, never through a link. */
int	rundir_open_fifo(int dfd, const char *name, int flags);
/* Remove parentfd/name if it is provably a dead instance's directory;
 * a tmux server still listening in it is waited for up to wait_ms.
 * 1 if removed, 0 if left alone. */
int	rundir_remove_dead(int parentfd, const char *name, int64_t wait_ms);
/* The same for a path (ours, on the way out). */
int	rundir_remove_path(const char *dir, int64_t wait_ms);
/* Remove every dead instance's directory under base; how many. */
int	rundir_sweep(const char *base);

#endif
