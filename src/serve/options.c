/*
 * pcie-telemetry: the exporter's command line (include/pcie_telemetry/serve.h).
 *
 * One table holds every option: the parser and the help text are built
 * from it, and docs/exporter.md lists the same rows (a test compares
 * them).  Names follow the Prometheus exporters (`--web.listen-address`,
 * `--web.telemetry-path`); as there, long options are never abbreviated.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/serve.h"
#include "serve/http.h"
#include "util/pt_util.h"

enum opt_id { O_LISTEN, O_PATH, O_MAXCONN, O_TIMEOUT, O_DEVICE, O_INDEX, O_POLL, O_HELP, O_VERSION };

struct opt {
	const char *name; /* long name */
	char letter;      /* short name, or 0 */
	const char *arg;  /* the value's name, NULL for a flag */
	enum opt_id id;
	const char *help;
};

static const struct opt opts[] = {
	{ "web.listen-address", 0, "ADDRESS", O_LISTEN,
	  "address to listen on: HOST:PORT, [IPV6]:PORT, or :PORT for every interface "
	  "[default: " PT_SERVE_DEFAULT_LISTEN "]" },
	{ "web.telemetry-path", 0, "PATH", O_PATH,
	  "path under which the metrics are served [default: " PT_SERVE_DEFAULT_PATH "]" },
	{ "web.max-connections", 0, "N", O_MAXCONN,
	  "connections served at once; a quarter of them per client address [default: 64]" },
	{ "web.connection-timeout", 0, "DURATION", O_TIMEOUT,
	  "close a connection that sends nothing for this long [default: 10s]" },
	{ "device", 'd', "DEVICE", O_DEVICE,
	  "a device to export, as nfb-pcie-telemetry -d takes it; repeat it for more (each "
	  "gets its own `device` label) [default: the libnfb default device]" },
	{ "index", 'i', "INDEX", O_INDEX,
	  "component index of the -d before it; given before every -d, the index of each "
	  "device without one of its own [default: 0]" },
	{ "poll.interval", 0, "DURATION", O_POLL,
	  "how often each device is read; shortened to a quarter of the shortest counter "
	  "wrap time when that is shorter [default: 500ms]" },
	{ "help", 'h', NULL, O_HELP, "show this help and exit" },
	{ "version", 'V', NULL, O_VERSION, "show the version and exit" },
};

#define NOPTS (sizeof opts / sizeof opts[0])

void pt_serve_config_default(struct pt_serve_config *c)
{
	memset(c, 0, sizeof(*c));
	c->listen = PT_SERVE_DEFAULT_LISTEN;
	c->path = PT_SERVE_DEFAULT_PATH;
	c->max_connections = PT_SERVE_DEFAULT_CONNECTIONS;
	c->timeout = PT_SERVE_DEFAULT_TIMEOUT;
	c->poll_interval = PT_SERVE_DEFAULT_POLL;
}

/* text in lines of at most `width` columns, each indented by `indent`. */
static void wrap(FILE *out, const char *text, int indent, int width)
{
	while (*text) {
		int n = (int)strlen(text), cut = n;

		if (indent + n > width) {
			cut = width - indent;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = (int)strcspn(text, " ");
		}
		fprintf(out, "%*s%.*s\n", indent, "", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}

int pt_serve_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage: %s [OPTION]... [-d DEVICE [-i INDEX]]...\n"
		"Serves the PCIe telemetry (PCIE_TELEMETRY_MI) of NDK cards to Prometheus: a\n"
		"poller per device reads it in the background, a scrape renders the last poll.\n"
		"\n",
		prog);
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *o = &opts[i];
		char head[64];

		if (o->letter)
			snprintf(head, sizeof head, "-%c, --%s%s%s", o->letter, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(head, sizeof head, "    --%s=%s", o->name, o->arg);
		fprintf(out, "  %s\n", head);
		wrap(out, o->help, 8, 79);
	}
	fprintf(out, "\nDURATION: seconds, or a number with ms, s, m or h (500ms, 2s, 1m).\n"
		     "Devices: image:FILE, sim, sim:PRESET, sim:FILE, pci:..., mmap:FILE, or a\n"
		     "libnfb device (see nfb-pcie-telemetry --help).  Exit status: 0 after SIGINT\n"
		     "or SIGTERM, 1 when the server cannot start, 2 for a bad command line.\n");
	return ferror(out) ? -EIO : 0;
}

