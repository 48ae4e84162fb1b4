#!/usr/bin/env bash
# t-hostile-matrix.sh — the hostile-input table: a matrix file from a pull request cannot inject into the CI.
#
# Each case puts one value in one place of an otherwise plain matrix and says which outcome is
# right for it:
#   reject  generate exits 2, writes nothing, and its first error is
#           `wheelmatrix.yaml:LINE:COL: error: ...` with LINE the value's line, COL inside the value,
#           and the message quoting the offending text (or, for an expression, its `${{`);
#   intact  generate exits 0, re-parsing what it wrote gives back exactly the value where it
#           belongs (the build jobs' env, a build entry's runs-on, maturin-action's container, the
#           publish job's environment, a setup step's run/with/env, the container's before-script,
#           an action's reference, the GitLab jobs' variables with '$$' read as '$'; for the
#           GitLab-only `image`, `list`'s gitlab_image), and every GitHub workflow written is clean
#           for actionlint, zizmor (its auditor persona), action-validator and shellcheck
#           (tests/helpers/wmlint.py), a custom runner label being declared to actionlint as a repository
#           declares its own runners;
#   warn    as intact, and generate also prints `wheelmatrix.yaml:LINE:COL: warning: ...` at the value.
# The places and what the issue of each was:
#   setup-run, setup-with, setup-env, before-script  GitHub expressions: only a short list of
#       contexts may be read outside a step's own env:, whatever the case, index or function;
#   setup-env-whole, setup-with-whole, setup-step-whole, setup-env-name, setup-with-name  a step,
#       its env: or its with: written as one expression (whose value would give the keys: BASH_ENV
#       from a pull request's title), an expression or a code-running name as a key, a list or
#       mapping where GitHub reads one value: expressions only inside values;
#   action-ref   an action's reference is a tag, branch or SHA, never a path or expression;
#   env-name     the generated jobs' own, the CI providers' and the code-running names are reserved;
#   env-line-separator, env-paragraph-separator, env-next-line  raw line breaks of YAML 1.1 alone;
#   gitlab-env, gitlab-image, gitlab-tag  GitLab expands '$': written '$$' in values, refused in
#       an image or runner tag; a GitHub expression copied to GitLab draws a warning;
#   test-*       the tests' command, requirements, extras, sources, skip globs, runner and tags: no
#       expression, control or format character (a command is one line), requirements and extras
#       in their grammars, sources in the paths', runner labels without spaces, tags without '$';
#       a command and requirements reach GitHub's env: and GitLab's variables as they are;
#   index-url    strategy index: the URL is held to letters, digits and -._~/ after the host, and
#       reaches the index-<backend> and index-pages jobs as WM_INDEX_URL, never a run: script;
#   profile, toolchain, feature, flag, docker  the build settings reach maturin-action's args,
#       rust-toolchain and docker-options, which it writes into a shell script unquoted: each word
#       in its grammar, no blank, quote, '$', '`', ';' or pattern character;
#   include-env  a variable only some entries of a build job set goes through the matrix into the
#       step that sets it for those entries ($GITHUB_ENV, between delimiters the value lacks).
# The repository-side cases (a symbolic link into a nested .git, a meta package file linked out of
# the repository, an index's control characters and query string) have their own tests:
# t-nested-git, t-meta-symlink, t-plan-hostile.
# A value holding a GitHub expression (${{ ... }}) is never "intact" where GitHub evaluates it as
# untrusted or broken text: runner labels and environment names are literals, and an untrusted
# context or a malformed expression in an env value must be refused.  Environment names are held
# to letters, digits, ' ', '-', '_' and '.' (the loader's rule), so '#' and ': ' are refused there.
# heavy: actionlint, zizmor and action-validator on the workflows of the hostile matrices
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
"$py" - "$WM" "$ROOT" "$tmp" <<'PY' || fail "hostile matrices (above)"
import json, os, re, subprocess, sys
import yaml
wm, root, tmp = sys.argv[1:]
sys.path.insert(0, os.path.join(root, "tests", "helpers"))
import wfcheck, wmlint

