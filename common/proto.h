/*
 * proto.h — what the front and a reaper say to each other, and what a
 * reaper says to its launcher.
 *
 * Transport: one SOCK_STREAM socketpair per program (the reaper's end is
 * its fd 3). Each frame is a 4-byte big-endian length followed by one
 * msgpack map; key "t" names the message, the other keys are its fields.
 * The reaper's first frame is "hello" with the protocol version; a peer
 * that sends a bad frame or an unknown version is dropped, and "peer
 * gone" (EOF) is an event of its own on both sides.
 *
 * The life of a program:
 *
 *   front                         reaper                      pane
 *   mkfifo OUT, CTL (ERR) through the runtime directory's descriptor;
 *   opens OUT (ERR) for reading, CTL both ways
 *   tmux new-window -- progmux-reaper --launch DIR ID CTL ---->  guard forks
 *                                                            the launcher,
 *                                                            which opens CTL
 *                                                            and waits
 *   (start_program answered)
 *   tmux pipe-pane -O 'exec progmux-reaper --pipe DIR ID OUT' -> the writer
 *   posix_spawn reaper: fd 3 the socket, 4 OUT, 6 CTL, 7 ERR, 5 the
 *   runtime directory's lock (held shared while any of us lives), 8 the
 *   program's spool directory p<N>.text (spool.h), made through the
 *   runtime directory's descriptor
 *                      <-------  hello {v, pid}
 *   start {...}        ------->
 *   (pipe-pane answered)
 *   pane {pane, pid}   ------->  waits for the writer's  <-----  hello record
 *                                first record (GATE)             (OUT open,
 *                                                                 no name)
 *                                writes spec to CTL  ----->  forks the program,
 *                                                            which takes the
 *                                                            terminal and execs
 *                                                    <-----  run marker
 *                      <-------  launched {}
 *                                text into the spool <-----  output records
 *                      <-------  text {len ...} ...
 *                                                    <-----  end marker on the
 *                                                              terminal (nonce)
 *                      <-------  end {how, status, signal, ...}
 *                                exit to launcher    ----->  exits (pane closes)
 *
 * Stopping (stop {grace_ms}, or the lifetime's end) is the reaper's alone:
 * SIGTERM and SIGCONT to the program's process group, SIGKILL after the
 * grace; the launcher, which sees its program end, ends what the program
 * left (it is the subreaper of its tree) and writes the end marker; then
 * the reaper reports the end and runs tmux kill-pane. The launcher gets
 * no command but "exit".
 *
 * Readiness (sd_notify): the reaper binds a datagram socket p<N>.notify
 * in the runtime directory (through the directory it checked, from
 * "rundir" and "rundir_id") and the launcher gives the program its path
 * as NOTIFY_SOCKET. What the program sends there (READY=1, STATUS=...)
 * the reaper reads and passes on in "notify" frames; it removes the
 * socket's name when it exits.
 *
 * The lease (desktop mode): when the front goes (EOF on fd 3), a reaper
 * whose start frame gave it a grace (grace_ms, never past the lifetime)
 * and the rendezvous (lease, lease_id: a per-user directory, rundir.h)
 * keeps its program and goes on writing its text into the spool. It binds
 * a socket there, <pid>.lease (made under <pid>.tmp, listening, then
 * renamed, so no front finds it refusing), and waits for a new front:
 *
 *   new front                                 reaper (its old front gone)
 *   scans the rendezvous, connects   ------>  accepts (same uid only)
 *                                    <------  lease {who it is, the
 *                                               program's particulars}
 *   same tmux server and session?
 *   renames p<N>.text into its own
 *   runtime directory, then
 *   adopt {rundir rundir_id}         ------>  the first adopt wins: the
 *                                             socket is its front now, the
 *                                             rendezvous's name removed,
 *                                             every other connection
 *                                             closed; it holds the lock of
 *                                             that runtime directory too
 *                                    <------  adopted {}, then as to the
 *                                             old front: launched, notify,
 *                                             text and errtext (how far it
 *                                             goes now), end if it ended
 *
 * A connection that says anything else, or nothing, is closed. With no
 * adoption by the grace's end the reaper ends the program as if its
 * front had just gone (leave: SIGKILL, kill-pane) and exits. Robust mode
 * gives no grace: nothing outlives the front there.
 *
 * The end marker is an OSC sequence carrying a per-program random nonce,
 * written by the launcher to the terminal after the program and all its
 * descendants are gone: it travels the same path as the output, so when
 * the reaper sees it, every byte before it has been read. The run marker
 * is the same sequence with kind "run", written once the program has
 * exec'd (and so holds the terminal's foreground): keys the front held
 * for a program not yet started are typed from then on.
 */
#ifndef PROGMUX_PROTO_H
#define PROGMUX_PROTO_H

