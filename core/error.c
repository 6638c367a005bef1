/*
 * error.c - filling sc_error values, and formatting messages with the names
 * they quote bounded.  See error.h.
 *
 * sc_msg_vformat walks the format one conversion at a time and hands each
 * to vsnprintf with its own argument, so that it can see which arguments
 * are quoted names ('%s'): those alone are cut, every other conversion
 * prints exactly as vsnprintf prints it.
 */
#include "error.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* vsnprintf of one piece at buf + *at (nothing written once *at passes
 * size, but *at still counts what the whole text needs) */
static void piece(char *buf, size_t size, size_t *at, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static void piece(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(*at < size ? buf + *at : NULL, *at < size ? size - *at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

/* name bounded (see error.h) at buf + *at */
static void bounded_name(char *buf, size_t size, size_t *at, const char *name)
{
	size_t len = strlen(name);
	if (len <= SC_MSG_NAME_MAX) {
		piece(buf, size, at, "%s", name);
		return;
	}
	/* cut before a UTF-8 continuation byte, never inside a character */
	size_t cut = SC_MSG_NAME_MAX;
	while (cut > 0 && ((unsigned char)name[cut] & 0xc0) == 0x80)
		cut--;
	piece(buf, size, at, "%.*s... (%zu bytes)", (int)cut, name, len);
}

int sc_msg_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t at = 0;
	if (size > 0)
		buf[0] = '\0';
	for (const char *p = fmt; *p;) {
		if (*p != '%') {
			size_t run = strcspn(p, "%");
			piece(buf, size, &at, "%.*s", (int)run, p);
			p += run;
			continue;
		}
		const char *start = p++;
		/* the conversion's spec with any '*' replaced by its value */
		char spec[64];
		size_t s = 0;
		spec[s++] = '%';
		while (*p && strchr("-+ #0'", *p) && s < 40)
			spec[s++] = *p++;
		for (int part = 0; part < 2; part++) {
			if (part == 1) {
				if (*p != '.')
					break;
				spec[s++] = *p++;
			}
			if (*p == '*') {
				s += (size_t)snprintf(spec + s, sizeof spec - s, "%d",
				                      va_arg(ap, int));
				p++;
			}
			while (isdigit((unsigned char)*p) && s < 56)
				spec[s++] = *p++;
		}
		enum { L_NONE, L_HH, L_H, L_L, L_LL, L_J, L_Z, L_T, L_LD } len = L_NONE;
		if (p[0] == 'h' && p[1] == 'h')
			len = L_HH, p += 2;
		else if (p[0] == 'l' && p[1] == 'l')
			len = L_LL, p += 2;
		else if (*p == 'h')
			len = L_H, p++;
		else if (*p == 'l')
			len = L_L, p++;
		else if (*p == 'j')
			len = L_J, p++;
		else if (*p == 'z')
			len = L_Z, p++;
		else if (*p == 't')
			len = L_T, p++;
		else if (*p == 'L')
			len = L_LD, p++;
		char conv = *p;
		if (!conv)
			break; /* a lone '%' at the end: nothing to print */
		p++;
		static const char *const mod[] = {"", "hh", "h", "l", "ll", "j", "z", "t", "L"};
		s += (size_t)snprintf(spec + s, sizeof spec - s, "%s%c", mod[len], conv);
		switch (conv) {
		case '%': piece(buf, size, &at, "%%"); break;
		case 'd':
		case 'i':
			switch (len) {
			case L_L: piece(buf, size, &at, spec, va_arg(ap, long)); break;
			case L_LL: piece(buf, size, &at, spec, va_arg(ap, long long)); break;
			case L_J: piece(buf, size, &at, spec, va_arg(ap, intmax_t)); break;
			case L_Z: piece(buf, size, &at, spec, va_arg(ap, size_t)); break;
			case L_T: piece(buf, size, &at, spec, va_arg(ap, ptrdiff_t)); break;
			default: piece(buf, size, &at, spec, va_arg(ap, int)); break;
			}
			break;
		case 'o':
		case 'u':
		case 'x':
		case 'X':
			switch (len) {
			case L_L: piece(buf, size, &at, spec, va_arg(ap, unsigned long)); break;
			case L_LL:
				piece(buf, size, &at, spec, va_arg(ap, unsigned long long));
				break;
			case L_J: piece(buf, size, &at, spec, va_arg(ap, uintmax_t)); break;
			case L_Z: piece(buf, size, &at, spec, va_arg(ap, size_t)); break;
			case L_T: piece(buf, size, &at, spec, va_arg(ap, ptrdiff_t)); break;
			default: piece(buf, size, &at, spec, va_arg(ap, unsigned)); break;
			}
			break;
		case 'e':
		case 'E':
		case 'f':
		case 'F':
		case 'g':
		case 'G':
		case 'a':
		case 'A':
			if (len == L_LD)
				piece(buf, size, &at, spec, va_arg(ap, long double));
			else
				piece(buf, size, &at, spec, va_arg(ap, double));
			break;
		case 'c': piece(buf, size, &at, spec, va_arg(ap, int)); break;
		case 'p': piece(buf, size, &at, spec, va_arg(ap, void *)); break;
		case 's': {
			const char *str = va_arg(ap, const char *);
			/* a name from the input is quoted: '%s' */
			bool quoted = start > fmt && start[-1] == '\'' && *p == '\'' && s == 2;
			if (quoted && str)
				bounded_name(buf, size, &at, str);
			else
				piece(buf, size, &at, spec, str);
			break;
		}
		default: (void)va_arg(ap, void *); break; /* %n: never used */
		}
	}
	return at > INT32_MAX ? INT32_MAX : (int)at;
}

int sc_msg_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = sc_msg_vformat(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

const char *sc_msg_name(char *buf, size_t size, const char *name)
{
	size_t at = 0;
	if (size > 0)
		buf[0] = '\0';
	bounded_name(buf, size, &at, name);
	return buf;
}

sc_status sc_error_set(sc_error *err, sc_status code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->code = code;
		sc_msg_vformat(err->msg, sizeof err->msg, fmt, ap);
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
