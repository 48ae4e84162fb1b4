/*
 * gitindex.c — git's index file read directly, for a split index, which libgit2 1.5 refuses
 * ("unsupported mandatory extension: 'link'").
 *
 * The format is git's Documentation/gitformat-index.txt: a header ("DIRC", the version 2, 3 or 4,
 * the number of entries), the entries (versions 2 and 3: each padded to 8 bytes; version 4: each
 * path given as the number of bytes to drop from the previous one and what follows), the
 * extensions (a four-byte name, a length, the data: a name starting with A to Z is optional) and
 * a SHA-1 of everything before it (zeros under index.skipHash).  A split index has the extension
 * "link": the id of the shared index ($GIT_DIR/sharedindex.<id>, a plain index) and two EWAH
 * bitmaps over its entries, those deleted and those replaced.  The split index's own first
 * entries, without names, replace the shared entries of the replace bitmap's bits in order; the
 * rest are added (git's split-index.c, merge_base_index).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "repo/gitindex.h"

#define MAX_INDEX_BYTES ((size_t)1 << 31)

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* qsort has no context: the paths the entries being sorted point into */
static const char *sort_paths;

/* An entry while the index is read: its path is an offset into the paths, as they move while they grow. */
struct raw {
	size_t path;     /* offset into ix->paths */
	size_t len;
	uint32_t mode;
	unsigned stage;
	unsigned char id[20];
	bool deleted;
	size_t seq;      /* the order in which entries were merged: a later one replaces an earlier */
};

struct file {
	const char *name;        /* for messages */
	unsigned char *data;
	size_t len;              /* without the checksum */
	struct raw *entries;
	size_t n;
	/* the link extension, in a split index */
	bool linked;
	unsigned char shared[20];
	const unsigned char *del, *rep;   /* the two EWAH bitmaps, NULL when absent */
	size_t del_len, rep_len;
	bool unsupported;        /* a mandatory extension other than link */
	struct wm_buf v4path;    /* a version 4 path while it is put together */
};

static int corrupt(struct wm_error *err, const struct file *f, const char *why)
{
	wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0, "the index '%s' is corrupt: %s",
		f->name, why);
	return WM_EINVALID;
}

static int add_path(struct wm_gitindex *ix, const char *p, size_t len, size_t *off)
{
	if (ix->paths_len + len + 1 > ix->paths_cap) {
		size_t cap = ix->paths_cap ? ix->paths_cap : 4096;
		char *np;
		while (cap < ix->paths_len + len + 1)
			cap *= 2;
		if (!(np = realloc(ix->paths, cap)))
			return WM_ENOMEM;
		ix->paths = np;
		ix->paths_cap = cap;
	}
	memcpy(ix->paths + ix->paths_len, p, len);
	ix->paths[ix->paths_len + len] = '\0';
	*off = ix->paths_len;
	ix->paths_len += len + 1;
	return 0;
}

