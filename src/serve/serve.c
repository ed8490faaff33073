/*
 * pcie-telemetry: the exporter (include/pcie_telemetry/serve.h): the
 * pollers, the HTTP server, and between them the scrape: the families of
 * every device rendered from the last polls (under each poller's lock)
 * and kept until a poller publishes again, so that scrapes between two
 * polls share the text and add only their own duration.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/version.h"
#include "serve/http.h"
#include "serve/serve_priv.h"
#include "util/pt_util.h"

/* A connection's memory: the request line and headers and the answer's
 * headers must fit (the library answers 431 or 414 to a larger request). */
#define CONN_MEMORY (16u << 10)
#define HTTP_THREADS 2

/* Rendered families: the cache holds a reference, and so does every
 * scrape whose answer is still being sent. */
struct shared_text {
	atomic_uint refs;
	char *text;
	size_t len;
};

/* The rendered families of one format, valid for one generation. */
struct cache {
	bool valid;
	unsigned long generation;
	struct shared_text *t;
};

static void shared_unref(struct shared_text *t)
{
	if (t && atomic_fetch_sub(&t->refs, 1) == 1) {
		free(t->text);
		free(t);
	}
}

struct pt_serve {
	struct pt_serve_poller *pollers;
	unsigned npollers;
	atomic_ulong generation;
	pthread_mutex_t cache_mu;
	struct cache cache[2]; /* by enum pt_prom_format */
	struct pt_serve_http *http;
	char address[128];
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Render every family of every device into c (cache_mu held). */
static int render_families(struct pt_serve *s, enum pt_prom_format fmt, struct cache *c)
{
	struct pt_prom_device devs[PT_SERVE_MAX_DEVICES];
	struct pt_prom_input in = { fmt, devs, s->npollers, PT_VERSION_STRING, pt_bus_have_nfb() != 0 };
	unsigned long gen = atomic_load(&s->generation);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f)
		return -ENOMEM;
	for (unsigned i = 0; i < s->npollers; i++) {
		pthread_mutex_lock(&s->pollers[i].mu);
		pt_serve_poller_view(&s->pollers[i], &devs[i]);
	}
	rc = pt_render_prom(f, &in);
	for (unsigned i = s->npollers; i-- > 0;)
		pthread_mutex_unlock(&s->pollers[i].mu);
	if (fclose(f) != 0 && rc == 0)
		rc = -ENOMEM;
	struct shared_text *t = rc < 0 ? NULL : malloc(sizeof(*t));
	if (!t) {
		free(text);
		return rc < 0 ? rc : -ENOMEM;
	}
	atomic_init(&t->refs, 1);
	t->text = text;
	t->len = len;
	shared_unref(c->t);
	*c = (struct cache){ true, gen, t };
	return 0;
}

/* One scrape's answer: the shared families and its own end. */
struct scrape_body {
	struct shared_text *t;
	char tail[512];
};

static void scrape_release(void *cls)
{
	struct scrape_body *b = cls;

	shared_unref(b->t);
	free(b);
}

/* The end of an answer (the scrape's duration) into tail; its length. */
static int scrape_tail(enum pt_prom_format fmt, double seconds, char *tail, size_t cap,
		       size_t *n)
{
	FILE *f = fmemopen(tail, cap, "w");

	if (!f || pt_render_prom_end(f, fmt, seconds) < 0 || fflush(f) != 0) {
		if (f)
			fclose(f);
		return -EIO;
	}
	*n = (size_t)ftell(f);
	fclose(f);
	return 0;
}

/* The HTTP side's callback: the cached families, then the duration. */
static int scrape(void *arg, bool openmetrics, struct pt_serve_body *body, const char **type)
{
	struct pt_serve *s = arg;
	enum pt_prom_format fmt = openmetrics ? PT_PROM_OPENMETRICS : PT_PROM_TEXT;
	struct cache *c = &s->cache[fmt];
	double t0 = mono_now();
	struct scrape_body *b = malloc(sizeof(*b));
	size_t n = 0;
	int rc = b ? 0 : -ENOMEM;

	*type = pt_render_prom_content_type(fmt);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&s->cache_mu);
	if (!c->valid || c->generation != atomic_load(&s->generation))
		rc = render_families(s, fmt, c);
	b->t = rc < 0 ? NULL : c->t;
	if (b->t)
		atomic_fetch_add(&b->t->refs, 1);
	pthread_mutex_unlock(&s->cache_mu);
	if (rc == 0)
		rc = scrape_tail(fmt, mono_now() - t0, b->tail, sizeof(b->tail), &n);
	if (rc < 0) {
		scrape_release(b);
		return rc;
	}
	*body = (struct pt_serve_body){ { b->t->text, b->tail }, { b->t->len, n }, scrape_release, b };
	return 0;
}

/* "DEVICE", with "#INDEX" for a component index other than 0. */
static char *device_label(const struct pt_serve_device *d)
{
	const char *name = d->device, *env = getenv("LIBNFB_DEFAULT_DEV");
	size_t n;
	char *s;

	if (!name)
		name = env && *env ? env : "/dev/nfb0";
	n = strlen(name) + 16;
	s = malloc(n);
	if (s && d->index)
		snprintf(s, n, "%s#%u", name, d->index);
	else if (s)
		snprintf(s, n, "%s", name);
	return s;
}

