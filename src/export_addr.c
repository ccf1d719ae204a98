/* export_addr.c: the exporter's options: --listen [HOST:]PORT and
 * --export-scope. A port alone binds to 127.0.0.1: counters describe what
 * the machine runs, so exposing them to the network is a choice the user
 * spells out (0.0.0.0:PORT or [::]:PORT), as docs/exporter.md explains. */
#include "config.h"
#include "export.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

int export_scope_parse(const char *s)
{
	static const char *const names[] = { [SNAP_CPU] = "cpu", [SNAP_CORE] = "core",
					     [SNAP_CCX] = "ccx", [SNAP_SOCKET] = "socket" };
	for (int i = 0; i < (int)ARRAY_SIZE(names); i++)
		if (s && !strcmp(s, names[i]))
			return i;
	return -1;
}

static int parse_port(const char *p, const char *whole, unsigned short *port, char **cause)
{
	errno = 0;
	long v = text_is_decimal(p, true) ? strtol(p, NULL, 10) : 0;
	if (errno || v < 1 || v > 65535)
		return set_cause(cause, "--listen expects [ADDRESS:]PORT with a port from 1 to 65535, not '%s'", whole);
	*port = (unsigned short)v;
	return 0;
}

/* HOST:PORT through the resolver (a name such as localhost, or an address
 * inet_pton did not take): its first IPv4 address, else its first IPv6
 * one, so that localhost is 127.0.0.1 whatever order /etc/hosts has. */
static int resolve(const char *host, unsigned short port, const char *whole, struct sockaddr_storage *ss,
		   socklen_t *len, char **cause)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || !res)
		return set_cause(cause, "--listen %s: cannot resolve '%s': %s", whole, host,
				 rc ? gai_strerror(rc) : "no address");
	const struct addrinfo *pick = res;
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
		if (ai->ai_family == AF_INET) {
			pick = ai;
			break;
		}
	memcpy(ss, pick->ai_addr, pick->ai_addrlen);
	*len = pick->ai_addrlen;
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	freeaddrinfo(res);
	return 0;
}

int export_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char **cause)
{
	memset(ss, 0, sizeof(*ss));
	unsigned short port;
	const char *colon = strrchr(s, ':');
	if (s[0] == '[') {
		/* [IPv6]:PORT */
		const char *close = strchr(s, ']');
		if (!close || close[1] != ':')
			return set_cause(cause, "--listen expects [IPV6-ADDRESS]:PORT, not '%s'", s);
		char host[INET6_ADDRSTRLEN + 1];
		size_t n = (size_t)(close - s - 1);
		if (n >= sizeof(host))
			return set_cause(cause, "--listen: '%s' is not an IPv6 address", s);
		memcpy(host, s + 1, n);
		host[n] = '\0';
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			return set_cause(cause, "--listen: '%s' is not an IPv6 address", host);
		if (parse_port(close + 2, s, &port, cause) < 0)
			return -1;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		*len = sizeof(*a6);
		return 0;
	}
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	if (!colon) {
		if (parse_port(s, s, &port, cause) < 0)
			return -1;
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		/* An IPv4 address, or a host name (localhost:9465, a name of
		 * the machine's own address). A bare IPv6 address has more
		 * colons: it must be written in brackets. */
		char host[256];
		size_t n = (size_t)(colon - s);
		if (strchr(s, ':') != colon)
			return set_cause(cause, "--listen expects HOST:PORT, [IPV6]:PORT or a port, not '%s'", s);
		if (n == 0 || n >= sizeof(host))
			return set_cause(cause, "--listen expects a host name or address before ':', not '%s'", s);
		memcpy(host, s, n);
		host[n] = '\0';
		if (parse_port(colon + 1, s, &port, cause) < 0)
			return -1;
		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return resolve(host, port, s, ss, len, cause);
	}
	a4->sin_family = AF_INET;
	a4->sin_port = htons(port);
	*len = sizeof(*a4);
	return 0;
}
