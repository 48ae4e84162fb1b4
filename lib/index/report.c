/* report.c — a plan as a terminal table, Markdown for $GITHUB_STEP_SUMMARY, or a self-contained HTML page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/show.h"
#include "util/sha256.h"
#include "formats/json.h"
#include "index/plan.h"
#include "index/report.h"

/* What each distribution state means for the release: the Markdown legend says it (as docs/plan.md). */
static const char *const dist_meaning[] = {
	[WM_DIST_UNCHECKED] = "not checked against an index (--offline)",
	[WM_DIST_FAILED] = "the query failed after its retries; the table says why",
	[WM_DIST_NEW] = "no such project on the index: the first upload of a project with trusted publishing "
		"needs a pending trusted publisher first",
	[WM_DIST_READY] = "the project exists and the version has no file yet: the release uploads them all",
	[WM_DIST_PUBLISHED] = "the version already has every planned file: nothing to upload",
	[WM_DIST_PARTIAL] = "the version has some of the planned files: upload only the missing ones, "
		"the index refuses a file it has",
};

static const enum wm_dist_state dist_order[] = { WM_DIST_NEW, WM_DIST_READY, WM_DIST_PARTIAL, WM_DIST_PUBLISHED,
	WM_DIST_FAILED, WM_DIST_UNCHECKED };

/* What each file state means for the release: the legends say it. */
static const char *const state_meaning[] = {
	[WM_ART_UNCHECKED] = "not checked against an index (--offline)",
	[WM_ART_UNKNOWN] = "the query for its distribution failed",
	[WM_ART_MISSING] = "not on the index: the release uploads it",
	[WM_ART_PRESENT] = "already on the index: its upload would be refused",
};

static const enum wm_artifact_state report_order[] = { WM_ART_PRESENT, WM_ART_MISSING, WM_ART_UNKNOWN,
	WM_ART_UNCHECKED };

/* The files a report lists besides the planned ones, and what each means (the legends). */
static const char unexpected_meaning[] = "on the index for the planned version, but not produced by this release";
static const char dropped_meaning[] = "a wheel of the last release that this release does not build: the plan "
	"fails unless the matrix's 'dropped' plans it, with its reason";

/*
 * Whether the index URL (as shown) has the shape of a simple index's: its path's last part ends in
 * "simple" (PyPI's /simple/, devpi's /+simple/).  Every project missing from such an index is
 * most likely a first release; from another URL, perhaps a wrong one.
 */
static bool simple_shaped(const char *url)
{
	size_t len = strcspn(url, "?");
	while (len && url[len - 1] == '/')
		len--;
	return len >= 6 && memcmp(url + len - 6, "simple", 6) == 0;
}

/*
 * Every project new: first a first release, which --first-release checks; then, only where some
 * distribution was looked up on p->index and that URL is not shaped as a simple index, that it
 * may be wrong, with PyPI's as the example (which that URL is not, having another shape).
 */
static void not_found(struct wm_buf *b, const struct wm_plan *p)
{
	bool on_index = false;
	for (size_t i = 0; i < p->ndists; i++)
		on_index |= !p->dists[i].own_index;
	wm_buf_printf(b, "not checked: this looks like a first release, as the index has none of the %zu projects "
		"yet; --first-release checks one", p->ndists);
	if (on_index && !simple_shaped(p->index))
		wm_buf_printf(b, "; if they are published, the index URL %s is wrong: a simple index's path ends in "
			"/simple/, as %s", p->index, WM_PLAN_INDEX);
}

/* "<lead> 3 wheels of the last release that the matrix does not plan to drop" */
static void dropped(struct wm_buf *b, const struct wm_plan *p, const char *lead)
{
	size_t n = wm_plan_count_dropped(p, false) - wm_plan_count_dropped(p, true);
	wm_buf_printf(b, "%s %zu %s of the last release that the matrix does not plan to drop", lead, n,
		n == 1 ? "wheel" : "wheels");
}

