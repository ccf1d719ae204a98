/* keytime.h: PMCTOP_KEY_TIMES=FILE, a measuring hook for bench/key_latency.sh
 * (docs/performance.md, "Key latency"): for each key the dashboard reads,
 * one line in FILE with how long the key's handling took, when the first
 * frame after it was on the terminal, and when the first interval that
 * came after it was drawn (the figures a re-plan asks for come with it).
 * Unset, every call is one test of a null pointer. */
#ifndef PMCTOP_UI_KEYTIME_H
#define PMCTOP_UI_KEYTIME_H

void keytime_init(void);
void keytime_done(void);
/* The key was read (before its handling). */
void keytime_key(int key);
/* Its handling is done. */
void keytime_handled(void);
/* A frame was drawn; snap: it shows an interval that came after the key. */
void keytime_frame(int snap);

#endif
