/* export_door.c: the TLS exporter's front door (export_door.h).
 *
 * libmicrohttpd accepting on a TLS port hands every connection to GnuTLS,
 * which drops one that speaks plain HTTP without a word: a user who
 * typed http:// for an https:// exporter saw only "empty reply". Here
 * pmctop accepts itself and looks at the first byte without reading it
 * (MSG_PEEK): a TLS record starts with 0x16 (a handshake) and goes to
 * libmicrohttpd (MHD_add_connection), anything else is answered 400 in
 * plain text and closed. A connection waits here at most the header
 * deadline, and counts towards its client's share meanwhile, so the door
 * is no way around the server's bounds. */
#include "config.h"
#include "export_door.h"
#include "util.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define DOOR_STOP_TAG ((uint64_t)-1)
#define DOOR_LISTEN_TAG ((uint64_t)-2)

struct pending {
	int fd;
	struct sockaddr_storage addr;
	socklen_t len;
	uint64_t since_ns;
};

struct export_door {
	const struct mhd_api *mhd;
	struct MHD_Daemon *d;
	struct export_conns *clients;
	int per_client;
	int deadline_s;
	int lfd, ep, stopfd;
	pthread_t thread;
	struct pending *p;   /* waiting for their first byte: at most cap */
	int np, cap;
	char answer[256];    /* the 400 to plain HTTP, with its length */
	int answer_len;
};

#define PLAIN_BODY "pmctop: this port serves HTTPS; ask for https:// instead\n"

/* Forgets pending i (its descriptor closed or handed over); the last
 * one takes its place. */
static void drop(struct export_door *door, int i, bool close_it)
{
	struct pending *p = &door->p[i];
	epoll_ctl(door->ep, EPOLL_CTL_DEL, p->fd, NULL);
	export_conns_add(door->clients, (struct sockaddr *)&p->addr, -1);
	if (close_it)
		close(p->fd);
	door->p[i] = door->p[--door->np];
}

static void accept_all(struct export_door *door)
{
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int fd = accept4(door->lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;   /* EAGAIN; or EMFILE and the like, retried on the next wake-up */
		if (door->np == door->cap || !export_conns_admit(door->clients, (struct sockaddr *)&ss, door->per_client)) {
			close(fd);
			continue;
		}
		struct pending *p = &door->p[door->np];
		*p = (struct pending){ .fd = fd, .addr = ss, .len = len, .since_ns = now_ns() };
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.u64 = 0 };
		if (epoll_ctl(door->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			continue;
		}
		export_conns_add(door->clients, (struct sockaddr *)&ss, 1);
		door->np++;
	}
}

/* Hands pending i over, answers it or drops it once its first byte (or
 * its end, or its deadline) has come; leaves it waiting otherwise. */
static void look(struct export_door *door, int i, uint64_t now)
{
	struct pending *p = &door->p[i];
	unsigned char b;
	ssize_t n = recv(p->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		if (now - p->since_ns > (uint64_t)door->deadline_s * 1000000000ULL)
			drop(door, i, true);
		return;
	}
	if (n == 1 && b == 0x16) {
		int fd = p->fd;
		struct sockaddr_storage ss = p->addr;
		socklen_t len = p->len;
		drop(door, i, false);
		/* libmicrohttpd closes the socket itself when it cannot take it. */
		door->mhd->add_connection(door->d, fd, (struct sockaddr *)&ss, len);
		return;
	}
	if (n == 1) {
		/* Plain text, most likely "GET / HTTP/1.1": said in words. A
		 * short write is let go: the socket is new and its buffer
		 * empty, and this answer is a courtesy. */
		ssize_t w = send(p->fd, door->answer, (size_t)door->answer_len, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)w;
		shutdown(p->fd, SHUT_WR);
	}
	drop(door, i, true);
}

/* The door's thread: accepts, then looks at every waiting connection on
 * each wake-up (at most the connection cap, and every 200 ms for the
 * deadline); index order from the end, since drop() moves the last. */
static void *door_main(void *arg)
{
	struct export_door *door = arg;
	struct epoll_event evs[64];
	for (;;) {
		int n = epoll_wait(door->ep, evs, 64, 200);
		for (int k = 0; k < n; k++) {
			if (evs[k].data.u64 == DOOR_STOP_TAG)
				goto out;
			if (evs[k].data.u64 == DOOR_LISTEN_TAG)
				accept_all(door);
		}
		uint64_t now = now_ns();
		for (int i = door->np - 1; i >= 0; i--)
			look(door, i, now);
	}
out:
	while (door->np)
		drop(door, door->np - 1, true);
	return NULL;
}

struct export_door *export_door_start(int lfd, struct MHD_Daemon *d, const struct mhd_api *mhd,
				      struct export_conns *clients, int cap, int per_client, int deadline_s,
				      char **cause)
{
	struct export_door *door = xcalloc(1, sizeof(*door));
	*door = (struct export_door){ .mhd = mhd, .d = d, .clients = clients, .per_client = per_client,
				      .deadline_s = deadline_s, .lfd = lfd, .ep = -1, .stopfd = -1,
				      .cap = cap > 0 ? cap : 1 };
	door->p = xcalloc((size_t)door->cap, sizeof(*door->p));
	door->answer_len = snprintf(door->answer, sizeof(door->answer),
				   "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
				   "Connection: close\r\nContent-Length: %zu\r\n\r\n%s",
				   sizeof(PLAIN_BODY) - 1, PLAIN_BODY);
	door->ep = epoll_create1(EPOLL_CLOEXEC);
	door->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct epoll_event lev = { .events = EPOLLIN, .data.u64 = DOOR_LISTEN_TAG };
	struct epoll_event sev = { .events = EPOLLIN, .data.u64 = DOOR_STOP_TAG };
	if (door->ep < 0 || door->stopfd < 0 || epoll_ctl(door->ep, EPOLL_CTL_ADD, lfd, &lev) < 0 ||
	    epoll_ctl(door->ep, EPOLL_CTL_ADD, door->stopfd, &sev) < 0 ||
	    pthread_create(&door->thread, NULL, door_main, door) != 0) {
		set_cause(cause, "cannot start the TLS server's accepting thread: %s", strerror(errno));
		if (door->ep >= 0)
			close(door->ep);
		if (door->stopfd >= 0)
			close(door->stopfd);
		free(door->p);
		free(door);
		return NULL;
	}
	return door;
}

void export_door_stop(struct export_door *door)
{
	if (!door)
		return;
	uint64_t one = 1;
	ssize_t w = write(door->stopfd, &one, sizeof(one));
	(void)w;
	pthread_join(door->thread, NULL);
	close(door->ep);
	close(door->stopfd);
	close(door->lfd);
	free(door->p);
	free(door);
}