/* The closing sentence: what the plan means for the release. */
static void verdict(struct wm_buf *b, const struct wm_plan *p)
{
	size_t failed = 0, published = 0, partial = 0;
	for (size_t i = 0; i < p->ndists; i++) {
		failed += p->dists[i].state == WM_DIST_FAILED;
		published += p->dists[i].state == WM_DIST_PUBLISHED;
		partial += p->dists[i].state == WM_DIST_PARTIAL;
	}
	if (p->offline) {
		wm_buf_puts(b, "not checked against an index (--offline)");
		return;
	}
	switch (wm_plan_verdict(p)) {
	case WM_PLAN_INCOMPLETE:
		wm_buf_printf(b, "incomplete: the query failed for %zu of %zu distributions", failed, p->ndists);
		break;
	case WM_PLAN_NOT_FOUND:
		not_found(b, p);
		break;
	case WM_PLAN_FAIL:
		wm_buf_printf(b, "the release would fail: version %s is already published for %zu of %zu distributions",
			p->version, published, p->ndists);
		if (partial)
			wm_buf_printf(b, " and partly for %zu", partial);
		break;
	case WM_PLAN_PARTIAL:
		wm_buf_printf(b, "the release would fail as a whole: version %s is partly published for %zu of %zu "
			"distributions; upload only their missing files", p->version, partial, p->ndists);
		break;
	case WM_PLAN_DROPPED:
		dropped(b, p, "the release would drop");
		wm_buf_puts(b, ": build them again, or plan each drop under 'dropped' in the matrix, with its reason");
		return;
	case WM_PLAN_OK:
		wm_buf_puts(b, "the release can go ahead");
		return;
	}
	if (wm_plan_count_dropped(p, false) > wm_plan_count_dropped(p, true))
		dropped(b, p, "; and it would drop");
}

/*
 * "16 files: 2 present, 14 missing; 1 unexpected, 3 dropped (1 planned)": checked against an index,
 * every category, none left out for being 0 (unknown only when a query failed); offline, the files.
 */
static void counts(struct wm_buf *b, const struct wm_plan *p)
{
	size_t total = 0, planned = wm_plan_count_dropped(p, true), unknown = wm_plan_count(p, WM_ART_UNKNOWN);
	for (size_t i = 0; i < p->ndists; i++)
		total += p->dists[i].nartifacts;
	wm_buf_printf(b, "%zu %s", total, total == 1 ? "file" : "files");
	if (p->offline) {
		if (total)
			wm_buf_printf(b, ": %zu %s", total, wm_plan_artifact_state_name(WM_ART_UNCHECKED));
		return;
	}
	wm_buf_printf(b, ": %zu present, %zu missing", wm_plan_count(p, WM_ART_PRESENT), wm_plan_count(p, WM_ART_MISSING));
	if (unknown)
		wm_buf_printf(b, ", %zu unknown", unknown);
	wm_buf_printf(b, "; %zu unexpected, %zu dropped", wm_plan_count_unexpected(p), wm_plan_count_dropped(p, false));
	if (planned)
		wm_buf_printf(b, " (%zu planned)", planned);
}

/* Why dropped wheel `w` of row d is dropped: "dropped since 0.2.0, planned: <reason>" */
static void drop_note(struct wm_buf *b, const struct wm_plan_dist *d, const struct wm_dropped *w,
	void (*text)(struct wm_buf *, const char *))
{
	wm_buf_puts(b, "dropped since ");
	text(b, d->previous);
	if (w->planned) {
		wm_buf_puts(b, ", planned: ");
		text(b, w->planned->reason);
	} else {
		wm_buf_puts(b, ", not planned");
	}
}

static void size_text(struct wm_buf *b, int64_t size)
{
	wm_buf_printf(b, "%.1f MiB of the %llu MiB limit", (double)size / (1 << 20),
		(unsigned long long)(WM_PLAN_FILE_LIMIT >> 20));
}

/* ---- table ------------------------------------------------------------------- */

/* A distribution's heading: its name, and under strategy index, where every backend has the name, the backend. */
static const char *title(const struct wm_plan *p, const struct wm_plan_dist *d)
{
	const char *t = NULL;
	if (p->matrix->strategy == WM_STRATEGY_INDEX && d->backend)
		t = wm_arena_printf(p->arena, "%s (%s)", d->name, d->backend->id);
	else if (d->variant)
		t = wm_arena_printf(p->arena, "%s (variant %s)", d->name, d->variant);
	return t ? t : d->name;
}

/*
 * File names and messages can come from the index: a character a terminal
 * must not get as it is (a C0 or C1 control, whose escape sequences it would
 * run; a format character such as a bidi control, which reorders what it
 * shows; a byte that is not UTF-8) is shown escaped (util/show.c), in every
 * text format.  The JSON has them exactly, as \u escapes (json()).
 */
static void plain(struct wm_buf *b, const char *s)
{
	wm_show_puts(b, s);
}

/* `s` as plain() shows it, for a format that then escapes its own characters: in `tmp`, the caller's. */
static const char *shown(struct wm_buf *tmp, const char *s)
{
	wm_buf_clear(tmp);
	wm_buf_add(tmp, "", 0);
	wm_show_puts(tmp, s);
	return tmp->oom ? "" : tmp->ptr;
}

