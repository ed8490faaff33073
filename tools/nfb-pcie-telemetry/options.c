/*
 * nfb-pcie-telemetry: the command line.  Every option is one row of
 * cli_options[]: getopt's tables, the error messages and --help are all
 * built from it, so a new option is a new row and its handler.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/env.h"

/* Long-only options get getopt values from here on (index + this). */
#define LONG_ONLY 256
/* Column of the help texts in --help. */
#define HELP_COLUMN 23

/* ------------------------------------------------------------ handlers */

/* A non-empty value kept at o->field (a const char *); o->what names it
 * in the message about an empty one. */
static int take_string(const struct cli_option *o, struct cli_args *a, const char *v,
		       struct cli_error *e)
{
	if (!*v) {
		if (o->letter)
			return cli_fail(e, CLI_EXIT_USAGE, "-%c: empty %s", o->letter, o->what);
		return cli_fail(e, CLI_EXIT_USAGE, "--%s: empty %s", o->name, o->what);
	}
	*(const char **)(void *)((char *)a + o->field) = v;
	return CLI_NEXT;
}

static int take_index(const struct cli_option *o, struct cli_args *a, const char *s,
		      struct cli_error *e)
{
	char *end;
	unsigned long v;

	(void)o;
	errno = 0;
	/* what Python's int() takes, less the signs that make no index */
	if ((*s < '0' || *s > '9') && !(*s == '+' && s[1] >= '0' && s[1] <= '9'))
		return cli_fail(e, CLI_EXIT_USAGE,
				"-i '%s': not a valid index (expected a non-negative integer)", s);
	v = strtoul(s, &end, 10);
	if (*end != '\0')
		return cli_fail(e, CLI_EXIT_USAGE,
				"-i '%s': not a valid index (expected a non-negative integer)", s);
	if (errno || v > 0xFFFF)
		return cli_fail(e, CLI_EXIT_USAGE, "-i '%s': index out of range", s);
	a->index = (unsigned)v;
	return CLI_NEXT;
}

static int take_interval(const struct cli_option *o, struct cli_args *a, const char *s,
			 struct cli_error *e)
{
	char *end;
	double v;

	(void)o;
	errno = 0;
	v = strtod(s, &end);
	while (end != s && (*end == ' ' || *end == '\t'))
		end++;
	if (end == s || *end != '\0' || strpbrk(s, "xX") || isnan(v))
		return cli_fail(e, CLI_EXIT_USAGE, "-t '%s': not a number of seconds", s);
	if (!isfinite(v))
		return cli_fail(e, CLI_EXIT_USAGE,
				"-t '%s': the interval must be a finite number of seconds", s);
	if (v < 0)
		return cli_fail(e, CLI_EXIT_USAGE,
				"-t '%s': a negative interval (use -t 0 for the totals since the "
				"last clear)",
				s);
	if (v > 1e7)
		return cli_fail(e, CLI_EXIT_USAGE,
				"-t '%s': an interval longer than 10^7 seconds is not supported", s);
	a->interval = v;
	return CLI_NEXT;
}

/* --count N: a positive integer of at most 2^32 - 1. */
static int take_count(const struct cli_option *o, struct cli_args *a, const char *s,
		      struct cli_error *e)
{
	char *end;
	unsigned long long v;

	(void)o;
	errno = 0;
	if (*s < '0' || *s > '9')
		return cli_fail(e, CLI_EXIT_USAGE,
				"--count '%s': not a number of reports (a positive integer)", s);
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return cli_fail(e, CLI_EXIT_USAGE,
				"--count '%s': not a number of reports (a positive integer)", s);
	if (v == 0)
		return cli_fail(e, CLI_EXIT_USAGE,
				"--count '%s': at least one report (-w without --count runs until "
				"interrupted)",
				s);
	if (errno || v > 0xFFFFFFFFull)
		return cli_fail(e, CLI_EXIT_USAGE, "--count '%s': more than 4294967295 reports", s);
	a->count = (unsigned long)v;
	a->watch = true;
	return CLI_NEXT;
}

/* --metric-file: one more file, in order. */
static int take_metric_file(const struct cli_option *o, struct cli_args *a, const char *v,
			    struct cli_error *e)
{
	(void)o;
	if (!*v)
		return cli_fail(e, CLI_EXIT_USAGE, "--metric-file: empty file name");
	if (a->nmetric_files == CLI_METRIC_FILES_MAX)
		return cli_fail(e, CLI_EXIT_USAGE, "--metric-file: at most %u files",
				CLI_METRIC_FILES_MAX);
	a->metric_files[a->nmetric_files++] = v;
	return CLI_NEXT;
}