static int bad(char *msg, size_t msglen, const char *fmt, const char *a, const char *b)
{
	snprintf(msg, msglen, fmt, a, b);
	return -EINVAL;
}

/* A duration: seconds, or a number followed by ms, s, m or h. */
static int parse_duration(const char *s, double lo, double hi, double *out)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "m", 60 }, { "h", 3600 },
	};
	char *end;
	double v;

	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return -EINVAL;
	v = strtod(s, &end);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].unit) == 0) {
			v *= units[i].scale;
			if (!isfinite(v) || v < lo || v > hi)
				return -ERANGE;
			*out = v;
			return 0;
		}
	return -EINVAL;
}

static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

/* The label the device will have, to find the same device given twice. */
static bool same_device(const struct pt_serve_device *a, const struct pt_serve_device *b)
{
	const char *x = a->device ? a->device : "", *y = b->device ? b->device : "";

	return strcmp(x, y) == 0 && a->index == b->index;
}

/* State of a parse: -i before any -d is every device's default. */
struct parse {
	struct pt_serve_config *c;
	const struct opt *opt; /* the option being parsed */
	unsigned global_index;
	bool global_set;
	char *msg;
	size_t msglen;
};

static int set_index(struct parse *p, const char *v)
{
	unsigned long x;
	int rc = parse_uint(v, 0, 0xFFFF, &x);
	struct pt_serve_device *d = p->c->ndevices ? &p->c->devices[p->c->ndevices - 1] : NULL;

	if (rc < 0)
		return bad(p->msg, p->msglen,
			   rc == -ERANGE ? "-i '%s': index out of range (0 to 65535)%s"
					 : "-i '%s': not a valid index (expected a non-negative integer)%s",
			   v, "");
	if (d ? d->index_set : p->global_set)
		return bad(p->msg, p->msglen, "-i '%s': a second -i for %s", v,
			   d ? d->device : "the devices before the first -d");
	if (d) {
		d->index = (unsigned)x;
		d->index_set = true;
	} else {
		p->global_index = (unsigned)x;
		p->global_set = true;
	}
	return 0;
}

static int add_device(struct parse *p, const char *v)
{
	if (!*v)
		return bad(p->msg, p->msglen, "-d: empty device name%s%s", "", "");
	if (p->c->ndevices == PT_SERVE_MAX_DEVICES)
		return bad(p->msg, p->msglen, "-d '%s': more than %s devices", v, "32");
	p->c->devices[p->c->ndevices++] = (struct pt_serve_device){ v, 0, false };
	return 0;
}

static int duration(struct parse *p, const char *v, double lo, double hi, double *out,
		    const char *range)
{
	const struct opt *o = p->opt;

	if (parse_duration(v, lo, hi, out) == 0)
		return 0;
	snprintf(p->msg, p->msglen, "--%s '%s': expected a duration from %s", o->name, v, range);
	return -EINVAL;
}

static int set_value(struct parse *p, const struct opt *o, const char *v)
{
	struct pt_serve_config *c = p->c;
	struct pt_serve_addr a;
	unsigned long n;

	switch (o->id) {
	case O_LISTEN:
		c->listen = v;
		return pt_serve_addr_parse(v, &a, p->msg, p->msglen);
	case O_PATH:
		if (v[0] != '/' || v[1] == '\0' || strpbrk(v, " \t\r\n?#") || strlen(v) > 255)
			return bad(p->msg, p->msglen,
				   "--web.telemetry-path '%s': must start with '/', not be '/' "
				   "(the landing page), and hold no space, '?' or '#'%s",
				   v, "");
		c->path = v;
		return 0;
	case O_MAXCONN:
		if (parse_uint(v, 4, 4096, &n) < 0)
			return bad(p->msg, p->msglen,
				   "--web.max-connections '%s': expected a number from 4 to 4096%s", v, "");
		c->max_connections = (unsigned)n;
		return 0;
	case O_TIMEOUT:
		return duration(p, v, 1, 3600, &c->timeout, "1s to 1h");
	case O_POLL:
		return duration(p, v, 0.01, 3600, &c->poll_interval, "10ms to 1h");
	case O_DEVICE:
		return add_device(p, v);
	case O_INDEX:
		return set_index(p, v);
	default:
		return 0;
	}
}