static void table(struct wm_buf *b, const struct wm_plan *p)
{
	wm_buf_printf(b, "version %s", p->version);
	if (p->index) {
		wm_buf_puts(b, " against ");
		plain(b, p->index);
	}
	wm_buf_putc(b, '\n');
	for (size_t i = 0; i < p->ndists; i++) {
		const struct wm_plan_dist *d = &p->dists[i];
		wm_buf_printf(b, "\n%s: ", title(p, d));
		plain(b, wm_plan_dist_summary(p, d));
		wm_buf_putc(b, '\n');
		for (size_t k = 0; k < d->nartifacts; k++) {
			const struct wm_artifact *a = &d->artifacts[k];
			wm_buf_printf(b, "  %-10s  %s", wm_plan_artifact_state_name(a->state), a->filename);
			if (a->found) {
				wm_buf_puts(b, " (on the index as ");
				plain(b, a->found);
				wm_buf_putc(b, ')');
			}
			wm_buf_putc(b, '\n');
		}
		for (size_t k = 0; k < d->nunexpected; k++) {
			wm_buf_printf(b, "  %-10s  ", "unexpected");
			plain(b, d->unexpected[k]);
			wm_buf_printf(b, " (of version %s, not produced by this release)\n", p->version);
		}
		for (size_t k = 0; k < d->ndropped; k++) {
			wm_buf_printf(b, "  %-10s  ", "dropped");
			plain(b, d->dropped[k].filename);
			wm_buf_puts(b, " (");
			drop_note(b, d, &d->dropped[k], plain);
			wm_buf_puts(b, ")\n");
		}
		for (size_t k = 0; k < d->nlarge; k++) {
			wm_buf_printf(b, "  %-10s  ", "near limit");
			plain(b, d->large[k].filename);
			wm_buf_puts(b, " (");
			size_text(b, d->large[k].size);
			wm_buf_puts(b, ")\n");
		}
	}
	wm_buf_putc(b, '\n');
	counts(b, p);
	wm_buf_puts(b, "; ");
	verdict(b, p);
	wm_buf_putc(b, '\n');
}

/* ---- Markdown ------------------------------------------------------------------- */

