/*
 * nfb-pcie-telemetry: shows the PCIe telemetry of an NDK card
 * (PCIE_TELEMETRY_MI), a drop-in for the upstream Python tool of the same
 * name: the same options, the same report and JSON byte for byte.
 *
 * Exit status: 0 success, 1 runtime error, 2 usage error.  Every error is
 * one line "nfb-pcie-telemetry: ..." on stderr and nothing on stdout: a
 * report is rendered into memory and printed only once it is complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/env.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/telemetry.h"

#define PROG "nfb-pcie-telemetry"
#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define MSG_LEN 1024

enum { OPT_RECORD = 256 };

struct args {
	const char *device;
	unsigned index;
	double interval;
	bool watch, clear, json;
	const char *record;
};

/* The outcome of one step: done, stopped by a signal, or failed. */
enum step { STEP_OK, STEP_STOPPED, STEP_FAILED };

struct recorder {
	char *path, *tmp;
	FILE *f;
	FILE *pending; /* images of the report in progress */
	char *pending_buf;
	size_t pending_len;
	unsigned images;
};

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

/* After -h or -V: a lost text is an error like a lost report. */
static void __attribute__((noreturn)) exit_printed(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write to standard output: %s\n", strerror(errno));
		exit(EXIT_RUNTIME);
	}
	exit(0);
}

static void usage(void)
{
	printf("Usage: " PROG " [-d DEVICE] [-i INDEX] [-t SEC] [-w] [-c] [-j] [--record FILE]\n"
	       "Shows the PCIe telemetry (PCIE_TELEMETRY_MI) of an NDK card: bus occupancy,\n"
	       "stalls, rates, why the PTC stopped the transfer, and how long tags and the\n"
	       "storage FIFO ran short.\n"
	       "\n"
	       "  -d, --device DEV     device (default: the default NFB device, %s)\n"
	       "  -i, --index N        index of the component in the DeviceTree [default: 0]\n"
	       "  -t, --interval SEC   length of the measured interval [default: 1]; 0 (or\n"
	       "                       less) prints the totals since the last clear\n"
	       "  -w, --watch          keep measuring and printing until interrupted\n"
	       "  -c, --clear          zero all counters and exit\n"
	       "  -j, --json           print the raw values as JSON instead of a table\n"
	       "      --record FILE    also write every reading taken as a register image\n"
	       "                       file, which -d image:FILE replays\n"
	       "  -h, --help           show this help and exit\n"
	       "  -V, --version        show the version and exit\n"
	       "\n"
	       "Devices:\n"
	       "  /dev/nfbN, N or a libnfb path   an NFB card through libnfb%s\n"
	       "  image:FILE                      replay a register image file\n"
	       "  sim                             the simulated card, default mixed load\n"
	       "  sim:PRESET | sim:FILE           the simulated card with a preset or a\n"
	       "                                  scenario file\n"
	       "  pci:DOMAIN:BUS:DEV.FN[/BAR]@OFFSET  the component at OFFSET (hex) of a PCI\n"
	       "                                  BAR mapped through sysfs (BAR 0 by default)\n"
	       "  mmap:FILE[@OFFSET]              64 KiB of any file laid out as the component\n"
	       "  libnfb-ext:LIB.so:ARGS          a libnfb extension, loaded as libnfb loads it;\n"
	       "                                  ours takes sim[:PRESET|:FILE] (a card shared by\n"
	       "                                  every process) and image:FILE[,FILE...]\n",
	       getenv("LIBNFB_DEFAULT_DEV") ? getenv("LIBNFB_DEFAULT_DEV") : "/dev/nfb0",
	       pt_bus_have_nfb() ? "" : " (not in this build)");
	if (pte_preset_count() > 0) {
		int w = 0;

		for (size_t i = 0; i < pte_preset_count(); i++)
			if ((int)strlen(pte_preset_name(i)) > w)
				w = (int)strlen(pte_preset_name(i));
		printf("\nPresets of the simulated card (sim:PRESET):\n");
		for (size_t i = 0; i < pte_preset_count(); i++)
			printf("  %-*s  %s\n", w, pte_preset_name(i), pte_preset_summary(i));
	}
}

