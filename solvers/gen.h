/* Kept for one merge so that tui/ builds unchanged: the generator moved to core/gen.h; this forwarding header will be removed. */
#include "core/gen.h"