/* Text in a table cell, shown: `|` would end the cell, a newline (shown escaped) the row. */
static void md_text(struct wm_buf *b, const char *s)
{
	struct wm_buf tmp = WM_BUF_INIT;
	for (s = shown(&tmp, s); *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`' || *s == '<' || *s == '[')
			wm_buf_putc(b, '\\');
		wm_buf_putc(b, *s);
	}
	wm_buf_release(&tmp);
}

/* A code span, shown: file names hold `_`, which Markdown would read as emphasis. */
static void md_code(struct wm_buf *b, const char *s)
{
	struct wm_buf tmp = WM_BUF_INIT;
	wm_buf_putc(b, '`');
	for (s = shown(&tmp, s); *s; s++)
		wm_buf_putc(b, *s == '`' || *s == '|' ? '?' : *s);
	wm_buf_putc(b, '`');
	wm_buf_release(&tmp);
}

static void markdown(struct wm_buf *b, const struct wm_plan *p)
{
	wm_buf_printf(b, "## Release plan: version %s\n\n", p->version);
	if (p->index) {
		wm_buf_puts(b, "Index: ");
		md_code(b, p->index);
		wm_buf_puts(b, "\n\n");
	}
	wm_buf_puts(b, "**");
	verdict(b, p);
	wm_buf_puts(b, "**; ");
	counts(b, p);
	wm_buf_puts(b, ".\n\n| distribution | state | summary |\n|---|---|---|\n");
	for (size_t i = 0; i < p->ndists; i++) {
		wm_buf_puts(b, "| ");
		md_code(b, title(p, &p->dists[i]));
		wm_buf_printf(b, " | %s | ", wm_plan_dist_state_name(p->dists[i].state));
		md_text(b, wm_plan_dist_summary(p, &p->dists[i]));
		wm_buf_puts(b, " |\n");
	}
	for (size_t i = 0; i < p->ndists; i++) {
		const struct wm_plan_dist *d = &p->dists[i];
		wm_buf_puts(b, "\n### ");
		md_code(b, title(p, d));
		wm_buf_puts(b, "\n\n| file | state | note |\n|---|---|---|\n");
		for (size_t k = 0; k < d->nartifacts; k++) {
			const struct wm_artifact *a = &d->artifacts[k];
			wm_buf_puts(b, "| ");
			md_code(b, a->filename);
			wm_buf_printf(b, " | %s | ", wm_plan_artifact_state_name(a->state));
			if (a->found) {
				wm_buf_puts(b, "on the index as ");
				md_code(b, a->found);
			}
			wm_buf_puts(b, " |\n");
		}
		for (size_t k = 0; k < d->ndropped; k++) {
			wm_buf_puts(b, "| ");
			md_code(b, d->dropped[k].filename);
			wm_buf_puts(b, " | dropped | ");
			drop_note(b, d, &d->dropped[k], md_text);
			wm_buf_puts(b, " |\n");
		}
		if (d->nunexpected) {
			wm_buf_printf(b, "\nOn the index for version %s but not produced by this release:\n\n", p->version);
			for (size_t k = 0; k < d->nunexpected; k++) {
				wm_buf_puts(b, "- ");
				md_code(b, d->unexpected[k]);
				wm_buf_putc(b, '\n');
			}
		}
		if (d->nlarge) {
			wm_buf_puts(b, "\nEarlier files near the upload limit:\n\n");
			for (size_t k = 0; k < d->nlarge; k++) {
				wm_buf_puts(b, "- ");
				md_code(b, d->large[k].filename);
				wm_buf_puts(b, ": ");
				size_text(b, d->large[k].size);
				wm_buf_putc(b, '\n');
			}
		}
	}
	/* every state a table above may show, whether or not this plan has it */
	wm_buf_puts(b, "\n| distribution state | meaning |\n|---|---|\n");
	for (size_t i = 0; i < WM_ARRAY_SIZE(dist_order); i++)
		wm_buf_printf(b, "| %s | %s |\n", wm_plan_dist_state_name(dist_order[i]), dist_meaning[dist_order[i]]);
	wm_buf_puts(b, "\n| file state | meaning |\n|---|---|\n");
	for (size_t i = 0; i < WM_ARRAY_SIZE(report_order); i++)
		wm_buf_printf(b, "| %s | %s |\n", wm_plan_artifact_state_name(report_order[i]), state_meaning[report_order[i]]);
	/* not states of a planned file: the files of the index a release is checked against */
	wm_buf_printf(b, "\n| file listed as | meaning |\n|---|---|\n| unexpected | %s |\n| dropped | %s |\n",
		unexpected_meaning, dropped_meaning);
}

/* ---- HTML ------------------------------------------------------------------------ */

/*
 * The page loads nothing: one inline style sheet, allowed by its hash in a
 * Content-Security-Policy of default-src 'none', and no script.  Colours
 * are classes, never style attributes (a hash does not cover those).
 */
static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
	"code{font:12px ui-monospace,monospace}"
	"table{border-collapse:collapse;margin:1em 0}"
	"th,td{border:1px solid #bbb;padding:3px 6px;text-align:left}"
	"td.present{background:#f4b4b4}td.missing{background:#b9e4b9}"
	"td.unknown{background:#f6d68c}td.unchecked{background:#cfd8e6}td.none{background:#f2f2f2;color:#888}"
	"td.dropped{background:#d9c2ec}td.planned{background:#ece3f4}"
	"span.present,span.missing,span.unknown,span.unchecked,span.none,span.dropped,span.planned{display:inline-block;"
	"width:1em;height:1em;margin-right:.5em;vertical-align:middle;border:1px solid #888}"
	"span.present{background:#f4b4b4}span.missing{background:#b9e4b9}span.unknown{background:#f6d68c}"
	"span.unchecked{background:#cfd8e6}span.none{background:#f2f2f2}span.dropped{background:#d9c2ec}"
	"span.planned{background:#ece3f4}"
	"ul.legend{list-style:none;padding:0}p.verdict{font-weight:bold}";

void wm_report_base64(char *out, const unsigned char *data, size_t len)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i = 0;
	for (; i + 2 < len; i += 3) {
		unsigned v = (unsigned)data[i] << 16 | (unsigned)data[i + 1] << 8 | data[i + 2];
		*out++ = digits[v >> 18 & 63];
		*out++ = digits[v >> 12 & 63];
		*out++ = digits[v >> 6 & 63];
		*out++ = digits[v & 63];
	}
	if (i < len) {
		unsigned v = (unsigned)data[i] << 16 | (i + 1 < len ? (unsigned)data[i + 1] << 8 : 0);
		*out++ = digits[v >> 18 & 63];
		*out++ = digits[v >> 12 & 63];
		*out++ = i + 1 < len ? digits[v >> 6 & 63] : '=';
		*out++ = '=';
	}
	*out = '\0';
}

static void html_text(struct wm_buf *b, const char *s)
{
	struct wm_buf tmp = WM_BUF_INIT;
	for (s = shown(&tmp, s); *s; s++) {
		switch (*s) {
		case '&': wm_buf_puts(b, "&amp;"); break;
		case '<': wm_buf_puts(b, "&lt;"); break;
		case '>': wm_buf_puts(b, "&gt;"); break;
		case '"': wm_buf_puts(b, "&quot;"); break;
		case '\'': wm_buf_puts(b, "&#39;"); break;
		default: wm_buf_putc(b, *s); break;
		}
	}
	wm_buf_release(&tmp);
}

