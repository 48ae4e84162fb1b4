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
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/buf.h"
#include "util/error.h"
#include "repo/gitindex.h"

/*
 * The files are mapped, not read: an entry is a pointer to its record and
 * one to its path, which in versions 2 and 3 is the record's own (ended by
 * its padding's first NUL).  Nothing of a large index is copied.
 */

#define MAX_INDEX_BYTES ((size_t)1 << 31)
#define DELETED 0x80000000u   /* in seq, while a split index is merged */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

uint32_t wm_gitindex_mode(const struct wm_gitindex_entry *e)
{
	return be32(e->rec + 24);
}

unsigned wm_gitindex_stage(const struct wm_gitindex_entry *e)
{
	return (e->rec[60] >> 4) & 3;
}

const unsigned char *wm_gitindex_id(const struct wm_gitindex_entry *e)
{
	return e->rec + 40;
}

struct file {
	const char *name;        /* for messages */
	const unsigned char *data;
	size_t len;              /* without the checksum */
	struct wm_gitindex_entry *entries;
	size_t n;
	/* the link extension, in a split index */
	bool linked;
	const unsigned char *shared;      /* the shared index's id */
	const unsigned char *del, *rep;   /* the two EWAH bitmaps, NULL when absent */
	size_t del_len, rep_len;
	bool unsupported;        /* a mandatory extension other than link */
};

static int corrupt(struct wm_error *err, const struct file *f, const char *why)
{
	wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0, "the index '%s' is corrupt: %s",
		f->name, why);
	return WM_EINVALID;
}

/* Maps `path` into slot k of ix. */
static int map_file(struct file *f, struct wm_gitindex *ix, int k, const char *path, struct wm_error *err)
{
	struct stat st;
	void *map;
	int fd;

	f->name = path;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		wm_error_add(err, WM_EREAD, WM_SEV_ERROR, path, NULL, 0, 0, 0, 0, "cannot read the index: %s",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return WM_EREAD;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < 12 + 20 || (size_t)st.st_size > MAX_INDEX_BYTES) {
		close(fd);
		return corrupt(err, f, S_ISREG(st.st_mode) ? "too short or too large" : "not a file");
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		wm_error_add(err, WM_EREAD, WM_SEV_ERROR, path, NULL, 0, 0, 0, 0, "cannot read the index: %s",
			strerror(errno));
		return WM_EREAD;
	}
	ix->map[k] = map;
	ix->maplen[k] = (size_t)st.st_size;
	f->data = map;
	f->len = (size_t)st.st_size - 20;  /* the checksum, not verified: git does not either when it reads */
	return 0;
}

/* Where the reading of an index file's entries is. */
struct entries {
	struct file *f;
	const unsigned char *p, *end;  /* the next entry; the end of the entries and extensions */
	uint32_t version;
	struct wm_buf v4;              /* version 4: the paths put together, each after the last */
	struct wm_buf last;            /* version 4: the previous path */
	size_t prev_len;               /* the previous path's length */
	struct wm_error *err;
};

static int cut_short(struct entries *r)
{
	return corrupt(r->err, r->f, "an entry is cut short");
}

/*
 * A version 2 or 3 entry's path at `name`, after its `fixed` bytes: *len its length; r->p then at the
 * next entry.
 */
static int path_v2(struct entries *r, struct wm_gitindex_entry *e, const unsigned char *name, size_t fixed,
	size_t *len)
{
	const unsigned char *nul = memchr(name, '\0', (size_t)(r->end - name));
	if (!nul)
		return corrupt(r->err, r->f, "a path is not terminated");
	*len = (size_t)(nul - name);
	e->path = (const char *)name;
	/* padded with 1 to 8 NULs to a multiple of 8 */
	if ((size_t)(r->end - r->p) < ((fixed + *len + 8) & ~(size_t)7))
		return cut_short(r);
	r->p += (fixed + *len + 8) & ~(size_t)7;
	return 0;
}

/*
 * A version 4 entry's path at `name`, made from the previous one: *len its length, e->path its
 * offset in r->v4 until that is complete; r->p then at the next entry.
 */
