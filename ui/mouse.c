/* mouse.c: the two encodings of xterm's mouse reports that pmctop asks
 * for (1000 with 1006) or may get instead (a terminal without 1006 sends
 * X10 bytes). Pure: tested in check_keys without a terminal. */
#include "config.h"
#include "mouse.h"

/* The button byte of either encoding: low bits the button (3: a release
 * in X10), 32 motion, 64 the wheel; 4, 8 and 16 are Shift, Meta and
 * Control, which pmctop does not tell apart. */
static void mouse_button(int b, int x, int y, bool press, struct ui_mouse *m)
{
	bool wheel = b & 64;
	*m = (struct ui_mouse){ .button = (b & 3) | (wheel ? 64 : 0), .x = x, .y = y, .press = press };
	if ((b & 32) || (!wheel && (b & 3) == 3))
		m->press = false;    /* motion, or an X10 release: not a click */
}

static int decode_sgr(const unsigned char *buf, int len, struct ui_mouse *m)
{
	int v[3] = { 0, 0, 0 }, k = 0, digits = 0;
	for (int i = 1; i < len; i++) {
		unsigned char c = buf[i];
		if (c >= '0' && c <= '9') {
			if (++digits > 5)
				return -1;
			v[k] = v[k] * 10 + (c - '0');
		} else if (c == ';' && digits && k < 2) {
			k++;
			digits = 0;
		} else if ((c == 'M' || c == 'm') && digits && k == 2) {
			if (v[1] < 1 || v[2] < 1)
				return -1;
			mouse_button(v[0], v[1] - 1, v[2] - 1, c == 'M', m);
			return i + 1;
		} else {
			return -1;
		}
	}
	return len < MOUSE_REPORT_MAX ? 0 : -1;
}

int mouse_decode(const unsigned char *buf, int len, struct ui_mouse *m)
{
	if (len < 1)
		return 0;
	if (buf[0] == '<')
		return decode_sgr(buf, len, m);
	if (buf[0] != 'M')
		return -1;
	if (len < 4)
		return 0;
	/* X10: each byte is 32 more than its value, cells counted from 1. */
	if (buf[1] < 32 || buf[2] < 33 || buf[3] < 33)
		return -1;
	mouse_button(buf[1] - 32, buf[2] - 33, buf[3] - 33, true, m);
	return 4;
}