static const struct opt *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
			return &opts[i];
	return NULL;
}

static const struct opt *find_short(char letter)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].letter && opts[i].letter == letter)
			return &opts[i];
	return NULL;
}

/* One argument (and the next, when it is the value): the number of
 * arguments used, or a negative errno.  *action is set by -h and -V. */
static int parse_one(struct parse *p, char *const *argv, int left, int *action)
{
	const char *a = argv[0], *eq, *v = NULL;
	const struct opt *o;
	char shortname[3] = "-?";

	if (a[1] == '-') {
		eq = strchr(a + 2, '=');
		o = find_long(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
		if (!o) {
			snprintf(p->msg, p->msglen, "unknown option '%.*s' (see --help)",
				 eq ? (int)(eq - a) : (int)strlen(a), a);
			return -EINVAL;
		}
		if (eq && !o->arg)
			return bad(p->msg, p->msglen, "option '--%s' takes no value ('%s')", o->name, a);
		v = eq ? eq + 1 : NULL;
	} else {
		o = find_short(a[1]);
		shortname[1] = a[1];
		if (!o)
			return bad(p->msg, p->msglen, "unknown option '%s' (see --help)%s", a, "");
		if (a[2] && !o->arg)
			return bad(p->msg, p->msglen, "option '%s' takes no value ('%s')", shortname, a);
		v = a[2] ? a + 2 : NULL;
	}
	if (o->id == O_HELP || o->id == O_VERSION) {
		*action = o->id == O_HELP ? PT_SERVE_HELP : PT_SERVE_VERSION;
		return 1;
	}
	if (!v && left < 2)
		return bad(p->msg, p->msglen, "option '%s' needs a value (%s)",
			   a[1] == '-' ? a : shortname, o->arg);
	p->opt = o;
	return set_value(p, o, v ? v : argv[1]) < 0 ? -EINVAL : v ? 1 : 2;
}

static int parse_args(int argc, char *const argv[], struct pt_serve_config *c, char *msg,
		      size_t msglen)
{
	struct parse p = { c, NULL, 0, false, msg, msglen };
	int action = PT_SERVE_RUN, i = 1;

	while (i < argc) {
		const char *a = argv[i];
		int used;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		used = parse_one(&p, argv + i, argc - i, &action);
		if (used < 0)
			return used;
		if (action != PT_SERVE_RUN) /* -h and -V act at once */
			return action;
		i += used;
	}
	if (i < argc)
		return bad(msg, msglen, "stray argument '%s' (see --help)%s", argv[i], "");
	for (unsigned k = 0; k < c->ndevices; k++) {
		if (!c->devices[k].index_set)
			c->devices[k].index = p.global_index;
		for (unsigned j = 0; j < k; j++)
			if (same_device(&c->devices[j], &c->devices[k]))
				return snprintf(msg, msglen, "-d '%s': given twice (index %u)",
						c->devices[k].device, c->devices[k].index),
				       -EINVAL;
	}
	if (c->ndevices == 0) /* the libnfb default device */
		c->devices[c->ndevices++] = (struct pt_serve_device){ NULL, p.global_index, true };
	return action;
}

int pt_serve_parse_args(int argc, char *const argv[], struct pt_serve_config *c, char *msg,
			size_t msglen)
{
	int rc = parse_args(argc, argv, c, msg, msglen);

	if (rc < 0)
		pt_util_oneline(msg, msglen); /* a value with a newline stays one line */
	return rc;
}
