/*
 * render_caption.h - render's caption: the device and dims of an ONNX
 * model, and --bounds' lower bound.  See render_caption.c.
 */
#ifndef UI_RENDER_CAPTION_H
#define UI_RENDER_CAPTION_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/ui.h"
#include "core/formats/onnx.h"
#include "viz/caption.h"

/* The caption's device ("a100 at fp16") and dims ("N=1 (default)") from
 * an ONNX model's report. */
void ui_render_caption_device(const sc_onnx_report *r, char *device, size_t dsize, char *dims,
                              size_t dimsize);

/* --bounds: the caption's lower bound (and in by, size bytes, what gave
 * it) from the file o->bounds, which must be about g and set and not
 * exceed the partition's objective (the bottleneck, or GPipe's).  False
 * after a message. */
bool ui_render_caption_bounds(const ui_opts *o, const sc_graph *g, const sc_settings *set,
                              sc_caption *cap, char *by, size_t size, double objective,
                              double bottleneck);

#endif