/* A grid column: one platform and one Python entry, or the meta wheel, or the sdist, or variants.json. */
struct column {
	const struct wm_platform *platform;
	const struct wm_python *python;
	bool pure, sdist, vjson;
	size_t order;
};

static size_t position(const struct wm_matrix *m, const struct wm_platform *pl, const struct wm_python *py)
{
	size_t p = m->nplatforms, y = m->npythons;
	for (size_t i = 0; i < m->nplatforms; i++)
		if (strcmp(m->platforms[i]->id, pl->id) == 0)
			p = i;
	for (size_t i = 0; i < m->npythons; i++)
		if (strcmp(m->pythons[i]->tag, py->tag) == 0)
			y = i;
	return p * (m->npythons + 1) + y;
}

static int by_order(const void *a, const void *b)
{
	const struct column *x = a, *y = b;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool same_column(const struct column *c, const struct wm_artifact *a)
{
	if (c->sdist || a->sdist)
		return c->sdist && a->sdist;
	if (c->vjson || a->variants_json)
		return c->vjson && a->variants_json;
	if (c->pure || a->pure)
		return c->pure && a->pure;
	return strcmp(c->platform->id, a->platform->id) == 0 && strcmp(c->python->tag, a->python->tag) == 0;
}

/* The grid's columns in the matrix's order: platforms, then Python entries; the meta wheel and sdists last. */
static struct column *grid_columns(const struct wm_plan *p, size_t *n)
{
	const struct wm_matrix *m = p->matrix;
	size_t cap = 0, k = 0;
	struct column *cols;
	for (size_t i = 0; i < p->ndists; i++)
		cap += p->dists[i].nartifacts;
	if (!(cols = calloc(cap + 1, sizeof(*cols))))
		return NULL;
	for (size_t i = 0; i < p->ndists; i++)
		for (size_t j = 0; j < p->dists[i].nartifacts; j++) {
			const struct wm_artifact *a = &p->dists[i].artifacts[j];
			size_t c = 0;
			while (c < k && !same_column(&cols[c], a))
				c++;
			if (c < k)
				continue;
			cols[k].platform = a->platform;
			cols[k].python = a->python;
			cols[k].pure = a->pure;
			cols[k].sdist = a->sdist;
			cols[k].vjson = a->variants_json;
			cols[k].order = a->sdist ? SIZE_MAX : a->variants_json ? SIZE_MAX - 2 : a->pure ? SIZE_MAX - 1 :
				position(m, a->platform, a->python);
			k++;
		}
	qsort(cols, k, sizeof(*cols), by_order);
	*n = k;
	return cols;
}

static void html_grid(struct wm_buf *b, const struct wm_plan *p, const struct column *cols, size_t ncols)
{
	wm_buf_puts(b, "<table class=\"grid\">\n<thead>\n<tr><th rowspan=\"2\">distribution</th>");
	for (size_t c = 0; c < ncols; ) {
		size_t span = 1;
		if (cols[c].sdist || cols[c].pure || cols[c].vjson) {
			wm_buf_printf(b, "<th rowspan=\"2\">%s</th>", cols[c].sdist ? "sdist" : cols[c].vjson ? "variants.json" :
				"py3-none-any");
			c++;
			continue;
		}
		while (c + span < ncols && !cols[c + span].sdist && !cols[c + span].pure && !cols[c + span].vjson &&
		       strcmp(cols[c + span].platform->id, cols[c].platform->id) == 0)
			span++;
		wm_buf_printf(b, "<th colspan=\"%zu\">", span);
		html_text(b, cols[c].platform->id);
		wm_buf_puts(b, "<br><code>");
		html_text(b, cols[c].platform->platform_tag);
		wm_buf_puts(b, "</code></th>");
		c += span;
	}
	wm_buf_puts(b, "</tr>\n<tr>");
	for (size_t c = 0; c < ncols; c++) {
		if (cols[c].sdist || cols[c].pure || cols[c].vjson)
			continue;
		wm_buf_puts(b, "<th><code>");
		html_text(b, cols[c].python->python_tag);
		wm_buf_putc(b, '-');
		html_text(b, wm_python_abi_tag(cols[c].python, cols[c].platform));
		wm_buf_puts(b, "</code></th>");
	}
	wm_buf_puts(b, "</tr>\n</thead>\n<tbody>\n");
	for (size_t i = 0; i < p->ndists; i++) {
		const struct wm_plan_dist *d = &p->dists[i];
		wm_buf_puts(b, "<tr><th>");
		html_text(b, title(p, d));
		wm_buf_puts(b, "</th>");
		for (size_t c = 0; c < ncols; c++) {
			const struct wm_artifact *a = NULL;
			for (size_t k = 0; !a && k < d->nartifacts; k++)
				if (same_column(&cols[c], &d->artifacts[k]))
					a = &d->artifacts[k];
			if (!a) {
				wm_buf_puts(b, "<td class=\"none\">-</td>");
				continue;
			}
			wm_buf_printf(b, "<td class=\"%s\" data-status=\"%s\" title=\"", wm_plan_artifact_state_name(a->state),
				wm_plan_artifact_state_name(a->state));
			html_text(b, a->filename);
			if (a->found) {
				wm_buf_puts(b, " (on the index as ");
				html_text(b, a->found);
				wm_buf_putc(b, ')');
			}
			wm_buf_printf(b, "\">%s</td>", wm_plan_artifact_state_name(a->state));
		}
		wm_buf_puts(b, "</tr>\n");
	}
	wm_buf_puts(b, "</tbody>\n</table>\n");
}

/*
 * The wheels of the last release this one does not build, a row each: the distribution, the file
 * (its cell coloured as dropped, or as planned with the matrix's reason) and the version it was in.
 */
static void html_dropped(struct wm_buf *b, const struct wm_plan *p)
{
	if (!wm_plan_count_dropped(p, false))
		return;
	wm_buf_puts(b, "<h2>Dropped since the last release</h2>\n<table class=\"dropped\">\n<thead>\n"
		"<tr><th>distribution</th><th>wheel</th><th>last release</th><th>planned</th></tr>\n</thead>\n<tbody>\n");
	for (size_t i = 0; i < p->ndists; i++) {
		const struct wm_plan_dist *d = &p->dists[i];
		for (size_t k = 0; k < d->ndropped; k++) {
			const struct wm_dropped *w = &d->dropped[k];
			wm_buf_puts(b, "<tr><th>");
			html_text(b, title(p, d));
			wm_buf_printf(b, "</th><td class=\"%s\" data-status=\"dropped\"><code>", w->planned ? "planned" : "dropped");
			html_text(b, w->filename);
			wm_buf_puts(b, "</code></td><td>");
			html_text(b, d->previous);
			wm_buf_puts(b, "</td><td>");
			if (w->planned)
				html_text(b, w->planned->reason);
			else
				wm_buf_puts(b, "no: the plan fails");
			wm_buf_puts(b, "</td></tr>\n");
		}
	}
	wm_buf_puts(b, "</tbody>\n</table>\n");
}

static void html_details(struct wm_buf *b, const struct wm_plan *p)
{
	wm_buf_puts(b, "<h2>Distributions</h2>\n<ul>\n");
	for (size_t i = 0; i < p->ndists; i++) {
		const struct wm_plan_dist *d = &p->dists[i];
		wm_buf_puts(b, "<li><code>");
		html_text(b, title(p, d));
		wm_buf_puts(b, "</code>: ");
		html_text(b, wm_plan_dist_summary(p, d));
		if (d->nunexpected || d->nlarge)
			wm_buf_puts(b, "\n<ul>\n");
		for (size_t k = 0; k < d->nunexpected; k++) {
			wm_buf_puts(b, "<li>unexpected: <code>");
			html_text(b, d->unexpected[k]);
			wm_buf_printf(b, "</code> (of version %s, not produced by this release)</li>\n", p->version);
		}
		for (size_t k = 0; k < d->nlarge; k++) {
			wm_buf_puts(b, "<li>near the limit: <code>");
			html_text(b, d->large[k].filename);
			wm_buf_puts(b, "</code> (");
			size_text(b, d->large[k].size);
			wm_buf_puts(b, ")</li>\n");
		}
		if (d->nunexpected || d->nlarge)
			wm_buf_puts(b, "</ul>\n");
		wm_buf_puts(b, "</li>\n");
	}
	wm_buf_puts(b, "</ul>\n");
}

static int html(struct wm_buf *b, const struct wm_plan *p)
{
	struct wm_sha256 h;
	unsigned char digest[32];
	char hash[45];
	struct wm_buf line = WM_BUF_INIT;
	struct column *cols;
	size_t ncols = 0;

	if (!(cols = grid_columns(p, &ncols)))
		return WM_ENOMEM;
	wm_sha256_init(&h);
	wm_sha256_update(&h, style, sizeof(style) - 1);
	wm_sha256_final(&h, digest);
	wm_report_base64(hash, digest, sizeof(digest));
	wm_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'sha256-%s'\">\n"
		"<title>Release plan: version ", hash);
	html_text(b, p->version);
	wm_buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Release plan: version ", style);
	html_text(b, p->version);
	wm_buf_puts(b, "</h1>\n");
	if (p->index) {
		wm_buf_puts(b, "<p>Index: <code>");
		html_text(b, p->index);
		wm_buf_puts(b, "</code></p>\n");
	}
	verdict(&line, p);
	wm_buf_puts(b, "<p class=\"verdict\">");
	html_text(b, line.ptr ? line.ptr : "");
	wm_buf_puts(b, "</p>\n<p class=\"counts\">");
	wm_buf_clear(&line);
	counts(&line, p);
	html_text(b, line.ptr ? line.ptr : "");
	wm_buf_puts(b, "</p>\n");
	html_grid(b, p, cols, ncols);
	wm_buf_puts(b, "<ul class=\"legend\">\n");
	for (size_t i = 0; i < WM_ARRAY_SIZE(report_order); i++)
		wm_buf_printf(b, "<li><span class=\"%s\"></span>%s: %s</li>\n", wm_plan_artifact_state_name(report_order[i]),
			wm_plan_artifact_state_name(report_order[i]), state_meaning[report_order[i]]);
	wm_buf_puts(b, "<li><span class=\"none\"></span>-: not built for this distribution</li>\n");
	wm_buf_printf(b, "<li><span class=\"dropped\"></span>dropped: %s</li>\n", dropped_meaning);
	wm_buf_puts(b, "<li><span class=\"planned\"></span>dropped, planned: the matrix's 'dropped' gives the reason"
		"</li>\n</ul>\n");
	html_dropped(b, p);
	html_details(b, p);
	wm_buf_puts(b, "</body>\n</html>\n");
	wm_buf_release(&line);
	free(cols);
	return 0;
}

