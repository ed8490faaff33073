/*
 * pcie-telemetry: metrics as data (docs/metrics.md).
 *
 * Every derived figure (a share, a rate, a corrected count) is a metric:
 * a name, an expression over counters (docs/counters.md), layout values
 * and other metrics, a unit, a description and groups, written in a JSON
 * file in the style of perf's pmu-events (MetricName, MetricExpr,
 * BriefDescription, ScaleUnit, MetricGroup).  The built-in file
 * data/metrics/pcie-telemetry.json is compiled into the library; a user
 * adds files of his own.
 *
 * Three steps, three objects:
 *   1. definitions (struct pt_metric_defs): the built-in file plus user
 *      files, parsed and checked once; they know no layout;
 *   2. a set (struct pt_metric_set): the definitions bound to one layout.
 *      Placeholders such as {bus} expand into instances (ep0.rq.words_pct,
 *      ep0.rc.words_pct, ...), every name is resolved, every expression is
 *      compiled to a few bytecode words; a set does not change afterwards
 *      and does not refer to the definitions (free them at will);
 *   3. values (struct pt_metric_value[]): pt_metric_eval() fills one value
 *      per instance from a reading and its interval, without allocating
 *      (microseconds for every metric of a 16-endpoint layout).
 *
 * Numbers follow Python (so that a metric reproduces the upstream report
 * bit for bit): integers are exact (128 bits), a literal with '.' or an
 * exponent is a double, int op double converts the integer once (nearest
 * even), '/' is true division (int / int: the exact quotient rounded once).
 * A division by zero gives NaN and a note (pt_metric_note()).
 *
 * Pure functions of a layout, a reading and an interval; the only I/O is
 * reading a metric file.  Nothing prints.  Functions that can fail return
 * 0 (or a count or an index) or a negative errno with a one-line message
 * in the caller's buffer: "FILE:LINE: metric 'NAME': position N: ...".
 *
 * Prefix: pt_metric_.
 */
#ifndef PCIE_TELEMETRY_METRICS_H
#define PCIE_TELEMETRY_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/reading.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- limits (docs/metrics.md "Limits") ------------------------------ */

#define PT_METRIC_FILE_MAX (1u << 20)     /* bytes of one metric file */
#define PT_METRIC_DEFS_MAX 4096u          /* definitions, built-in ones included */
#define PT_METRIC_EXPR_MAX 4096u          /* characters of one MetricExpr */
#define PT_METRIC_DEPTH_MAX 64u           /* nesting of one expression */
#define PT_METRIC_TEXT_MAX 1024u          /* characters of a description, unit or group list */
#define PT_METRIC_NAME_LEN 128u           /* longest instance name, with its NUL */
#define PT_METRIC_INSTANCES_MAX (1u << 17) /* instances of one set */
#define PT_METRIC_CODE_MAX (1u << 22)     /* bytecode words of one set */
#define PT_METRIC_STACK_MAX 256u          /* evaluation stack of one expression */
#define PT_METRIC_MSG_LEN 512u            /* always enough for a message */

/* ---- definitions ---------------------------------------------------- */

struct pt_metric_defs;

/* Flags of pt_metric_defs_new(). */
enum {
	PT_METRIC_NO_BUILTIN = 1u << 0, /* start empty (tests, fuzzing) */
};

/*
 * New definitions holding the built-in ones (unless PT_METRIC_NO_BUILTIN).
 * 0, -ENOMEM, or -EINVAL when the built-in file is broken (a build that
 * passed its tests never is).  *out is NULL on failure.
 */
int pt_metric_defs_new(struct pt_metric_defs **out, unsigned flags, char *msg, size_t msglen);
/* NULL is allowed. */
void pt_metric_defs_free(struct pt_metric_defs *d);

/*
 * Add the definitions of a metric file (a regular file of at most
 * PT_METRIC_FILE_MAX bytes).  All or nothing: on any error nothing is
 * added.  Errors: -ENOENT, -EISDIR, ... (cannot open or read; "PATH: ..."),
 * -EFBIG (too large), -EINVAL (bad JSON, a missing or mistyped field, a
 * syntax error of an expression, a name defined twice; the message has
 * "PATH:LINE: "), -E2BIG (more than PT_METRIC_DEFS_MAX definitions),
 * -ENOMEM.  Names are resolved only by pt_metric_bind(), so a file may
 * refer to metrics of a file added later.
 */
