/*
 * nfb-pcie-telemetry: --sweep SECTION.KEY=V1,V2,... with -d sim[:...]:
 * the simulated card opened once per value with the key set on top of its
 * scenario, each measured over -t, printed as one column per value
 * (render.h, pt_render_sweep_*).  Every card is opened before the first is
 * measured, so a bad key or value fails at once, with nothing printed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/sim.h"

#define SWEEP_MAX 64 /* values of one sweep */

struct run {
	char *override; /* "SECTION.KEY=VALUE" */
	struct pt_bus *bus;
	struct pt_dev dev;
	struct pt_reading first, second, diff;
};

struct sweep {
	char *text; /* a copy of the argument, cut into its parts */
	const char *key;
	const char *values[SWEEP_MAX];
	unsigned n;
	struct run run[SWEEP_MAX];
	struct pt_report rep[SWEEP_MAX];
};

/* The simulated card's spec of -d ("" for plain sim), or NULL. */
static const char *sim_spec(const char *device)
{
	if (device && strcmp(device, "sim") == 0)
		return "";
	if (device && strncmp(device, "sim:", 4) == 0)
		return device + 4;
	return NULL;
}

/* KEY=V1,V2,...: the key and the values; usage errors name the argument. */
static int split(struct sweep *w, const char *arg, struct cli_error *e)
{
	char *eq, *v, *save = NULL;

	w->text = strdup(arg);
	if (!w->text)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	eq = strchr(w->text, '='); /* there is one (take_sweep) */
	*eq = '\0';
	w->key = w->text;
	if (!strchr(w->key, '.') || w->key[0] == '.' || w->key[strlen(w->key) - 1] == '.')
		return cli_fail(e, CLI_EXIT_USAGE,
				"--sweep '%s': the key is SECTION.KEY of a scenario file (for "
				"example endpoint.mrrs, dma.read_gbps, generics.DMA_PORTS)",
				arg);
	if (eq[1] == ',' || strstr(eq + 1, ",,") || eq[strlen(eq + 1)] == ',')
		return cli_fail(e, CLI_EXIT_USAGE, "--sweep '%s': an empty value", arg);
	for (v = strtok_r(eq + 1, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if (w->n == SWEEP_MAX)
			return cli_fail(e, CLI_EXIT_USAGE, "--sweep '%s': more than %d values", arg,
					SWEEP_MAX);
		w->values[w->n++] = v;
	}
	return 0;
}

/* Open the card of every value (the override's errors are usage errors). */
static int open_all(struct sweep *w, const char *spec, struct cli_error *e)
{
	char msg[CLI_MSG_LEN];

	for (unsigned i = 0; i < w->n; i++) {
		struct run *r = &w->run[i];
		size_t len = strlen(w->key) + strlen(w->values[i]) + 2;
		int which = -1;

		r->override = malloc(len);
		if (!r->override)
			return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
		snprintf(r->override, len, "%s=%s", w->key, w->values[i]);
		if (pt_bus_open_sim_ex(spec, (const char *const *)&r->override, 1, &r->bus, &which,
				       msg, sizeof(msg)) < 0)
			return cli_fail(e, which >= 0 ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME, "--sweep: %s",
					msg);
		if (pt_dev_init(&r->dev, r->bus, msg, sizeof(msg)) < 0)
			return cli_fail(e, CLI_EXIT_RUNTIME, "%s", msg);
		if (pt_reading_init(&r->first, r->dev.layout.entries) < 0 ||
		    pt_reading_init(&r->second, r->dev.layout.entries) < 0 ||
		    pt_reading_init(&r->diff, r->dev.layout.entries) < 0)
			return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	}
	return 0;
}

static int measure_all(struct sweep *w, double interval, struct cli_error *e)
{
	char msg[CLI_MSG_LEN];

	for (unsigned i = 0; i < w->n; i++) {
		struct run *r = &w->run[i];

		if (pt_dev_measure(&r->dev, interval, &r->first, &r->second, msg, sizeof(msg)) < 0)
			return cli_fail(e, CLI_EXIT_RUNTIME, "%s",
					pt_bus_stop_requested()
						? "interrupted before the sweep was complete"
						: msg);
		w->rep[i] = (struct pt_report){ .layout = &r->dev.layout, .reading = &r->second };
		if (interval > 0) {
			pt_reading_diff(&r->dev.layout, &r->first, &r->second, &r->diff);
			w->rep[i].reading = &r->diff;
			w->rep[i].interval = true;
			w->rep[i].seconds = r->second.time - r->first.time;
		}
	}
	return 0;
}

static int render(FILE *m, const void *arg, bool json)
{
	return json ? pt_render_sweep_json(m, arg) : pt_render_sweep_text(m, arg);
}

static int print(const struct cli_args *a, struct sweep *w, FILE *out, struct cli_error *e)
{
	struct pt_sweep s = { w->key, a->device, w->n, w->values, w->rep };

	return cli_render_whole(out, render, &s, a->json, "the sweep", e);
}

static void sweep_free(struct sweep *w)
{
	for (unsigned i = 0; i < w->n; i++) {
		pt_reading_free(&w->run[i].first);
		pt_reading_free(&w->run[i].second);
		pt_reading_free(&w->run[i].diff);
		pt_bus_close(w->run[i].bus);
		free(w->run[i].override);
	}
	free(w->text);
	free(w);
}

int cli_sweep_run(const struct cli_args *a, FILE *out, struct cli_error *e)
{
	const char *spec = sim_spec(a->device);
	struct sweep *w;
	int rc;

	if (!spec) {
		cli_fail(e, CLI_EXIT_USAGE,
			 "--sweep: needs a simulated card (-d sim, sim:PRESET or sim:FILE), not %s",
			 a->device ? a->device : "the default NFB device");
		return e->status;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
		return e->status;
	}
	rc = split(w, a->sweep, e);
	if (rc == 0)
		rc = open_all(w, spec, e);
	if (rc == 0)
		rc = measure_all(w, a->interval, e);
	if (rc == 0)
		rc = print(a, w, out, e);
	sweep_free(w);
	return rc < 0 ? e->status : 0;
}