/* ---- JSON --------------------------------------------------------------------- */

/* Sets key to `v` (taking it); a NULL `v` marks the object as incomplete through *bad. */
static void put(struct wm_json *o, const char *key, struct wm_json *v, bool *bad)
{
	if (wm_json_set(o, key, v) < 0)
		*bad = true;
}

static struct wm_json *plan_artifact(const struct wm_artifact *a, bool *bad)
{
	struct wm_json *o = wm_json_object();
	if (!o) {
		*bad = true;
		return NULL;
	}
	put(o, "file", wm_json_string(a->filename), bad);
	put(o, "kind", wm_json_string(a->sdist ? "sdist" : a->variants_json ? "variants.json" : "wheel"), bad);
	put(o, "job", wm_json_string(a->job), bad);
	put(o, "platform", wm_json_string(a->platform ? a->platform->id : NULL), bad);
	put(o, "python", wm_json_string(a->python ? a->python->version : NULL), bad);
	put(o, "state", wm_json_string(wm_plan_artifact_state_name(a->state)), bad);
	put(o, "found", wm_json_string(a->found), bad);
	return o;
}

/* [{"file": ..., "planned": true, "reason": ...}] */
static struct wm_json *json_dropped(const struct wm_plan_dist *d, bool *bad)
{
	struct wm_json *list = wm_json_array();
	for (size_t k = 0; list && k < d->ndropped; k++) {
		struct wm_json *f = wm_json_object();
		if (f) {
			put(f, "file", wm_json_string(d->dropped[k].filename), bad);
			put(f, "planned", wm_json_bool(d->dropped[k].planned != NULL), bad);
			put(f, "reason", wm_json_string(d->dropped[k].planned ? d->dropped[k].planned->reason : NULL), bad);
		}
		if (wm_json_push(list, f) < 0)
			*bad = true;
	}
	if (!list)
		*bad = true;
	return list;
}