/* Reads one index file: its entries (paths into ix) and what its link extension says. */
static int read_file(struct file *f, struct wm_gitindex *ix, const char *path, struct wm_error *err)
{
	const unsigned char *p, *end;
	uint32_t version, count;
	size_t prev_off = 0, prev_len = 0;
	char *data = NULL;
	int ret;

	f->name = path;
	if ((ret = wm_io_read(&data, &f->len, path, MAX_INDEX_BYTES, err)) < 0)
		return ret;
	f->data = (unsigned char *)data;
	if (f->len < 12 + 20)
		return corrupt(err, f, "too short");
	f->len -= 20;  /* the checksum, not verified: git does not either when it reads the index */
	if (memcmp(f->data, "DIRC", 4) != 0)
		return corrupt(err, f, "no DIRC signature");
	version = be32(f->data + 4);
	count = be32(f->data + 8);
	if (version < 2 || version > 4)
		return 1;
	if (count > f->len / 62 || !(f->entries = calloc((size_t)count + 1, sizeof(*f->entries))))
		return count > f->len / 62 ? corrupt(err, f, "more entries than bytes") : WM_ENOMEM;
	p = f->data + 12;
	end = f->data + f->len;
	for (uint32_t i = 0; i < count; i++) {
		struct raw *e = &f->entries[f->n];
		const unsigned char *name, *nul;
		unsigned flags;
		size_t fixed, len;

		if ((size_t)(end - p) < 62)
			return corrupt(err, f, "an entry is cut short");
		e->mode = be32(p + 24);
		memcpy(e->id, p + 40, 20);
		flags = (unsigned)p[60] << 8 | p[61];
		e->stage = (flags >> 12) & 3;
		fixed = 62;
		if (flags & 0x4000) {  /* extended flags */
			if (version < 3)
				return corrupt(err, f, "an extended entry in a version 2 index");
			fixed = 64;
		}
		if ((size_t)(end - p) < fixed)
			return corrupt(err, f, "an entry is cut short");
		name = p + fixed;
		if (version == 4) {
			/* the number of bytes to drop from the end of the previous path: git's varint */
			size_t drop = 0;
			unsigned char c;
			do {
				if (name >= end || drop > (SIZE_MAX >> 8))
					return corrupt(err, f, "an entry is cut short");
				c = *name++;
				drop = (drop << 7) | (c & 0x7f);
				if (c & 0x80)
					drop++;
			} while (c & 0x80);
			if (drop > prev_len || !(nul = memchr(name, '\0', (size_t)(end - name))))
				return corrupt(err, f, "a path cannot be decoded");
			wm_buf_clear(&f->v4path);
			wm_buf_add(&f->v4path, ix->paths + prev_off, prev_len - drop);
			wm_buf_add(&f->v4path, (const char *)name, (size_t)(nul - name));
			if (f->v4path.oom)
				return WM_ENOMEM;
			len = f->v4path.len;
			if ((ret = add_path(ix, f->v4path.ptr ? f->v4path.ptr : "", len, &e->path)) < 0)
				return ret;
			p = nul + 1;
		} else {
			if (!(nul = memchr(name, '\0', (size_t)(end - name))))
				return corrupt(err, f, "a path is not terminated");
			len = (size_t)(nul - name);
			if ((ret = add_path(ix, (const char *)name, len, &e->path)) < 0)
				return ret;
			/* padded with 1 to 8 NULs to a multiple of 8 */
			if ((size_t)(end - p) < ((fixed + len + 8) & ~(size_t)7))
				return corrupt(err, f, "an entry is cut short");
			p += (fixed + len + 8) & ~(size_t)7;
		}
		e->len = len;
		prev_off = e->path;
		prev_len = len;
		f->n++;
	}
	/* the extensions */
	while (p < end) {
		uint32_t size;
		if ((size_t)(end - p) < 8 || (size = be32(p + 4)) > (size_t)(end - p) - 8)
			return corrupt(err, f, "an extension is cut short");
		if (memcmp(p, "link", 4) == 0) {
			const unsigned char *q = p + 8, *qend = p + 8 + size;
			if (size < 20)
				return corrupt(err, f, "the link extension is cut short");
			f->linked = true;
			memcpy(f->shared, q, 20);
			q += 20;
			if (q < qend) {
				/* two EWAH bitmaps: bits, words, the words (64-bit), the last marker's position */
				for (int k = 0; k < 2; k++) {
					size_t words, blen;
					if ((size_t)(qend - q) < 8 || (words = be32(q + 4)) > ((size_t)(qend - q) - 12) / 8)
						return corrupt(err, f, "a bitmap of the link extension is cut short");
					blen = 12 + words * 8;
					if (k == 0)
						f->del = q, f->del_len = blen;
					else
						f->rep = q, f->rep_len = blen;
					q += blen;
				}
				if (q != qend)
					return corrupt(err, f, "the link extension is longer than its bitmaps");
			}
		} else if (p[0] < 'A' || p[0] > 'Z') {
			f->unsupported = true;  /* a mandatory extension: sdir (a sparse index), or one unknown */
		}
		p += 8 + (size_t)size;
	}
	return 0;
}

