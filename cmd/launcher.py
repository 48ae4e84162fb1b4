#!python
# launcher.py — the `wheelmatrix` a macOS wheel puts on PATH: it runs the program, which the wheel
# keeps in the environment's platlib beside its bundled libraries (CMakeLists.txt, docs/install.md).
import os
import sys
import sysconfig

program = os.path.join(sysconfig.get_path("platlib"), "wheelmatrix.scripts", "wheelmatrix")
os.execv(program, [program] + sys.argv[1:])
