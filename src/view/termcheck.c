/*
 * pcie-telemetry: whether the terminal can show the live view, asked of
 * the terminal database before ncurses takes the screen.  newterm()
 * accepts a terminal that cannot move the cursor (TERM=dumb) and leaks
 * what it set up when it refuses an unknown one; setupterm() does
 * neither.  Apart from term.c because term.h defines hundreds of short
 * names (lines, columns, ...) as macros.
 */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <term.h>

#include "view/view_priv.h"

int pt_view_term_check(const char *term, int fd, char *msg, size_t msglen)
{
	TERMINAL *prev = cur_term;
	const char *cup;
	int err = 0;
	bool moves;

	if (!term || !*term) {
		snprintf(msg, msglen, "TERM is not set (the live view needs a terminal type, e.g. "
			 "TERM=xterm)");
		return -ENOTTY;
	}
	if (setupterm(term, fd, &err) != OK) {
		snprintf(msg, msglen, "TERM=%s: %s", term,
			 err < 0 ? "no terminal database (Debian package ncurses-base)"
				 : "no such terminal type in the terminal database");
		set_curterm(prev);
		return -ENOTTY;
	}
	cup = tigetstr("cup");
	moves = cup && cup != (const char *)-1;
	del_curterm(cur_term);
	set_curterm(prev);
	if (!moves) {
		snprintf(msg, msglen, "TERM=%s: this terminal cannot move the cursor, which the live "
			 "view needs (-w prints reports instead)", term);
		return -ENOTTY;
	}
	return 0;
}