/* An option without a value that switches on the bool at o->field. */
static int take_flag(const struct cli_option *o, struct cli_args *a, const char *v,
		     struct cli_error *e)
{
	(void)v, (void)e;
	*(bool *)(void *)((char *)a + o->field) = true;
	return CLI_NEXT;
}

/* An option that ends the parsing with an action of its own. */
static int take_action(const struct cli_option *o, struct cli_args *a, const char *v,
		       struct cli_error *e)
{
	(void)v, (void)e;
	a->action = o->action;
	return CLI_STOP;
}

/* --compare A B: the first device now; the second is the one argument
 * that is no option (cli_parse). */
static int take_compare(const struct cli_option *o, struct cli_args *a, const char *v,
			struct cli_error *e)
{
	(void)o;
	if (!*v)
		return cli_fail(e, CLI_EXIT_USAGE, "--compare: empty device name");
	if (a->compare[0])
		return cli_fail(e, CLI_EXIT_USAGE, "--compare: given twice (one pair of devices a run)");
	a->compare[0] = v;
	return CLI_NEXT;
}

/* --sweep KEY=V1,V2,...: the form only; the key and the values are the
 * scenario's to judge (sweep.c). */
static int take_sweep(const struct cli_option *o, struct cli_args *a, const char *v,
		      struct cli_error *e)
{
	const char *eq = strchr(v, '=');

	(void)o;
	if (!eq || eq == v || !eq[1])
		return cli_fail(e, CLI_EXIT_USAGE,
				"--sweep '%s': expected SECTION.KEY=V1,V2,... (for example "
				"endpoint.mrrs=512,1024,2048)",
				v);
	a->sweep = v;
	return CLI_NEXT;
}

static const char *default_device(void)
{
	const char *d = getenv("LIBNFB_DEFAULT_DEV");

	return d ? d : "/dev/nfb0";
}

/* --------------------------------------------------------------- table */

#define FLAG(f) .take = take_flag, .field = offsetof(struct cli_args, f)
#define STRING(f, w) .take = take_string, .field = offsetof(struct cli_args, f), .what = w

const struct cli_option cli_options[] = {
	{ "device", 'd', "DEV", "[-d DEVICE]", "device (default: the default NFB device, %s)",
	  .help_value = default_device, STRING(device, "device name") },
	{ "index", 'i', "N", "[-i INDEX]", "index of the component in the DeviceTree [default: 0]",
	  .take = take_index },
	{ "interval", 't', "SEC", "[-t SEC]",
	  "length of the measured interval [default: 1]; 0\n"
	  "prints the totals since the last clear",
	  .take = take_interval },
	{ "watch", 'w', NULL, "[-w]", "keep measuring and printing until interrupted", FLAG(watch) },
	{ "count", 0, "N", "[--count N]",
	  "stop after N reports, with status 0 (implies -w)", .take = take_count },
	{ "clear", 'c', NULL, "[-c]", "zero all counters and exit", FLAG(clear) },
	{ "json", 'j', NULL, "[-j]", "print the raw values as JSON instead of a table", FLAG(json) },
	{ "csv", 0, NULL, "[--csv]",
	  "print a series as CSV: a header, then one row per\n"
	  "interval and quantity (docs/series.md)",
	  FLAG(csv) },
	{ "jsonl", 0, NULL, "[--jsonl]",
	  "print a series as JSON lines: a line about the run,\n"
	  "then one object per interval (docs/series.md)",
	  FLAG(jsonl) },
	{ "record", 0, "FILE", "[--record FILE]",
	  "also write every reading taken as a register image\n"
	  "file, which -d image:FILE replays",
	  STRING(record, "file name") },
	{ "diagnose", 0, NULL, "[--diagnose]",
	  "also name the bottleneck of each endpoint and\n"
	  "direction, with the tag holding time and the corrected\n"
	  "throughput (docs/diagnosis.md)",
	  FLAG(diagnose) },
	{ "compare", 0, "A B", "[--compare A B]",
	  "measure two devices (recordings, simulated cards) and\n"
	  "print them side by side with both diagnoses",
	  .take = take_compare },
	{ "sweep", 0, "KEY=V,...", "[--sweep KEY=V1,V2,...]",
	  "with -d sim[:...]: run the card once per value of a\n"
	  "scenario key (endpoint.mrrs=512,1024,2048), one column\n"
	  "per value",
	  .take = take_sweep },
	{ "metrics", 'M', "NAME,...", "[-M NAME,...]",
	  "print these metrics instead of the report: instance,\n"
	  "family or group names, or patterns (docs/metrics.md)",
	  STRING(metrics, "metric list") },
	{ "metric-file", 0, "FILE", "[--metric-file FILE]",
	  "add the metrics defined in FILE (JSON, docs/metrics.md;\n"
	  "repeatable)",
	  .take = take_metric_file },
	{ "list", 0, NULL, "[--list]",
	  "print every counter and metric of the layout (the\n"
	  "device's with -d, else the firmware's default) and exit",
	  FLAG(list) },
	{ "top", 0, NULL, "[--top]",
	  "a live view in the terminal, every -t SEC (0.1 to 60;\n"
	  "keys: q quit, space pause, + - interval, e endpoint,\n"
	  "c clear, ? help; docs/top.md)",
	  FLAG(top) },
	{ "list-devices", 0, NULL, NULL,
	  "list the NFB devices and their components, the PCI\n"
	  "functions of CESNET cards and the -d string of\n"
	  "each, and exit",
	  .take = take_action, .action = CLI_LIST_DEVICES },
	{ "list-presets", 0, NULL, NULL,
	  "print the names of the presets of the simulated\n"
	  "card (sim:PRESET), one a line, and exit",
	  .take = take_action, .action = CLI_LIST_PRESETS },
	{ "help", 'h', NULL, NULL, "show this help and exit", .take = take_action,
	  .action = CLI_HELP },
	{ "version", 'V', NULL, NULL, "show the version and exit", .take = take_action,
	  .action = CLI_VERSION },
};
const size_t cli_noptions = sizeof(cli_options) / sizeof(cli_options[0]);

