/*
 * fuzz_page.c — libFuzzer harness for ask_user_secret's page
 * (server/secret_page.c): its HTTP (server/page_http.c), its limits, its
 * decoding.
 *
 * Each input is what one connection sends to a page's port, written over
 * a real loopback connection and followed by the end of its sending
 * (shutdown); the front's loop then runs until the page has ended the
 * connection, with an answer or without. So that requests reach past the
 * token, "@P" in the input stands for the page's path, "@H" for its Host
 * and "@O" for its Origin. A page that took a secret (or had it refused
 * by its check, every other time) is let go and a new one opened.
 *
 * A finding: any crash or sanitizer report; a connection the page has
 * not ended within FUZZ_TURNS turns of the loop; an answer that does not
 * start with an HTTP/1.1 status line; a secret handed over that is not
 * valid UTF-8 or holds a control character.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "secret_page.h"
#include "server.h"
#include "timeutil.h"
#include "utf8.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_TURNS	1000		/* the page ends a connection by then */
#define FUZZ_MAX	65536		/* bytes of an input used */

static struct secret_page	*fuzz_pg;
static bool			 fuzz_done;	/* its secret came, or not */
static unsigned			 fuzz_checks;
static struct sockaddr_in	 fuzz_sin;
static char			 fuzz_path[128], fuzz_host[32], fuzz_origin[48];

/* Every other secret is refused by the check, as a program that turned
 * its echo back on would. */
static const char *
fuzz_check(void *arg)
{
	(void)arg;
	return (fuzz_checks++ % 2 == 0 ? NULL : "echo is back on");
}

/* What the page hands over must be typable. */
static void
fuzz_cb(void *arg, const char *secret, size_t len, const char *why)
{
	size_t	i;

	(void)arg;
	(void)why;
	fuzz_done = true;
	if (secret == NULL)
		return;
	if (!utf8_valid(secret, len) || strlen(secret) != len)
		abort();
	for (i = 0; i < len; i++)
		if ((unsigned char)secret[i] < 0x20 || secret[i] == 0x7f)
			abort();
}

/* A new page, its address taken apart. */
static void
fuzz_open(void)
{
	const char	*url, *p;
	char		*cause = NULL;

	secret_page_free(fuzz_pg);
	fuzz_done = false;
	if ((fuzz_pg = secret_page_open("Password: <&>", 3600000, fuzz_check,
	    fuzz_cb, NULL, &cause)) == NULL) {
		fprintf(stderr, "fuzz_page: %s\n", cause);
		abort();
	}
	url = secret_page_url(fuzz_pg);
	p = strchr(url + strlen("http://"), '/');
	snprintf(fuzz_path, sizeof fuzz_path, "%s", p);
	snprintf(fuzz_host, sizeof fuzz_host, "%.*s",
	    (int)(p - url - strlen("http://")), url + strlen("http://"));
	snprintf(fuzz_origin, sizeof fuzz_origin, "http://%s", fuzz_host);
	memset(&fuzz_sin, 0, sizeof fuzz_sin);
	fuzz_sin.sin_family = AF_INET;
	fuzz_sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fuzz_sin.sin_port = htons((uint16_t)atoi(strrchr(fuzz_host, ':') +
	    1));
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	signal(SIGPIPE, SIG_IGN);
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf	 in = BUF_INIT, out = BUF_INIT;
	char		 chunk[4096];
	size_t		 i, off = 0;
	ssize_t		 n = 0;
	int		 fd, turns;
	bool		 eof = false, shut = false;

	if (size == 0 || size > FUZZ_MAX)
		return (0);
	if (fuzz_pg == NULL || fuzz_done)
		fuzz_open();
	for (i = 0; i < size; i++) {
		if (data[i] == '@' && i + 1 < size && strchr("PHO",
		    data[i + 1]) != NULL) {
			buf_adds(&in, data[i + 1] == 'P' ? fuzz_path :
			    data[i + 1] == 'H' ? fuzz_host : fuzz_origin);
			i++;
		} else
			buf_addc(&in, (char)data[i]);
	}
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&fuzz_sin, sizeof fuzz_sin) == -1)
		abort();
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (turns = 0; !eof; turns++) {
		if (turns == FUZZ_TURNS) {
			fprintf(stderr, "fuzz_page: the page did not end a "
			    "connection in %d turns\n", FUZZ_TURNS);
			abort();
		}
		if (off < in.len && (n = write(fd, in.data + off,
		    in.len - off)) > 0)
			off += (size_t)n;
		else if (off < in.len && n == -1 && errno != EAGAIN)
			off = in.len;	/* it closed its end early */
		if (off == in.len && !shut) {
			shutdown(fd, SHUT_WR);
			shut = true;
		}
		loop_run_once(now_ms() + 20);
		while ((n = read(fd, chunk, sizeof chunk)) > 0)
			buf_add(&out, chunk, (size_t)n);
		eof = n == 0 || (n == -1 && errno != EAGAIN);
	}
	close(fd);
	if (out.len > 0 && (out.len < 13 || memcmp(out.data, "HTTP/1.1 ", 9) !=
	    0 || out.data[9] < '1' || out.data[9] > '5')) {
		fprintf(stderr, "fuzz_page: not an answer: %.*s\n",
		    (int)(out.len < 200 ? out.len : 200), out.data);
		abort();
	}
	buf_free(&in);
	buf_free(&out);
	return (0);
}