static unsigned parse_index(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	/* what Python's int() takes, less the signs that make no index */
	if ((*s < '0' || *s > '9') && !(*s == '+' && s[1] >= '0' && s[1] <= '9'))
		die_usage("-i '%s': not a valid index (expected a non-negative integer)", s);
	v = strtoul(s, &end, 10);
	if (*end != '\0')
		die_usage("-i '%s': not a valid index (expected a non-negative integer)", s);
	if (errno || v > 0xFFFF)
		die_usage("-i '%s': index out of range", s);
	return (unsigned)v;
}

static double parse_interval(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	while (end != s && (*end == ' ' || *end == '\t'))
		end++;
	if (end == s || *end != '\0' || strpbrk(s, "xX") || isnan(v))
		die_usage("-t '%s': not a number of seconds", s);
	if (!isfinite(v))
		die_usage("-t '%s': the interval must be a finite number of seconds", s);
	if (v > 1e7)
		die_usage("-t '%s': an interval longer than 10^7 seconds is not supported", s);
	return v;
}

static const struct option longopts[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "index", required_argument, NULL, 'i' },
	{ "interval", required_argument, NULL, 't' },
	{ "watch", no_argument, NULL, 'w' },
	{ "clear", no_argument, NULL, 'c' },
	{ "json", no_argument, NULL, 'j' },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* getopt_long reports an unknown, an ambiguous and a long option given a
 * value it does not take alike ('?'); the user needs to know which. */
static void __attribute__((noreturn)) bad_option(const char *arg, int opt)
{
	size_t len;
	unsigned matches = 0;
	const struct option *match = NULL;

	if (strncmp(arg, "--", 2) != 0)
		die_usage("unknown option -%c (see --help)", opt);
	len = strcspn(arg + 2, "=");
	for (const struct option *o = longopts; len > 0 && o->name; o++) {
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
		die_usage("option '%.*s' is ambiguous (see --help)", (int)len + 2, arg);
	if (matches == 1 && arg[2 + len] == '=' && match->has_arg == no_argument)
		die_usage("option '--%s' takes no value ('%s')", match->name, arg);
	die_usage("unknown option '%s' (see --help)", arg);
}

static void parse_args(int argc, char **argv, struct args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	a->interval = 1.0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:i:t:wcjhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!*optarg)
				die_usage("-d: empty device name");
			a->device = optarg;
			break;
		case 'i':
			a->index = parse_index(optarg);
			break;
		case 't':
			a->interval = parse_interval(optarg);
			break;
		case 'w':
			a->watch = true;
			break;
		case 'c':
			a->clear = true;
			break;
		case 'j':
			a->json = true;
			break;
		case OPT_RECORD:
			if (!*optarg)
				die_usage("--record: empty file name");
			a->record = optarg;
			break;
		case 'h':
			usage();
			exit_printed();
		case 'V':
			printf(PROG " %s (pcie-telemetry, libnfb backend %s)\n", PT_VERSION_STRING,
			       pt_bus_have_nfb() ? "built in" : "not built");
			exit_printed();
		case ':':
			if (strncmp(argv[optind - 1], "--", 2) == 0)
				die_usage("option '%s' needs a value", argv[optind - 1]);
			die_usage("option -%c needs a value", optopt);
		default:
			bad_option(argv[optind - 1], optopt);
		}
	}
	if (optind < argc)
		die_usage("stray argument '%s' (see --help)", argv[optind]);
	if (a->record && a->clear)
		die_usage("--record: -c takes no reading, there is nothing to record");
}

/* ------------------------------------------------------------ recording */

static char *command_line(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (int i = 0; i < argc; i++) {
		const char *q = argv[i];
		bool plain = *q != '\0';

		for (const char *t = q; *t; t++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-./:@=,+%",
				    *t))
				plain = false;
		if (i)
			*p++ = ' ';
		if (!plain)
			*p++ = '\'';
		for (const char *t = q; *t; t++) {
			if (*t == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *t;
			}
		}
		if (!plain)
			*p++ = '\'';
	}
	*p = '\0';
	return s;
}

/* ".NAME.XXXXXX" in the folder of path: the rename at the end then stays
 * inside one file system, and a half-written file never has the name. */
