/*
 * info_onnx.h - what `stagecut info` adds for an ONNX model (info_onnx.c):
 * the loader's report as JSON and as lines.
 */
#ifndef UI_INFO_ONNX_H
#define UI_INFO_ONNX_H

#include <jansson.h>

#include "core/graph.h"
#include "core/formats/onnx.h"

/* info --json's "onnx" object. */
json_t *ui_info_onnx_json(const sc_onnx_report *r);

/* info's lines about the model: opset, device, precision, op model. */
void ui_info_onnx_print(const sc_onnx_report *r);

#endif
