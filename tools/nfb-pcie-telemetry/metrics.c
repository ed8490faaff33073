/*
 * nfb-pcie-telemetry: metrics (docs/metrics.md).  --metric-file adds
 * definitions to the built-in ones, -M prints chosen metrics instead of
 * the report (one table per report, so -w gives one per interval), and
 * --list prints every counter and metric of a layout.  The text report
 * itself takes its cells from the same bound set, bound once per run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/model.h"
#include "pcie_telemetry/render.h"

/* The built-in definitions and every --metric-file. */
static int load(const struct cli_args *a, struct pt_metric_defs **d, struct cli_error *e)
{
	char msg[PT_METRIC_MSG_LEN];
	int rc = pt_metric_defs_new(d, 0, msg, sizeof msg);

	if (rc < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "%s", msg);
	for (unsigned i = 0; i < a->nmetric_files; i++) {
		rc = pt_metric_defs_add_file(*d, a->metric_files[i], msg, sizeof msg);
		if (rc < 0) {
			pt_metric_defs_free(*d);
			*d = NULL;
			return cli_fail(e, rc == -ENOMEM ? CLI_EXIT_RUNTIME : CLI_EXIT_USAGE,
					"--metric-file: %s", msg);
		}
	}
	return 0;
}

/* -M: the instances its list names, in set order. */
static int choose(struct cli_session *s, struct cli_error *e)
{
	char msg[PT_METRIC_MSG_LEN];
	int n = pt_metric_select(s->metrics, s->a->metrics, NULL, 0, msg, sizeof msg);

	if (n < 0)
		return cli_fail(e, n == -ENOMEM ? CLI_EXIT_RUNTIME : CLI_EXIT_USAGE, "-M: %s", msg);
	s->chosen = malloc(((size_t)n + 1) * sizeof *s->chosen);
	if (!s->chosen)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	s->nchosen = (unsigned)pt_metric_select(s->metrics, s->a->metrics, s->chosen, (unsigned)n,
						msg, sizeof msg);
	return 0;
}

int cli_metrics_prepare(struct cli_session *s, const struct pt_layout *l, struct cli_error *e)
{
	struct pt_metric_defs *d = NULL;
	char msg[PT_METRIC_MSG_LEN];

	if (load(s->a, &d, e) < 0)
		return -1;
	int rc = pt_metric_bind(d, l, &s->metrics, msg, sizeof msg);
	pt_metric_defs_free(d);
	/* the built-in metrics bind to every layout: a failure is the user's */
	if (rc < 0)
		return cli_fail(e, rc == -ENOMEM ? CLI_EXIT_RUNTIME : CLI_EXIT_USAGE,
				"--metric-file: %s", msg);
	return s->a->metrics ? choose(s, e) : 0;
}

void cli_metrics_free(struct cli_session *s)
{
	pt_metric_set_free(s->metrics);
	free(s->chosen);
	s->metrics = NULL;
	s->chosen = NULL;
	s->nchosen = 0;
}

/* The layout of the firmware's default generics, as the model announces
 * it. */
static int default_layout(struct pt_layout *l, struct cli_error *e)
{
	struct ptm_generics g;
	ptm_model *m;
	uint32_t cfg[PT_CFG_REGS];

	ptm_generics_default(&g);
	if (ptm_model_new(&g, &m, e->msg, sizeof e->msg) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "the default layout: %s", e->msg);
	for (unsigned i = 0; i < PT_CFG_REGS; i++)
		cfg[i] = ptm_mi_read(m, 4u * i);
	ptm_model_free(m);
	if (pt_layout_decode(cfg, l, e->msg, sizeof e->msg) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "the default layout: %s", e->msg);
	return 0;
}

int cli_list(struct cli_session *s, bool device, struct cli_error *e)
{
	struct pt_layout dflt;
	const struct pt_layout *l = &s->dev.layout;
	char *buf = NULL;
	size_t len = 0;

	if (!device) {
		if (default_layout(&dflt, e) < 0)
			return e->status;
		l = &dflt;
	}
	if (cli_metrics_prepare(s, l, e) < 0)
		return e->status;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory"), e->status;
	int rc = pt_render_list(out, s->metrics);
	if (fclose(out) != 0 && rc == 0)
		rc = -ENOMEM;
	if (rc < 0)
		cli_fail(e, CLI_EXIT_RUNTIME, "cannot list the metrics: %s", strerror(-rc));
	else if (cli_print_whole(s->out, buf, len, false, e) < 0)
		rc = -EIO;
	free(buf);
	return rc < 0 ? CLI_EXIT_RUNTIME : 0;
}
