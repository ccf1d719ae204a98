/* main.c: placeholder entry point (replaced by the real one). */
#include "config.h"
int main(void) { return 0; }
