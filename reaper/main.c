/*
 * main.c — progmux-reaper: choose the reaper or the launcher mode.
 *
 * The front starts `progmux-reaper` with its socket on fd 3; tmux starts
 * `progmux-reaper --launch DIR DEV:INO CTL` in each program's pane
 * (launch.c), `progmux-reaper --pipe DIR DEV:INO OUT BYTES` as its pipe-pane
 * command (pipe.c), and `progmux-reaper --idle FRONTPID DIR` in the
 * session's own window (idle.c).
 * No mode is meant for people; anything else gets a usage line.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "reaper.h"

int
main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--launch") == 0) {
		log_init("progmux-launch");
		return (launch_main(argv[2], argv[3], argv[4]));
	}
	if (argc == 6 && strcmp(argv[1], "--pipe") == 0)
		return (pipe_main(argv[2], argv[3], argv[4], argv[5]));
	if (argc == 4 && strcmp(argv[1], "--idle") == 0)
		return (idle_main(argv[2], argv[3]));
	if (argc == 1) {
		log_init("progmux-reaper");
		return (reaper_main());
	}
	fprintf(stderr, "usage: progmux-reaper (started by progmux, fd 3 "
	    "its socket) | progmux-reaper --launch DIR DEV:INO FIFO | "
	    "progmux-reaper --pipe DIR DEV:INO FIFO BYTES | "
	    "progmux-reaper --idle PID DIR (run by tmux)\n");
	return (2);
}
