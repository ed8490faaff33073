/*
 * pcie-telemetry: scenarios of the simulated card.
 *
 * A scenario is an INI file (libinih).  Every key is described in one
 * table below and in docs/scenarios.md; the presets and the defaults
 * (presets.c) are scenario texts parsed by the same code.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "env/env_priv.h"
#include "env/need.h"
#include "util/pt_util.h"

/* What a scenario file may be (docs/scenarios.md): at most this many
 * bytes, and lines of at most this many characters, the line end (LF or
 * CR LF) not counted.  libinih's line buffer holds the longest line and
 * its NUL. */
#define SCENARIO_MAX_BYTES (1u << 20)
#define SCENARIO_MAX_LINE 199
_Static_assert(SCENARIO_MAX_LINE + 1 <= INI_MAX_LINE, "libinih must hold the longest line");


/* ---- the key table ----------------------------------------------------- */

enum ktype { K_UINT, K_U64, K_DOUBLE, K_BOOL, K_RATE, K_DIST, K_LAT, K_PCT, K_STR };
enum ksect { S_CARD, S_GEN, S_EP, S_DMA };

struct key {
	enum ksect sect;
	const char *name;
	enum ktype type;
	size_t off;
	double min, max;
	int pow2; /* the value must be a power of two */
};

#define G(f) offsetof(struct ptm_generics, f)
#define C(f) offsetof(struct pte_scenario, f)
#define E(f) offsetof(struct pte_ep_cfg, f)
#define P(f) offsetof(struct pte_port_cfg, f)