/* text with &, <, > and " escaped for HTML. */
static void html_text(FILE *f, const char *text)
{
	for (; *text; text++)
		switch (*text) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*text, f);
		}
}

static char *landing_page(const struct pt_serve *s, const char *path)
{
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);

	if (!f)
		return NULL;
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>PCIe telemetry "
	      "exporter</title></head>\n<body><h1>PCIe telemetry exporter</h1>\n<p>Version "
	      PT_VERSION_STRING ". <a href=\"", f);
	html_text(f, path);
	fputs("\">Metrics</a></p>\n<p>Devices:</p>\n<ul>\n", f);
	for (unsigned i = 0; i < s->npollers; i++) {
		fputs("<li>", f);
		html_text(f, s->pollers[i].label);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n</body></html>\n", f);
	if (fclose(f) != 0) {
		free(page);
		return NULL;
	}
	return page;
}

/* The pollers with their labels, not started yet. */
static int prepare_pollers(struct pt_serve *s, const struct pt_serve_config *c, char *msg,
			   size_t msglen)
{
	struct pt_serve_device dflt = { NULL, 0, false };
	unsigned n = c->ndevices ? c->ndevices : 1;

	s->pollers = calloc(n, sizeof(*s->pollers));
	if (!s->pollers)
		return snprintf(msg, msglen, "out of memory"), -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		struct pt_serve_poller *p = &s->pollers[i];
		const struct pt_serve_device *d = c->ndevices ? &c->devices[i] : &dflt;

		p->label = device_label(d);
		if (!p->label)
			return snprintf(msg, msglen, "out of memory"), -ENOMEM;
		p->device = d->device;
		p->index = d->index;
		p->interval = c->poll_interval > 0 ? c->poll_interval : PT_SERVE_DEFAULT_POLL;
		p->log = c->log;
		p->log_arg = c->log_arg;
		p->generation = &s->generation;
		s->npollers = i + 1;
	}
	return 0;
}

static int start_pollers(struct pt_serve *s, char *msg, size_t msglen)
{
	for (unsigned i = 0; i < s->npollers; i++) {
		int rc = pt_serve_poller_start(&s->pollers[i], msg, msglen);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The HTTP server on the socket bound before (which it then owns). */
static int start_http(struct pt_serve *s, const struct pt_serve_config *c, int fd, char *msg,
		      size_t msglen)
{
	struct pt_serve_http_config h = { 0 };
	char *landing = landing_page(s, c->path);
	int rc;

	h.listen_fd = fd;
	h.path = c->path;
	h.landing = landing ? landing : "";
	h.max_connections = c->max_connections;
	h.per_ip_connections = c->max_connections / 4 > 4 ? c->max_connections / 4 : 4;
	h.threads = HTTP_THREADS;
	h.timeout_s = (unsigned)ceil(c->timeout > 0 ? c->timeout : PT_SERVE_DEFAULT_TIMEOUT);
	h.memory_limit = CONN_MEMORY;
	h.metrics = scrape;
	h.arg = s;
	h.log = c->log;
	h.log_arg = c->log_arg;
	rc = pt_serve_http_start(&h, &s->http, msg, msglen);
	free(landing);
	return rc;
}

int pt_serve_start(const struct pt_serve_config *c, struct pt_serve **out, char *msg,
		   size_t msglen)
{
	struct pt_serve *s = calloc(1, sizeof(*s));
	struct pt_serve_addr a;
	int rc, fd = -1;

	*out = NULL;
	if (!s)
		return snprintf(msg, msglen, "out of memory"), -ENOMEM;
	atomic_init(&s->generation, 1);
	pthread_mutex_init(&s->cache_mu, NULL);
	/* the address first: a bad one ends it before any device is opened */
	rc = pt_serve_addr_parse(c->listen, &a, msg, msglen);
	if (rc == 0)
		rc = pt_serve_listen(&a, &fd, s->address, sizeof s->address, msg, msglen);
	if (rc == 0)
		rc = prepare_pollers(s, c, msg, msglen);
	if (rc == 0)
		rc = start_pollers(s, msg, msglen);
	if (rc == 0) {
		rc = start_http(s, c, fd, msg, msglen);
		fd = -1; /* the server has closed or owns it */
	}
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		pt_serve_stop(s);
		pt_util_oneline(msg, msglen);
		return rc;
	}
	*out = s;
	return 0;
}

const char *pt_serve_address(const struct pt_serve *s)
{
	return s->address;
}

void pt_serve_stop(struct pt_serve *s)
{
	if (!s)
		return;
	pt_serve_http_stop(s->http); /* no scrape runs after this */
	for (unsigned i = 0; i < s->npollers; i++) {
		pt_serve_poller_stop(&s->pollers[i]);
		free(s->pollers[i].label);
	}
	free(s->pollers);
	for (unsigned f = 0; f < 2; f++)
		shared_unref(s->cache[f].t); /* the answers in flight were released */
	pthread_mutex_destroy(&s->cache_mu);
	free(s);
}
