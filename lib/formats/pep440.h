/* pep440.h — PEP 440 versions and specifiers (pep440.c). */
#ifndef WM_FORMATS_PEP440_H
#define WM_FORMATS_PEP440_H

#include "util/common.h"
#include "util/buf.h"

/*
 * Appends `version` written as PEP 440 normalises it (Cargo's semver
 * included: 0.3.0-alpha.1 -> 0.3.0a1); WM_EINVALID with `why` set when it
 * cannot be written so.
 */
int wm_pep440(struct wm_buf *out, const char *version, const char **why);
/* Whether a version is a pre-release or a dev release (1.0a1, 1.0.dev3). */
bool wm_pep440_prerelease(const char *version);
/* Equal once normalised (compared as text when either is not PEP 440). */
bool wm_pep440_equal(const char *a, const char *b);
/*
 * PEP 440's order of versions a and b: negative, 0 or positive (0.3.0.dev1 < 0.3.0a1 <
 * 0.3.0rc1 < 0.3.0 < 0.3.0.post1 < 0.3.0+cuda).  *ok is false, and the result 0, when either
 * has no PEP 440 form.
 */
int wm_pep440_compare(const char *a, const char *b, bool *ok);
/*
 * Whether the release `version` (1.2.3) satisfies every comma-separated
 * specifier of `specs` (">=1.9,<2", "~=1.14", "==1.9.*"); an empty list
 * admits any.  Bounds are compared by their release part.  1 or 0, or
 * WM_EINVALID with `why` set when either cannot be read.
 */
int wm_pep440_specs_match(const char *specs, const char *version, const char **why);

#endif