static const struct key keys[] = {
	{ S_CARD, "name", K_STR, C(name), 0, 0, 0 },
	{ S_CARD, "seed", K_U64, C(seed), 0, 1.8e19, 0 },
	{ S_CARD, "warmup_us", K_DOUBLE, C(warmup_us), 0, 1e6, 0 },
	{ S_CARD, "mmio_read_ns", K_DOUBLE, C(mmio_read_ns), 0, 1e5, 0 },
	{ S_CARD, "mmio_write_ns", K_DOUBLE, C(mmio_write_ns), 0, 1e5, 0 },
	{ S_CARD, "pcie_clock_mhz", K_DOUBLE, C(pcie_mhz), 1, 2000, 0 },
	{ S_CARD, "dma_clock_mhz", K_DOUBLE, C(dma_mhz), 1, 2000, 0 },
	{ S_CARD, "mi_clock_mhz", K_DOUBLE, C(mi_mhz), 1, 2000, 0 },
	{ S_GEN, "PCIE_ENDPOINTS", K_UINT, G(pcie_endpoints), 1, PTM_MAX_ENDPOINTS, 0 },
	{ S_GEN, "DMA_PORTS", K_UINT, G(dma_ports), 1, PTM_MAX_DMA_PORTS, 0 },
	{ S_GEN, "PCIE_RQ_MFB_REGIONS", K_UINT, G(pcie_rq_mfb_regions), 1, PTM_MAX_REGIONS, 0 },
	{ S_GEN, "PCIE_RC_MFB_REGIONS", K_UINT, G(pcie_rc_mfb_regions), 1, PTM_MAX_REGIONS, 0 },
	{ S_GEN, "DMA_UP_MFB_REGIONS", K_UINT, G(dma_up_mfb_regions), 1, PTM_MAX_REGIONS, 0 },
	{ S_GEN, "DMA_DOWN_MFB_REGIONS", K_UINT, G(dma_down_mfb_regions), 1, PTM_MAX_REGIONS, 0 },
	{ S_GEN, "PCIE_RQ_MFB_REGION_BYTES", K_UINT, G(pcie_rq_mfb_region_bytes), 1, 4096, 0 },
	{ S_GEN, "PCIE_RC_MFB_REGION_BYTES", K_UINT, G(pcie_rc_mfb_region_bytes), 1, 4096, 0 },
	{ S_GEN, "DMA_UP_MFB_REGION_BYTES", K_UINT, G(dma_up_mfb_region_bytes), 1, 4096, 0 },
	{ S_GEN, "DMA_DOWN_MFB_REGION_BYTES", K_UINT, G(dma_down_mfb_region_bytes), 1, 4096, 0 },
	{ S_GEN, "MFB_ITEM_BYTES", K_UINT, G(mfb_item_bytes), 1, 4096, 0 },
	{ S_GEN, "PCIE_EOF_POS_WIDTH", K_UINT, G(pcie_eof_pos_width), 0, 8, 0 },
	{ S_GEN, "DMA_EOF_POS_WIDTH", K_UINT, G(dma_eof_pos_width), 0, 8, 0 },
	{ S_GEN, "CNT_WIDTH", K_UINT, G(cnt_width), 33, 64, 0 },
	{ S_GEN, "DRAIN_PERIOD", K_UINT, G(drain_period), 1, 65536, 1 },
	{ S_GEN, "TAG_CAPACITY", K_UINT, G(tag_capacity), 1, 65535, 0 },
	{ S_GEN, "STFIFO_CAPACITY", K_UINT, G(stfifo_capacity), 1, 65535, 0 },
	{ S_EP, "link_gen", K_UINT, E(link_gen), 1, 5, 0 },
	{ S_EP, "link_width", K_UINT, E(link_width), 1, 32, 1 },
	{ S_EP, "link_up", K_BOOL, E(link_up), 0, 1, 0 },
	{ S_EP, "mps", K_UINT, E(mps), 128, 4096, 1 },
	{ S_EP, "mrrs", K_UINT, E(mrrs), 128, 4096, 1 },
	{ S_EP, "rcb", K_UINT, E(rcb), 64, 128, 1 },
	{ S_EP, "ext_tag", K_BOOL, E(ext_tag), 0, 1, 0 },
	{ S_EP, "tag_10bit", K_BOOL, E(tag10b), 0, 1, 0 },
	{ S_EP, "tags", K_UINT, E(tags), 0, 2047, 0 },
	{ S_EP, "cpl_headers", K_UINT, E(cpl_headers), 0, 65535, 0 },
	{ S_EP, "tag_ready_delay", K_UINT, E(tag_ready_delay), 0, 1000, 0 },
	{ S_EP, "host_latency_ns", K_DOUBLE, E(latency_ns), 10, 1e6, 0 },
	{ S_EP, "host_latency_jitter_ns", K_DOUBLE, E(jitter_ns), 0, 1e6, 0 },
	{ S_EP, "host_latency_dist", K_LAT, E(lat_kind), 0, 0, 0 },
	{ S_EP, "host_cpl_bytes", K_UINT, E(host_cpl_bytes), 0, 4096, 0 },
	{ S_EP, "dllp_overhead_pct", K_PCT, E(dllp_overhead), 0, 50, 0 },
	{ S_EP, "tx_buffer_bytes", K_UINT, E(tx_buffer_bytes), 256, 1 << 20, 0 },
	{ S_EP, "ptc_read_group", K_UINT, E(ptc_read_group), 1, 64, 0 },
	{ S_EP, "ptc_requests", K_UINT, E(ptc_requests), 1, 4096, 0 },
	{ S_EP, "ptc_data_bytes", K_UINT, E(ptc_data_bytes), 4096, 1 << 20, 0 },
	{ S_EP, "down_fifo_words", K_UINT, E(down_fifo_words), 8, 65536, 0 },
	{ S_EP, "down_fifo_headers", K_UINT, E(down_fifo_headers), 2, 65536, 0 },
	{ S_DMA, "read_gbps", K_RATE, P(read_gbps), 0, 10000, 0 },
	{ S_DMA, "write_gbps", K_RATE, P(write_gbps), 0, 10000, 0 },
	{ S_DMA, "read_size", K_DIST, P(read_size), 1, 65536, 0 },
	{ S_DMA, "write_size", K_DIST, P(write_size), 1, 65536, 0 },
	{ S_DMA, "align", K_UINT, P(align), 4, 4096, 1 },
	{ S_DMA, "down_ready_pct", K_PCT, P(down_ready), 1, 100, 0 },
	{ S_DMA, "down_hdr_ready_pct", K_PCT, P(down_hdr_ready), 1, 100, 0 },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* ---- value parsers ------------------------------------------------------ */

/* 1 when a number's text ended at `end` (nothing but white space after
 * it, and something before it), with no range error. */
static int number_ends(const char *v, const char *end)
{
	if (end == v || errno)
		return 0;
	while (isspace((unsigned char)*end))
		end++;
	return !*end;
}

static int parse_double(const char *v, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (!number_ends(v, end) || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

static int parse_u64(const char *v, uint64_t *out)
{
	char *end;
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (!number_ends(v, end))
		return -1;
	*out = x;
	return 0;
}

static int parse_bool(const char *v, unsigned *out)
{
	static const char *yes[] = { "1", "yes", "on", "true" }, *no[] = { "0", "no", "off", "false" };
	for (unsigned i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* "1500", "64,1500", "64:7,576:4,1500:1" or "64-1500" (16 steps). */
static int parse_dist(const char *v, struct pte_dist *d, double min, double max, char *why,
		      size_t wl)
{
	struct pte_dist t;
	memset(&t, 0, sizeof(t));
	const char *dash = strchr(v, '-');
	if (dash && !strchr(v, ',') && !strchr(v, ':')) {
		char a[32];
		size_t n = (size_t)(dash - v);
		uint64_t lo, hi;
		if (n >= sizeof(a))
			goto bad;
		memcpy(a, v, n);
		a[n] = 0;
		while (n && isspace((unsigned char)a[n - 1]))
			a[--n] = 0;
		const char *b = dash + 1;
		while (isspace((unsigned char)*b))
			b++;
		if (parse_u64(a, &lo) || parse_u64(b, &hi) || lo > hi)
			goto bad;
		if ((double)lo < min || (double)hi > max) {
			snprintf(why, wl, "sizes must be %.0f to %.0f bytes", min, max);
			return -1;
		}
		unsigned steps = hi - lo + 1 < PTE_DIST_MAX ? (unsigned)(hi - lo + 1) : PTE_DIST_MAX;
		for (unsigned i = 0; i < steps; i++) {
			t.size[i] = (uint32_t)(lo + (steps > 1 ? (hi - lo) * i / (steps - 1) : 0));
			t.weight[i] = 1.0;
		}
		t.n = steps;
	} else {
		char buf[256];
		snprintf(buf, sizeof(buf), "%s", v);
		char *save = NULL;
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			while (isspace((unsigned char)*tok))
				tok++;
			if (t.n >= PTE_DIST_MAX) {
				snprintf(why, wl, "at most %d sizes", PTE_DIST_MAX);
				return -1;
			}
			char *colon = strchr(tok, ':');
			double w = 1.0;
			uint64_t sz;
			if (colon) {
				*colon = 0;
				if (parse_double(colon + 1, &w) || !(w > 0))
					goto bad;
			}
			size_t n = strlen(tok);
			while (n && isspace((unsigned char)tok[n - 1]))
				tok[--n] = 0;
			if (parse_u64(tok, &sz))
				goto bad;
			if ((double)sz < min || (double)sz > max) {
				snprintf(why, wl, "sizes must be %.0f to %.0f bytes", min, max);
				return -1;
			}
			t.size[t.n] = (uint32_t)sz;
			t.weight[t.n] = w;
			t.n++;
		}
		if (t.n == 0)
			goto bad;
	}
	double sum = 0;
	for (unsigned i = 0; i < t.n; i++)
		sum += t.weight[i];
	for (unsigned i = 0; i < t.n; i++)
		t.weight[i] /= sum;
	*d = t;
	return 0;
bad:
	snprintf(why, wl, "expected SIZE, SIZE:WEIGHT,... or MIN-MAX (bytes)");
	return -1;
}

/* ---- INI handler ---------------------------------------------------------- */

struct ctx {
	struct pte_scenario *s;
	const char *origin;
	const char *text; /* string being parsed */
	size_t pos;
	int line;
	int err;          /* first error seen */
	char *msg;
	size_t msglen;
	int depth;        /* base = PRESET nesting */
	/* where each key of each endpoint was last set, for later checks */
	int ep_line[PTM_MAX_ENDPOINTS][NKEYS];
	int gen_line[NKEYS];
	int max_ep_line, max_ep;  /* highest endpoint named by a section */
	int max_port_line, max_port;
};

static char *reader(char *str, int num, void *stream)
{
	struct ctx *c = stream;
	const char *t = c->text + c->pos;
	if (!*t)
		return NULL;
	size_t full = strcspn(t, "\n"), n = full;
	if (n > 0 && t[n - 1] == '\r')
		n--;
	c->pos += full + (t[full] == '\n');
	c->line++;
	/* leading blanks are dropped so that an indented line is never taken
	 * for a continuation of the previous value */
	size_t lead = strspn(t, " \t");
	lead = lead < n ? lead : n;
	if (n > SCENARIO_MAX_LINE || n - lead + 1 > (size_t)num) {
		if (!c->err) {
			snprintf(c->msg, c->msglen, "%s:%d: line longer than %d characters",
				 c->origin, c->line, SCENARIO_MAX_LINE);
			c->err = -EINVAL;
		}
		str[0] = 0;
	} else {
		memcpy(str, t + lead, n - lead);
		str[n - lead] = 0;
	}
	return str;
}

__attribute__((format(printf, 2, 3))) static int fail(struct ctx *c, const char *fmt, ...)
{
	if (!c->err) {
		char tmp[400];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(tmp, sizeof(tmp), fmt, ap);
		va_end(ap);
		snprintf(c->msg, c->msglen, "%s:%d: %s", c->origin, c->line, tmp);
		c->err = -EINVAL;
	}
	return 0;
}

static int set_value(struct ctx *c, const struct key *k, void *base, const char *v, char *why,
		     size_t wl)
{
	char *f = (char *)base + k->off;
	switch (k->type) {
	case K_STR:
		snprintf(f, 64, "%s", v);
		return 0;
	case K_UINT:
	case K_U64: {
		uint64_t x;
		if (parse_u64(v, &x)) {
			snprintf(why, wl, "expected a whole number");
			return -1;
		}
		if ((double)x < k->min || (double)x > k->max) {
			snprintf(why, wl, "must be %.0f to %.0f", k->min, k->max);
			return -1;
		}
		if (k->pow2 && (x & (x - 1))) {
			snprintf(why, wl, "must be a power of two from %.0f to %.0f", k->min,
				 k->max);
			return -1;
		}
		if (k->type == K_UINT)
			*(unsigned *)(void *)f = (unsigned)x;
		else
			*(uint64_t *)(void *)f = x;
		return 0;
	}
	case K_DOUBLE:
	case K_PCT: {
		double d;
		if (parse_double(v, &d)) {
			snprintf(why, wl, "expected a number");
			return -1;
		}
		if (d < k->min || d > k->max) {
			snprintf(why, wl, "must be %g to %g", k->min, k->max);
			return -1;
		}
		*(double *)(void *)f = k->type == K_PCT ? d / 100.0 : d;
		return 0;
	}
	case K_RATE: {
		double d;
		if (strcasecmp(v, "max") == 0) {
			*(double *)(void *)f = -1.0;
			return 0;
		}
		if (parse_double(v, &d) || d < 0 || d > k->max) {
			snprintf(why, wl, "expected Gbit/s from 0 to %g, or max", k->max);
			return -1;
		}
		*(double *)(void *)f = d;
		return 0;
	}
	case K_BOOL: {
		unsigned b;
		if (parse_bool(v, &b)) {
			snprintf(why, wl, "expected yes or no");
			return -1;
		}
		*(unsigned *)(void *)f = b;
		return 0;
	}
	case K_DIST:
		return parse_dist(v, (struct pte_dist *)(void *)f, k->min, k->max, why, wl);
	case K_LAT: {
		enum pte_lat_kind *lk = (enum pte_lat_kind *)(void *)f;
		if (strcasecmp(v, "fixed") == 0)
			*lk = PTE_LAT_FIXED;
		else if (strcasecmp(v, "uniform") == 0)
			*lk = PTE_LAT_UNIFORM;
		else if (strcasecmp(v, "exponential") == 0)
			*lk = PTE_LAT_EXP;
		else {
			snprintf(why, wl, "expected fixed, uniform or exponential");
			return -1;
		}
		return 0;
	}
	}
	(void)c;
	return -1;
}

static int parse_into(const char *text, const char *origin, struct ctx *parent,
		      struct pte_scenario *s, char *msg, size_t msglen);

/* Section name -> kind and the endpoint/port it selects (-1 = all). */
static int section_of(const char *sec, enum ksect *ks, int *ep, int *port)
{
	char word[32];
	int a = -1, b = -1, n = 0;
	*ep = -1;
	*port = -1;
	if (sscanf(sec, "%31s%n", word, &n) != 1)
		return -1;
	const char *rest = sec + n;
	while (isspace((unsigned char)*rest))
		rest++;
	if (strcasecmp(word, "card") == 0 || strcasecmp(word, "generics") == 0) {
		if (*rest)
			return -1;
		*ks = strcasecmp(word, "card") == 0 ? S_CARD : S_GEN;
		return 0;
	}
	if (strcasecmp(word, "endpoint") == 0) {
		*ks = S_EP;
		if (!*rest)
			return 0;
		char tail;
		if (sscanf(rest, "%d%c", &a, &tail) != 1 || a < 0 || a >= PTM_MAX_ENDPOINTS)
			return -1;
		*ep = a;
		return 0;
	}
	if (strcasecmp(word, "dma") == 0) {
		*ks = S_DMA;
		if (!*rest)
			return 0;
		char tail;
		if (sscanf(rest, "%d.%d%c", &a, &b, &tail) == 2) {
			if (a < 0 || a >= PTM_MAX_ENDPOINTS || b < 0 || b >= PTM_MAX_DMA_PORTS)
				return -1;
			*ep = a;
			*port = b;
			return 0;
		}
		if (sscanf(rest, "%d%c", &b, &tail) != 1 || b < 0 || b >= PTM_MAX_DMA_PORTS)
			return -1;
		*port = b;
		return 0;
	}
	return -1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct ctx *c = user;
	struct pte_scenario *s = c->s;
	enum ksect ks;
	int ep, port;
	char why[160];

	if (c->err)
		return 1; /* report only the first error */
	if (!*section)
		return fail(c, "key '%s' outside of any section", name);
	if (section_of(section, &ks, &ep, &port))
		return fail(c, "unknown section [%s] (expected [card], [generics], [endpoint], "
			       "[endpoint N], [dma], [dma P] or [dma E.P])",
			    section);
	if (ks == S_CARD && strcasecmp(name, "base") == 0) {
		const char *t = pte_preset_text(value);
		if (!t)
			return fail(c, "[card] base: unknown preset '%s'", value);
		if (c->depth > 2)
			return fail(c, "[card] base: presets nest too deep");
		char origin[80];
		snprintf(origin, sizeof(origin), "preset %s", value);
		int rc = parse_into(t, origin, c, s, c->msg, c->msglen);
		if (rc)
			c->err = rc;
		return 1;
	}
	const struct key *k = NULL;
	size_t ki = 0;
	for (ki = 0; ki < NKEYS; ki++)
		if (keys[ki].sect == ks && strcasecmp(keys[ki].name, name) == 0) {
			k = &keys[ki];
			break;
		}
	if (!k)
		return fail(c, "[%s]: unknown key '%s'", section, name);
	why[0] = 0;
	if (ks == S_CARD) {
		if (set_value(c, k, s, value, why, sizeof(why)))
			return fail(c, "[card] %s = %s: %s", name, value, why);
		return 1;
	}
	if (ks == S_GEN) {
		if (set_value(c, k, &s->g, value, why, sizeof(why)))
			return fail(c, "[generics] %s = %s: %s", k->name, value, why);
		c->gen_line[ki] = c->line;
		if (c->depth == 0)
			s->line_gen[ki] = (uint16_t)c->line;
		return 1;
	}
	for (int e = 0; e < PTM_MAX_ENDPOINTS; e++) {
		if (ep >= 0 && e != ep)
			continue;
		if (ks == S_EP) {
			if (set_value(c, k, &s->ep[e], value, why, sizeof(why)))
				return fail(c, "[%s] %s = %s: %s", section, name, value, why);
			c->ep_line[e][ki] = c->line;
			if (c->depth == 0)
				s->line_ep[e][ki] = (uint16_t)c->line;
			continue;
		}
		for (int p = 0; p < PTM_MAX_DMA_PORTS; p++) {
			if (port >= 0 && p != port)
				continue;
			if (set_value(c, k, &s->ep[e].port[p], value, why, sizeof(why)))
				return fail(c, "[%s] %s = %s: %s", section, name, value, why);
		}
	}
	if (ep > c->max_ep) {
		c->max_ep = ep;
		c->max_ep_line = c->line;
	}
	if (port > c->max_port) {
		c->max_port = port;
		c->max_port_line = c->line;
	}
	return 1;
}

static int parse_into(const char *text, const char *origin, struct ctx *parent,
		      struct pte_scenario *s, char *msg, size_t msglen)
{
	struct ctx *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(msg, msglen, "%s: out of memory", origin);
		return -ENOMEM;
	}
	c->s = s;
	c->origin = origin;
	c->text = text;
	c->msg = msg;
	c->msglen = msglen;
	c->max_ep = c->max_port = -1;
	c->depth = parent ? parent->depth + 1 : 0;
	if (!parent)
		snprintf(s->origin, sizeof(s->origin), "%s", origin);
	int rc = ini_parse_stream(reader, c, handler, c);
	int err = c->err;
	if (!err && rc > 0) {
		snprintf(msg, msglen, "%s:%d: syntax error (expected [section] or key = value)",
			 origin, rc);
		err = -EINVAL;
	} else if (!err && rc < 0) {
		snprintf(msg, msglen, "%s: cannot parse: %s", origin, strerror(ENOMEM));
		err = -ENOMEM;
	}
	if (!err && parent == NULL) {
		if (c->max_ep >= (int)s->g.pcie_endpoints) {
			snprintf(msg, msglen,
				 "%s:%d: endpoint %d does not exist (PCIE_ENDPOINTS = %u)", origin,
				 c->max_ep_line, c->max_ep, s->g.pcie_endpoints);
			err = -EINVAL;
		} else if (c->max_port >= (int)s->g.dma_ports) {
			snprintf(msg, msglen, "%s:%d: DMA port %d does not exist (DMA_PORTS = %u)",
				 origin, c->max_port_line, c->max_port, s->g.dma_ports);
			err = -EINVAL;
		}
	}
	free(c);
	return err;
}

int pte_scenario_parse_text(const char *text, const char *origin, struct pte_scenario *s,
			    char *msg, size_t msglen)
{
	return parse_into(text, origin, NULL, s, msg, msglen);
}


static int key_index(enum ksect sect, const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].sect == sect && strcmp(keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* "FILE:LINE: " for line l of the file, or "NAME: " for line 0 (not set
 * in a file). */
static void at_line(const struct pte_scenario *s, unsigned l, char *out, size_t len)
{
	if (l)
		snprintf(out, len, "%s:%u: ", s->origin, l);
	else
		snprintf(out, len, "%s: ", s->origin[0] ? s->origin : s->name);
}

/* at_line of the latest of up to two endpoint keys set in the file. */
static void where(const struct pte_scenario *s, unsigned e, const char *k1, const char *k2,
		  char *out, size_t len)
{
	int i1 = key_index(S_EP, k1), i2 = k2 ? key_index(S_EP, k2) : -1;
	unsigned l1 = i1 >= 0 ? s->line_ep[e][i1] : 0, l2 = i2 >= 0 ? s->line_ep[e][i2] : 0;
	at_line(s, l1 > l2 ? l1 : l2, out, len);
}

/* at_line of a generic. */
static void where_gen(const struct pte_scenario *s, const char *k, char *out, size_t len)
{
	int i = key_index(S_GEN, k);
	at_line(s, i >= 0 ? s->line_gen[i] : 0, out, len);
}

/* Every request of endpoint e can go out: no write its ports send is
 * larger than the PTC's data buffer, no read TLP needs more completion
 * header entries than cpl_headers or more storage FIFO words than
 * STFIFO_CAPACITY (the PTC would wait for them for ever).  0, or -EINVAL
 * with the message. */
static int requests_fit(const struct pte_scenario *s, unsigned e, char *msg, size_t msglen)
{
	const struct pte_ep_cfg *c = &s->ep[e];
	const struct ptm_generics *g = &s->g;
	const struct pte_read_geom rg = { c->mrrs, c->rcb, c->host_cpl_bytes ? c->host_cpl_bytes : c->mps,
					  g->pcie_rc_mfb_regions * g->pcie_rc_mfb_region_bytes };
	uint32_t h = 0, w = 0, wr = 0;
	char pre[256];

	for (unsigned p = 0; p < g->dma_ports; p++) {
		const struct pte_port_cfg *pc = &c->port[p];
		pte_read_need_max(&rg, pc, &h, &w);
		for (unsigned i = 0; i < pc->write_size.n && pc->write_gbps != 0; i++)
			if (pc->write_size.weight[i] > 0 && pc->write_size.size[i] > wr)
				wr = pc->write_size.size[i];
	}
	if (wr > c->ptc_data_bytes) {
		where(s, e, "ptc_data_bytes", NULL, pre, sizeof(pre));
		snprintf(msg, msglen,
			 "%s[endpoint %u] ptc_data_bytes %u: a write of %u bytes does not fit in it, "
			 "so it could never go out",
			 pre, e, c->ptc_data_bytes, wr);
		return -EINVAL;
	}
	if (c->cpl_headers && h > c->cpl_headers) {
		where(s, e, "cpl_headers", NULL, pre, sizeof(pre));
		snprintf(msg, msglen,
			 "%s[endpoint %u] cpl_headers %u: one read TLP may need %u entries "
			 "(mrrs %u, rcb %u, the ports' read sizes and align), so no read could go out",
			 pre, e, c->cpl_headers, h, c->mrrs, c->rcb);
		return -EINVAL;
	}
	if (w > g->stfifo_capacity) {
		where_gen(s, "STFIFO_CAPACITY", pre, sizeof(pre));
		snprintf(msg, msglen,
			 "%sSTFIFO_CAPACITY %u: one read TLP of endpoint %u may need %u words of %u bytes "
			 "(mrrs %u), so no read could go out",
			 pre, g->stfifo_capacity, e, w, rg.word_bytes, c->mrrs);
		return -EINVAL;
	}
	return 0;
}

int pte_scenario_check(const struct pte_scenario *s, char *msg, size_t msglen)
{
	const struct ptm_generics *g = &s->g;
	char pre[256];
	uint32_t which;
	int rc = ptm_generics_check_which(g, &which, msg, msglen);
	if (rc) {
		/* name the line of the generic the model complains about (the
		 * latest one set, when the rule is about several) */
		char tmp[512];
		unsigned best = 0;
		for (size_t i = 0; i < NKEYS; i++)
			if (keys[i].sect == S_GEN && (which >> (keys[i].off / sizeof(unsigned)) & 1u) &&
			    s->line_gen[i] > best)
				best = s->line_gen[i];
		snprintf(tmp, sizeof(tmp), "%s", msg);
		at_line(s, best, pre, sizeof(pre));
		snprintf(msg, msglen, "%s%s", pre, tmp);
		return rc;
	}
	const char *gbad = NULL;
	unsigned pi = (g->pcie_rq_mfb_region_bytes > g->pcie_rc_mfb_region_bytes
			       ? g->pcie_rq_mfb_region_bytes
			       : g->pcie_rc_mfb_region_bytes) / g->mfb_item_bytes;
	unsigned di = (g->dma_up_mfb_region_bytes > g->dma_down_mfb_region_bytes
			       ? g->dma_up_mfb_region_bytes
			       : g->dma_down_mfb_region_bytes) / g->mfb_item_bytes;
	if (g->pcie_rq_mfb_region_bytes % g->mfb_item_bytes ||
	    g->pcie_rc_mfb_region_bytes % g->mfb_item_bytes ||
	    g->dma_up_mfb_region_bytes % g->mfb_item_bytes ||
	    g->dma_down_mfb_region_bytes % g->mfb_item_bytes)
		gbad = "the *_MFB_REGION_BYTES generics must be multiples of MFB_ITEM_BYTES";
	else if (pi > 256 || di > 256 || (1u << g->pcie_eof_pos_width) < pi ||
		 (1u << g->dma_eof_pos_width) < di)
		gbad = "PCIE_EOF_POS_WIDTH/DMA_EOF_POS_WIDTH too narrow for the items of a region";
	else if (g->pcie_rq_mfb_region_bytes < 16 || g->pcie_rc_mfb_region_bytes < 16)
		gbad = "PCIE_RQ/RC_MFB_REGION_BYTES must hold a 16-byte TLP header";
	else if (!(s->pcie_mhz > 0 && s->dma_mhz > 0 && s->mi_mhz > 0))
		gbad = "clock frequencies must be positive";
	if (gbad) {
		at_line(s, 0, pre, sizeof(pre));
		snprintf(msg, msglen, "%s%s", pre, gbad);
		return -EINVAL;
	}
	for (unsigned e = 0; e < g->pcie_endpoints; e++) {
		const struct pte_ep_cfg *c = &s->ep[e];
		if (c->host_cpl_bytes && (c->host_cpl_bytes % c->rcb || c->host_cpl_bytes > c->mps)) {
			where(s, e, "host_cpl_bytes", "mps", pre, sizeof(pre));
			snprintf(msg, msglen,
				 "%s[endpoint %u] host_cpl_bytes %u must be a multiple of rcb (%u) "
				 "and at most mps (%u)",
				 pre, e, c->host_cpl_bytes, c->rcb, c->mps);
			return -EINVAL;
		}
		if ((rc = requests_fit(s, e, msg, msglen)))
			return rc;
		if (c->jitter_ns > c->latency_ns) {
			where(s, e, "host_latency_jitter_ns", "host_latency_ns", pre, sizeof(pre));
			snprintf(msg, msglen,
				 "%s[endpoint %u] host_latency_jitter_ns %g exceeds host_latency_ns %g",
				 pre, e, c->jitter_ns, c->latency_ns);
			return -EINVAL;
		}
	}
	return 0;
}

static int load(const char *spec, struct pte_scenario *s, char *msg, size_t msglen);

int pte_scenario_load(const char *spec, struct pte_scenario *s, char *msg, size_t msglen)
{
	return pte_scenario_load_ex(spec, NULL, 0, NULL, s, msg, msglen);
}

int pte_scenario_load_ex(const char *spec, const char *const *ov, size_t n, int *which,
			 struct pte_scenario *s, char *msg, size_t msglen)
{
	int rc = load(spec, s, msg, msglen);
	/* does the spec pass alone?  then a failed check is the overrides' */
	bool alone = rc == 0 && n && pte_scenario_check(s, msg, msglen) == 0;

	if (which)
		*which = -1;
	if (rc == 0)
		rc = pte_scenario_override(s, ov, n, which, msg, msglen);
	if (rc == 0 && (rc = pte_scenario_check(s, msg, msglen)) < 0 && alone) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s", msg);
		snprintf(msg, msglen, "override '%s': %s", ov[n - 1], tmp);
		if (which)
			*which = (int)n - 1;
	}
	if (rc < 0) /* names and values from the file may hold control characters */
		pt_util_oneline(msg, msglen);
	return rc;
}

/* The default scenario, then the preset or the file (not checked). */
static int load(const char *spec, struct pte_scenario *s, char *msg, size_t msglen)
{
	int rc;
	pte_scenario_default(s);
	rc = pte_scenario_parse_text(pte_scenario_default_text(), "default scenario", s, msg,
				     msglen);
	if (rc)
		return rc;
	if (!spec || !*spec) {
		snprintf(s->name, sizeof(s->name), "sim");
	} else if (pte_preset_text(spec)) {
		char origin[80];
		snprintf(origin, sizeof(origin), "preset %s", spec);
		rc = pte_scenario_parse_text(pte_preset_text(spec), origin, s, msg, msglen);
		if (rc)
			return rc;
	} else {
		char *buf;
		size_t len;
		rc = pt_util_read_file(spec, "scenario file", SCENARIO_MAX_BYTES, &buf, &len, msg,
				       msglen);
		if (rc == -ENOENT && !strchr(spec, '/') && !strchr(spec, '.')) {
			/* a word that is no file was meant as a preset */
			char list[512];
			pte_preset_list(list, sizeof(list));
			snprintf(msg, msglen, "sim:%s: no such preset or scenario file (presets: %s)",
				 spec, list);
		}
		if (rc < 0)
			return rc;
		if (memchr(buf, 0, len)) {
			free(buf);
			snprintf(msg, msglen, "%s: not a text file", spec);
			return -EINVAL;
		}
		const char *base = strrchr(spec, '/');
		snprintf(s->name, sizeof(s->name), "%s", base ? base + 1 : spec);
		rc = pte_scenario_parse_text(buf, spec, s, msg, msglen);
		free(buf);
		if (rc)
			return rc;
	}
	return 0;
}
