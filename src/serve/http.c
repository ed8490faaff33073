/*
 * pcie-telemetry: the exporter's HTTP side (src/serve/http.h).
 *
 * libmicrohttpd with a pool of internal polling threads (epoll where the
 * library has it): every connection is a non-blocking state machine, so a
 * slow or stalled client holds one connection slot and nothing else, and
 * the per-connection timeout ends it.  The request line and headers must
 * fit into the connection's memory pool (larger ones get 431 or 414 from
 * the library), a request body is refused (413), methods other than GET
 * and HEAD get 405 with an Allow header, paths other than "/" and the
 * telemetry path 404.  HEAD answers carry the headers of the GET answer
 * and no body (the library leaves it out).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve/http.h"

struct pt_serve_http {
	struct MHD_Daemon *d;
	char *path, *landing;
	pt_serve_metrics_fn metrics;
	void *arg;
	void (*log)(void *arg, const char *line);
	void *log_arg;
	pthread_mutex_t log_mu;
	time_t last_log;
};

/* ---- addresses ------------------------------------------------------ */

static int addr_err(char *msg, size_t msglen, const char *s, const char *why)
{
	snprintf(msg, msglen, "--web.listen-address '%s': %s", s, why);
	return -EINVAL;
}

int pt_serve_addr_parse(const char *s, struct pt_serve_addr *a, char *msg, size_t msglen)
{
	const char *colon = strrchr(s, ':'), *host = s;
	size_t hostlen;
	char *end;
	unsigned long port;

	memset(a, 0, sizeof(*a));
	if (!colon)
		return addr_err(msg, msglen, s, "expected HOST:PORT, [IPV6]:PORT or :PORT");
	if (s[0] == '[') { /* [IPV6]:PORT: the port follows the ']' */
		const char *close = strchr(s, ']');

		if (!close)
			return addr_err(msg, msglen, s, "the IPv6 address has no closing ']'");
		if (close[1] != ':')
			return addr_err(msg, msglen, s, "expected [IPV6]:PORT: no ':PORT' after the ']'");
		colon = close + 1;
		host = s + 1;
		hostlen = (size_t)(close - host);
		a->ipv6_literal = true;
	} else {
		hostlen = (size_t)(colon - s);
		if (memchr(s, ':', hostlen))
			return addr_err(msg, msglen, s, "an IPv6 address goes in brackets: [::1]:PORT");
	}
	if (hostlen >= sizeof a->host)
		return addr_err(msg, msglen, s, "host name too long");
	memcpy(a->host, host, hostlen);
	a->host[hostlen] = '\0';
	if (a->ipv6_literal) {
		struct in6_addr x;

		if (inet_pton(AF_INET6, a->host, &x) != 1)
			return addr_err(msg, msglen, s, "not an IPv6 address in the brackets");
	}
	errno = 0;
	port = colon[1] >= '0' && colon[1] <= '9' ? strtoul(colon + 1, &end, 10) : 0;
	if (colon[1] < '0' || colon[1] > '9' || *end || errno || port > 65535)
		return addr_err(msg, msglen, s, "the port must be a number from 0 to 65535");
	a->port = (unsigned)port;
	return 0;
}

static void format_bound(int fd, char *bound, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
			port = ntohs(s6->sin6_port);
			snprintf(bound, len, "[%s]:%u", host, port);
			return;
		}
		inet_ntop(AF_INET, &((const struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
		port = ntohs(((const struct sockaddr_in *)&ss)->sin_port);
	}
	snprintf(bound, len, "%s:%u", host, port);
}

static int try_bind(const struct addrinfo *ai, int *fd)
{
	int one = 1, zero = 0, s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -errno;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ai->ai_family == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
	if (bind(s, ai->ai_addr, ai->ai_addrlen) < 0 || listen(s, 128) < 0) {
		int err = -errno;

		close(s);
		return err;
	}
	*fd = s;
	return 0;
}

int pt_serve_listen(const struct pt_serve_addr *a, int *fd, char *bound, size_t boundlen,
		    char *msg, size_t msglen)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char port[8];
	int rc = -EADDRNOTAVAIL, g;

	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	hints.ai_family = a->host[0] ? AF_UNSPEC : AF_INET6;
	snprintf(port, sizeof port, "%u", a->port);
	g = getaddrinfo(a->host[0] ? a->host : NULL, port, &hints, &res);
	if (g != 0 && !a->host[0]) { /* no IPv6 on this machine */
		hints.ai_family = AF_INET;
		g = getaddrinfo(NULL, port, &hints, &res);
	}
	if (g != 0) {
		snprintf(msg, msglen, "--web.listen-address '%s:%u': %s", a->host, a->port,
			 gai_strerror(g));
		return -EADDRNOTAVAIL;
	}
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
		if ((rc = try_bind(ai, fd)) == 0)
			break;
	freeaddrinfo(res);
	if (rc < 0) {
		snprintf(msg, msglen, "--web.listen-address '%s%s%s:%u': cannot listen: %s",
			 a->ipv6_literal ? "[" : "", a->host, a->ipv6_literal ? "]" : "", a->port,
			 strerror(-rc));
		return rc;
	}
	format_bound(*fd, bound, boundlen);
	return 0;
}

/* ---- content negotiation ------------------------------------------- */