static char *temp_name(const char *path)
{
	char *dcopy = strdup(path), *bcopy = strdup(path), *tmp = NULL;

	if (dcopy && bcopy) {
		const char *dir = dirname(dcopy), *base = basename(bcopy);

		tmp = malloc(strlen(dir) + strlen(base) + 16);
		if (tmp)
			sprintf(tmp, "%s/.%s.XXXXXX", dir, base);
	}
	free(dcopy);
	free(bcopy);
	return tmp;
}

static int recorder_open(struct recorder *rec, const char *path, char *msg, size_t msglen)
{
	struct stat st;
	int fd, err;

	memset(rec, 0, sizeof(*rec));
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(msg, msglen, "--record %s: is a folder, not a file name", path);
		return -EISDIR;
	}
	rec->path = strdup(path);
	rec->tmp = temp_name(path);
	if (!rec->path || !rec->tmp) {
		err = ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto fail;
	}
	fd = mkstemp(rec->tmp);
	if (fd < 0) {
		err = errno;
		snprintf(msg, msglen, "--record %s: cannot create a file in %.*s: %s", path,
			 (int)(strrchr(rec->tmp, '/') - rec->tmp), rec->tmp, strerror(err));
		goto fail;
	}
	/* mkstemp makes 0600, a recording is an ordinary file; should the
	 * change fail, the file is merely private, so that is no error. */
	{
		mode_t mask = umask(0);

		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	}
	rec->f = fdopen(fd, "w");
	if (!rec->f) {
		err = errno;
		close(fd);
		unlink(rec->tmp);
		snprintf(msg, msglen, "--record %s: %s", path, strerror(err));
		goto fail;
	}
	return 0;
fail:
	free(rec->tmp);
	free(rec->path);
	rec->tmp = rec->path = NULL;
	return -err;
}

static int recorder_begin(struct recorder *rec)
{
	if (!rec->f)
		return 0;
	rec->pending = open_memstream(&rec->pending_buf, &rec->pending_len);
	return rec->pending ? 0 : -ENOMEM;
}

static void recorder_drop(struct recorder *rec)
{
	if (rec->pending)
		fclose(rec->pending);
	free(rec->pending_buf);
	rec->pending = NULL;
	rec->pending_buf = NULL;
	rec->pending_len = 0;
}

static int recorder_add(struct recorder *rec, const struct pt_layout *l,
			const struct pt_reading *r, char *msg, size_t msglen)
{
	if (!rec->pending)
		return 0;
	if (pt_render_regs_image(rec->pending, l, r) < 0) {
		snprintf(msg, msglen, "--record %s: cannot render the register image", rec->path);
		return -EIO;
	}
	return 0;
}

/* The report is complete: its images go to the file. */
static int recorder_commit(struct recorder *rec, char *msg, size_t msglen)
{
	if (!rec->pending)
		return 0;
	if (fclose(rec->pending) != 0) {
		rec->pending = NULL;
		recorder_drop(rec);
		snprintf(msg, msglen, "--record %s: out of memory", rec->path);
		return -ENOMEM;
	}
	rec->pending = NULL;
	if (fwrite(rec->pending_buf, 1, rec->pending_len, rec->f) != rec->pending_len ||
	    fflush(rec->f) != 0) {
		int err = errno ? errno : EIO;

		recorder_drop(rec);
		snprintf(msg, msglen, "--record %s: write error: %s", rec->path, strerror(err));
		return -err;
	}
	rec->images++;
	recorder_drop(rec);
	return 0;
}

/* keep: rename the file into place (only with complete images in it). */
static int recorder_close(struct recorder *rec, bool keep, char *msg, size_t msglen)
{
	int rc = 0;

	recorder_drop(rec);
	if (rec->f) {
		if (fflush(rec->f) != 0 || fsync(fileno(rec->f)) != 0) {
			if (keep) {
				snprintf(msg, msglen, "--record %s: write error: %s", rec->path,
					 strerror(errno));
				rc = -EIO;
			}
			keep = false;
		}
		if (fclose(rec->f) != 0 && keep) {
			snprintf(msg, msglen, "--record %s: write error: %s", rec->path,
				 strerror(errno));
			rc = -EIO;
			keep = false;
		}
		rec->f = NULL;
		if (keep && rec->images == 0)
			keep = false;
		if (keep && rename(rec->tmp, rec->path) != 0) {
			rc = -errno;
			snprintf(msg, msglen, "--record %s: %s", rec->path, strerror(-rc));
			keep = false;
		}
		if (!keep)
			unlink(rec->tmp);
	}
	free(rec->tmp);
	free(rec->path);
	rec->tmp = rec->path = NULL;
	return rc;
}

