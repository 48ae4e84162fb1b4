#!/usr/bin/env python3
"""pty-run.py — runs a command with its standard output on a pseudo-terminal and saves what the terminal got.

usage: pty-run.py OUT ERR COMMAND...

The terminal is in raw mode, so OUT holds the bytes the command wrote, without the line
discipline's translations (a line feed is not made CR LF); standard error goes to the file ERR,
standard input is /dev/null.  Exits with the command's status.
"""
import errno
import os
import pty
import subprocess
import sys
import tty


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2])
    out_path, err_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    master, slave = pty.openpty()
    tty.setraw(slave)
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=err)
    os.close(slave)
    got = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError as e:
            if e.errno != errno.EIO:  # EIO: every writer closed the terminal
                raise
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    with open(out_path, "wb") as out:
        out.write(got)
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main())