/* ------------------------------------------------------------- parsing */

/* getopt_long's tables from cli_options[]. */
struct getopt_tables {
	struct option longopts[sizeof(cli_options) / sizeof(cli_options[0]) + 1];
	char shortopts[2 + 2 * sizeof(cli_options) / sizeof(cli_options[0]) + 1];
};

static void build_tables(struct getopt_tables *t)
{
	char *p = t->shortopts;

	*p++ = ':';
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];

		t->longopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						  NULL, o->letter ? o->letter : LONG_ONLY + (int)i };
		if (o->letter) {
			*p++ = o->letter;
			if (o->arg)
				*p++ = ':';
		}
	}
	*p = '\0';
	memset(&t->longopts[cli_noptions], 0, sizeof(t->longopts[0]));
}

static const struct cli_option *option_of(int c)
{
	if (c >= LONG_ONLY && (size_t)(c - LONG_ONLY) < cli_noptions)
		return &cli_options[c - LONG_ONLY];
	for (size_t i = 0; i < cli_noptions; i++)
		if (cli_options[i].letter && cli_options[i].letter == c)
			return &cli_options[i];
	return NULL;
}

/* getopt_long reports an unknown, an ambiguous and a long option given a
 * value it does not take alike ('?'); the user needs to know which. */
static int bad_option(const char *arg, int opt, struct cli_error *e)
{
	size_t len;
	unsigned matches = 0;
	const struct cli_option *match = NULL;

	if (strncmp(arg, "--", 2) != 0)
		return cli_fail(e, CLI_EXIT_USAGE, "unknown option -%c (see --help)", opt);
	len = strcspn(arg + 2, "=");
	for (size_t i = 0; len > 0 && i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];

		if (strncmp(o->name, arg + 2, len) != 0)
			continue;
		match = o;
		if (strlen(o->name) == len) { /* a whole name is never ambiguous */
			matches = 1;
			break;
		}
		matches++;
	}
	if (matches > 1)
		return cli_fail(e, CLI_EXIT_USAGE, "option '%.*s' is ambiguous (see --help)",
				(int)len + 2, arg);
	if (matches == 1 && arg[2 + len] == '=' && !match->arg)
		return cli_fail(e, CLI_EXIT_USAGE, "option '--%s' takes no value ('%s')", match->name,
				arg);
	return cli_fail(e, CLI_EXIT_USAGE, "unknown option '%s' (see --help)", arg);
}

/* --top shows the live view and nothing else. */
static int check_top(const struct cli_args *a, const char *mode, struct cli_error *e)
{
	const char *series = a->csv ? "--csv" : a->jsonl ? "--jsonl" : a->count ? "--count" : NULL;

	if (a->metrics || a->json || a->clear || a->list || a->diagnose || mode || series)
		return cli_fail(e, CLI_EXIT_USAGE, "--top shows the live view: without %s",
				a->metrics ? "-M" : a->json ? "-j" : a->clear ? "-c (the view clears with c)"
				: a->list ? "--list" : a->diagnose ? "--diagnose" : mode ? mode : series);
	if (a->interval < CLI_TOP_MIN_INTERVAL || a->interval > CLI_TOP_MAX_INTERVAL)
		return cli_fail(e, CLI_EXIT_USAGE,
				"--top: -t %g: the live view measures intervals of %g to %g s", a->interval,
				CLI_TOP_MIN_INTERVAL, CLI_TOP_MAX_INTERVAL);
	return 0;
}

