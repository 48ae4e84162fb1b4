/* refs.h — a forge repository's tags, from git's smart-HTTP ref advertisement (refs.c). */
#ifndef WM_INDEX_REFS_H
#define WM_INDEX_REFS_H

#include "util/common.h"
#include "util/arena.h"
#include "index/net.h"

/*
 * The most refs an advertisement may list.  A GitHub repository advertises
 * its pull requests' refs too (two each): the repositories of the actions
 * the catalogue names have a few thousand; 200,000 leaves room for the
 * largest while keeping a hostile forge from making us read without end.
 */
#define WM_REFS_MAX 200000
/* git's LARGE_PACKET_MAX: the longest pkt-line, its four length digits included (pkt-line.h). */
#define WM_REFS_PKT_MAX 65520

/* A tag: its name (after refs/tags/), the object its ref names and the commit that peels to. */
struct wm_refs_tag {
	const char *name;
	char object[41];     /* the tag object of an annotated tag, else the commit */
	char commit[41];     /* the object an annotated tag peels to (its ^{} line), else `object` */
	bool annotated;
};
/* A tag ref whose name git would refuse: its name as a person is shown it, and why. */
struct wm_refs_skipped {
	const char *shown;
	const char *why;
};
/* What an advertisement says, in the arena: its tags in the order listed, and the refused ones. */
struct wm_refs {
	struct wm_refs_tag *tags;
	size_t ntags;
	struct wm_refs_tag *heads;   /* the branches (after refs/heads/), kept as tags are */
	size_t nheads;
	struct wm_refs_skipped *skipped;
	size_t nskipped;
	size_t nrefs;        /* every ref advertised, branches and others included */
};

/*
 * Reads the answer to GET <repo>/info/refs?service=git-upload-pack: the
 * Content-Type application/x-git-upload-pack-advertisement, the pkt-line
 * `# service=git-upload-pack` and a flush, then one pkt-line per ref up to a
 * flush (protocol v0 or v1, SHA-1 object names).  Every pkt-line is checked:
 * four hex digits, at most WM_REFS_PKT_MAX bytes, within the body; a body
 * that ends early or goes on after the last flush is refused.  At most
 * `max_refs` refs (0 for WM_REFS_MAX).  A tag whose name git check-ref-format
 * refuses, or holds a character that does not show as itself, is skipped
 * with a reason.  WM_EINVALID with `why` (in the arena, shown safely) when
 * the answer is not one; WM_ENOMEM.
 */
int wm_refs_parse(struct wm_refs *out, struct wm_arena *a, const char *content_type, const char *body, size_t len,
	size_t max_refs, const char **why);

/* 1 when git check-ref-format would take `name` (a whole ref name, "refs/tags/v1"), else 0 with *why set. */
int wm_refs_name_ok(const char *name, size_t len, const char **why);

/* One repository asked for its tags. */
struct wm_refs_query {
	const char *repo;    /* in: "owner/name", not copied */
	struct wm_refs refs; /* out, when error is NULL */
	const char *url;     /* out: the URL asked, as messages show it (no user name, password or query) */
	const char *error;   /* out: why nothing was learnt, or NULL */
	unsigned attempts;
};

/*
 * Checks a forge's base URL (http:// or https://, nothing to quote, no
 * stray '@'): 0 or WM_EINVALID with a message in `err`.
 */
int wm_refs_forge_check(const char *forge, struct wm_error *err);
/*
 * Asks <forge>/<repo>.git/info/refs?service=git-upload-pack of every query
 * through net.c's batch (o: concurrency, retries, limits, credentials).
 * Each answer is read by wm_refs_parse with `max_refs`; failures are set in
 * their query, not returned.  Returns 0, or WM_ENOMEM.  Results live in `a`.
 */
int wm_refs_fetch(struct wm_refs_query *q, size_t n, struct wm_arena *a, const char *forge, size_t max_refs,
	const struct wm_net_options *o);
/*
 * The same, with `extra` (nextra requests of the caller's, an index's pages
 * say) fetched in the same batch: their answers are left in them, for the
 * caller to read and release (wm_net_request_release).
 */
int wm_refs_fetch_with(struct wm_refs_query *q, size_t n, struct wm_arena *a, const char *forge, size_t max_refs,
	const struct wm_net_options *o, struct wm_net_request *extra, size_t nextra);

/* A release, as a tag or a version names it: its numbers (the ones not given 0). */
#define WM_REFS_RELEASE_PARTS 6
struct wm_refs_release {
	unsigned long part[WM_REFS_RELEASE_PARTS];
	unsigned n;
};
/*
 * Reads `s` as a release: an optional 'v' or 'V', then one to `max` numbers (at most
 * WM_REFS_RELEASE_PARTS, each of nine digits at most) with dots between, and nothing else (no
 * pre-release).  False when it is not one.
 */
bool wm_refs_release_read(const char *s, unsigned max, struct wm_refs_release *v);
/* Orders releases; of two that read alike (v4 and v4.0.0) the longer is the newer: it names one release. */
int wm_refs_release_cmp(const struct wm_refs_release *a, const struct wm_refs_release *b);

#endif