E = "${{"
# (name, place, value, outcome, texts of which the error must quote one)
CASES = [
    ("env-single-quote", "env", "it's", "intact", None),
    ("env-double-quote", "env", 'say "hi"', "intact", None),
    ("env-both-quotes", "env", "'\"'\"'", "intact", None),
    ("env-colon-space", "env", "key: value", "intact", None),
    ("env-hash", "env", "a #b", "intact", None),
    ("env-lead-hash", "env", "#!/bin/sh", "intact", None),
    ("env-newlines", "env", "one\ntwo", "intact", None),
    ("env-trailing-newline", "env", "line\n", "intact", None),
    ("env-indented-first-line", "env", "  indented\nnext", "intact", None),
    ("env-blank-lines", "env", "\n\na\n\n", "intact", None),
    ("env-crlf", "env", "a\r\nb", "intact", None),
    ("env-doc-markers", "env", "---\n...\n", "intact", None),
    ("env-shell", "env", "$(touch pwned); `id` && rm -rf \"$HOME\" # x", "intact", None),
    ("env-recipe-marker", "env", "@version@ @major@", "intact", None),
    # raw NEL, LINE and PARAGRAPH SEPARATOR: libyaml breaks the line there, a review does not
    # (t-line-separators: the same after a comment, hiding a key)
    ("env-line-separator", "env", "a\u2028b", "reject", ("U+2028",)),
    ("env-paragraph-separator", "env", "a\u2029b", "reject", ("U+2029",)),
    ("env-next-line", "env", "a\u0085b", "reject", ("U+0085",)),
    ("env-untrusted", "env", E + " github.event.issue.title }}", "reject", ("github.event.issue.title", E)),
    ("env-untrusted-nospace", "env", E + "github.event.pull_request.title}}", "reject",
     ("github.event.pull_request.title", E)),
    ("env-untrusted-embedded", "env", "title: " + E + " github.event.issue.title }} #1", "reject",
     ("github.event.issue.title", E)),
    ("env-unterminated", "env", E + " github.sha", "reject", (E,)),
    ("env-unknown-context", "env", E + " nosuch.value }}", "reject", ("nosuch", E)),
    ("runner-hash", "runner", "x#y", "intact", None),
    ("runner-colon", "runner", "x:y", "intact", None),
    ("runner-quotes", "runner", "a'b\"c", "intact", None),
    ("runner-colon-space", "runner", "x: y", "reject", ("x: y",)),
    ("runner-space-hash", "runner", "x #y", "reject", ("x #y",)),
    ("runner-newline", "runner", "x\ny", "reject", ("x",)),
    ("runner-untrusted", "runner", E + "github.event.issue.title}}", "reject", ("github.event.issue.title", E)),
    ("container-hash", "container", "quay.io/pypa/manylinux_2_28_x86_64:2025#1", "intact", None),
    ("container-colon-space", "container", "quay.io/pypa/x: y", "reject", ("quay.io/pypa/x: y",)),
    ("image-hash", "image", "registry.example/img:1#x", "intact", None),
    ("image-colon-space", "image", "img: 1", "reject", ("img: 1",)),
    ("environment-space", "environment", "pypi release", "intact", None),
    ("environment-punctuation", "environment", "pypi.prod-1_x", "intact", None),
    ("environment-hash", "environment", "pypi #1", "reject", ("pypi #1",)),
    ("environment-colon-space", "environment", "release: pypi", "reject", ("release: pypi",)),
    ("environment-untrusted", "environment", E + " github.head_ref }}", "reject", ("github.head_ref", E)),
    # 1. expressions in setup steps and the before-script
    ("run-event-upper", "setup-run", "echo " + E + " GITHUB.EVENT.issue.title }}", "reject", ("GITHUB.EVENT.issue.title",)),
    ("run-index", "setup-run", "echo " + E + " github['event']['issue']['title'] }}", "reject", ("github",)),
    ("run-mixed-case", "setup-run", "echo " + E + " Github.Head_Ref }}", "reject", ("Github.Head_Ref",)),
    ("run-tojson", "setup-run", "echo " + E + " toJSON(github) }}", "reject", ("github",)),
    ("run-fromjson", "setup-run", "echo " + E + " fromJSON(toJSON(github)).event.issue.title }}", "reject", ("github",)),
    ("run-brace-in-string", "setup-run", "echo " + E + " format('}}', github.head_ref) }}", "reject", ("github.head_ref",)),
    ("run-spaced-dots", "setup-run", "echo " + E + " github . head_ref }}", "reject", ("github . head_ref",)),
    ("run-inputs", "setup-run", "echo " + E + " inputs.version }}", "reject", ("inputs.version",)),
    ("run-env", "setup-run", "echo " + E + " env.TITLE }}", "reject", ("env.TITLE",)),
    ("run-steps", "setup-run", "echo " + E + " steps.x.outputs.y }}", "reject", ("steps.x.outputs.y",)),
    ("run-secrets-whole", "setup-run", "echo " + E + " toJSON(secrets) }}", "reject", ("secrets",)),
    ("run-object-filter", "setup-run", "echo " + E + " github.event.commits.*.message }}", "reject",
     ("github.event.commits.*.message",)),
    ("run-unknown-function", "setup-run", "echo " + E + " evil(github.sha) }}", "reject", ("evil",)),
    ("run-unterminated", "setup-run", "echo " + E + " runner.os", "reject", (E,)),
    ("run-safe", "setup-run", "echo " + E + " runner.os }}-" + E + " RUNNER.ARCH }} " + E + " github.sha }}", "intact", None),
    ("run-secret", "setup-run", 'test -n "' + E + ' secrets.BUILD_TOKEN }}"', "intact", None),
    ("run-functions", "setup-run", "echo " + E + " format('{0}-{1}', runner.os, hashFiles('**/Cargo.lock')) }}",
     "intact", None),
    ("with-untrusted", "setup-with", "core.info(" + E + " github.head_ref }})", "reject", ("github.head_ref",)),
    ("with-safe", "setup-with", "core.info('" + E + " runner.os }}')", "intact", None),
    ("step-env-untrusted", "setup-env", E + " github.event.issue.title }}", "intact", None),
    ("step-env-whole", "setup-env", E + " toJSON(github.event) }}", "intact", None),
    # a mapping or a step written as one expression: its value would give the keys
    ("step-env-expression", "setup-env-whole", E + " fromJSON(github.event.pull_request.title) }}", "reject", (E,)),
    ("step-env-expression-safe", "setup-env-whole", E + " fromJSON(vars.BUILD_ENV) }}", "reject", (E,)),
    ("step-with-expression", "setup-with-whole", E + " fromJSON(secrets.INPUTS) }}", "reject", (E,)),
    ("step-expression", "setup-step-whole", E + " fromJSON(github.event.pull_request.title) }}", "reject", (E,)),
    ("step-env-name-expression", "setup-env-name", E + " github.event.issue.title }}", "reject", (E,)),
    ("step-env-name-bash-env", "setup-env-name", "BASH_ENV", "reject", ("BASH_ENV",)),
    ("step-env-name-bash-func", "setup-env-name", "BASH_FUNC_echo%%", "reject", ("BASH_FUNC_echo%%",)),
    ("step-with-name-expression", "setup-with-name", E + " github.head_ref }}", "reject", (E,)),
    ("step-env-value-mapping", "setup-env", {"a": "b"}, "reject", ("'env'",)),
    ("step-with-value-list", "setup-with", ["core.info(1)"], "reject", ("'with'",)),
    ("step-run-list", "setup-run", ["echo", "hi"], "reject", ("'run'",)),
    ("before-script-untrusted", "before-script", "echo " + E + " github.Head_Ref }}", "reject", ("github.Head_Ref",)),
    ("before-script-index", "before-script", "echo " + E + " github['head_ref'] }}", "reject", ("github",)),
    ("before-script-safe", "before-script", "echo " + E + " runner.arch }}", "intact", None),
    # 2. action references
    ("ref-expression", "action-ref", E + "github.head_ref}}", "reject", (E,)),
    ("ref-path", "action-ref", "../../../evil/repo@main", "reject", ("../../../evil/repo@main",)),
    ("ref-second-at", "action-ref", "v4@evil", "reject", ("v4@evil",)),
    ("ref-hash", "action-ref", "v4#x", "reject", ("v4#x",)),
    ("ref-leading-dash", "action-ref", "-v1", "reject", ("-v1",)),
    ("ref-tag", "action-ref", "v6.0.1", "intact", None),
    ("ref-sha", "action-ref", "08c6903cd8c0fde910a37f88322edcfb5dd907a8", "intact", None),
    # 3. environment names
    ("name-wm", "env-name", "WM_PYTHON", "reject", ("WM_PYTHON",)),
    ("name-bash-env", "env-name", "BASH_ENV", "reject", ("BASH_ENV",)),
    ("name-bash-func", "env-name", "BASH_FUNC_x%%", "reject", ("BASH_FUNC_x%%",)),
    ("name-ld-preload", "env-name", "LD_PRELOAD", "reject", ("LD_PRELOAD",)),
    ("name-github", "env-name", "GITHUB_PATH", "reject", ("GITHUB_PATH",)),
    ("name-gitlab", "env-name", "CI_JOB_TOKEN", "reject", ("CI_JOB_TOKEN",)),
    ("name-pythonpath", "env-name", "PYTHONPATH", "reject", ("PYTHONPATH",)),
    ("name-plain", "env-name", "CUDA_COMPUTE_CAP", "intact", None),
    # 4. GitLab's '$'
    ("gitlab-token", "gitlab-env", "$CI_JOB_TOKEN", "intact", None),
    ("gitlab-braces", "gitlab-env", "${CI_COMMIT_REF_NAME}-$$x", "intact", None),
    ("gitlab-secret", "gitlab-env", E + " secrets.PYPI_TOKEN }}", "warn", None),
    ("gitlab-include-secret", "gitlab-include-env", E + " vars.CUDA_ARCH }}", "warn", None),
    ("gitlab-image", "gitlab-image", "$CI_COMMIT_REF_NAME", "reject", ("'$'",)),
    ("gitlab-tag", "gitlab-tag", "$CI_COMMIT_BRANCH", "reject", ("'$'",)),
    # 6. test: the tests' values reach the GitHub steps and GitLab jobs through WM_TEST_* alone
    ("test-command-quotes", "test-command", "pytest -k 'a and not b' \"$HOME\" {project}/tests #x", "intact", None),
    ("test-command-untrusted", "test-command", "pytest " + E + " github.event.pull_request.title }}", "reject",
     (E,)),
    ("test-command-escape", "test-command", "pytest\x1b[2J", "reject", ("U+001B",)),
    ("test-command-newline", "test-command", "pytest\ncurl evil", "reject", ("U+000A",)),
    ("test-command-bidi", "test-command", "pytest \u202e", "reject", ("U+202E",)),
    ("test-requires-marker", "test-requires", 'numpy>=1.26; python_version < "3.14"', "intact", None),
    ("test-requires-untrusted", "test-requires", "pytest @ https://x/" + E + " github.head_ref }}", "reject", (E,)),
    ("test-extras-shell", "test-extras", "a];touch x;[", "reject", ("a];touch x;[",)),
    ("test-sources-out", "test-sources", "../outside", "reject", ("../outside",)),
    ("test-sources-dollar", "test-sources", "tests/$HOME", "reject", ("tests/$HOME",)),
    ("test-skip-untrusted", "test-skip", E + " github.head_ref }}", "reject", (E,)),
    ("test-runner-label", "test-runner", "gpu-box", "intact", None),
    ("test-runner-untrusted", "test-runner", E + " github.event.issue.title }}", "reject", (E,)),
    ("test-runner-space", "test-runner", "gpu box", "reject", ("gpu box",)),
    ("test-tags-dollar", "test-tags", "$CI_COMMIT_BRANCH", "reject", ("$CI_COMMIT_BRANCH",)),
    # 5. strategy index: the index URL reaches the release and Pages jobs through env: only
    ("index-url-shell", "index-url", "https://owner.github.io/x/$(touch pwned)", "reject", ("$(touch pwned)",)),
    ("index-url-expression", "index-url", "https://owner.github.io/" + E + " github.head_ref }}", "reject", (E,)),
    ("index-url-quote", "index-url", "https://owner.github.io/x'y", "reject", ("x'y",)),
    ("index-url-dotdot", "index-url", "https://owner.github.io/a/../whl", "reject", ("'..'",)),
    ("index-url-punctuation", "index-url", "https://owner.github.io/~a/b.c_d-e/whl", "intact", None),
    # 7. build settings: words maturin-action splices into its script, and a variable of some entries
    ("settings-profile", "profile", "dist-lto_2", "intact", None),
    ("settings-profile-shell", "profile", "dist;id", "reject", ("dist;id",)),
    ("settings-profile-expression", "profile", E + " github.head_ref }}", "reject", (E,)),
    ("settings-toolchain", "toolchain", "nightly-2026-01-15-x86_64-unknown-linux-gnu", "intact", None),
    ("settings-toolchain-shell", "toolchain", "nightly && curl evil", "reject", ("nightly && curl evil",)),
    ("settings-feature", "feature", "simd+avx.2", "intact", None),
    ("settings-feature-pattern", "feature", "dep?/x", "reject", ("dep?/x",)),
    ("settings-feature-subst", "feature", "$(id)", "reject", ("$(id)",)),
    ("settings-flag", "flag", "build-std=std,panic_abort", "intact", None),
    ("settings-flag-backquote", "flag", "build-std=`id`", "reject", ("build-std=`id`",)),
    ("settings-docker", "docker", "--volume=/data:/data:ro", "intact", None),
    ("settings-docker-space", "docker", "--volume /:/host", "reject", ("--volume /:/host",)),
    ("settings-docker-expression", "docker", "--env=" + E + " secrets.TOKEN }}", "reject", (E,)),
    ("settings-include-env", "include-env", "$(touch pwned) `id`\nwm_0 <<EOF\n", "intact", None),
]