int pt_metric_defs_add_file(struct pt_metric_defs *d, const char *path, char *msg, size_t msglen);
/* The same for text in memory (len bytes, no NUL needed); origin names it
 * in messages ("my.json"). */
int pt_metric_defs_add_json(struct pt_metric_defs *d, const char *text, size_t len,
			    const char *origin, char *msg, size_t msglen);

/* ---- sets: definitions bound to a layout ---------------------------- */

struct pt_metric_set;

/*
 * Bind the definitions to a layout: expand every template into its
 * instances, resolve every name (counter, layout value, metric), compile,
 * order the instances so that each comes after the metrics it uses.
 * Errors (-EINVAL unless said): a name that does not exist in this layout,
 * a placeholder used where it has no value, a cycle between metrics, an
 * instance name that is also a counter, a layout value or another
 * instance, min() or max() of nothing, an expression too deep for the
 * stack; -E2BIG beyond PT_METRIC_INSTANCES_MAX or PT_METRIC_CODE_MAX;
 * -ENOMEM.  *out is NULL on failure.  The set copies what it needs: d and
 * l may be freed afterwards.
 */
int pt_metric_bind(const struct pt_metric_defs *d, const struct pt_layout *l,
		   struct pt_metric_set **out, char *msg, size_t msglen);
/* The built-in definitions bound to l (pt_metric_defs_new + bind). */
int pt_metric_bind_builtin(const struct pt_layout *l, struct pt_metric_set **out, char *msg,
			   size_t msglen);
/* NULL is allowed. */
void pt_metric_set_free(struct pt_metric_set *s);
/* The layout the set was bound to (its copy). */
const struct pt_layout *pt_metric_layout(const struct pt_metric_set *s);

/* ---- instances ------------------------------------------------------ */

/* What an instance is about: the placeholder of its template's name. */
enum pt_metric_scope {
	PT_METRIC_GLOBAL,    /* no placeholder: one instance */
	PT_METRIC_EP,        /* {ep} */
	PT_METRIC_BUS,       /* {bus} {pcie_bus} {dma_bus} {up} {down} {padded_bus} */
	PT_METRIC_REGION,    /* {region} {padded} */
	PT_METRIC_BRAKE,     /* {brake} {up_brake} {down_brake} */
	PT_METRIC_HIST,      /* {hist} */
	PT_METRIC_BAND,      /* {band} */
	PT_METRIC_DMA_BRAKE, /* {dma_brake} */
	PT_METRIC_DMA_HIST,  /* {dma_hist} */
	PT_METRIC_DMA_BAND,  /* {dma_band} */
};

/* Where an instance belongs; -1 where it does not apply. */
struct pt_metric_where {
	int ep;   /* endpoint; -1 for a global metric */
	int bus;  /* bus b of the endpoint (pt_layout_bus_kind()); REGION and BUS */
	int item; /* region r (REGION), reason k (BRAKE, DMA_BRAKE), histogram h
		     (HIST, BAND, DMA_HIST, DMA_BAND) */
	int band; /* band b (BAND, DMA_BAND) */
};

struct pt_metric_info {
	const char *name;        /* "ep0.rq.words_pct" */
	const char *family;      /* MetricName as written: "{bus}.words_pct" */
	const char *unit;        /* ScaleUnit: "%", "Gbit/s", ... ("" when none) */
	const char *description; /* BriefDescription, one line */
	const char *groups;      /* MetricGroup: "bus;report" ("" when none) */
	const char *origin;      /* the file of its definition */
	unsigned line;           /* the line of its definition in that file */
	unsigned family_index;   /* 0 .. pt_metric_family_count() - 1 */
	int precision;           /* digits after the point for display (Precision) */
	enum pt_metric_scope scope;
	struct pt_metric_where where;
};

/* Instances: 0 .. count-1, grouped by family (in the order of the
 * definitions) and, inside a family, in layout order: endpoint, then bus
 * in report order, then region, reason or histogram, then band. */
unsigned pt_metric_count(const struct pt_metric_set *s);
/* NULL when i >= pt_metric_count(s). */
const struct pt_metric_info *pt_metric_info(const struct pt_metric_set *s, unsigned i);
/* The instance called name: its index, or -ENOENT. */
int pt_metric_find(const struct pt_metric_set *s, const char *name);

