/* settings.h: the dashboard's saved settings (pmctoprc): where the file
 * lives, reading it (a bad line is skipped with a warning that names the
 * file and line, so a bad file never stops pmctop), and writing it
 * atomically. The command line wins over the file; --no-config skips it.
 * docs/settings.md describes the format. */
#ifndef PMCTOP_SETTINGS_H
#define PMCTOP_SETTINGS_H

#include <stdbool.h>

enum settings_colors { COLORS_DEFAULT, COLORS_MONO, COLORS_LIGHT, COLORS_KINDS };

struct settings {
	/* Each field with its "set" flag: only what the file says is applied. */
	bool has_interval; double interval_s;
	bool has_view; char *view;          /* view or metric group name */
	bool has_colors; int colors;        /* enum settings_colors */
	bool has_rows; int rows;            /* 0 CPU, 1 core, 2 CCX, 3 socket */
	bool has_ccx; bool show_ccx;
	bool has_errors; bool show_errors;  /* each figure's +-95% */
	bool has_sort; char *sort;          /* a metric or event name, or "cpu" */
	bool sort_reverse;
	int view_line, sort_line;           /* where view and sort were read (0: not from a file) */
};

/* $XDG_CONFIG_HOME/pmctop/pmctoprc, else $HOME/.config/pmctop/pmctoprc;
 * NULL where neither variable is set. The caller frees. */
char *settings_path(void);
/* Reads path into s (zeroed first). A missing file is not an error.
 * Returns 0; any line it could not use is skipped and described in
 * *warnings ("FILE:LINE: expected ...", one per line; past the first 20,
 * one line counts the rest), or NULL. Returns -1
 * only when the file exists but cannot be read (with *warnings). */
int settings_load(const char *path, struct settings *s, char **warnings);
/* Writes s to path with config_write_atomic. Returns 0, or -1 with *cause. */
int settings_save(const char *path, const struct settings *s, char **cause);

/* $XDG_CONFIG_HOME/pmctop/NAME, else $HOME/.config/pmctop/NAME; NULL where
 * neither variable is set. The caller frees. */
char *config_file_path(const char *name);
/* Writes text to path: the directory is made (0700) if missing, the text
 * goes to a new temporary file beside it (0600) that then replaces path
 * in one rename, so a reader never sees half a file and a planted symlink
 * at path is replaced, not followed. Returns 0, or -1 with *cause. */
int config_write_atomic(const char *path, const char *text, char **cause);
void settings_free(struct settings *s);

const char *settings_colors_name(int colors);

#endif
