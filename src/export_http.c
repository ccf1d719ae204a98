/* export_http.c: serves the exporter over HTTP with libmicrohttpd,
 * loaded when the server starts (mhd_dl.h).
 *
 * The listening socket is opened here, so that a port in use is reported
 * as such before the first interval. libmicrohttpd runs a small pool of
 * threads on epoll; each scrape takes a reference to the latest state and
 * sends its cached body plus its own small tail (one gathered write, no
 * copy), so the sampler's side never waits for a client. Connection count,
 * each client's share, idle time and the time headers may take are bounded
 * so that slow or many clients use a bounded amount of memory and threads
 * and cannot take every slot; bcrypt runs on a thread of its own, rationed
 * (export_auth.h), so wrong passwords cannot stall the server's threads. */
#include "config.h"
#include "export_http.h"
#include "export_auth.h"
#include "export_conns.h"
#include "export_door.h"
#include "export_webconfig.h"
#include "mhd_dl.h"
#include "service_notify.h"
#include "util.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Scrapes are short and Prometheus keeps one connection per target. The
 * connection cap and a client's share of it follow from the descriptor
 * limit (export_conns.h); each connection buffers at most
 * EXPORT_CONN_MEMORY. */
#define EXPORT_THREADS 4
#define EXPORT_TIMEOUT_S 10
#define EXPORT_CONN_MEMORY (16 * 1024)
/* A request's headers (and, with TLS, the handshake before them) must
 * arrive within this many seconds of the connection or of the previous
 * response, however steadily they trickle in: libmicrohttpd's idle timeout
 * restarts with every byte, so a client sending one a second (slowloris)
 * held its slot for ever. Checked every EXPORT_WATCH_MS. */
#define EXPORT_HEADER_DEADLINE_S 5
#define EXPORT_WATCH_MS 200
/* Past three quarters of the cap, a new connection is closed after
 * EXPORT_BUSY_TIMEOUT_S idle instead of EXPORT_TIMEOUT_S, so that slots
 * held by idle clients come back quickly when the limit is near. */
#define EXPORT_BUSY_TIMEOUT_S 3
/* Connections the kernel queues before pmctop accepts them (capped by
 * net.core.somaxconn): a crowd of a thousand that overflowed the queue
 * had its SYNs dropped, and a scrape behind it waited for the 1 s and
 * 3 s retransmissions. */
#define EXPORT_BACKLOG 4096

/* Password checks waiting for the checker thread; past this many a new
 * one is answered 429 (the buckets of export_auth.h let fewer through). */
#define EXPORT_VERIFY_QUEUE 16

/* One request's state between the calls of on_request: a request whose
 * password is being checked is suspended until the checker resumes it. */
enum req_state { REQ_NEW, REQ_CHECKING, REQ_CHECKED };
struct request {
	enum req_state state;
	bool ok;                    /* REQ_CHECKED: the password was right */
};

struct check_job {
	struct MHD_Connection *c;
	struct request *rq;
	char *authorization;
};

/* A connection, watched for its header deadline: waiting is true from
 * its start or its last response until its next request's headers are in. */
struct conn {
	struct conn *prev, *next;
	int fd;
	struct sockaddr_storage addr;
	bool waiting;
	uint64_t since_ns;
};