static struct wm_json *plan_dist(const struct wm_plan *p, const struct wm_plan_dist *d, bool *bad)
{
	struct wm_json *o = wm_json_object(), *arts = wm_json_array(), *unexpected = wm_json_array(), *large = wm_json_array();
	if (!o || !arts || !unexpected || !large) {
		wm_json_free(o);
		wm_json_free(arts);
		wm_json_free(unexpected);
		wm_json_free(large);
		*bad = true;
		return NULL;
	}
	put(o, "name", wm_json_string(d->name), bad);
	put(o, "version", wm_json_string(d->version), bad);
	put(o, "normalized", wm_json_string(d->normalized), bad);
	put(o, "backend", wm_json_string(d->backend ? d->backend->id : NULL), bad);
	if (d->variant)
		put(o, "variant", wm_json_string(d->variant), bad);
	put(o, "url", wm_json_string(d->url), bad);
	put(o, "state", wm_json_string(wm_plan_dist_state_name(d->state)), bad);
	put(o, "summary", wm_json_string(wm_plan_dist_summary(p, d)), bad);
	put(o, "error", wm_json_string(d->error), bad);
	put(o, "api", wm_json_string(d->api), bad);
	put(o, "attempts", wm_json_int(d->attempts), bad);
	put(o, "files_on_index", wm_json_int((int64_t)d->nfiles), bad);
	for (size_t k = 0; k < d->nartifacts; k++)
		if (wm_json_push(arts, plan_artifact(&d->artifacts[k], bad)) < 0)
			*bad = true;
	for (size_t k = 0; k < d->nunexpected; k++)
		if (wm_json_push(unexpected, wm_json_string(d->unexpected[k])) < 0)
			*bad = true;
	for (size_t k = 0; k < d->nlarge; k++) {
		struct wm_json *f = wm_json_object();
		if (f) {
			put(f, "file", wm_json_string(d->large[k].filename), bad);
			put(f, "size", wm_json_int((int64_t)d->large[k].size), bad);
		}
		if (wm_json_push(large, f) < 0)
			*bad = true;
	}
	put(o, "artifacts", arts, bad);
	put(o, "unexpected", unexpected, bad);
	put(o, "near_limit", large, bad);
	put(o, "previous", wm_json_string(d->previous), bad);
	put(o, "dropped", json_dropped(d, bad), bad);
	return o;
}