/* -------------------------------------------------------------- measure */

static void on_signal(int sig)
{
	(void)sig;
	pt_bus_request_stop();
}

static void install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a sleep returns at once.  A second signal acts as
	 * usual, in case a step hangs. */
	sa.sa_flags = (int)SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed stdout is a write error, so that --record still ends
	 * its file properly. */
	signal(SIGPIPE, SIG_IGN);
}

struct session {
	const struct args *a;
	struct pt_dev dev;
	struct pt_reading first, second, diff;
	struct recorder rec;
};

/* Measure and render one report into out (the sequence of the upstream
 * tool: register-image.md section 4). */
static enum step one_report(struct session *s, FILE *out, char *msg, size_t msglen)
{
	const struct args *a = s->a;
	struct pt_report rep = { .layout = &s->dev.layout };
	int rc;

	if (pt_bus_stop_requested())
		return STEP_STOPPED;
	rc = pt_dev_measure(&s->dev, a->interval, &s->first, &s->second, msg, msglen);
	if (rc == -EINTR && pt_bus_stop_requested())
		return STEP_STOPPED;
	if (rc < 0)
		return STEP_FAILED;
	if (recorder_begin(&s->rec) < 0) {
		snprintf(msg, msglen, "out of memory");
		return STEP_FAILED;
	}
	if (a->interval > 0 && recorder_add(&s->rec, &s->dev.layout, &s->first, msg, msglen) < 0)
		return STEP_FAILED;
	if (recorder_add(&s->rec, &s->dev.layout, &s->second, msg, msglen) < 0)
		return STEP_FAILED;
	if (a->interval > 0) {
		pt_reading_diff(&s->dev.layout, &s->first, &s->second, &s->diff);
		rep.reading = &s->diff;
		rep.interval = true;
		rep.seconds = s->second.time - s->first.time;
	} else {
		rep.reading = &s->second;
		rep.interval = false;
	}
	rc = a->json ? pt_render_json(out, &rep) : pt_render_text(out, &rep);
	if (rc < 0) {
		snprintf(msg, msglen, "cannot render the report: %s", strerror(-rc));
		return STEP_FAILED;
	}
	if (recorder_commit(&s->rec, msg, msglen) < 0)
		return STEP_FAILED;
	return STEP_OK;
}

/* -EPIPE when the reader of stdout went away (`-w | head`). */
static int print_whole(const char *buf, size_t len, char *msg, size_t msglen)
{
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
		int err = errno;

		snprintf(msg, msglen, "cannot write the report: %s", strerror(err));
		return err == EPIPE ? -EPIPE : -EIO;
	}
	return 0;
}

static int run(struct session *s, char *msg, size_t msglen)
{
	const struct args *a = s->a;

	for (unsigned n = 0;; n++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out;
		enum step st;

		if (n > 0 && a->interval <= 0) {
			/* Totals in watch mode: once a second (upstream reads as
			 * fast as it can, which floods the terminal with equal
			 * reports). */
			if (pt_bus_wait(s->dev.bus, 1.0) < 0 && !pt_bus_stop_requested()) {
				snprintf(msg, msglen, "%s", pt_bus_message(s->dev.bus));
				return EXIT_RUNTIME;
			}
		}
		if (pt_bus_stop_requested()) {
			if (a->watch)
				return 0;
			snprintf(msg, msglen, "interrupted before the report was complete");
			return EXIT_RUNTIME;
		}
		out = open_memstream(&buf, &len);
		if (!out) {
			snprintf(msg, msglen, "out of memory");
			return EXIT_RUNTIME;
		}
		st = one_report(s, out, msg, msglen);
		if (fclose(out) != 0 && st == STEP_OK) {
			snprintf(msg, msglen, "out of memory");
			st = STEP_FAILED;
		}
		if (st == STEP_OK) {
			int rc = print_whole(buf, len, msg, msglen);

			if (rc == -EPIPE && a->watch)
				st = STEP_STOPPED; /* nobody reads on: a clean end */
			else if (rc < 0)
				st = STEP_FAILED;
		}
		free(buf);
		if (st == STEP_STOPPED) {
			recorder_drop(&s->rec);
			if (a->watch)
				return 0;
			snprintf(msg, msglen, "interrupted before the report was complete");
			return EXIT_RUNTIME;
		}
		if (st == STEP_FAILED)
			return EXIT_RUNTIME;
		if (!a->watch)
			return 0;
		/* Upstream prints an empty line after every report of -w. */
		switch (print_whole("\n", 1, msg, msglen)) {
		case 0:
			break;
		case -EPIPE:
			return 0;
		default:
			return EXIT_RUNTIME;
		}
	}
}