/* Families: one per definition, with its instances first .. first+count-1
 * (count is 0 when the layout has nothing to expand it over). */
struct pt_metric_family {
	const char *name;        /* MetricName: "{bus}.words_pct" */
	const char *expr;        /* MetricExpr as written */
	const char *unit, *description, *groups, *origin;
	unsigned line;
	int precision;
	unsigned first, count;
	enum pt_metric_scope scope;
};
unsigned pt_metric_family_count(const struct pt_metric_set *s);
/* NULL when f is out of range. */
const struct pt_metric_family *pt_metric_family_info(const struct pt_metric_set *s, unsigned f);
/* The family called name ("{bus}.words_pct"): its index, or -ENOENT. */
int pt_metric_family_find(const struct pt_metric_set *s, const char *name);
/* The instance of family f at w (every field of w compared, -1 included):
 * its index, or -ENOENT.  O(log count). */
int pt_metric_lookup(const struct pt_metric_set *s, unsigned f, const struct pt_metric_where *w);

/*
 * The instances a user names, as -M takes them: a comma-separated list of
 * instance names ("ep0.rq.words_pct"), family names ("{bus}.words_pct"),
 * group names ("report") and patterns over instance names ('*' as in
 * counter patterns: "ep*.down*.gbps").  Writes the indexes in set order,
 * each once (at most max; returns how many there are, also beyond max).
 * -EINVAL with "metric 'NAME': no such metric, family, group or matching
 * instance in this layout" for a word that selects nothing, or an empty
 * word.
 */
int pt_metric_select(const struct pt_metric_set *s, const char *list, unsigned *idx, unsigned max,
		     char *msg, size_t msglen);

/* ---- evaluation ----------------------------------------------------- */

/* A reading and its interval, as struct pt_report has them. */
struct pt_metric_input {
	/* Totals (interval == false) or the difference later - earlier with
	 * STATUS and the link registers of the later reading. */
	const struct pt_reading *reading;
	bool interval;
	double seconds; /* the interval's length; the layout value `seconds` is
			   NaN unless interval && seconds != 0.0 (as the report) */
};

/* One value.  An integer result is exact in i (and rounded once in f); a
 * double result is in f.  NaN prints as "-". */
struct pt_metric_value {
	double f;
	__int128 i;
	bool is_int;
	/* 0, or 1 + the node of the first division by zero met while
	 * evaluating this instance (pt_metric_note() says which). */
	uint32_t note;
};

/*
 * Evaluate every instance into out[0 .. pt_metric_count(s) - 1], in an
 * order where each metric comes after those it uses.  Does not allocate;
 * s is only read (several threads may evaluate one set into their own
 * arrays).  Returns how many instances got a note (divisions by zero), or
 * -EINVAL when the reading has fewer counters than the layout (or NULL
 * arguments).
 */
int pt_metric_eval(const struct pt_metric_set *s, const struct pt_metric_input *in,
		   struct pt_metric_value *out);

/*
 * The note of instance i with value v, one line:
 *   metric 'ep0.rq.words_pct': position 21: division by zero (ep0.rq.cycles is 0)
 * (the position of the '/', the divisor with the instance's names).
 * Returns 0, or -ENOENT when v has no note (buf then holds "").
 */
int pt_metric_note(const struct pt_metric_set *s, unsigned i, const struct pt_metric_value *v,
		   char *buf, size_t len);

/*
 * The value for display: "-" for NaN, an integer in exact decimal, a
 * double with the instance's precision ("%.*f"; "inf", "-inf").  Returns 0,
 * or -ERANGE when buf is too short (the text is cut).  64 bytes are enough
 * for every integer; a huge double with many digits needs up to 330.
 */
int pt_metric_format(const struct pt_metric_info *info, const struct pt_metric_value *v, char *buf,
		     size_t len);

/* ---- Python's numbers, for the renderers ---------------------------- */

/* v rounded once to the nearest double (ties to even). */
double pt_metric_u128_to_double(unsigned __int128 v);
/* The exact quotient num / den (den != 0) rounded once to a double. */
double pt_metric_div_exact(unsigned __int128 num, unsigned __int128 den);

#ifdef __cplusplus
}
#endif
#endif
