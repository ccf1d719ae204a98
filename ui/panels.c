/* panels.c: the dashboard's panels (panel.h) in one list, in drawing
 * order, and what the frame and the request do with all of them: their
 * state made and freed, the metrics they read and pin collected for the
 * source's request (views.c). */
#include "config.h"
#include "panel.h"

#include <stdlib.h>
#include "util.h"

static const struct panel_ops *const panel_list[] = {
	&panel_table_ops, &panel_ccx_ops, &panel_mem_ops, &panel_power_ops,
	&panel_detail_ops, &panel_footer_ops, &panel_header_ops,
};

void ui_panels_init(struct ui *u)
{
	ui_panels_free(u);
	u->npanels = (int)ARRAY_SIZE(panel_list);
	u->panels = xcalloc((size_t)u->npanels, sizeof(*u->panels));
	for (int i = 0; i < u->npanels; i++) {
		u->panels[i].ops = panel_list[i];
		if (panel_list[i]->init)
			panel_list[i]->init(&u->panels[i], u);
	}
}

void ui_panels_free(struct ui *u)
{
	for (int i = 0; i < u->npanels; i++) {
		struct panel *p = &u->panels[i];
		if (p->ops->free)
			p->ops->free(p);
		else
			free(p->st);
	}
	free(u->panels);
	u->panels = NULL;
	u->npanels = 0;
}

void ui_panels_needs(const struct ui *u, int *metrics, int *n, int *pins, int *np)
{
	for (int i = 0; i < u->npanels; i++)
		if (u->panels[i].ops->needs)
			u->panels[i].ops->needs(&u->panels[i], u, metrics, n, pins, np);
}

const struct panel *ui_panel(const struct ui *u, const struct panel_ops *o)
{
	for (int i = 0; i < u->npanels; i++)
		if (u->panels[i].ops == o)
			return &u->panels[i];
	return NULL;
}
