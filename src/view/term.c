/*
 * pcie-telemetry: the terminal of the live view (ncurses).
 *
 * The only file that includes curses.h.  A screen composed by
 * pt_view_compose() is painted cell by cell; ncurses sends only what
 * changed.  Roles become colour pairs when the terminal has colours and
 * the caller allows them, otherwise attributes (reverse, bold, underline)
 * that every terminal with cursor addressing has.
 *
 * ncurses installs handlers for SIGINT, SIGTERM, SIGTSTP and SIGWINCH
 * only where the program left the default: the tool handles the first,
 * second and fourth itself, and SIGTSTP (Ctrl-Z: the terminal given back
 * while stopped) is put back as it was on close.
 */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "view/view_priv.h"

struct pt_view_term {
	SCREEN *scr;
	FILE *in, *out;
	bool unicode;
	char *old_ctype; /* LC_CTYPE as it was */
	struct sigaction old_tstp;
	attr_t attr[PT_VIEW_ROLES];
	short pair[PT_VIEW_ROLES];
};

/* Colours (foreground, background; -1 the terminal's default) and the
 * attributes without colours, by role. */
static const struct {
	short fg, bg;
	attr_t colour_attr, mono_attr;
} roles[PT_VIEW_ROLES] = {
	[PT_VIEW_NORMAL] = { -1, -1, A_NORMAL, A_NORMAL },
	[PT_VIEW_TITLE] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[PT_VIEW_HEADER] = { -1, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[PT_VIEW_WORDS] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[PT_VIEW_STALL] = { COLOR_RED, -1, A_NORMAL, A_NORMAL },
	[PT_VIEW_BRAKE] = { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[PT_VIEW_SPARK] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
	[PT_VIEW_WARN] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[PT_VIEW_KEYS] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
};

static void set_roles(struct pt_view_term *t, bool colour)
{
	bool dflt;

	colour = colour && has_colors() && start_color() == OK;
	dflt = colour && use_default_colors() == OK;
	for (int r = 0; r < PT_VIEW_ROLES; r++) {
		t->pair[r] = 0;
		t->attr[r] = colour ? roles[r].colour_attr : roles[r].mono_attr;
		if (!colour || (roles[r].fg < 0 && roles[r].bg < 0) || r >= COLOR_PAIRS)
			continue;
		short fg = roles[r].fg, bg = roles[r].bg;

		if (!dflt) { /* no default colours: white on black */
			fg = fg < 0 ? COLOR_WHITE : fg;
			bg = bg < 0 ? COLOR_BLACK : bg;
		}
		if (init_pair((short)r, fg, bg) == OK)
			t->pair[r] = (short)r;
	}
}

static void restore_process(struct pt_view_term *t)
{
	sigaction(SIGTSTP, &t->old_tstp, NULL);
	if (t->old_ctype)
		setlocale(LC_CTYPE, t->old_ctype);
	free(t->old_ctype);
	free(t);
}

int pt_view_term_open(FILE *in, FILE *out, bool colour, struct pt_view_term **tp, char *msg,
		      size_t msglen)
{
	struct pt_view_term *t = calloc(1, sizeof *t);
	const char *term = getenv("TERM");
	const char *ctype;

	*tp = NULL;
	if (!t || !(ctype = setlocale(LC_CTYPE, NULL)) || !(t->old_ctype = strdup(ctype))) {
		free(t);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	sigaction(SIGTSTP, NULL, &t->old_tstp);
	setlocale(LC_CTYPE, "");
	t->unicode = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	t->in = in;
	t->out = out;
	if (pt_view_term_check(term, fileno(out), msg, msglen) < 0) {
		restore_process(t);
		return -ENOTTY;
	}
	t->scr = newterm(NULL, out, in);
	if (!t->scr) {
		snprintf(msg, msglen, "TERM=%s: ncurses cannot set up this terminal", term);
		restore_process(t);
		return -ENOTTY;
	}
	set_term(t->scr);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	set_roles(t, colour);
	*tp = t;
	return 0;
}

void pt_view_term_close(struct pt_view_term *t)
{
	if (!t)
		return;
	set_term(t->scr);
	curs_set(1);
	endwin();
	fflush(t->out);
	delscreen(t->scr);
	restore_process(t);
}

int pt_view_term_fd(const struct pt_view_term *t)
{
	return fileno(t->in);
}

bool pt_view_term_unicode(const struct pt_view_term *t)
{
	return t->unicode;
}

void pt_view_term_size(const struct pt_view_term *t, unsigned *rows, unsigned *cols)
{
	(void)t;
	*rows = LINES > 0 ? (unsigned)LINES : 1;
	*cols = COLS > 0 ? (unsigned)COLS : 1;
}

void pt_view_term_resize(struct pt_view_term *t)
{
	struct winsize ws;

	if (ioctl(fileno(t->out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
}

int pt_view_term_paint(struct pt_view_term *t, const struct pt_view_screen *s)
{
	unsigned rows, cols;

	pt_view_term_size(t, &rows, &cols);
	for (unsigned r = 0; r < rows; r++) {
		for (unsigned c = 0; c < cols; c++) {
			struct pt_view_cell cell = { ' ', PT_VIEW_NORMAL };
			wchar_t wc[2] = { 0, 0 };
			cchar_t cc;

			if (r < s->rows && c < s->cols)
				cell = s->cell[(size_t)r * s->cols + c];
			if (cell.role >= PT_VIEW_ROLES)
				cell.role = PT_VIEW_NORMAL;
			wc[0] = (wchar_t)(cell.ch < 0x80 || t->unicode ? cell.ch : '?');
			setcchar(&cc, wc, t->attr[cell.role], t->pair[cell.role], NULL);
			/* the last cell of the screen returns ERR (no room to
			 * move the cursor on), yet it is written */
			mvwadd_wch(stdscr, (int)r, (int)c, &cc);
		}
	}
	return wrefresh(stdscr) == OK ? 0 : -EIO;
}

int pt_view_term_key(struct pt_view_term *t)
{
	int k;

	(void)t;
	k = wgetch(stdscr);
	if (k == ERR)
		return PT_VIEW_KEY_NONE;
	if (k == KEY_RESIZE)
		return PT_VIEW_KEY_RESIZE;
	switch (k) {
	case KEY_RIGHT:
		return 'e';
	case KEY_LEFT:
		return 'E';
	default:
		return k;
	}
}