struct export_server {
	struct MHD_Daemon *d;
	struct export_hub *hub;
	const struct web_config *wc;  /* --web-config, or NULL */
	atomic_int connections;
	int cap, per_client;          /* export_conns_limits */
	struct export_conns *clients;
	/* The open connections and the thread that cuts those past their
	 * header deadline (shutdown(), which libmicrohttpd sees as the
	 * client's end; the descriptor stays its to close). */
	pthread_mutex_t watch_lock;
	pthread_cond_t watch_cond;
	pthread_t watcher;
	bool watcher_started, watch_stop;
	struct conn *conns;
	struct export_door *door;     /* TLS: pmctop accepts (export_door.c) */
	/* Accepted credentials and the ration of bcrypt checks. bcrypt runs
	 * on a thread of its own, never on the server's: while it works, the
	 * server threads go on answering scrapes. */
	struct export_auth *auth;
	atomic_bool auth_on;          /* cur has users */
	/* The configuration in force, read again by the checker thread on
	 * SIGHUP or when the file changes (its only reader); owned is the
	 * last one it loaded, freed when replaced. */
	const struct web_config *cur;
	struct web_config *owned;
	struct stat file;             /* cur's file when it was read */
	struct stat seen;             /* settling: the file changed to this */
	bool settling;
	pthread_mutex_t check_lock;
	pthread_cond_t check_cond;
	pthread_t checker;
	bool checker_started, stopping;
	struct check_job jobs[EXPORT_VERIFY_QUEUE];
	int njobs, job_head;
};

/* libmicrohttpd's functions, loaded by the first export_server_start. */
static const struct mhd_api *mhd;

/* What one response streams: the state's shared body, then its tail. */
struct reply {
	struct export_state *st;
	const char *body;
	size_t body_len;
	char *tail;
	size_t tail_len;
};

static void reply_free(void *cls)
{
	struct reply *r = cls;
	export_state_put(r->st);
	free(r->tail);
	free(r);
}

/* Queues a response with the headers of http_server_config (those read
 * when pmctop started: a reload swaps the configuration under other
 * threads, and these are read by every one of them). */
static enum MHD_Result queue(struct export_server *s, struct MHD_Connection *c, unsigned code,
			     struct MHD_Response *resp)
{
	for (int i = 0; s->wc && i < s->wc->nheaders; i++)
		mhd->add_response_header(resp, s->wc->headers[i].name, s->wc->headers[i].value);
	return mhd->queue_response(c, code, resp);
}

static enum MHD_Result answer_text(struct export_server *s, struct MHD_Connection *c, unsigned code,
				   const char *text)
{
	struct MHD_Response *resp = mhd->create_response_from_buffer(strlen(text), (void *)text,
								    MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd->add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = queue(s, c, code, resp);
	mhd->destroy_response(resp);
	return ret;
}

static enum MHD_Result answer_metrics(struct export_server *s, struct MHD_Connection *c,
				     enum export_format f, bool gzip)
{
	struct reply *r = xcalloc(1, sizeof(*r));
	/* Before the first interval there is nothing but the scrape's own
	 * figures, sent as they are. */
	r->st = export_hub_get(s->hub);
	export_hub_wants(s->hub, f, gzip);
	gzip = gzip && r->st;
	if (r->st && !gzip)
		r->body = export_state_body(r->st, f, &r->body_len);
	if (gzip)
		r->body = (const char *)export_state_gzip(r->st, f, &r->body_len);
	r->tail = export_hub_tail(s->hub, f, &r->tail_len);
	if (gzip) {
		size_t n;
		char *z = (char *)export_state_gzip_end(r->st, f, r->tail, r->tail_len, &n);
		free(r->tail);
		r->tail = z;
		r->tail_len = n;
	}
	/* Sent straight from the shared body and the tail, without copying
	 * either into the connection's buffer; freed when the response is. */
	struct MHD_IoVec iov[2] = { { r->body ? r->body : "", r->body_len }, { r->tail, r->tail_len } };
	struct MHD_Response *resp = mhd->create_response_from_iovec(iov, 2, reply_free, r);
	if (!resp) {
		reply_free(r);
		export_hub_scrape_failed(s->hub);
		return MHD_NO;
	}
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				f == EXPORT_OPENMETRICS ? EXPORT_OPENMETRICS_TYPE : EXPORT_TEXT_TYPE);
	mhd->add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	if (gzip)
		mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	enum MHD_Result ret = queue(s, c, MHD_HTTP_OK, resp);
	mhd->destroy_response(resp);
	if (ret != MHD_YES)
		export_hub_scrape_failed(s->hub);
	return ret;
}

