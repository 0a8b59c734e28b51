/*
 * needs.h — what a test needs of the port (common/osdep.h,
 * server/ttywait.h) that a port may lack. A test that cannot hold
 * without it skips, saying why on a line of its own ("skipped: ..."),
 * and scripts/test/test.sh lists every skip with its reason. On Linux, as
 * root (a mount namespace of the test's own), none skips. And what the
 * build is: SANITIZED, for a bound the sanitizers'
 * own memory would break.
 */
#ifndef PROGMUX_TESTS_NEEDS_H
#define PROGMUX_TESTS_NEEDS_H

#include <unistd.h>

#include "osdep.h"
#include "procs.h"
#include "ttywait.h"

/* Built with AddressSanitizer (make SAN=1): gcc says so with a macro,
 * clang through __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define PMX_NO_SUBREAPER "no subreaper on this port: there is no guard " \
	"in the pane, and what left the program's session (setsid, a " \
	"daemon's double fork) is found by no walk once its parent is gone"
#define PMX_NO_PARENT_DEATH "no parent-death signal on this port: what " \
	"progmux started learns of its death by the end of a descriptor, and " \
	"a tmux control client still attaching when progmux is SIGKILLed " \
	"can stay attached"
#define PMX_NO_TTYWAIT "the input-wait check cannot tell on this port " \
	"(ttywait-none.c): waitingForInput goes by an unfinished line " \
	"unchanged for 0.5 s, so a silent read() never reads as waiting, " \
	"and output stalled in mid-line on a loaded machine does"

#define PMX_NO_PEAK_MEMORY "the system keeps no peak resident size of " \
	"another process (Linux's VmHWM): macOS has none"
#define PMX_NO_PORTS "this port cannot tell which TCP ports a process " \
	"listens on (osdep-posix.c: POSIX has no way to another process's " \
	"sockets), so untilPort is refused and reports say portsUnknown"
#define PMX_NO_SYSTEMD_NOTIFY "no systemd-notify here (systemd's; not on " \
	"macOS): READY=1 through a plain datagram is tested instead"
#define PMX_NO_MOUNT_NS "no mount namespace of its own here (Linux's " \
	"unshare -m and mount, as root): the test cannot mount the small " \
	"tmpfs it fills, without touching the machine's file systems"

/* Skip the calling test unless have, saying why. */
#define PMX_NEED(have, why) do {					\
	if (!(have)) {							\
		print_message("skipped: %s\n", (why));			\
		skip();							\
	}								\
} while (0)

#define PMX_NEED_SUBREAPER()						\
	PMX_NEED(osdep_features() & OSDEP_SUBREAPER, PMX_NO_SUBREAPER)
#define PMX_NEED_PARENT_DEATH()						\
	PMX_NEED(osdep_features() & OSDEP_PARENT_DEATH, PMX_NO_PARENT_DEATH)
#define PMX_NEED_TTYWAIT()						\
	PMX_NEED(ttywait_can_tell(), PMX_NO_TTYWAIT)
#define PMX_NEED_PEAK_MEMORY()						\
	PMX_NEED(pmx_status_kb(getpid(), "VmHWM") > 0, PMX_NO_PEAK_MEMORY)

#endif