static int json(struct wm_buf *out, const struct wm_plan *p)
{
	static const char *const verdicts[] = { [WM_PLAN_OK] = "ok", [WM_PLAN_FAIL] = "fail",
		[WM_PLAN_INCOMPLETE] = "incomplete", [WM_PLAN_PARTIAL] = "partial", [WM_PLAN_NOT_FOUND] = "not-found",
		[WM_PLAN_DROPPED] = "dropped" };
	static const enum wm_artifact_state states[] = { WM_ART_PRESENT, WM_ART_MISSING, WM_ART_UNKNOWN,
		WM_ART_UNCHECKED };
	struct wm_json *root = wm_json_object(), *dists = wm_json_array(), *count = wm_json_object();
	bool bad = !root || !dists || !count;

	if (bad) {
		wm_json_free(root);
		wm_json_free(dists);
		wm_json_free(count);
		return WM_ENOMEM;
	}
	put(root, "version", wm_json_string(p->version), &bad);
	put(root, "index", wm_json_string(p->index), &bad);
	put(root, "offline", wm_json_bool(p->offline), &bad);
	put(root, "verdict", wm_json_string(p->offline ? "unchecked" : verdicts[wm_plan_verdict(p)]), &bad);
	for (size_t i = 0; i < WM_ARRAY_SIZE(states); i++)
		put(count, wm_plan_artifact_state_name(states[i]), wm_json_int((int64_t)wm_plan_count(p, states[i])), &bad);
	put(count, "unexpected", wm_json_int((int64_t)wm_plan_count_unexpected(p)), &bad);
	put(count, "dropped", wm_json_int((int64_t)wm_plan_count_dropped(p, false)), &bad);
	put(count, "dropped_planned", wm_json_int((int64_t)wm_plan_count_dropped(p, true)), &bad);
	put(root, "counts", count, &bad);
	for (size_t i = 0; i < p->ndists; i++)
		if (wm_json_push(dists, plan_dist(p, &p->dists[i], &bad)) < 0)
			bad = true;
	put(root, "distributions", dists, &bad);
	/* every character outside ASCII as a \u escape: the names from the index stay exact, and none of
	   their C1 or bidi controls reaches a terminal that shows the JSON */
	if (!bad && wm_json_append(out, root, WM_JSON_INDENT | WM_JSON_ASCII) < 0)
		bad = true;
	wm_json_free(root);
	if (bad)
		return WM_ENOMEM;
	wm_buf_putc(out, '\n');
	return 0;
}

int wm_report_render(char **out, size_t *len, const struct wm_plan *p, enum wm_plan_format format)
{
	struct wm_buf b = WM_BUF_INIT;
	int ret = 0;

	*out = NULL;
	*len = 0;
	switch (format) {
	case WM_PLAN_TABLE:
		table(&b, p);
		break;
	case WM_PLAN_MARKDOWN:
		markdown(&b, p);
		break;
	case WM_PLAN_HTML:
		ret = html(&b, p);
		break;
	case WM_PLAN_JSON:
		ret = json(&b, p);
		break;
	}
	if (ret == 0 && b.oom)
		ret = WM_ENOMEM;
	if (ret < 0) {
		wm_buf_release(&b);
		return ret;
	}
	*len = b.len;
	if (!(*out = wm_buf_detach(&b)))
		return WM_ENOMEM;
	return 0;
}