static int path_v4(struct entries *r, struct wm_gitindex_entry *e, const unsigned char *name, size_t *len)
{
	const unsigned char *nul;
	size_t drop = 0;  /* the number of bytes to drop from the end of the previous path: git's varint */
	unsigned char c;
	do {
		if (name >= r->end || drop > (SIZE_MAX >> 8))
			return cut_short(r);
		c = *name++;
		drop = (drop << 7) | (c & 0x7f);
		if (c & 0x80)
			drop++;
	} while (c & 0x80);
	if (drop > r->prev_len || !(nul = memchr(name, '\0', (size_t)(r->end - name))))
		return corrupt(r->err, r->f, "a path cannot be decoded");
	*len = r->prev_len - drop + (size_t)(nul - name);
	if (r->last.ptr)
		r->last.len = r->prev_len - drop;
	wm_buf_add(&r->last, (const char *)name, (size_t)(nul - name));
	e->path = (const char *)(uintptr_t)r->v4.len;
	wm_buf_add(&r->v4, r->last.ptr ? r->last.ptr : "", *len);
	wm_buf_putc(&r->v4, '\0');
	if (r->v4.oom || r->last.oom) {
		wm_error_code(r->err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	r->p = nul + 1;
	return 0;
}

/* The entry at r->p, added to the file's entries. */
static int read_entry(struct entries *r)
{
	struct file *f = r->f;
	struct wm_gitindex_entry *e = &f->entries[f->n];
	const unsigned char *name;
	unsigned flags;
	size_t fixed = 62, len;
	int ret;

	if ((size_t)(r->end - r->p) < 62)
		return cut_short(r);
	flags = (unsigned)r->p[60] << 8 | r->p[61];
	if (flags & 0x4000) {  /* extended flags */
		if (r->version < 3)
			return corrupt(r->err, f, "an extended entry in a version 2 index");
		fixed = 64;
	}
	if ((size_t)(r->end - r->p) < fixed)
		return cut_short(r);
	e->rec = r->p;
	name = r->p + fixed;
	if ((ret = r->version == 4 ? path_v4(r, e, name, &len) : path_v2(r, e, name, fixed, &len)) < 0)
		return ret;
	if (len > UINT32_MAX / 2)
		return corrupt(r->err, f, "a path is too long");
	e->len = (uint32_t)len;
	e->seq = 0;
	r->prev_len = len;
	f->n++;
	return 0;
}

/* The link extension's `size` bytes at `q`: the shared index's name and, when there, its two bitmaps. */
static int read_link(struct file *f, const unsigned char *q, uint32_t size, struct wm_error *err)
{
	const unsigned char *qend = q + size;
	if (size < 20)
		return corrupt(err, f, "the link extension is cut short");
	f->linked = true;
	f->shared = q;
	q += 20;
	if (q == qend)
		return 0;
	/* two EWAH bitmaps: bits, words, the words (64-bit), the last marker's position */
	for (int b = 0; b < 2; b++) {
		size_t words, blen;
		if ((size_t)(qend - q) < 12 || (words = be32(q + 4)) > ((size_t)(qend - q) - 12) / 8)
			return corrupt(err, f, "a bitmap of the link extension is cut short");
		blen = 12 + words * 8;
		if (b == 0)
			f->del = q, f->del_len = blen;
		else
			f->rep = q, f->rep_len = blen;
		q += blen;
	}
	if (q != qend)
		return corrupt(err, f, "the link extension is longer than its bitmaps");
	return 0;
}

/* The extensions from `p` to `end`: the link extension read, a mandatory one marked unsupported. */
static int read_extensions(struct file *f, const unsigned char *p, const unsigned char *end, struct wm_error *err)
{
	int ret;
	while (p < end) {
		uint32_t size;
		if ((size_t)(end - p) < 8 || (size = be32(p + 4)) > (size_t)(end - p) - 8)
			return corrupt(err, f, "an extension is cut short");
		if (memcmp(p, "link", 4) == 0) {
			if ((ret = read_link(f, p + 8, size, err)) < 0)
				return ret;
		} else if (p[0] < 'A' || p[0] > 'Z') {
			f->unsupported = true;  /* a mandatory extension: sdir (a sparse index), or one unknown */
		}
		p += 8 + (size_t)size;
	}
	return 0;
}

/* Reads one index file (mapped into slot k): its entries and what its link extension says. */
static int read_file(struct file *f, struct wm_gitindex *ix, int k, const char *path, struct wm_error *err)
{
	struct entries r = { .f = f, .v4 = WM_BUF_INIT, .last = WM_BUF_INIT, .err = err };
	uint32_t count;
	int ret;

	if ((ret = map_file(f, ix, k, path, err)) < 0)
		return ret;
	if (memcmp(f->data, "DIRC", 4) != 0)
		return corrupt(err, f, "no DIRC signature");
	r.version = be32(f->data + 4);
	count = be32(f->data + 8);
	if (r.version < 2 || r.version > 4)
		return 1;
	if (count > f->len / 62)
		return corrupt(err, f, "more entries than bytes");
	if (!(f->entries = malloc(((size_t)count + 1) * sizeof(*f->entries)))) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	r.p = f->data + 12;
	r.end = f->data + f->len;
	ret = 0;
	for (uint32_t i = 0; i < count && ret == 0; i++)
		ret = read_entry(&r);
	if (ret == 0 && r.version == 4) {
		for (size_t i = 0; i < f->n; i++)
			f->entries[i].path = r.v4.ptr + (uintptr_t)f->entries[i].path;
		ix->paths[k] = wm_buf_detach(&r.v4);
	}
	if (ret == 0)
		ret = read_extensions(f, r.p, r.end, err);
	wm_buf_release(&r.v4);
	wm_buf_release(&r.last);
	return ret;
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
	struct wm_gitindex_entry *dst, *src;
	if (bit >= m->base->n || m->next >= m->split->n)
		return -1;
	dst = &m->base->entries[bit];
	src = &m->split->entries[m->next++];
	if (src->len != 0)
		return -1;  /* a replacement has no name of its own */
	dst->rec = src->rec;  /* the path stays */
	return 0;
}

static int delete_bit(void *ctx, size_t bit)
{
	struct merge *m = ctx;
	if (bit >= m->base->n)
		return -1;
	m->base->entries[bit].seq |= DELETED;
	return 0;
}

/* git's order: the paths' bytes, then the stage */
static int by_path(const struct wm_gitindex_entry *x, const struct wm_gitindex_entry *y)
{
	int c = memcmp(x->path, y->path, (x->len < y->len ? x->len : y->len));
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)wm_gitindex_stage(x) - (int)wm_gitindex_stage(y);
}

static int by_path_seq(const void *a, const void *b)
{
	const struct wm_gitindex_entry *x = a, *y = b;
	int c = by_path(x, y);
	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

int wm_gitindex_read(struct wm_gitindex *out, const char *index, const char *gitdir, struct wm_error *err)
{
	struct file split = { 0 }, base = { 0 };
	struct merge m = { &base, &split, 0 };
	struct wm_gitindex_entry *all = NULL;
	char *path = NULL, hex[41];
	size_t n = 0, dirlen = strlen(gitdir);
	const char *sep = dirlen && gitdir[dirlen - 1] != '/' ? "/" : "";
	int ret;

	memset(out, 0, sizeof(*out));
	if (!(path = malloc(dirlen + 64)))
		goto oom;
	if ((ret = read_file(&split, out, 0, index, err)) != 0)
		goto out;
	if (split.unsupported) {
		ret = 1;
		goto out;
	}
	if (!split.linked) {
		/* git writes the entries sorted: so they are taken, once that is checked */
		for (size_t i = 1; i < split.n; i++)
			if (by_path(&split.entries[i - 1], &split.entries[i]) >= 0) {
				ret = corrupt(err, &split, "its entries are not sorted");
				goto out;
			}
		out->entries = split.entries;
		out->n = split.n;
		split.entries = NULL;
		ret = 0;
		goto out;
	}
	out->split = true;
	for (int i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", split.shared[i]);
	snprintf(path, dirlen + 64, "%s%ssharedindex.%s", gitdir, sep, hex);
	if ((ret = read_file(&base, out, 1, path, err)) != 0) {
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
	if (base.n + split.n >= DELETED || !(all = malloc((base.n + split.n + 1) * sizeof(*all))))
		goto oom;
	for (size_t i = 0; i < base.n; i++)
		if (!(base.entries[i].seq & DELETED))
			all[n] = base.entries[i], all[n].seq = (uint32_t)n, n++;
	for (size_t i = m.next; i < split.n; i++) {
		if (split.entries[i].len == 0) {
			ret = corrupt(err, &split, "an entry added to the shared index has no name");
			goto out;
		}
		all[n] = split.entries[i], all[n].seq = (uint32_t)n, n++;
	}
	/*
	 * An added entry takes the place of a shared one of the same path and
	 * stage, and a merged one (stage 0) that of its conflict's stages, as
	 * git's add_index_entry does.
	 */
	qsort(all, n, sizeof(*all), by_path_seq);
	out->entries = all;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && by_path(&all[i], &all[i + 1]) == 0)
			continue;  /* the later one wins */
		if (wm_gitindex_stage(&all[i]) && out->n && wm_gitindex_stage(&all[out->n - 1]) == 0 &&
		    all[out->n - 1].len == all[i].len && memcmp(all[out->n - 1].path, all[i].path, all[i].len) == 0)
			continue;
		all[out->n++] = all[i];
	}
	all = NULL;
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
	free(split.entries);
	free(base.entries);
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
	return i < ix->n && strcmp(ix->entries[i].path, path) == 0 && wm_gitindex_stage(&ix->entries[i]) == 0 ?
		&ix->entries[i] : NULL;
}

void wm_gitindex_free(struct wm_gitindex *ix)
{
	free(ix->entries);
	for (int k = 0; k < 2; k++) {
		if (ix->map[k])
			munmap(ix->map[k], ix->maplen[k]);
		free(ix->paths[k]);
	}
	memset(ix, 0, sizeof(*ix));
}
