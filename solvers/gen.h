/* Kept for one merge so that tui/ builds unchanged (tui/cmd/cli.c and
 * cmd_gen.c include it): the generator moved to core/gen.h.  To be removed. */
#include "core/gen.h"