/* Set from a signal handler: a lock-free atomic is safe there. */
static atomic_int reload_asked;

void export_server_reload(void)
{
	atomic_store(&reload_asked, 1);
}

/* Whether st describes another file, or the same one changed. */
static bool file_changed(const struct stat *a, const struct stat *b)
{
	return a->st_ino != b->st_ino || a->st_dev != b->st_dev || a->st_size != b->st_size ||
	       a->st_mtim.tv_sec != b->st_mtim.tv_sec || a->st_mtim.tv_nsec != b->st_mtim.tv_nsec;
}

/* Reads the web config again when asked, or when its file changed and
 * then stayed as it was for a look (a second): a file caught half written
 * by an editor would otherwise be read as it stood. A broken file leaves
 * the configuration as it was: a server half configured, or open,
 * because of a typo would be worse. Called by the checker thread alone. */
static void maybe_reload(struct export_server *s)
{
	struct stat st;
	bool asked = atomic_exchange(&reload_asked, 0) != 0;
	bool changed = stat(s->cur->path, &st) == 0 && file_changed(&st, &s->file);
	if (!changed)
		s->settling = false;
	else if (!s->settling || file_changed(&st, &s->seen)) {
		s->settling = true;
		s->seen = st;
		changed = false;
	}
	if (!asked && !changed)
		return;
	s->settling = false;
	if (stat(s->cur->path, &st) == 0)
		s->file = st;
	char *cause = NULL;
	struct web_config *n = web_config_reload(s->cur, &cause);
	if (!n) {
		fprintf(stderr, "pmctop: --web-config not reloaded, the previous one stays: %s\n", cause);
		free(cause);
		return;
	}
	/* Headers accepted under the old users may not be any longer. */
	export_auth_forget(s->auth);
	web_config_free(s->owned);
	s->cur = s->owned = n;
	atomic_store(&s->auth_on, n->nusers > 0);
	fprintf(stderr, "pmctop: --web-config %s reloaded: %d user%s%s\n", n->path, n->nusers, n->nusers == 1 ? "" : "s",
		n->tls || n->nheaders ? " (TLS settings and headers are read when pmctop starts)" : "");
}

/* The checker thread: runs bcrypt for the queued requests one at a time,
 * then resumes them; between them, once a second, reloads the web config
 * when asked (maybe_reload). When the server stops, the rest are refused. */
static void *checker_main(void *arg)
{
	struct export_server *s = arg;
	uint64_t next_look = now_ns() + 1000000000ULL;
	pthread_mutex_lock(&s->check_lock);
	for (;;) {
		if (!s->njobs && !s->stopping) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&s->check_cond, &s->check_lock, &ts);
		}
		if (!s->njobs && s->stopping)
			break;
		/* Once a second, whether or not checks keep coming: a flood of
		 * wrong passwords must not hold off a new one being read. */
		if (now_ns() >= next_look) {
			pthread_mutex_unlock(&s->check_lock);
			maybe_reload(s);
			next_look = now_ns() + 1000000000ULL;
			pthread_mutex_lock(&s->check_lock);
		}
		if (!s->njobs)
			continue;
		struct check_job j = s->jobs[s->job_head];
		s->job_head = (s->job_head + 1) % EXPORT_VERIFY_QUEUE;
		s->njobs--;
		bool stopping = s->stopping;
		pthread_mutex_unlock(&s->check_lock);
		bool ok = !stopping && web_config_authorized(s->cur, j.authorization);
		if (ok)
			export_auth_remember(s->auth, j.authorization);
		explicit_bzero(j.authorization, strlen(j.authorization));
		free(j.authorization);
		pthread_mutex_lock(&s->check_lock);
		j.rq->ok = ok;
		j.rq->state = REQ_CHECKED;
		mhd->resume_connection(j.c);
	}
	pthread_mutex_unlock(&s->check_lock);
	return NULL;
}

