/* mouse.h: xterm mouse reports decoded from the bytes the terminal sends,
 * with no curses, so that a report is read whole whatever the terminfo
 * entry says about it and its bytes never reach the key table. */
#ifndef PMCTOP_UI_MOUSE_H
#define PMCTOP_UI_MOUSE_H

#include <stdbool.h>

/* A report: button 0-2, or 64/65 for the wheel up/down; the 0-based cell;
 * press (a release or a motion is not). */
struct ui_mouse { int button, x, y; bool press; };

/* The longest report mouse_decode reads: "<" and three numbers of up to
 * five digits, two ';' and the final byte. */
#define MOUSE_REPORT_MAX 20

/* Decodes the bytes that follow ESC [ : SGR 1006 "<B;X;Y" then 'M'
 * (press) or 'm' (release), or X10 "M" then three bytes of 32 + button,
 * 33 + column, 33 + line. Returns the bytes the report takes when buf
 * holds all of it (and fills *m), 0 when buf is the start of a report
 * that is not yet all there, -1 when it is not a mouse report. */
int mouse_decode(const unsigned char *buf, int len, struct ui_mouse *m);

#endif