/*
 * Calls `fn` for each set bit of an EWAH bitmap, in order; stops at the
 * first that does not return 0.  A run of a word's bits is 64 bits.
 */
static int ewah_each(const unsigned char *b, size_t blen, int (*fn)(void *ctx, size_t bit), void *ctx)
{
	size_t words, bits, pos = 0;
	int ret;

	if (!b)
		return 0;
	bits = be32(b);
	words = be32(b + 4);
	if (blen != 12 + words * 8)
		return -1;
	for (size_t i = 0; i < words;) {
		uint64_t rlw = be64(b + 8 + i * 8);
		uint64_t run = (rlw >> 1) & 0xffffffffu, literals = rlw >> 33;
		if (literals > words - i - 1 || run > (bits + 63) / 64)
			return -1;
		if (rlw & 1) {
			for (uint64_t k = 0; k < run * 64; k++)
				if ((ret = fn(ctx, pos + k)) != 0)
					return ret;
		}
		pos += run * 64;
		for (uint64_t w = 0; w < literals; w++) {
			uint64_t word = be64(b + 8 + (i + 1 + w) * 8);
			for (unsigned k = 0; k < 64; k++)
				if ((word >> k) & 1 && (ret = fn(ctx, pos + k)) != 0)
					return ret;
			pos += 64;
		}
		i += 1 + (size_t)literals;
	}
	return 0;
}

struct merge {
	struct file *base, *split;
	size_t next;   /* the split index's next entry to replace with */
};

static int replace_bit(void *ctx, size_t bit)
{
	struct merge *m = ctx;
	struct raw *dst, *src;
	if (bit >= m->base->n || m->next >= m->split->n)
		return -1;
	dst = &m->base->entries[bit];
	src = &m->split->entries[m->next++];
	if (src->len != 0)
		return -1;  /* a replacement has no name of its own */
	src->path = dst->path;
	src->len = dst->len;
	*dst = *src;
	return 0;
}

static int delete_bit(void *ctx, size_t bit)
{
	struct merge *m = ctx;
	if (bit >= m->base->n)
		return -1;
	m->base->entries[bit].deleted = true;
	return 0;
}

static int by_path(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(sort_paths + x->path, sort_paths + y->path, n);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)x->stage - (int)y->stage;
}