/* Queues the password check of a request and suspends it (in the access
 * handler, as libmicrohttpd requires); false when the queue is full. The
 * lock is held across the suspension so that the checker cannot resume
 * the connection before it is suspended. */
static bool check_queue(struct export_server *s, struct MHD_Connection *c, struct request *rq, const char *h)
{
	pthread_mutex_lock(&s->check_lock);
	bool ok = !s->stopping && s->njobs < EXPORT_VERIFY_QUEUE;
	if (ok) {
		s->jobs[(s->job_head + s->njobs) % EXPORT_VERIFY_QUEUE] =
			(struct check_job){ .c = c, .rq = rq, .authorization = xstrdup(h) };
		s->njobs++;
		rq->state = REQ_CHECKING;
		mhd->suspend_connection(c);
		pthread_cond_signal(&s->check_cond);
	}
	pthread_mutex_unlock(&s->check_lock);
	return ok;
}

static double mono_s(void)
{
	return (double)now_ns() / 1e9;
}

static enum MHD_Result answer_busy(struct export_server *s, struct MHD_Connection *c)
{
	static const char text[] = "pmctop: too many password checks; retry later\n";
	struct MHD_Response *resp = mhd->create_response_from_buffer(sizeof(text) - 1, (void *)text,
								    MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	mhd->add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	enum MHD_Result ret = queue(s, c, MHD_HTTP_TOO_MANY_REQUESTS, resp);
	mhd->destroy_response(resp);
	return ret;
}

static enum MHD_Result answer_unauthorized(struct export_server *s, struct MHD_Connection *c)
{
	static const char text[] = "pmctop: authentication required\n";
	struct MHD_Response *resp = mhd->create_response_from_buffer(sizeof(text) - 1, (void *)text,
								    MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	mhd->add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic realm=\"pmctop\", charset=\"UTF-8\"");
	enum MHD_Result ret = queue(s, c, MHD_HTTP_UNAUTHORIZED, resp);
	mhd->destroy_response(resp);
	return ret;
}

/* Counts connections (in all and per client), watches each for its header
 * deadline, and gives those opened when the server is busy a short idle
 * timeout. */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode code)
{
	struct export_server *s = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		if (atomic_fetch_add(&s->connections, 1) + 1 > s->cap * 3 / 4)
			mhd->set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned int)EXPORT_BUSY_TIMEOUT_S);
		struct conn *k = xcalloc(1, sizeof(*k));
		const union MHD_ConnectionInfo *fi = mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ai = mhd->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		k->fd = fi ? fi->connect_fd : -1;
		if (ai && ai->client_addr)
			memcpy(&k->addr, ai->client_addr,
			       ai->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								     : sizeof(struct sockaddr_in));
		export_conns_add(s->clients, (struct sockaddr *)&k->addr, 1);
		k->waiting = true;
		k->since_ns = now_ns();
		pthread_mutex_lock(&s->watch_lock);
		k->next = s->conns;
		if (s->conns)
			s->conns->prev = k;
		s->conns = k;
		pthread_mutex_unlock(&s->watch_lock);
		*ctx = k;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		atomic_fetch_sub(&s->connections, 1);
		struct conn *k = *ctx;
		if (!k)
			return;
		pthread_mutex_lock(&s->watch_lock);
		if (k->prev)
			k->prev->next = k->next;
		else
			s->conns = k->next;
		if (k->next)
			k->next->prev = k->prev;
		pthread_mutex_unlock(&s->watch_lock);
		export_conns_add(s->clients, (struct sockaddr *)&k->addr, -1);
		free(k);
		*ctx = NULL;
	}
}

/* Marks the connection of c as waiting for headers (a response is done)
 * or not (they are in). */
static void conn_waiting(struct export_server *s, struct MHD_Connection *c, bool waiting)
{
	const union MHD_ConnectionInfo *i = mhd->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = i ? i->socket_context : NULL;
	if (!k)
		return;
	pthread_mutex_lock(&s->watch_lock);
	k->waiting = waiting;
	k->since_ns = now_ns();
	pthread_mutex_unlock(&s->watch_lock);
}

