/*
 * nfb-pcie-telemetry: pt_cli_main(), one run of the command: the command
 * line, then the component (opened, its layout validated), the readings,
 * the report loop, and the cleanup that leaves the process as it was.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/env.h"
#include "util/pt_util.h"

/* The bus and the validated layout.  Clearing needs no layout: like
 * upstream, -c only insists on the magic and the major version (checked
 * first, so any other complaint means those two were right). */
static int open_component(struct cli_session *s, struct pt_bus **bus, struct cli_error *e)
{
	const uint32_t *cfg = s->dev.layout.cfg;

	e->status = CLI_EXIT_RUNTIME;
	/* the live view watches a simulated card that lives in real time */
	if (pt_bus_open_ex(s->a->device, s->a->index, s->a->top ? PT_BUS_REALTIME : 0, bus, e->msg,
			   sizeof(e->msg)) < 0)
		return -1;
	if (pt_dev_init(&s->dev, *bus, e->msg, sizeof(e->msg)) == 0)
		return 0;
	if (!s->a->clear || pt_layout_identify(cfg, NULL, 0) < 0)
		return -1;
	e->msg[0] = '\0';
	return 0;
}

/* The readings, and the header of the recording that explains it. */
static int prepare_readings(struct cli_session *s, int argc, char **argv, struct cli_error *e)
{
	unsigned entries = s->dev.layout.entries;

	if (pt_reading_init(&s->first, entries) < 0 || pt_reading_init(&s->second, entries) < 0 ||
	    pt_reading_init(&s->diff, entries) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	return cli_record_header(&s->rec, argc, argv, pt_bus_device(s->dev.bus),
				 s->src.unix_time ? &s->src.offset : NULL, e);
}

static int clear_counters(struct cli_session *s, struct cli_error *e)
{
	static const char done[] = "Counters cleared.\n";

	if (pt_dev_clear(&s->dev, e->msg, sizeof(e->msg)) < 0)
		return CLI_EXIT_RUNTIME;
	/* the counters are cleared: say so, even when a signal comes */
	if (cli_print_whole(s->out, done, sizeof(done) - 1, false, e) < 0)
		return CLI_EXIT_RUNTIME;
	cli_note_clear(s);
	return 0;
}

/* Everything after the command line; returns the exit status. */
static int run(struct cli_session *s, int argc, char **argv, struct cli_error *e)
{
	const struct cli_args *a = s->a;
	struct pt_bus *bus = NULL;
	int status = CLI_EXIT_RUNTIME;

	if (a->list && !a->device) {
		/* the firmware's default layout: no device to open */
		status = cli_list(s, false, e);
		goto out;
	}
	if (open_component(s, &bus, e) < 0)
		goto out;
	if (a->clear)
		status = clear_counters(s, e);
	else if (a->list)
		status = cli_list(s, true, e);
	else if (cli_metrics_prepare(s, &s->dev.layout, e) < 0)
		status = e->status;
	else if (cli_source_prepare(s, e) < 0)
		status = e->status;
	else if (prepare_readings(s, argc, argv, e) == 0)
		status = a->top ? cli_top_run(s, e) : cli_report_run(s, e);
out:
	if (a->record) {
		struct cli_error re = { 0 };

		if (cli_record_close(&s->rec, status == 0, &re) < 0 && status == 0) {
			*e = re;
			status = CLI_EXIT_RUNTIME;
		}
	}
	pt_reading_free(&s->first);
	pt_reading_free(&s->second);
	pt_reading_free(&s->diff);
	cli_metrics_free(s);
	cli_source_free(s);
	pt_bus_close(bus);
	return status;
}

int pt_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct cli_session s;
	struct cli_args a;
	struct cli_error e = { 0 };
	struct cli_signals sig;
	int status;

	/* A closed standard descriptor must not become the recording. */
	if (pt_util_std_fds() < 0) {
		cli_print_error(err, "cannot open /dev/null onto a closed standard descriptor");
		return CLI_EXIT_RUNTIME;
	}
	if (cli_parse(argc, argv, &a, &e) < 0) {
		cli_print_error(err, e.msg);
		return e.status;
	}
	if (a.action == CLI_HELP) {
		cli_usage(out);
		return cli_printed(out, err);
	}
	if (a.action == CLI_VERSION) {
		fprintf(out, CLI_PROG " %s (pcie-telemetry, libnfb backend %s)\n", PT_VERSION_STRING,
			pt_bus_have_nfb() ? "built in" : "not built");
		return cli_printed(out, err);
	}
	if (a.action == CLI_LIST_PRESETS) {
		for (size_t i = 0; i < pte_preset_count(); i++)
			fprintf(out, "%s\n", pte_preset_name(i));
		return cli_printed(out, err);
	}
	if (a.action == CLI_LIST_DEVICES) {
		status = cli_list_devices(out, &e);
		if (status != 0)
			cli_print_error(err, e.msg);
		return status ? status : cli_printed(out, err);
	}
	if (a.top && cli_top_check(out, &e) < 0) {
		cli_print_error(err, e.msg);
		return e.status;
	}
	memset(&s, 0, sizeof(s));
	s.a = &a;
	s.out = out;
	s.err = err;
	s.argc = argc;
	s.argv = argv;
	s.wrap.seconds = INFINITY;
	s.rec.fd = -1;
	if (a.record && cli_record_open(&s.rec, a.record, a.device, &e) < 0) {
		cli_print_error(err, e.msg);
		return e.status;
	}
	pt_bus_clear_stop();
	cli_signals_install(&sig);
	if (a.compare[0])
		status = cli_compare_run(&a, out, &e);
	else if (a.sweep)
		status = cli_sweep_run(&a, out, &e);
	else
		status = run(&s, argc, argv, &e);
	cli_signals_restore(&sig);
	if (status != 0 && e.msg[0])
		cli_print_error(err, e.msg);
	else if (status == 0)
		cli_wrap_warn(&s);
	return status;
}