#define PROTO_VERSION		3
#define PROTO_FRAME_MAX		(16u * 1024 * 1024)
#define PROTO_TEXT_CHUNK	(64u * 1024)	/* text written at a time */
#define PROTO_NEWS_QUEUED	(64u * 1024)	/* queued: news may wait */
#define PROTO_BACKLOG_MAX	(64u * 1024 * 1024) /* the pane's writer's */
#define PROTO_REAPER_FD		3	/* the reaper's socket to the front */
#define PROTO_OUT_FD		4	/* read end of the output FIFO */
#define PROTO_LOCK_FD		5	/* the runtime directory's lock (rundir.h) */
#define PROTO_CTL_FD		6	/* the launcher's control FIFO, read-write */
#define PROTO_ERR_FD		7	/* read end of standard error's FIFO */
#define PROTO_SPOOL_FD		8	/* the program's spool directory */
#define PROTO_FD_END		9	/* descriptors a reaper is given: below */
#define PROTO_STR_(x)		#x
#define PROTO_STR(x)		PROTO_STR_(x)	/* "5" for PROTO_LOCK_FD */
#define PROTO_GRACE_MS		2000	/* SIGTERM, then SIGKILL this much later */
#define PROTO_WRITER_WAIT_MS	10000	/* for the pane's writer to start */
#define PROTO_NOTIFY_SUFFIX	".notify" /* p<N>.notify: its NOTIFY_SOCKET */
#define PROTO_STATUS_MAX	256	/* bytes of a STATUS= passed on */
#define PROTO_LEASE_SUFFIX	".lease" /* <pid>.lease in the rendezvous */
#define PROTO_LEASE_CONNS	4	/* connections a reaper hears at once */

/* front -> reaper */
#define MSG_START	"start"	/* id argv dir width height lifetime_ms
				   keep_pane max_text err robust rundir
				   rundir_id tmux[] input separate_stderr
				   verdict shown started_ms started_real
				   grace_ms session server lease lease_id */
#define MSG_PANE	"pane"	/* pane pid: pipe-pane is attached, go */
#define MSG_STOP	"stop"	/* grace_ms: end the program (stop_program) */
#define MSG_QUIT	"quit"	/* forget it: end what runs, exit, no report */
#define MSG_ADOPT	"adopt"	/* on a lease's socket: the program is ours;
				   rundir rundir_id: its spool is there now
				   (the reaper holds that one's lock too) */

/* reaper -> front */
#define MSG_HELLO	"hello"	/* v pid */
#define MSG_TEXT	"text"	/* the text is in the spool up to len, its
				   last segment begins at seg; once the
				   middle is dropped: from to lines chars
				   why err (spool.h); dropped: the bytes
				   the strippers left out so far (strip.h),
				   when that total grew */
#define MSG_ERRTEXT	"errtext" /* the same, of standard error */
#define MSG_LAUNCHED	"launched" /* the program runs and has the terminal */
#define MSG_END		"end"	/* how status signal lost_end cut why */
#define MSG_FAIL	"fail"	/* why: this program cannot go on */
#define MSG_NOTIFY	"notify" /* ready: READY=1 came; status: its last
				   STATUS= (or nil) */
#define MSG_LEASE	"lease"	/* on a lease's socket, first: v pid id
				   session server rundir rundir_id (where
				   its spool is) argv
				   shown dir width height lifetime_ms
				   started_ms started_real keep_pane
				   separate_stderr verdict pane pane_pid
				   grace_ms stopping orphaned (when its
				   front went, wall clock) */
#define MSG_ADOPTED	"adopted" /* the adopt was first: frames follow */

/* reaper -> launcher, over the ctl FIFO, same framing */
#define MSG_SPEC	"spec"	/* argv dir nonce width height keep input
				   err (FIFO for stderr, or nil) notify
				   (NOTIFY_SOCKET's path, or nil) */
#define MSG_EXIT	"exit"	/* the end was read: leave (the pane closes) */

/* How a program ended ("how" in MSG_END); the front's outcomes. */
#define END_COMPLETED	"completed"
#define END_NOT_STARTED	"not_started"
#define END_EXPIRED	"expired"
#define END_STOPPED	"stopped"
#define END_GONE	"gone"

/*
 * The output FIFO carries the records of the pane's writer
 * (`progmux-reaper --pipe`, reaper/pipe.c), the only process that opens
 * it for writing: each record is an 8-byte header, 'P' 'M' kind seq len,
 * len being 4 bytes big-endian and seq counting records modulo 256, then
 * len bytes, then a 4-byte trailer 'M' 'P' seq kind. Kind 'd': bytes of the pane's output, at most
 * PIPE_RECORD_MAX; kind 'l': the writer dropped bytes (an 8-byte count),
 * because the reaper did not take them while its backlog (the text
 * ceiling, PROGMUX_OUTPUT_MAX_BYTES, at least 1 MiB and at most
 * PROTO_BACKLOG_MAX) waited;
 * kind 'h', empty, the writer's first: the FIFO is open and has no name
 * any more (the launcher's gate opens only then).
 * A record that is not next in this order, or not closed by its trailer,
 * means someone else read from the FIFO: the reaper says output was lost
 * and goes on from the next whole record.
 */
#define PIPE_MAGIC0		'P'
#define PIPE_MAGIC1		'M'
#define PIPE_DATA		'd'
#define PIPE_LOST		'l'
#define PIPE_HELLO		'h'	/* first, empty: the writer is there */
#define PIPE_HEADER		8
#define PIPE_TRAILER		4
#define PIPE_RECORD_MAX		(64u * 1024)

/* The markers: ESC ] 5522 ; <nonce> ; <kind> ; <value> BEL, kind one of
 * run (value: pid), exit (status), signal (number), noexec (status);
 * written and scanned by marker.c. */
#define MARKER_PREFIX	"\033]5522;"
#define MARKER_RUN	"run"
#define MARKER_EXIT	"exit"
#define MARKER_SIGNAL	"signal"
#define MARKER_NOEXEC	"noexec"
#define MARKER_NONCE_LEN 32	/* hex digits */
#define MARKER_MAX	96

#endif