/* The bus and the validated layout.  Clearing needs no layout: like
 * upstream, -c only insists on the magic and the major version (checked
 * first, so any other complaint means those two were right). */
static int open_component(struct session *s, struct pt_bus **bus, char *msg, size_t msglen)
{
	const uint32_t *cfg = s->dev.layout.cfg;

	if (pt_bus_open(s->a->device, s->a->index, bus, msg, msglen) < 0)
		return -1;
	if (pt_dev_init(&s->dev, *bus, msg, msglen) == 0)
		return 0;
	if (!s->a->clear || pt_layout_identify(cfg, NULL, 0) < 0)
		return -1;
	msg[0] = '\0';
	return 0;
}

/* The readings, and the header of the recording that explains it. */
static int prepare_readings(struct session *s, int argc, char **argv, char *msg, size_t msglen)
{
	unsigned entries = s->dev.layout.entries;

	if (pt_reading_init(&s->first, entries) < 0 || pt_reading_init(&s->second, entries) < 0 ||
	    pt_reading_init(&s->diff, entries) < 0) {
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	if (s->rec.f) {
		char *cmd = command_line(argc, argv);
		int rc = pt_render_regs_header(s->rec.f, PT_VERSION_STRING, cmd ? cmd : PROG,
					       pt_bus_device(s->dev.bus));

		free(cmd);
		if (rc < 0) {
			snprintf(msg, msglen, "--record %s: write error", s->a->record);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct session s;
	struct args a;
	char msg[MSG_LEN] = "";
	struct pt_bus *bus = NULL;
	int status = EXIT_RUNTIME;

	parse_args(argc, argv, &a);
	memset(&s, 0, sizeof(s));
	s.a = &a;
	if (a.record && recorder_open(&s.rec, a.record, msg, sizeof(msg)) < 0) {
		fprintf(stderr, PROG ": %s\n", msg);
		return EXIT_USAGE;
	}
	install_handlers();

	if (open_component(&s, &bus, msg, sizeof(msg)) < 0)
		goto out;
	if (a.clear) {
		if (pt_dev_clear(&s.dev, msg, sizeof(msg)) == 0)
			status = print_whole("Counters cleared.\n", 18, msg, sizeof(msg)) < 0
					 ? EXIT_RUNTIME
					 : 0;
		goto out;
	}
	if (prepare_readings(&s, argc, argv, msg, sizeof(msg)) == 0)
		status = run(&s, msg, sizeof(msg));
out:
	if (a.record) {
		char rmsg[MSG_LEN] = "";

		if (recorder_close(&s.rec, status == 0, rmsg, sizeof(rmsg)) < 0 && status == 0) {
			snprintf(msg, sizeof(msg), "%s", rmsg);
			status = EXIT_RUNTIME;
		}
	}
	pt_reading_free(&s.first);
	pt_reading_free(&s.second);
	pt_reading_free(&s.diff);
	pt_bus_close(bus);
	if (status != 0 && msg[0])
		fprintf(stderr, PROG ": %s\n", msg);
	/* After the report, and never beside an error: a failed run
	 * says one thing only. */
	if (status == 0 && !a.clear && a.interval < 0)
		fprintf(stderr,
			PROG ": warning: -t %g is negative; showed the totals since the last "
			     "clear, as -t 0 does\n",
			a.interval);
	return status;
}