static int by_path_seq(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;
	int c = by_path(a, b);
	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The entries of an index that is not split, as they are in the file: git writes them sorted. */
static int take_entries(struct wm_gitindex *out, const struct file *f, struct wm_error *err)
{
	if (!(out->entries = calloc(f->n + 1, sizeof(*out->entries)))) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	sort_paths = out->paths;
	for (size_t i = 0; i < f->n; i++) {
		struct wm_gitindex_entry *e = &out->entries[i];
		if (i && by_path(&f->entries[i - 1], &f->entries[i]) >= 0)
			return corrupt(err, f, "its entries are not sorted");
		e->path = out->paths + f->entries[i].path;
		e->mode = f->entries[i].mode;
		e->stage = f->entries[i].stage;
		memcpy(e->id, f->entries[i].id, 20);
	}
	out->n = f->n;
	return 0;
}

int wm_gitindex_read(struct wm_gitindex *out, const char *gitdir, struct wm_error *err)
{
	struct file split = { 0 }, base = { 0 };
	struct merge m = { &base, &split, 0 };
	struct raw *all = NULL;
	char *path = NULL, hex[41];
	size_t n = 0, dirlen = strlen(gitdir);
	int ret;

	memset(out, 0, sizeof(*out));
	if (!(path = malloc(dirlen + 64)))
		goto oom;
	snprintf(path, dirlen + 64, "%s%sindex", gitdir, dirlen && gitdir[dirlen - 1] != '/' ? "/" : "");
	if ((ret = read_file(&split, out, path, err)) != 0)
		goto out;
	if (split.unsupported) {
		ret = 1;
		goto out;
	}
	if (!split.linked) {
		ret = take_entries(out, &split, err);
		goto out;
	}
	out->split = true;
	for (int i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", split.shared[i]);
	snprintf(path, dirlen + 64, "%s%ssharedindex.%s", gitdir, dirlen && gitdir[dirlen - 1] != '/' ? "/" : "", hex);
	if ((ret = read_file(&base, out, path, err)) != 0) {
		if (ret == 1)
			ret = corrupt(err, &base, "not an index of version 2, 3 or 4");
		goto out;
	}
	if (base.linked || base.unsupported) {
		ret = 1;
		goto out;
	}
	if (memcmp(base.data + base.len, split.shared, 20) != 0) {
		ret = corrupt(err, &base, "its checksum is not the id the index links to");
		goto out;
	}
	if (ewah_each(split.rep, split.rep_len, replace_bit, &m) != 0 ||
	    ewah_each(split.del, split.del_len, delete_bit, &m) != 0) {
		ret = corrupt(err, &split, "the link extension's bitmaps do not fit the shared index");
		goto out;
	}
	if (!(all = calloc(base.n + split.n + 1, sizeof(*all))))
		goto oom;
	for (size_t i = 0; i < base.n; i++)
		if (!base.entries[i].deleted)
			all[n] = base.entries[i], all[n].seq = n, n++;
	for (size_t i = m.next; i < split.n; i++) {
		if (split.entries[i].len == 0) {
			ret = corrupt(err, &split, "an entry added to the shared index has no name");
			goto out;
		}
		all[n] = split.entries[i], all[n].seq = n, n++;
	}
	/*
	 * An added entry takes the place of a shared one of the same path and
	 * stage, and a merged one (stage 0) that of its conflict's stages, as
	 * git's add_index_entry does.
	 */
	sort_paths = out->paths;
	qsort(all, n, sizeof(*all), by_path_seq);
	if (!(out->entries = calloc(n + 1, sizeof(*out->entries))))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		struct wm_gitindex_entry *e;
		if (i + 1 < n && by_path(&all[i], &all[i + 1]) == 0)
			continue;  /* the later one wins */
		if (all[i].stage && out->n && out->entries[out->n - 1].stage == 0 &&
		    strcmp(out->entries[out->n - 1].path, out->paths + all[i].path) == 0)
			continue;
		e = &out->entries[out->n++];
		e->path = out->paths + all[i].path;
		e->mode = all[i].mode;
		e->stage = all[i].stage;
		memcpy(e->id, all[i].id, 20);
	}
	ret = 0;
	goto out;
oom:
	wm_error_code(err, WM_ENOMEM);
	ret = WM_ENOMEM;
out:
	if (ret != 0)
		wm_gitindex_free(out);
	free(all);
	free(path);
	free(split.data);
	free(split.entries);
	free(base.data);
	free(base.entries);
	wm_buf_release(&split.v4path);
	wm_buf_release(&base.v4path);
	return ret;
}

size_t wm_gitindex_lower_bound(const struct wm_gitindex *ix, const char *prefix)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix->entries[mid].path, prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct wm_gitindex_entry *wm_gitindex_find(const struct wm_gitindex *ix, const char *path)
{
	size_t i = wm_gitindex_lower_bound(ix, path);
	/* the stages of a path follow each other, stage 0 (when there is one) first */
	return i < ix->n && strcmp(ix->entries[i].path, path) == 0 && ix->entries[i].stage == 0 ? &ix->entries[i] : NULL;
}

void wm_gitindex_free(struct wm_gitindex *ix)
{
	free(ix->entries);
	free(ix->paths);
	memset(ix, 0, sizeof(*ix));
}