/* The watcher: cuts connections past their header deadline. */
static void *watcher_main(void *arg)
{
	struct export_server *s = arg;
	pthread_mutex_lock(&s->watch_lock);
	while (!s->watch_stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += EXPORT_WATCH_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&s->watch_cond, &s->watch_lock, &ts);
		uint64_t now = now_ns();
		for (struct conn *k = s->conns; k; k = k->next)
			if (k->waiting && k->fd >= 0 && now - k->since_ns > EXPORT_HEADER_DEADLINE_S * 1000000000ULL) {
				shutdown(k->fd, SHUT_RDWR);
				k->waiting = false;
			}
	}
	pthread_mutex_unlock(&s->watch_lock);
	return NULL;
}

/* libmicrohttpd's accept policy: a client at its share is refused. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
	(void)len;
	struct export_server *s = cls;
	return export_conns_admit(s->clients, addr, s->per_client) ? MHD_YES : MHD_NO;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req, enum MHD_RequestTerminationCode toe)
{
	(void)toe;
	if (*req)
		conn_waiting(cls, c, true);
	free(*req);
	*req = NULL;
}

/* client_auth_type: libmicrohttpd asks for a client certificate when it
 * has a trust list (MHD_OPTION_HTTPS_MEM_TRUST) but accepts the handshake
 * whatever the client sends, so the certificate is checked here, against
 * client_ca_file, before the request is answered: a client without one is
 * answered 403 where Go's server would end the handshake. */
static bool client_cert_ok(struct export_server *s, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = mhd->get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	void *session = i ? i->tls_session : NULL;
	unsigned int n = 0, status = 1;
	if (!session || !mhd->tls_peers(session, &n) || n == 0)
		return s->wc->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN;
	if (s->wc->client_auth == WEB_REQUIRE_ANY_CLIENT_CERT)
		return true;
	return mhd->tls_verify_peers(session, &status) == 0 && status == 0;
}

/* Basic authentication: a header remembered is answered at once; another
 * one takes a bcrypt check from the buckets (429 without one) and waits,
 * suspended, for the checker. Returns MHD_YES with *done false while the
 * request waits or when it may be answered. */
static enum MHD_Result authenticate(struct export_server *s, struct MHD_Connection *c, struct request *rq,
				    bool *done)
{
	*done = true;
	pthread_mutex_lock(&s->check_lock);
	enum req_state st = rq->state;
	bool ok = rq->ok;
	pthread_mutex_unlock(&s->check_lock);
	if (st == REQ_CHECKED) {
		*done = !ok;
		return ok ? MHD_YES : answer_unauthorized(s, c);
	}
	const char *h = mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!h)
		return answer_unauthorized(s, c);
	if (export_auth_known(s->auth, h)) {
		*done = false;
		return MHD_YES;
	}
	const union MHD_ConnectionInfo *ci = mhd->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!export_auth_take(s->auth, ci ? ci->client_addr : NULL, mono_s()) || !check_queue(s, c, rq, h))
		return answer_busy(s, c);
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **req)
{
	(void)version;
	(void)upload;
	struct export_server *s = cls;
	/* The first call only announces the headers; a request body, which a
	 * GET should not have, is read and dropped on the calls after it. */
	struct request *rq = *req;
	if (!rq) {
		*req = xcalloc(1, sizeof(*rq));
		conn_waiting(s, c, false);
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (s->wc && s->wc->client_auth >= WEB_REQUIRE_ANY_CLIENT_CERT && !client_cert_ok(s, c))
		return answer_text(s, c, MHD_HTTP_FORBIDDEN, "pmctop: a client certificate signed by the web config's "
							     "client_ca_file is required\n");
	if (atomic_load(&s->auth_on)) {
		bool done;
		enum MHD_Result r = authenticate(s, c, rq, &done);
		if (done || r != MHD_YES)
			return r;
	}
	/* What to answer is export_route's decision (export_text.c, fuzzed). */
	struct export_route r;
	export_route(method, url, mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT), &r);
	if (r.metrics)
		return answer_metrics(s, c, r.format,
				      export_accepts_gzip(mhd->lookup_connection_value(c, MHD_HEADER_KIND,
										      MHD_HTTP_HEADER_ACCEPT_ENCODING)));
	return answer_text(s, c, r.code, r.text);
}

