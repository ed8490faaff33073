/*
 * nfb-pcie-telemetry: the parts of the command (private to this folder).
 *
 *   main.c      main(): pt_cli_main() on the process's stdout and stderr
 *   cli.c       pt_cli_main(): the whole run, callable in-process
 *   options.c   the table of options, the command line, --help
 *   record.c    --record: the register image file of the readings
 *   report.c    the report loop: measure, render, print whole
 *   metrics.c   --metric-file, -M and --list (docs/metrics.md)
 *   top.c       --top: the live view's loop (docs/top.md; drawing in src/view)
 *   series.c    --csv and --jsonl: contiguous intervals, the time column
 *   wrap.c      wrap safety: the shortest wrap time at the measured clocks
 *   signals.c   SIGINT/SIGTERM end a run cleanly; SIGPIPE is an error
 *   messages.c  errors: the exit status and one line for the user
 *   truth.c     the simulated card's ground truth for --diagnose -j
 *   compare.c   --compare A B: two devices measured side by side
 *   sweep.c     --sweep KEY=V1,V2,...: a scenario key over values
 *   notes.c     notes on the error stream about what a run did or means
 *   devices.c   --list-devices: what this machine offers
 *
 * A new option is one row of cli_options[] (options.c) with its handler;
 * the fields it sets go into struct cli_args.
 *
 * Exit status: 0 success, 1 runtime error, 2 usage error.  Every error is
 * one line "nfb-pcie-telemetry: ..." on the error stream and nothing on
 * the output: a report is rendered into memory and printed only once it
 * is complete.
 */
#ifndef NFB_PCIE_TELEMETRY_CLI_H
#define NFB_PCIE_TELEMETRY_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "pcie_telemetry/diagnose.h"
#include "pcie_telemetry/metrics.h"
#include "pcie_telemetry/telemetry.h"

#define CLI_PROG "nfb-pcie-telemetry"
#define CLI_EXIT_RUNTIME 1
#define CLI_EXIT_USAGE 2
#define CLI_MSG_LEN 1024

/*
 * The whole command: parse argv, run, print the report on out and an
 * error on err.  Returns the exit status.  Leaves nothing behind (memory,
 * descriptors, signal handlers are restored), so a test or a fuzz target
 * can call it again and again.
 */
int pt_cli_main(int argc, char **argv, FILE *out, FILE *err);

/* ---------------------------------------------------------- messages.c */

/* An error for the user: the exit status and the message, one line
 * without the program name and the newline. */
struct cli_error {
	int status;
	char msg[CLI_MSG_LEN];
};