/* The q value of one media range ("type/sub;a=b;q=0.5"): 1 by default. */
static double range_q(const char *r, size_t n)
{
	for (const char *p = memchr(r, ';', n); p && p < r + n; p = memchr(p + 1, ';', (size_t)(r + n - p - 1))) {
		const char *q = p + 1;

		while (q < r + n && (*q == ' ' || *q == '\t'))
			q++;
		if (q + 1 < r + n && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=')
			return strtod(q + 2, NULL);
	}
	return 1.0;
}

static bool range_is(const char *r, size_t n, const char *type)
{
	size_t k = strlen(type);

	while (n > 0 && (*r == ' ' || *r == '\t')) {
		r++;
		n--;
	}
	return n >= k && strncasecmp(r, type, k) == 0 && (n == k || r[k] == ';' || r[k] == ' ');
}

bool pt_serve_accept_openmetrics(const char *accept)
{
	double om = 0, text = -1, any = 0;

	if (!accept)
		return false;
	for (const char *r = accept; *r;) {
		size_t n = strcspn(r, ",");
		double q = range_q(r, n);

		if (range_is(r, n, "application/openmetrics-text") && q > om)
			om = q;
		else if (range_is(r, n, "text/plain") && q > text)
			text = q;
		else if ((range_is(r, n, "*/*") || range_is(r, n, "text/*")) && q > any)
			any = q;
		r += n;
		if (*r == ',')
			r++;
	}
	return om > 0 && om > (text >= 0 ? text : any);
}

/* ---- requests ------------------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     const char *text, bool allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result serve_metrics(struct pt_serve_http *h, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	bool om = pt_serve_accept_openmetrics(accept);
	struct MHD_Response *r;
	enum MHD_Result rc;
	const char *type = NULL;
	struct pt_serve_body b;

	if (h->metrics(h->arg, om, &b, &type) < 0)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
			     "500 the metrics could not be rendered\n", false);
	/* no copy of the families per scrape: MHD sends both parts from
	 * where they are and calls release when done with them */
	const struct MHD_IoVec iov[2] = { { b.part[0], b.len[0] }, { b.part[1], b.len[1] } };
	r = MHD_create_response_from_iovec(iov, 2, b.release, b.cls);
	if (!r) {
		b.release(b.cls);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

/* A request with a body (a length other than 0, or chunks). */
static bool has_body(struct MHD_Connection *c)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_TRANSFER_ENCODING);

	return te || (cl && strspn(cl, "0 \t") != strlen(cl));
}

/* A refusal (405, 413) is given at the first call for a request, before
 * any body is read (the library then closes the connection instead of
 * reading it); the answers to GET and HEAD come at the second call, once
 * the library knows the request is complete, so the connection stays
 * open for the next scrape. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	static int seen; /* the marker of a request whose first call is done */
	static const char *const text = "text/plain; charset=utf-8";
	struct pt_serve_http *h = cls;

	(void)version;
	(void)upload;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, text,
			     "405 method not allowed (GET or HEAD only)\n", true);
	if (has_body(c) || *upload_size != 0)
		return reply(c, MHD_HTTP_CONTENT_TOO_LARGE, text,
			     "413 a request body is not accepted\n", false);
	if (*req == NULL) {
		*req = &seen;
		return MHD_YES;
	}
	if (strcmp(url, h->path) == 0)
		return serve_metrics(h, c);
	if (strcmp(url, "/") == 0)
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", h->landing, false);
	return reply(c, MHD_HTTP_NOT_FOUND, text, "404 page not found\n", false);
}

/* The library's messages, at most one a second (a client can cause
 * them), each cut before any HTML it quotes. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct pt_serve_http *h = cls;
	char line[512], *html;
	size_t n;
	time_t now = time(NULL);

	if (!h->log)
		return;
	pthread_mutex_lock(&h->log_mu);
	if (now == h->last_log) {
		pthread_mutex_unlock(&h->log_mu);
		return;
	}
	h->last_log = now;
	pthread_mutex_unlock(&h->log_mu);
	vsnprintf(line, sizeof line, fmt, ap);
	html = strstr(line, " ('<");
	if (html)
		*html = '\0';
	n = strlen(line);
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	h->log(h->log_arg, line);
}

int pt_serve_http_start(const struct pt_serve_http_config *c, struct pt_serve_http **out,
			char *msg, size_t msglen)
{
	struct pt_serve_http *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (h)
		pthread_mutex_init(&h->log_mu, NULL);
	if (!h || !(h->path = strdup(c->path)) || !(h->landing = strdup(c->landing))) {
		close(c->listen_fd);
		pt_serve_http_stop(h);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	h->metrics = c->metrics;
	h->arg = c->arg;
	h->log = c->log;
	h->log_arg = c->log_arg;
	h->d = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, on_log, h, MHD_OPTION_LISTEN_SOCKET, c->listen_fd,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)c->threads, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)c->max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)c->per_ip_connections, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)c->timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, c->memory_limit, MHD_OPTION_END);
	if (!h->d) {
		close(c->listen_fd);
		pt_serve_http_stop(h);
		snprintf(msg, msglen, "the HTTP server (libmicrohttpd) did not start");
		return -EIO;
	}
	*out = h;
	return 0;
}

void pt_serve_http_stop(struct pt_serve_http *h)
{
	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d); /* closes the listening socket too */
	pthread_mutex_destroy(&h->log_mu);
	free(h->path);
	free(h->landing);
	free(h);
}