def matrix(place, value):
    q = json.dumps(value, ensure_ascii=False)
    plat = {"runner": "runner", "container": "container", "image": "image", "gitlab-image": "image"}.get(place)
    platform = "%s: %s" % (plat, q) if plat else ""
    if place == "gitlab-tag":
        platform = "tags: [%s]" % q
    lines = ["wheelmatrix: 1", "project: {name: hostile}", 'python: {versions: ["3.12"]}', "platforms:",
             "  linux-x86_64: {%s}" % platform,
             "  macos-arm64: {}", "  windows-x86_64: {}", "backends:", "  cpu:", "    default: true"]
    if place in ("env", "gitlab-env"):
        lines += ["    env:", "      HOSTILE_VALUE: %s" % q]
    elif place == "env-name":
        lines += ["    env:", "      %s: hostile" % q]
    elif place == "before-script":
        lines += ["    before-script-linux: %s" % q]
    elif place.startswith("setup-"):
        lines += ["    setup:", "      github:", "        linux:"]
        script = "          - uses: actions/github-script@60a0d83039c74a4aee543508d2ffcb1c3799cdea"
        if place == "setup-run":
            lines += ["          - run: %s" % q]
        elif place == "setup-with":
            lines += [script, "            with: {script: %s}" % q]
        elif place == "setup-with-whole":
            lines += [script, "            with: %s" % q]
        elif place == "setup-with-name":
            lines += [script, "            with: {%s: x}" % q]
        elif place == "setup-step-whole":
            lines += ["          - %s" % q]
        elif place == "setup-env-whole":
            lines += ['          - run: echo "$HOSTILE_VALUE"', "            env: %s" % q]
        elif place == "setup-env-name":
            lines += ['          - run: echo "$HOSTILE_VALUE"', "            env: {%s: x}" % q]
        else:
            lines += ['          - run: echo "$HOSTILE_VALUE"', "            env: {HOSTILE_VALUE: %s}" % q]
    if place == "profile":
        lines += ["    profile: %s" % q]
    elif place == "toolchain":
        lines += ["    rust-toolchain: %s" % q]
    elif place == "flag":
        lines += ["    rust-toolchain: nightly", "    unstable-flags: [%s]" % q]
    elif place == "docker":
        lines += ["    docker-options: [%s]" % q]
    elif place == "feature":
        lines[lines.index("  linux-x86_64: {}")] = "  linux-x86_64: {features: [%s]}" % q
    if place == "test-runner":
        lines += ["    test: {runner: %s}" % q]
    elif place == "test-tags":
        lines += ["    test: {tags: [%s]}" % q]
    if place == "index-url":
        lines += ["  cuda: {features: [gpu]}", "distribution:", "  strategy: index", "  index: {url: %s}" % q]
    gitlab = place.startswith("gitlab") or place in ("image", "test-command", "test-requires", "test-tags")
    lines += ["ci: {github: {}%s}" % (", gitlab: {}" if gitlab else "")]
    if place == "environment":
        lines += ["publish: {pypi: {environment: %s}}" % q]
    if place == "action-ref":
        lines += ["actions: {actions/checkout: %s}" % q]
    if place == "test-command":
        lines += ["test: {command: %s}" % q]
    elif place.startswith("test-") and place[5:] in ("requires", "extras", "sources", "skip"):
        lines += ["test: {command: pytest, %s: [%s]}" % (place[5:], q)]
    elif place in ("test-runner", "test-tags"):
        lines += ["test: {command: pytest}"]
    if place in ("gitlab-include-env", "include-env"):
        lines += ["include:", '  - {backend: cpu, platform: linux-x86_64, python: "3.13", env: {HOSTILE_VALUE: %s}}' % q]
    text = "\n".join(lines) + "\n"
    line = next(i for i, l in enumerate(lines, 1) if q in l)
    col = lines[line - 1].index(q) + 1
    return text, line, col, col + len(q)


