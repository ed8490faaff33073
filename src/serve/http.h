/*
 * pcie-telemetry: the exporter's HTTP side (library pt_serve_http,
 * private to src/serve/).  It knows sockets, HTTP and libmicrohttpd, and
 * gets the metrics from a callback: it links no bus and no reader, so
 * nothing that arrives over HTTP can reach a card.
 */
#ifndef PT_SERVE_HTTP_H
#define PT_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* A listen address, parsed: HOST:PORT, [IPV6]:PORT or :PORT. */
struct pt_serve_addr {
	char host[256]; /* "" = every interface */
	unsigned port;
	bool ipv6_literal; /* given in brackets */
};

/* 0, or -EINVAL with "--web.listen-address 'X': ..." in msg. */
int pt_serve_addr_parse(const char *s, struct pt_serve_addr *a, char *msg, size_t msglen);

/* Resolve and bind a, and listen (backlog 128, close-on-exec, SO_REUSEADDR).
 * The fd, and the bound address with its real port in `bound` ("[::1]:80").
 * "" binds the IPv6 wildcard for both families, or IPv4's without IPv6. */
int pt_serve_listen(const struct pt_serve_addr *a, int *fd, char *bound, size_t boundlen,
		    char *msg, size_t msglen);

/* Does an Accept header prefer OpenMetrics to the text format?  By the
 * q values of application/openmetrics-text against text/plain (and a
 * wildcard); the text format wins ties and when the header is NULL. */
bool pt_serve_accept_openmetrics(const char *accept);

/* The body of a scrape, in two parts sent one after the other (the
 * families, shared by the scrapes of one poll, and this scrape's own
 * end), valid until the server calls release(cls) once it has sent them
 * or given up. */
struct pt_serve_body {
	const char *part[2];
	size_t len[2];
	void (*release)(void *cls);
	void *cls;
};

/* The body of a scrape: fills *body and *content_type (a constant) and
 * returns 0, or a negative errno with nothing to release (the server
 * answers 500). */
typedef int (*pt_serve_metrics_fn)(void *arg, bool openmetrics, struct pt_serve_body *body,
				   const char **content_type);

struct pt_serve_http_config {
	int listen_fd;      /* from pt_serve_listen; the server owns it after a start */
	const char *path;   /* the telemetry path */
	const char *landing; /* the HTML page at "/" */
	unsigned max_connections, per_ip_connections, threads;
	unsigned timeout_s;  /* idle connections are closed after this */
	size_t memory_limit; /* per connection: request line and headers must fit */
	pt_serve_metrics_fn metrics;
	void *arg;
	void (*log)(void *arg, const char *line);
	void *log_arg;
};

struct pt_serve_http;

/* 0, or a negative errno with the message; listen_fd is closed either way. */
int pt_serve_http_start(const struct pt_serve_http_config *c, struct pt_serve_http **out,
			char *msg, size_t msglen);
void pt_serve_http_stop(struct pt_serve_http *h);

#endif
