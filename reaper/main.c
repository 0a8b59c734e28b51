/*
 * main.c — progmux-reaper: choose the reaper or the launcher mode.
 *
 * The front starts `progmux-reaper` with its socket on fd 3; tmux starts
 * `progmux-reaper --launch CTL` in each program's pane. Neither mode is
 * meant for people; both refuse anything else with a usage line.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "reaper.h"

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--launch") == 0) {
		log_init("progmux-launch");
		return (launch_main(argv[2]));
	}
	if (argc == 1) {
		log_init("progmux-reaper");
		return (reaper_main());
	}
	fprintf(stderr, "usage: progmux-reaper (started by progmux, fd 3 "
	    "its socket) | progmux-reaper --launch CTL (run by tmux)\n");
	return (2);
}
