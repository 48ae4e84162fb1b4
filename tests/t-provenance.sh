#!/usr/bin/env bash
# t-provenance.sh — publish jobs attest every file they upload, with the least permissions; the GitHub release job is on tags only.
#
# The example matrices llm-rs (strategy rename), llm-rs-meta (strategy meta) and llm-rs-index
# (strategy index, its GitHub workflow alone) are generated in
# scratch repositories as they are, with `publish.github-release: true`, and with that and
# `publish.pypi.trusted: false`.  In each GitHub workflow (PyYAML reads it):
# - the workflow grants `contents: read` and only the publish jobs and the release job ask for
#   more: a publish job exactly contents: read, id-token: write, attestations: write; the release
#   job exactly contents: write; the drift check, wheelmatrix-check, and the tag check, wheelmatrix-tag, contents: read on the job
#   itself; no other job has a `permissions:` block;
# - each publish job, after its downloads, runs actions/attest (at the reference
#   of templates/actions.yaml) before pypa/gh-action-pypi-publish, and its `subject-path` globs,
#   run against a workspace holding what the job's downloads write (each build job's artifact,
#   wheels-<matrix id>, holds a wheel, sdist-<backend> an sdist, meta-package one of each, as
#   their upload paths say), match exactly the downloaded files: every wheel, sdist and meta
#   package file gets its provenance, and nothing is left out;
# - the publish step asks for PEP 740 attestations under trusted publishing, and with a token
#   passes the secret and asks for none (PyPI takes them from trusted publishers only);
# - the `github-release` job exists exactly when the key is true, runs only on tags, needs every
#   publish job, downloads every artifact into dist/ and attaches dist/* with `gh release create`
#   for the tag (--verify-tag), with the job's own token and no secret;
# - under strategy index the publish job is the default backend's; each other backend's
#   `index-<backend>` job asks for exactly contents: write, id-token: write, attestations: write,
#   runs on tags only, attests exactly the files it downloads (its backend's wheels and sdist)
#   and then creates the release "$GITHUB_REF_NAME-$WM_BACKEND" with them, with the job's own
#   token; `index-pages` asks for contents: read and `deploy-pages` for pages: write and
#   id-token: write; the `github-release` job attaches the default backend's files only;
# - actionlint, zizmor and action-validator (tests/helpers/wmlint.py) have no finding.
# In each GitLab file: the publish jobs carry an ID token for Sigstore next to PyPI's and sign
# with pypi-attestations exactly under trusted publishing, installed with twine from a lock of hashes
# (--require-hashes, no pin of its own), and `github-release` changes nothing.
# heavy: actionlint, zizmor and action-validator on the generated workflows
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
why=$("$py" "$ROOT/tests/helpers/wmlint.py" --missing) || fatal "$why"
"$py" "$ROOT/tests/helpers/provcheck.py" "$WM" "$tmp" || fail "provenance and release jobs (above)"
finish