/* What a series (--csv, --jsonl) and --count do not go with. */
static int check_series(const struct cli_args *a, struct cli_error *e)
{
	const char *series = a->csv ? "--csv" : "--jsonl";

	if (a->csv && a->jsonl)
		return cli_fail(e, CLI_EXIT_USAGE, "--csv and --jsonl are two formats: choose one");
	if ((a->csv || a->jsonl) && a->json)
		return cli_fail(e, CLI_EXIT_USAGE,
				"%s prints a series, -j the upstream JSON: choose one", series);
	if ((a->csv || a->jsonl || a->count) && a->clear)
		return cli_fail(e, CLI_EXIT_USAGE, "%s: -c clears the counters and takes no reading",
				a->count ? "--count" : series);
	if ((a->csv || a->jsonl) && a->diagnose)
		return cli_fail(e, CLI_EXIT_USAGE,
				"--diagnose adds to the report, %s prints a series: choose one", series);
	return 0;
}

/* What no single option can check. */
static int check_combination(const struct cli_args *a, struct cli_error *e)
{
	const char *mode = a->compare[0] ? "--compare" : a->sweep ? "--sweep" : NULL;

	if (a->record && a->clear)
		return cli_fail(e, CLI_EXIT_USAGE,
				"--record: -c takes no reading, there is nothing to record");
	/* ignored, they would hide a mistake (a bad metric file) behind a clear */
	if (a->clear && (a->metrics || a->nmetric_files || a->diagnose))
		return cli_fail(e, CLI_EXIT_USAGE, "%s: -c clears the counters and takes no reading",
				a->metrics ? "-M" : a->nmetric_files ? "--metric-file" : "--diagnose");
	if (a->compare[0] && a->sweep)
		return cli_fail(e, CLI_EXIT_USAGE, "--compare and --sweep: choose one");
	if (mode && (a->clear || a->watch || a->record))
		return cli_fail(e, CLI_EXIT_USAGE, "%s: not with %s", mode,
				a->clear ? "-c" : a->count ? "--count" : a->watch ? "-w" : "--record");
	if (a->compare[0] && a->device)
		return cli_fail(e, CLI_EXIT_USAGE,
				"--compare names both devices (--compare A B), not -d '%s'",
				a->device);
	if (mode && a->index)
		return cli_fail(e, CLI_EXIT_USAGE, "%s: -i is not used", mode);
	if (a->metrics && a->json)
		return cli_fail(e, CLI_EXIT_USAGE,
				"-M prints metrics, -j the raw counters: choose one");
	if (a->top)
		return check_top(a, mode, e);
	if (a->list && (a->metrics || a->json || a->clear || a->record || a->watch || a->diagnose ||
			a->csv || a->jsonl))
		return cli_fail(e, CLI_EXIT_USAGE, "--list prints the names and exits: without %s",
				a->metrics ? "-M" : a->json ? "-j" : a->clear ? "-c" :
				a->record ? "--record" : a->csv ? "--csv" : a->jsonl ? "--jsonl" :
				a->count ? "--count" : a->watch ? "-w" : "--diagnose");
	if (a->diagnose && a->metrics)
		return cli_fail(e, CLI_EXIT_USAGE,
				"--diagnose adds to the report, -M replaces it: choose one");
	if (mode && (a->metrics || a->list || a->csv || a->jsonl))
		return cli_fail(e, CLI_EXIT_USAGE, "%s: not with %s", mode,
				a->metrics ? "-M" : a->list ? "--list" : a->csv ? "--csv" : "--jsonl");
	return check_series(a, e);
}

/* The arguments that are no option: only --compare's second device. */
static int positional(int argc, char **argv, struct cli_args *a, struct cli_error *e)
{
	if (a->compare[0] && optind == argc - 1) {
		if (!*argv[optind])
			return cli_fail(e, CLI_EXIT_USAGE, "--compare: empty device name");
		a->compare[1] = argv[optind];
		return 0;
	}
	if (optind < argc) {
		int stray = a->compare[0] && optind + 1 < argc ? optind + 1 : optind;

		return cli_fail(e, CLI_EXIT_USAGE, "stray argument '%s' (see --help)", argv[stray]);
	}
	if (a->compare[0])
		return cli_fail(e, CLI_EXIT_USAGE, "--compare needs two devices: --compare A B");
	return 0;
}

