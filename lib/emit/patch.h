/* patch.h — variant patches of pyproject.toml as byte-exact edits (patch.c). */
#ifndef WM_EMIT_PATCH_H
#define WM_EMIT_PATCH_H

#include "util/common.h"
#include "util/buf.h"
#include "formats/toml.h"

/* What one build variant changes in the project's pyproject.toml; NULL or 0 leaves a part alone. */
struct wm_patch_spec {
	const char *name;           /* the variant's distribution name for [project].name, or NULL to keep */
	const char *old_name;       /* the base name: self-references `old[extra]` in dependencies and
	                               optional-dependencies become `name[extra]`; NULL: [project].name */
	const char *const *features; size_t nfeatures;  /* merged into [tool.maturin].features */
	const char *module_name;    /* pin [tool.maturin].module-name, or NULL */
	const char *python_source;  /* pin [tool.maturin].python-source, or NULL */
	const char *manifest_path;  /* pin [tool.maturin].manifest-path, or NULL */
	const char *const *dependencies; size_t ndependencies;  /* PEP 508 strings appended to [project].dependencies */
	const char *version;        /* [project].version, or NULL to keep */
	const struct wm_provider *providers; size_t nproviders;  /* strategy variants: the [variant] table */
};

/*
 * Appends to `out` the text of `doc` (a parsed pyproject.toml) edited for one
 * variant.  Each change is a splice of the original text, so every byte
 * outside the edited values is kept, line endings and a missing final newline
 * included; inserted lines use the document's line ending.
 *   - [project].name: the string replaced, keeping '...' quotes; names in
 *     comments or other strings are left alone;
 *   - requirements of [project].dependencies and optional-dependencies whose
 *     PEP 503 name is old_name's: just the name replaced (`old[x]>=1` -> `new[x]>=1`);
 *   - features and dependencies: the strings not in the array yet (exact match)
 *     appended in the array's layout (one line per item in a multi-line array,
 *     indented and comma'd like its last item); the key is added when missing;
 *   - module-name, python-source, manifest-path: the value replaced or the key added;
 *   - version: the string replaced; a dynamic version (maturin's from Cargo.toml)
 *     leaves [project].dynamic and the key is added;
 *   - providers: a [variant] table (PEP 817/825 drafts, as variantlib reads it) at
 *     the end, after a blank line: [variant.default-priorities] namespace = the
 *     providers' namespaces in order, then one [variant.providers.<namespace>]
 *     each with requires, plugin-api and optional = true as given;
 *   - keys are added at the table's append offset (with its dotted prefix when
 *     dotted keys made it), or as `, key = value` after the last pair of an
 *     inline table; without a [tool.maturin] table, `maturin = {...}` goes into
 *     an inline `tool`, else a new [tool.maturin] section at the end, after a
 *     blank line.
 * Errors (WM_EINVALID, positioned in doc->file): no [project].name, a value of
 * the wrong type, dependencies to add that [project].dynamic lists, a
 * [variant] table of the project's own when providers are given;
 * WM_EINTERNAL if two edits overlapped (a bug).  `out` is the caller's;
 * nothing is added to it on failure, except on WM_ENOMEM.
 */
int wm_patch_pyproject(struct wm_buf *out, const struct wm_toml_doc *doc, const struct wm_patch_spec *spec,
	struct wm_error *err);

#endif