/* Stops the checker and the watcher. The checker refuses what is queued
 * and resumes it first: libmicrohttpd must not stop with a request
 * suspended. */
static void stop_threads(struct export_server *s)
{
	if (s->checker_started) {
		pthread_mutex_lock(&s->check_lock);
		s->stopping = true;
		pthread_cond_signal(&s->check_cond);
		pthread_mutex_unlock(&s->check_lock);
		pthread_join(s->checker, NULL);
		s->checker_started = false;
	}
	if (s->watcher_started) {
		pthread_mutex_lock(&s->watch_lock);
		s->watch_stop = true;
		pthread_cond_signal(&s->watch_cond);
		pthread_mutex_unlock(&s->watch_lock);
		pthread_join(s->watcher, NULL);
		s->watcher_started = false;
	}
}

/* After the daemon stopped: every connection is closed, so none is left
 * in the watcher's list. */
static void server_free(struct export_server *s)
{
	pthread_cond_destroy(&s->check_cond);
	pthread_mutex_destroy(&s->check_lock);
	pthread_cond_destroy(&s->watch_cond);
	pthread_mutex_destroy(&s->watch_lock);
	export_conns_free(s->clients);
	export_auth_free(s->auth);
	web_config_free(s->owned);
	free(s);
}

int export_listen(const char *listen_arg, char **cause)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (export_parse_listen(listen_arg, &ss, &len, cause) < 0)
		return -1;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return set_cause(cause, "--listen %s: socket: %s", listen_arg, strerror(errno));
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, EXPORT_BACKLOG) < 0) {
		int e = errno;
		close(fd);
		return set_cause(cause, "cannot listen on %s: %s", listen_arg, strerror(e));
	}
	return fd;
}

