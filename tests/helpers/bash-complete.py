#!/usr/bin/env python3
"""bash-complete.py — types a command line into an interactive bash and presses Tab: bash's own
completion (readline, the completion script sourced, the words split as bash splits them at
COMP_WORDBREAKS) completes the line and, where more than one candidate is left, lists them
(readline's show-all-if-ambiguous).

usage: python3 tests/helpers/bash-complete.py SCRIPT 'wheelmatrix generate --stdout patch:'

Prints what the terminal showed meanwhile, without escape sequences: the prompt ("> ") and the line,
the candidates one a line (readline's completion-display-width 0), the prompt and the line again,
then the line as completed, "LINE<...>", printed by ^T (bound with `bind -x`).  bash runs in the
current directory with the current PATH; readline reads the keys in order, so the marker comes
after the list.
"""
import os
import pty
import re
import select
import sys
import time


def main():
    script, line = sys.argv[1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "dumb"
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    out = b""

    def read_until(pattern):
        nonlocal out
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if re.search(pattern, out.replace(b"\r", b"")):
                return
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
        sys.exit("bash-complete: no %r from the shell:\n%s" % (pattern, out.decode(errors="replace")))

    setup = ("PS1='> '; . %s; bind 'set bell-style none'; bind 'set enable-bracketed-paste off'; "
             "bind 'set completion-display-width 0'; bind 'set completion-query-items 0'; "
             "bind 'set page-completions off'; bind 'set show-all-if-ambiguous on'; "
             "bind -x '\"\\C-t\": printf \"LINE<%%s>\\n\" \"$READLINE_LINE\"'; echo SETUP''-DONE\n"
             % ("'" + script.replace("'", "'\\''") + "'"))
    os.write(fd, setup.encode())
    read_until(rb"\nSETUP-DONE\n> ")
    out = b""
    os.write(fd, line.encode() + b"\t\x14")
    read_until(rb"\nLINE<[^\n]*>\n")
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    text = out.decode(errors="replace").replace("\r", "")
    sys.stdout.write(re.sub(r"\x1b\[[0-9?;]*[a-zA-Z]", "", text))


main()
