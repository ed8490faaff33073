/*
 * pcie-telemetry: helpers every module that reads a file or echoes user
 * input shares (private to the library and the tools under tools/).
 *
 * Files: a file the library reads is opened without blocking, checked to
 * be a regular file of at most a documented size, and then read; a FIFO
 * without a writer, a device or a folder is refused at once with a
 * one-line message instead of hanging or eating the memory.
 *
 * Messages: every message the library and the tools produce is one line.
 * A control character of an echoed argument or of file content is shown
 * as \xNN.
 *
 * Prefix: pt_util_.  Functions return 0 (or a descriptor) or a negative
 * errno with a one-line message in the caller's buffer; nothing prints.
 */
#ifndef PT_UTIL_H
#define PT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Open path to read it: O_RDONLY | O_NONBLOCK | O_CLOEXEC (so that the
 * open of a FIFO without a writer or of a device returns at once), then
 * fstat.  Anything but a regular file is refused, and so is a file of
 * more than max_bytes.  `what` names the file in messages ("register
 * image", "scenario file"):
 *     PATH: cannot open the WHAT: No such file or directory
 *     PATH: cannot read the WHAT: it is a FIFO, not a regular file
 *     PATH: the WHAT has 2147483648 bytes, more than its limit of 1 GiB
 * On success the descriptor is blocking again, and *size (may be NULL)
 * is the file's size.  Returns the descriptor or a negative errno.
 */
int pt_util_open_file(const char *path, const char *what, uint64_t max_bytes, uint64_t *size,
		      char *msg, size_t msglen);

/*
 * The whole of a file opened as pt_util_open_file() does, in one
 * allocation of its size plus a terminating NUL (*len excludes it); a
 * file that grows past max_bytes while it is read is refused as well.
 * The caller frees *data.  Returns 0 or a negative errno.
 */
int pt_util_read_file(const char *path, const char *what, size_t max_bytes, char **data,
		      size_t *len, char *msg, size_t msglen);

/*
 * Before a command opens any file: a closed descriptor 0, 1 or 2 gets
 * /dev/null, opened read-only, so that no file the command opens takes
 * its number (the report for "standard output" would land in it).
 * Reading it gives the end of the file, writing fails with EBADF as on
 * the closed descriptor, so the command behaves as before.  Returns 0 or
 * a negative errno (the command must then refuse to run).
 */
int pt_util_std_fds(void);

/* "a folder", "a FIFO", "a character device", ... for a message. */
const char *pt_util_file_kind(mode_t mode);

/* "1 GiB", "199 bytes": a limit as the documentation states it. */
const char *pt_util_size_text(uint64_t bytes, char *buf, size_t buflen);

/*
 * Copy srclen bytes of src into dst with every control character (below
 * 0x20, and 0x7F) written as \xNN; other bytes, UTF-8 included, stay.
 * dst is always NUL-terminated (when dstlen > 0) and cut at a whole
 * character.  Returns dst.
 */
char *pt_util_escape(char *dst, size_t dstlen, const char *src, size_t srclen);

/* The same for a NUL-terminated string (NULL gives ""). */
char *pt_util_esc(char *dst, size_t dstlen, const char *s);

/* Escape msg in place (cut to msglen): the message is then one line. */
void pt_util_oneline(char *msg, size_t msglen);

#endif
