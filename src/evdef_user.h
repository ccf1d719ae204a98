/* evdef_user.h: the user's own views, made in the dashboard's view editor
 * (F2, then "Edit views") and kept in a file of view stanzas written in
 * the same syntax as events/ (docs/settings.md): loading them into a
 * model beside its own views, adding, replacing and removing one, and
 * writing them back as text. The model's own views are never changed. */
#ifndef PMCTOP_EVDEF_USER_H
#define PMCTOP_EVDEF_USER_H

#include "evdef.h"

/* Where model m's user views live: $XDG_CONFIG_HOME/pmctop/views/MODEL.def
 * (or under ~/.config); NULL without either variable. The caller frees. */
char *user_views_path(const struct model *m);

/* Adds each view stanza of path to m, marked user. A missing file adds
 * nothing; a file that does not parse adds nothing; a stanza that is not
 * a view, or a view that does not build (an unknown metric, a name or key
 * the model already has), is skipped. Each problem is one line of
 * *warnings ("FILE:LINE:COL: ..."). Returns the number of views added. */
int model_add_user_views(struct model *m, const char *path, char **warnings);

/* Adds a copy of v as a user view, or with replace >= 0 puts it in place
 * of user view replace. Refuses a bad name, a name or key another view
 * has, and a view without columns. Returns the view's index, or -1 with
 * *cause. */
int model_put_view(struct model *m, int replace, const struct view_def *v, char **cause);

/* The format a view column is shown and saved with: its own, else the
 * one model_put_view gives it ("pct" for a ratio, "%.2f" otherwise), so
 * that the view editor shows what the saved file will say. */
const char *view_col_fmt(const struct model *m, const struct view_col *c);

/* Removes user view i. Returns 0, or -1 if i is not a user view. */
int model_drop_view(struct model *m, int i);

/* m's user views as definition text that model_add_user_views reads back
 * to the same views. The caller frees. */
char *model_user_views_text(const struct model *m);

#endif