/* Set e (status and message); returns -1 for `return cli_fail(...)`. */
int cli_fail(struct cli_error *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "nfb-pcie-telemetry: MSG\n" on err, control characters escaped, so
 * that an echoed argument never breaks the line.  A run that succeeds
 * prints nothing there but notes (notes.c) and, at its end, one warning
 * (wrap.c) that begins with CLI_WARNING. */
#define CLI_WARNING CLI_PROG ": warning: "
void cli_print_error(FILE *err, const char *msg);
/* After --help or --version: 0, or 1 with a message when out could not
 * take the text. */
int cli_printed(FILE *out, FILE *err);

/* ----------------------------------------------------------- options.c */

enum cli_action { CLI_RUN, CLI_HELP, CLI_VERSION, CLI_LIST_DEVICES, CLI_LIST_PRESETS };

/* The intervals of --top (-t, and the steps of + and -), seconds. */
#define CLI_TOP_MIN_INTERVAL 0.1
#define CLI_TOP_MAX_INTERVAL 60.0

/* --metric-file may be given this many times. */
#define CLI_METRIC_FILES_MAX 16

/* What the command line asks for. */
struct cli_args {
	const char *device; /* -d, NULL: the default NFB device */
	unsigned index;     /* -i */
	double interval;    /* -t, >= 0; 0 is totals */
	bool watch, clear, json;
	unsigned long count; /* --count N: end -w after N reports (0: no end) */
	bool csv, jsonl;     /* a series (docs/series.md) */
	const char *record; /* --record FILE */
	bool diagnose;      /* --diagnose */
	const char *compare[2]; /* --compare A B */
	const char *sweep;  /* --sweep KEY=V1,V2,... */
	bool list;          /* --list */
	const char *metrics; /* -M NAME[,NAME...] */
	const char *metric_files[CLI_METRIC_FILES_MAX]; /* --metric-file, in order */
	unsigned nmetric_files;
	bool top;            /* --top: the live view */
	enum cli_action action;
};

/* What an option's handler returns: parse on, or stop and do a->action. */
enum { CLI_NEXT = 0, CLI_STOP = 1 };

/*
 * One option.  --help prints, in table order,
 *     "  -l, --name ARG      help"
 * (help: '\n' starts a continuation line; when help_value is set, help
 * is a format with one %s it fills), and the Usage: line is "Usage: PROG"
 * followed by the synopsis of every row that has one.
 */
struct cli_option {
	const char *name;     /* long name, without "--" */
	char letter;          /* short option, 0 for none */
	const char *arg;      /* the value's name ("SEC"), NULL: takes no value */
	const char *synopsis; /* part of the Usage: line ("[-t SEC]"), or NULL */
	const char *help;
	const char *(*help_value)(void);
	/* Take the option; value is NULL for an option without one.
	 * Returns CLI_NEXT, CLI_STOP, or -1 with e set (status
	 * CLI_EXIT_USAGE).  options.c has handlers for the usual kinds: a
	 * flag (FLAG(watch): the bool at `field` of struct cli_args), a
	 * non-empty string (STRING(record, "file name"): the const char * at
	 * `field`, `what` names it in the error) and an action that ends the
	 * parsing (`action`, as --help does). */
	int (*take)(const struct cli_option *o, struct cli_args *a, const char *value,
		    struct cli_error *e);
	size_t field;
	const char *what;
	enum cli_action action;
};

extern const struct cli_option cli_options[];
extern const size_t cli_noptions;

/* The command line into a: 0, or -1 with e set (status 2).  Never
 * prints, never exits; resets getopt first, so it can run again. */
int cli_parse(int argc, char **argv, struct cli_args *a, struct cli_error *e);
/* The --help text. */
void cli_usage(FILE *out);

/* ------------------------------------------------------------ record.c */

struct cli_recorder {
	char *path;   /* as given, for messages */
	char *target; /* the file the recording replaces (links followed) */
	char *tmp;    /* ".NAME.XXXXXX" beside target while recording */
	int fd;       /* of tmp, -1 when not recording */
	FILE *pending; /* images of the report in progress */
	char *pending_buf;
	size_t pending_len;
	off_t committed;  /* length of the file before the last commit */
	unsigned images;
};

/*
 * Check the --record path and create the temporary file beside its
 * target, before anything is measured.  Refused (status 2): a folder, a
 * device, a FIFO, a socket, and the file that device (-d) reads, found by
 * device and inode.  A symbolic link is followed: the recording replaces
 * the file it points to.  Returns 0 or -1 with e set.
 */
int cli_record_open(struct cli_recorder *rec, const char *path, const char *device,
		    struct cli_error *e);
/* The comment that gives the UNIX time of a recording's clock. */
#define CLI_CLOCK_COMMENT "# clock: UNIX time = @snapshot + "
/* The header comments: version, command line, device, and the UNIX time
 * of the device's clock when unix_offset is not NULL ("# clock: UNIX time
 * = @snapshot + SECONDS", which a series of the replay reads back). */
int cli_record_header(struct cli_recorder *rec, int argc, char **argv, const char *device,
		      const double *unix_offset, struct cli_error *e);
/* A report begins; its readings are kept until it is complete. */
int cli_record_begin(struct cli_recorder *rec, struct cli_error *e);
int cli_record_add(struct cli_recorder *rec, const struct pt_layout *l,
		   const struct pt_reading *r, struct cli_error *e);
/* The report is complete: its images go to the file. */
int cli_record_commit(struct cli_recorder *rec, struct cli_error *e);
/* The report committed last could not be printed: take its images back
 * out of the file. */
void cli_record_undo(struct cli_recorder *rec);
/* The report was not printed: its images are dropped. */
void cli_record_drop(struct cli_recorder *rec);
/* keep: fsync and rename the file into place (when it holds complete
 * images); otherwise remove it.  Returns 0 or -1 with e set. */
int cli_record_close(struct cli_recorder *rec, bool keep, struct cli_error *e);

/* ------------------------------------------------------------- truth.c */

/*
 * The ground truth of a simulated card over the reading just taken
 * (interval: between its two snapshots; totals: since the last clear),
 * as data for the renderers.  0, or -ENOTSUP when bus is not the
 * simulated card (then there is no truth to print).
 */
int cli_sim_truth(struct pt_bus *bus, const struct pt_layout *l, bool interval,
		  struct pt_truth *out);

/* ------------------------------------------------------ compare.c, sweep.c */

/* --compare: measure both devices, print them side by side; the exit
 * status (e set when it is not 0). */
int cli_compare_run(const struct cli_args *a, FILE *out, struct cli_error *e);
/* --sweep: one simulated card per value, printed as columns. */
int cli_sweep_run(const struct cli_args *a, FILE *out, struct cli_error *e);

/* -------------------------------------------------------------- wrap.c */

/* What the run knows of its clocks, for wrap safety. */
struct cli_wrap {
	double hz[2];   /* the fastest PCIe and DMA clock measured so far, Hz */
	double seconds; /* the shortest time in which a counter can wrap at those
			   rates (pt_layout_wrap_seconds); infinity while unknown */
	bool risk;      /* the last interval was longer than that */
	bool warn;      /* an interval was longer: warn at the end of the run */
	double risk_seconds; /* the length of that interval */
	char what[160]; /* "a 33-bit counter can wrap in 0.169 s at ..." */
};

/* ------------------------------------------------------------ series.c */

/* Where the readings come from and what their times mean (docs/series.md). */
struct cli_source {
	char *device;   /* the device column: -d, or a replayed recording's device */
	bool replay;    /* device is the one a replayed recording names */
	bool unix_time; /* device time + offset is UNIX time */
	double offset;
};

/* ------------------------------------------------------------ report.c */

struct cli_session {
	const struct cli_args *a;
	int argc;
	char **argv;
	struct pt_dev dev;
	struct pt_reading first, second, diff;
	struct pt_truth truth; /* a simulated card's, for --diagnose -j */
	struct cli_recorder rec;
	FILE *out, *err;
	bool noted_totals, noted_short; /* notes.c: each note once a run */
	struct pt_metric_set *metrics; /* bound to dev.layout, built-in ones first */
	unsigned *chosen;              /* -M: instances of metrics, in set order */
	unsigned nchosen;
	unsigned long reports;         /* reports printed so far */
	double seconds;                /* the last report's interval (0: totals) */
	struct cli_wrap wrap;
	struct cli_source src;
	unsigned *all;                 /* a series without -M: every instance */
	double deadline;               /* a series: device time of the next snapshot */
};

/* The outcome of one step: done, stopped by a signal, or failed. */
enum cli_step { STEP_OK, STEP_STOPPED, STEP_FAILED };

/* Measure, render and print reports as a asks; returns the exit status
 * (e set when it is not 0). */
int cli_report_run(struct cli_session *s, struct cli_error *e);
/*
 * Write buf whole to out.  Returns 0; -EINTR when stoppable and a stop
 * request came before any of it was written (nothing printed); -EPIPE
 * when the reader went away; another negative errno (e set) for a
 * failure.  A write that a signal interrupts after part of buf is out
 * goes on, so that a reader never sees half of it.
 */
int cli_print_whole(FILE *out, const char *buf, size_t len, bool stoppable, struct cli_error *e);
/* Render with render(m, arg, json) into memory, then print it whole
 * (what names it in messages: "the comparison").  0, or -1 with e set. */
int cli_render_whole(FILE *out, int (*render)(FILE *, const void *, bool), const void *arg,
		     bool json, const char *what, struct cli_error *e);
/* The same for a descriptor; stoppable: return -EINTR as above. */
int cli_write_all(int fd, const char *buf, size_t len, bool stoppable);

/* ------------------------------------------------------------- notes.c */

/*
 * Notes go to the error stream as "nfb-pcie-telemetry: note: ...", never
 * to the output, which stays what upstream prints.
 */
/* After -c: what the clear did on a device that is no card (an image is
 * a replay, a dump mapped without ,rw is never written, a simulated card
 * ends with the run); nothing for a card. */
void cli_note_clear(struct cli_session *s);
/* After a report: -t 0 on a simulated card covers its warm-up alone; an
 * interval shorter than ten read-outs of the slowest probe clock gives
 * coarse shares.  Each at most once a run. */
void cli_note_report(struct cli_session *s, const struct pt_reading *r, double seconds);
/* How a note starts. */
#define CLI_NOTE_PREFIX CLI_PROG ": note: "
/* The length of the notes and warnings (CLI_WARNING) at the start of what
 * was written to the error stream (err, len): what follows them is the
 * error, if any (for tests that check that an error is one line). */
size_t cli_notes_length(const char *err, size_t len);

/* ----------------------------------------------------------- devices.c */

/* --list-devices: the libnfb devices with their components, the PCI
 * functions of CESNET cards, and the -d string of each, on out.
 * Returns the exit status (e set when it is not 0). */
int cli_list_devices(FILE *out, struct cli_error *e);
/* ----------------------------------------------------------- metrics.c */

/*
 * The metrics of layout l into s->metrics: the built-in ones, then every
 * --metric-file in order, bound to l; with -M, the instances it names into
 * s->chosen.  0, or -1 with e set: status 2 for a metric file or an -M
 * name at fault ("--metric-file: FILE:LINE: metric 'NAME': ...", "-M:
 * metric 'NAME': ..."), 1 when out of memory.
 */
int cli_metrics_prepare(struct cli_session *s, const struct pt_layout *l, struct cli_error *e);
void cli_metrics_free(struct cli_session *s);
/*
 * --list: every counter and metric of the layout, printed whole: of the
 * open component (-d), or, without -d, of the firmware's default
 * generics (no device is opened).  Returns the exit status.
 */
int cli_list(struct cli_session *s, bool device, struct cli_error *e);

/* --------------------------------------------------------------- top.c */

/* --top needs a terminal on standard output: 0, or -1 with e set (status
 * 2, before anything is opened). */
int cli_top_check(FILE *out, struct cli_error *e);
/*
 * The live view on s->dev (opened in real time), until q, SIGINT or
 * SIGTERM (status 0) or an error (status 1, e set).  The terminal is
 * given back before it returns, so the caller prints the message on a
 * normal screen.
 */
int cli_top_run(struct cli_session *s, struct cli_error *e);

/* ----------------------------------------------------------- series.c */

/*
 * Before the readings: the device column and the clock of the time
 * column (for an image, from the recording's header comments), and with
 * a series the instances it writes.  0, or -1 with e set.
 */
int cli_source_prepare(struct cli_session *s, struct cli_error *e);
void cli_source_free(struct cli_session *s);
/*
 * One point of a series: measured (intervals follow each other without
 * a gap: the second reading of one is the first of the next), recorded,
 * checked for wraps and rendered into out, after the CSV header or the
 * JSON-lines first line when it is the first.
 */
enum cli_step cli_series_step(struct cli_session *s, FILE *out, struct cli_error *e);

/* -------------------------------------------------------------- wrap.c */

/*
 * With -w on a device whose clock runs (not an image): two readings
 * 10 ms apart give the clock rates, and an interval longer than the
 * shortest wrap time is refused (status 2) before anything is measured.
 * STEP_OK, STEP_STOPPED, or STEP_FAILED with e set.
 */
enum cli_step cli_wrap_probe(struct cli_session *s, struct cli_error *e);
/*
 * After an interval d of `seconds`: the rates learnt, w->risk set when it
 * was longer than the wrap time.  With -w, the first interval refuses a
 * requested interval longer than the wrap time (-1 with e set, status
 * 2); 0 otherwise.
 */
int cli_wrap_check(struct cli_session *s, const struct pt_reading *d, double seconds,
		   struct cli_error *e);
/* At the end of a run that succeeded: the warning, when an interval was
 * too long (at the end, so that an error is always one line alone). */
void cli_wrap_warn(struct cli_session *s);

/* ----------------------------------------------------------- signals.c */

struct cli_signals {
	struct sigaction old_int, old_term, old_pipe; /* as they were */
};

/* SIGINT and SIGTERM request a stop (pt_bus_request_stop); a second one
 * acts as usual.  SIGPIPE is ignored: a closed output is a write error. */
void cli_signals_install(struct cli_signals *s);
void cli_signals_restore(struct cli_signals *s);

#endif
