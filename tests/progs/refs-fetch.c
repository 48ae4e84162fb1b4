/* refs-fetch.c — asks a forge for repositories' tags through index/refs.c and prints what it learnt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "index/net.h"
#include "index/refs.h"

/*
 * usage: refs-fetch [--max-refs N] [--jobs N] [--retries N] [--timeout-ms N] FORGE OWNER/NAME...
 *
 * Asks FORGE for each repository's ref advertisement in one batch and
 * prints, per repository in the order given:
 *
 *   repo OWNER/NAME URL attempts=N refs=N
 *   tag NAME OBJECT COMMIT annotated|lightweight      (one per tag, as listed)
 *   skipped SHOWN<TAB>WHY                             (one per refused name)
 *   error WHY                                         (instead, when nothing was learnt)
 *
 * Exit 0 when every repository answered, 1 when one failed, 2 on a usage
 * error, 3 when the forge's URL is refused or libcurl cannot be loaded.
 */
int main(int argc, char **argv)
{
	struct wm_net_options o = { 0 };
	struct wm_refs_query *q = NULL;
	struct wm_arena a;
	struct wm_error err;
	size_t max_refs = 0, n;
	int i = 1, ret = 0;

	o.jobs = 8;
	o.retries = 2;
	o.timeout_ms = 10000;
	o.connect_timeout_ms = 5000;
	o.backoff_ms = 100;
	o.max_bytes = 32u << 20;
	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		unsigned long v = strtoul(argv[i + 1], NULL, 10);
		if (strcmp(argv[i], "--max-refs") == 0)
			max_refs = v;
		else if (strcmp(argv[i], "--jobs") == 0)
			o.jobs = (unsigned)v;
		else if (strcmp(argv[i], "--retries") == 0)
			o.retries = (unsigned)v;
		else if (strcmp(argv[i], "--timeout-ms") == 0)
			o.timeout_ms = (long)v;
		else
			break;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: refs-fetch [--max-refs N] [--jobs N] [--retries N] [--timeout-ms N] FORGE OWNER/NAME...\n");
		return 2;
	}
	wm_error_init(&err);
	wm_arena_init(&a);
	if (wm_refs_forge_check(argv[i], &err) < 0 || wm_net_init(&err) < 0) {
		fprintf(stderr, "refs-fetch: %s\n", err.ndiags ? err.diags[0].message : "error");
		ret = 3;
		goto out;
	}
	n = (size_t)(argc - i - 1);
	if (!(q = calloc(n, sizeof(*q))))
		abort();
	for (size_t k = 0; k < n; k++)
		q[k].repo = argv[i + 1 + k];
	if (wm_refs_fetch(q, n, &a, argv[i], max_refs, &o) < 0)
		abort();
	for (size_t k = 0; k < n; k++) {
		printf("repo %s %s attempts=%u refs=%zu\n", q[k].repo, q[k].url, q[k].attempts, q[k].refs.nrefs);
		if (q[k].error) {
			printf("error %s\n", q[k].error);
			ret = 1;
			continue;
		}
		for (size_t t = 0; t < q[k].refs.ntags; t++) {
			const struct wm_refs_tag *tag = &q[k].refs.tags[t];
			printf("tag %s %s %s %s\n", tag->name, tag->object, tag->commit, tag->annotated ? "annotated" : "lightweight");
		}
		for (size_t t = 0; t < q[k].refs.nskipped; t++)
			printf("skipped %s\t%s\n", q[k].refs.skipped[t].shown, q[k].refs.skipped[t].why);
	}
out:
	free(q);
	wm_arena_release(&a);
	wm_error_release(&err);
	return ret;
}