struct export_server *export_server_start(struct export_hub *hub, int fd, const char *listen_arg,
					  const struct web_config *wc, char **cause)
{
	if (!mhd && !(mhd = mhd_dl_load(MHD_DL_SONAME, cause))) {
		close(fd);
		return NULL;
	}
	if (wc && wc->client_auth != WEB_NO_CLIENT_CERT && (!mhd->tls_peers || !mhd->tls_verify_peers)) {
		close(fd);
		set_cause(cause, "--web-config asks for client certificates, but this libmicrohttpd does not use GnuTLS");
		return NULL;
	}
	if (wc && wc->cert_pem && mhd->is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		close(fd);
		set_cause(cause, "--web-config asks for TLS, but this libmicrohttpd was built without it");
		return NULL;
	}
	struct export_server *s = xcalloc(1, sizeof(*s));
	s->hub = hub;
	s->wc = wc;
	atomic_init(&s->connections, 0);
	s->auth = export_auth_new();
	s->cur = wc;
	atomic_init(&s->auth_on, wc && wc->nusers > 0);
	if (wc && stat(wc->path, &s->file) != 0)
		memset(&s->file, 0, sizeof(s->file));
	/* As many connections as descriptors allow: the soft limit (1,024
	 * under systemd unless LimitNOFILE= says more) is raised to the hard
	 * one first; the counters' descriptors are open already. */
	int in_use;
	long nofile = export_conns_raise_nofile(&in_use);
	export_conns_limits(nofile, in_use, &s->cap, &s->per_client);
	s->clients = export_conns_new(s->cap);
	pthread_mutex_init(&s->watch_lock, NULL);
	pthread_cond_init(&s->watch_cond, NULL);
	pthread_mutex_init(&s->check_lock, NULL);
	pthread_cond_init(&s->check_cond, NULL);
	/* Suspending a request while its password is checked needs the
	 * daemon's inter-thread channel (MHD_ALLOW_SUSPEND_RESUME). */
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
	/* TLS: the certificate and key given as text (read before the
	 * privileges were given up); without them the options end early. */
	bool tls = wc && wc->cert_pem;
	/* With TLS, pmctop accepts itself, to answer plain HTTP with a 400
	 * (export_door.c); libmicrohttpd gets the TLS connections. */
	if (tls)
		flags |= MHD_USE_TLS | MHD_USE_NO_LISTEN_SOCKET;
	/* The server's threads inherit a mask without the asynchronous
	 * signals: Ctrl-C and the rest are the main thread's to handle. */
	char *prio = tls ? web_config_tls_priorities(wc) : NULL;
	const char *trust = tls && wc->client_auth != WEB_NO_CLIENT_CERT ? (wc->ca_pem ? wc->ca_pem : wc->cert_pem) : NULL;
	sigset_t old;
	signals_block_async(&old);
	s->d = mhd->start_daemon(flags, 0, on_accept, s, on_request, s,
				/* The listening socket, or with TLS (no listening
				 * socket) an option given twice instead. */
				tls ? MHD_OPTION_CONNECTION_TIMEOUT : MHD_OPTION_LISTEN_SOCKET,
				tls ? (unsigned int)EXPORT_TIMEOUT_S : (unsigned int)fd,
				MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)EXPORT_THREADS,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)(s->cap > 0 ? s->cap : 1),
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)s->per_client,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)EXPORT_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EXPORT_CONN_MEMORY,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, tls ? wc->key_pem : NULL,
				MHD_OPTION_HTTPS_MEM_CERT, tls ? wc->cert_pem : NULL,
				MHD_OPTION_HTTPS_PRIORITIES, prio,
				/* Client certificates are asked for with a
				 * trust list; RequestClientCert and
				 * RequireAnyClientCert check none, and
				 * without client_ca_file the server's own
				 * certificate stands in as that list. */
				trust ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, trust,
				MHD_OPTION_END);
	free(prio);
	if (s->d && wc)
		s->checker_started = pthread_create(&s->checker, NULL, checker_main, s) == 0;
	if (s->d)
		s->watcher_started = pthread_create(&s->watcher, NULL, watcher_main, s) == 0;
	char *door_cause = NULL;
	bool threads = s->d && (!wc || s->checker_started) && s->watcher_started;
	if (threads && tls)
		s->door = export_door_start(fd, s->d, mhd, s->clients, s->cap, s->per_client, EXPORT_HEADER_DEADLINE_S,
					    &door_cause);
	signals_restore(&old);
	if (!s->d || !threads || (tls && !s->door)) {
		stop_threads(s);
		/* Without TLS the daemon took the socket over and closes it. */
		if (s->d)
			mhd->stop_daemon(s->d);
		if (!s->d || tls)
			close(fd);
		if (door_cause && cause)
			*cause = door_cause;
		else if (door_cause)
			free(door_cause);
		else
			set_cause(cause, "cannot start the HTTP server on %s%s", listen_arg,
				  !s->d && tls ? " (is the certificate or key of --web-config valid?)" : "");
		server_free(s);
		return NULL;
	}
	/* Type=notify (contrib/pmctop.service.in): ready once /metrics
	 * serves the first interval; nothing happens outside systemd (no
	 * NOTIFY_SOCKET). */
	export_hub_when_served(hub, xasprintf("READY=1\nSTATUS=serving /metrics on %s%s", listen_arg,
					      tls ? " (TLS)" : ""));
	return s;
}

void export_server_stop(struct export_server *s)
{
	if (!s)
		return;
	service_notify("STOPPING=1");
	export_door_stop(s->door);
	stop_threads(s);
	mhd->stop_daemon(s->d);
	server_free(s);
}