int cli_parse(int argc, char **argv, struct cli_args *a, struct cli_error *e)
{
	struct getopt_tables t;
	int c;

	memset(a, 0, sizeof(*a));
	a->interval = 1.0;
	build_tables(&t);
	optind = 0; /* glibc: start afresh, also after an earlier run */
	opterr = 0;
	while ((c = getopt_long(argc, argv, t.shortopts, t.longopts, NULL)) != -1) {
		const struct cli_option *o = option_of(c);
		int rc;

		if (c == ':') {
			if (strncmp(argv[optind - 1], "--", 2) == 0)
				return cli_fail(e, CLI_EXIT_USAGE, "option '%s' needs a value",
						argv[optind - 1]);
			return cli_fail(e, CLI_EXIT_USAGE, "option -%c needs a value", optopt);
		}
		if (!o)
			return bad_option(argv[optind - 1], optopt, e);
		rc = o->take(o, a, o->arg ? optarg : NULL, e);
		if (rc < 0)
			return -1;
		if (rc == CLI_STOP)
			return 0;
	}
	if (positional(argc, argv, a, e) < 0)
		return -1;
	return check_combination(a, e);
}

/* --------------------------------------------------------------- --help */

static void usage_option(FILE *out, const struct cli_option *o)
{
	char left[64], help[512];
	const char *h = help, *nl;
	int n;

	n = snprintf(left, sizeof(left), "  %c%c%s--%s%s%s", o->letter ? '-' : ' ',
		     o->letter ? o->letter : ' ', o->letter ? ", " : "  ", o->name,
		     o->arg ? " " : "", o->arg ? o->arg : "");
	if (o->help_value)
		snprintf(help, sizeof(help), o->help, o->help_value());
	else
		snprintf(help, sizeof(help), "%s", o->help);
	if (n >= HELP_COLUMN - 1)
		fprintf(out, "%s\n%*s", left, HELP_COLUMN, "");
	else
		fprintf(out, "%-*s", HELP_COLUMN, left);
	while ((nl = strchr(h, '\n'))) {
		fprintf(out, "%.*s\n%*s", (int)(nl - h), h, HELP_COLUMN, "");
		h = nl + 1;
	}
	fprintf(out, "%s\n", h);
}

void cli_usage(FILE *out)
{
	fprintf(out, "Usage: " CLI_PROG);
	for (size_t i = 0; i < cli_noptions; i++)
		if (cli_options[i].synopsis)
			fprintf(out, " %s", cli_options[i].synopsis);
	fprintf(out, "\nShows the PCIe telemetry (PCIE_TELEMETRY_MI) of an NDK card: bus occupancy,\n"
		     "stalls, rates, why the PTC stopped the transfer, and how long tags and the\n"
		     "storage FIFO ran short.\n"
		     "\n");
	for (size_t i = 0; i < cli_noptions; i++)
		usage_option(out, &cli_options[i]);
	fprintf(out,
		"\n"
		"Devices:\n"
		"  /dev/nfbN, N or a libnfb path   an NFB card through libnfb%s\n"
		"  image:FILE                      replay a register image file\n"
		"  sim                             the simulated card, default mixed load\n"
		"  sim:PRESET | sim:FILE           the simulated card with a preset or a\n"
		"                                  scenario file\n"
		"  pci:DOMAIN:BUS:DEV.FN[/BAR]@OFFSET  the component at OFFSET (hex) of a PCI\n"
		"                                  BAR mapped through sysfs (BAR 0 by default)\n"
		"  mmap:FILE[@OFFSET][,rw]         64 KiB of a file laid out as the component\n"
		"                                  (a dump); the file is written only with ,rw\n"
		"  libnfb-ext:LIB.so:ARGS          a libnfb extension, loaded as libnfb loads it;\n"
		"                                  ours takes sim[:PRESET|:FILE] (a card shared by\n"
		"                                  every process) and image:FILE[,FILE...]\n",
		pt_bus_have_nfb() ? "" : " (not in this build)");
	if (pte_preset_count() > 0) {
		int w = 0;

		for (size_t i = 0; i < pte_preset_count(); i++)
			if ((int)strlen(pte_preset_name(i)) > w)
				w = (int)strlen(pte_preset_name(i));
		fprintf(out, "\nPresets of the simulated card (sim:PRESET):\n");
		for (size_t i = 0; i < pte_preset_count(); i++)
			fprintf(out, "  %-*s  %s\n", w, pte_preset_name(i), pte_preset_summary(i));
	}
}
