"""llm-rs-installed.py — the llm-rs fixture as installed in the environment that runs this script.

usage: VENV/bin/python -I tests/helpers/llm-rs-installed.py VERSION BACKEND   (run from an empty directory)

Checks that the installed distribution llm-rs has VERSION, that llm_rs is imported from the
environment (not from a checkout), and that its backend() answers BACKEND; prints the problems
on one line and exits 1 when there is any.
"""
import importlib.metadata as md, os, sys
version, backend = sys.argv[1:]
import llm_rs
problems = []
if md.version("llm-rs") != version:
    problems.append("llm-rs %s, not %s" % (md.version("llm-rs"), version))
if not os.path.realpath(llm_rs.__file__).startswith(os.path.realpath(sys.prefix) + os.sep):
    problems.append("llm_rs came from %s" % llm_rs.__file__)
if llm_rs.backend() != backend:
    problems.append("backend() is %r, not %r" % (llm_rs.backend(), backend))
print("; ".join(problems))
sys.exit(bool(problems))
