/*
 * wb_files.h - saving, loading, quitting and reloading with measured times
 * (wb_files.c).
 */
#ifndef UI_WB_FILES_H
#define UI_WB_FILES_H

#include <stdbool.h>

#include "tui/wb/wb.h"

/* Asks for a file name and saves the current partition; with then_quit the
 * answer's result has WB_QUIT when the partition was saved. */
unsigned wb_save(wb *w, bool then_quit);
/* Asks for a partition file and makes it the current partition. */
unsigned wb_load(wb *w);
/* Quits, asking first when the partition has unsaved edits. */
unsigned wb_quit(wb *w);

/* T: asks for a file of measured op times (times.h) and reloads the graph
 * with them: the jobs start over, the partition stays. */
unsigned wb_load_times(wb *w);

#endif