def steps(doc):
    """(where, step) of every build job's steps."""
    for name, job in (doc.get("jobs") or {}).items():
        if name.startswith("build-"):
            for i, step in enumerate(job.get("steps") or []):
                yield "%s step %d" % (name, i), step


def found(doc, listed, place, value=None, gitlab=None):
    """The values the workflow (or list) gives for the place: one per build job, entry, step or publish job."""
    jobs = doc.get("jobs") or {}
    out = []
    if place == "env":
        for name, job in jobs.items():
            if name.startswith("build-"):
                out.append((name, (job.get("env") or {}).get("HOSTILE_VALUE")))
    elif place in ("runner", "container"):
        for name, job in jobs.items():
            for e in wfcheck._entries(job) or []:
                if "-linux-x86_64-" not in e.get("id", ""):
                    continue
                where = "%s entry %s" % (name, e["id"])
                if place == "runner":
                    out.append((where + " runs-on", wfcheck.evaluate(job.get("runs-on"), e)))
                for step in job.get("steps") or []:
                    if place == "container" and wfcheck.uses(step, "PyO3/maturin-action"):
                        c = (step.get("with") or {}).get("container")
                        out.append((where + " maturin-action container", None if c is None else wfcheck.evaluate(c, e)))
    elif place == "environment":
        for name, job in jobs.items():
            if name.startswith("publish-"):
                env = job.get("environment")
                out.append((name + " environment", env.get("name") if isinstance(env, dict) else env))
    elif place == "index-url":
        out = [("%s step %d env" % (name, i), s["env"]["WM_INDEX_URL"]) for name, job in jobs.items()
               for i, s in enumerate(job.get("steps") or []) if "WM_INDEX_URL" in (s.get("env") or {})]
        if sorted(w.split()[0] for w, _ in out) != ["index-cuda", "index-pages"]:
            out.append(("the jobs that read it", sorted(w for w, _ in out)))
    elif place == "image":
        out = [("list gitlab_image of " + j["id"], j.get("gitlab_image")) for j in listed if j["platform"] == "linux-x86_64"]
    elif place == "setup-run":
        # the step that holds it exactly: none when it was changed on the way
        out = [(w + " run", s["run"]) for w, s in steps(doc) if s.get("run") == value]
    elif place == "setup-with":
        out = [(w + " script", (s.get("with") or {}).get("script")) for w, s in steps(doc) if wfcheck.uses(s, "actions/github-script")]
    elif place == "setup-env":
        out = [(w + " env", s["env"].get("HOSTILE_VALUE")) for w, s in steps(doc) if "HOSTILE_VALUE" in (s.get("env") or {})]
    elif place == "before-script":
        for w, s in steps(doc):
            script = (s.get("with") or {}).get("before-script-linux") or (s.get("env") or {}).get("WM_BEFORE_SCRIPT")
            if script is not None:
                # the backend's lines come after the toolkits' recipes, each on its own lines
                out.append((w + " before-script", value if value in script.split("\n") else script))
    elif place == "action-ref":
        for name, job in jobs.items():
            for i, s in enumerate(job.get("steps") or []):
                if str(s.get("uses", "")).startswith("actions/checkout@"):
                    out.append(("%s step %d uses" % (name, i), s["uses"].split("@", 1)[1]))
    elif place == "env-name":
        out = [(name + " env", value if (job.get("env") or {}).get(value) == "hostile" else job.get("env"))
               for name, job in jobs.items() if name.startswith("build-")]
    elif place in ("test-command", "test-requires"):
        name = "WM_TEST_" + place[5:].upper()
        out = [(w + " " + name, s["env"][name]) for w, s in steps(doc) if name in (s.get("env") or {})]
        out += [("gitlab " + j + " " + name, v[name].replace("$$", "$")) for j, job in gitlab.items()
                if isinstance(job, dict) for v in [job.get("variables") or {}] if name in v]
        if sorted({w.split()[0] for w in dict(out)}) != ["build-cpu-linux", "build-cpu-macos", "build-cpu-windows",
                                                          "gitlab"]:
            out.append(("the jobs that read it", sorted(dict(out))))
    elif place == "test-runner":
        out = [("test-cpu-linux runs-on", (jobs.get("test-cpu-linux") or {}).get("runs-on"))]
    elif place in ("profile", "toolchain", "feature", "flag", "docker"):
        # maturin-action's inputs of each build job: the word after its option, or the input
        for w, s in steps(doc):
            if not wfcheck.uses(s, "PyO3/maturin-action"):
                continue
            with_ = s.get("with") or {}
            if place == "toolchain":
                out.append((w + " rust-toolchain", with_.get("rust-toolchain")))
                continue
            if place == "docker":
                if w.startswith("build-cpu-linux"):
                    out.append((w + " docker-options", (with_.get("docker-options") or "").split()[-1:] and
                                (with_.get("docker-options") or "").split()[-1]))
                continue
            words = str(with_.get("args", "")).split()
            option = {"profile": "--profile", "feature": "--features", "flag": "-Z"}[place]
            if place == "feature" and not w.startswith("build-cpu-linux"):
                continue
            got = words[words.index(option) + 1] if option in words else None
            out.append((w + " " + option, value if place == "feature" and got and value in got.split(",") else got))
    elif place == "include-env":
        job = jobs.get("build-cpu-linux") or {}
        entry = [e for e in wfcheck._entries(job) or [] if e.get("id", "").endswith("-cp313")]
        out = [("build-cpu-linux include entry", entry[0].get("env-HOSTILE_VALUE") if entry else None)]
        sets = [s for s in job.get("steps") or [] if "WM_ENV_HOSTILE_VALUE" in (s.get("env") or {})]
        if [s["env"]["WM_ENV_HOSTILE_VALUE"] for s in sets] != ["${{ matrix.env-HOSTILE_VALUE }}"] or \
                "HOSTILE_VALUE" in (job.get("env") or {}):
            out.append(("build-cpu-linux set-env", [s.get("env") for s in sets]))
    elif place in ("gitlab-env", "gitlab-include-env"):
        out = [("gitlab " + name, v["HOSTILE_VALUE"].replace("$$", "$"))
               for name, job in gitlab.items() if isinstance(job, dict)
               for v in [job.get("variables") or {}] if "HOSTILE_VALUE" in v]
        if place == "gitlab-env":
            out += [("github " + w, v) for w, v in found(doc, listed, "env")]
    return out


