/*
 * error.c - filling sc_error values.  See error.h.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

sc_status sc_error_set(sc_error *err, sc_status code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->code = code;
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

sc_status sc_error_nomem(sc_error *err, const char *what)
{
	return sc_error_set(err, SC_ERR_NOMEM, "out of memory while allocating %s", what);
}

void sc_error_clear(sc_error *err)
{
	if (err) {
		err->code = SC_OK;
		err->msg[0] = '\0';
	}
}
