/*
 * outputs.h - the files a batch command writes, kept apart from the files
 * it reads, and render --full's set of pages written as a whole.
 *
 * Before anything runs, every name a command may write is compared with
 * every file it reads (ui_outputs_check): -o, and for render --full every
 * page name of -o (OUT-1, OUT-2, ...; viz/full.h), against the graph, a
 * partition, --partition, --bounds, --times and --device, by identity
 * (device and inode: links and other spellings of a path count) where the
 * files exist, by path where they do not.  How many pages a picture takes
 * is known only once it is drawn, so every file in OUT's directory whose
 * name is a page name of OUT is compared, whatever its number.
 *
 * render --full draws into a staging directory beside OUT (ui_staging) and
 * moves the files into place only once all are drawn, the pages first and
 * the overview last, each atomically (core/fileio.h): an interrupted render
 * leaves the earlier picture, never part of a new one, and no temporary
 * file.  Pages of an earlier, longer picture at OUT are then removed
 * (ui_remove_stale_pages), so that the page files beside OUT are always
 * one picture's.
 */
#ifndef UI_OUTPUTS_H
#define UI_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "tui/ui.h"

/* Whether command may run with o's names: false, after one message naming
 * the output and the input it would replace or remove, when one of the
 * names it writes (above) is a file it reads.  bench is not asked: it
 * reads its -o file on purpose (to resume) and keeps it out of its graphs
 * itself. */
bool ui_outputs_check(const ui_opts *o, const char *command);

/* Whether a and b name one file: the same device and inode when both
 * exist, the same path when neither does. */
bool ui_same_file(const char *a, const char *b);

/* A staging directory beside an output: dir (a new ".stagecut-XXXXXX" in
 * the output's directory, or NULL when the output is written in place) and
 * path, the name to draw to (dir's copy of the output's file name, or the
 * output itself). */
typedef struct ui_staging {
	char *dir;
	char *path;
} ui_staging;

/* Fills s for the output out: a staging directory for a regular file or a
 * new name; none for a character device or a FIFO (/dev/null,
 * /dev/stdout), which are written through, never replaced.  Returns SC_OK,
 * or SC_ERR_IO (naming out's directory) or SC_ERR_NOMEM with s empty. */
sc_status ui_staging_open(ui_staging *s, const char *out, sc_error *err);

/* Moves what was drawn to s->path (pages 1..pages by sc_full_page_path's
 * names, then the picture itself) to out's names, each atomically, and
 * removes the staging directory.  On a failed write the files not yet
 * moved are dropped (the pages moved stay) and err names the file.  Frees
 * s in every case. */
sc_status ui_staging_commit(ui_staging *s, const char *out, int pages, sc_error *err);

/* Rewrites msg (a NUL-terminated message in a buffer of size bytes) to
 * name the files drawn into s as out's names: s->dir/ becomes out's
 * directory. */
void ui_staging_rename_in(const ui_staging *s, const char *out, char *msg, size_t size);

/* Removes the staging directory and everything drawn into it; frees s.
 * Safe on an empty s. */
void ui_staging_abort(ui_staging *s);

/* Removes the files in out's directory named as pages of out numbered
 * above pages (those of an earlier, longer picture), and nothing else.
 * Returns how many it removed; first and last (size bytes each, may be
 * NULL) get the lowest and highest of their names. */
int ui_remove_stale_pages(const char *out, int pages, char *first, char *last, size_t size);

#endif