failures, to_lint, labels = [], {}, {}
for n, (name, place, value, outcome, quote) in enumerate(CASES):
    repo = os.path.join(tmp, "repo%d" % n)
    os.mkdir(repo)
    text, line, col0, col1 = matrix(place, value)
    with open(os.path.join(repo, "wheelmatrix.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    assert (yaml.safe_load(text) is not None), name
    g = subprocess.run([wm, "-C", repo, "generate"], capture_output=True, text=True)
    wrote = os.path.exists(os.path.join(repo, ".github"))
    if outcome == "warn":
        m = re.match(r"wheelmatrix\.yaml:(\d+):(\d+): warning: ", g.stderr)
        if not m or int(m[1]) != line or not col0 <= int(m[2]) < col1:
            failures.append("%s: no warning at %d:%d-%d: %r" % (name, line, col0, col1 - 1, g.stderr))
    if outcome == "reject":
        first = g.stderr.splitlines()[0] if g.stderr else ""
        m = re.match(r"wheelmatrix\.yaml:(\d+):(\d+): error: (.*)", first)
        if g.returncode != 2:
            failures.append("%s: %r in %s should be rejected at load; generate exited %d%s"
                            % (name, value, place, g.returncode, ", and wrote the workflow" if wrote else ""))
        elif wrote:
            failures.append("%s: rejected, but generate wrote files" % name)
        elif not m:
            failures.append("%s: the error does not start 'wheelmatrix.yaml:L:C: error:': %r" % (name, first))
        elif int(m[1]) != line or not col0 <= int(m[2]) < col1:
            failures.append("%s: the error points at %s:%s, the value is at line %d, columns %d-%d: %r"
                            % (name, m[1], m[2], line, col0, col1 - 1, first))
        elif not any(q in m[3] for q in quote):
            failures.append("%s: the message quotes none of %r: %r" % (name, quote, first))
        continue
    if g.returncode != 0:
        failures.append("%s: %r in %s should come out intact; generate exited %d:\n%s" % (name, value, place, g.returncode, g.stderr))
        continue
    wf = os.path.join(repo, ".github", "workflows", "wheels.yml")
    with open(wf, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    ls = subprocess.run([wm, "-q", "-C", repo, "list", "--format", "jsonl"], capture_output=True, text=True, check=True)
    listed = [json.loads(l) for l in ls.stdout.splitlines()]
    gl = os.path.join(repo, ".gitlab-ci.yml")
    gitlab = {}
    if os.path.exists(gl):
        with open(gl, encoding="utf-8") as f:
            gitlab = yaml.safe_load(f)
    got = found(doc, listed, place, value, gitlab)
    if not got:
        failures.append("%s: the workflow has no place for the %s value" % (name, place))
    for where, v in got:
        if v != value:
            failures.append("%s: %s is %r, not %r" % (name, where, v, value))
    to_lint[wf] = name
    if place in ("runner", "test-runner"):
        labels[wf] = (value,)

why = wmlint.missing()
if why:
    failures.append("the validators cannot run: " + why)
else:
    for path, problems in wmlint.lint_all(list(to_lint), labels):
        for p in problems:
            failures.append("%s: %s" % (to_lint[path], p.replace(tmp + "/", "")))
for f in failures:
    print("FAIL " + f)
print("%d cases, %d failures" % (len(CASES), len(failures)))
sys.exit(1 if failures else 0)
PY
finish
