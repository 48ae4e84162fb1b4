"""hostile-workflows.py ROOT CASE — writes the GitHub workflows (and local actions) of one hostile case
into the repository ROOT, for tests/t-workflow-hostile.sh, which names what each case is."""
import json
import os
import sys

root, case = sys.argv[1], sys.argv[2]


def write(path, text):
    p = os.path.join(root, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


HEAD = "on: {push: {tags: ['v*']}}\njobs:\n"
CALLED = "on: {workflow_call: {}}\njobs:\n"
# a job's steps: a wheel of CPython 3.12 for Linux x86_64, published on the tag
BUILD = """      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with: {target: x86_64, manylinux: auto, args: --release --out dist -i 3.12}
      - uses: pypa/gh-action-pypi-publish@release/v1
"""
# the same, its Python from the combination
BUILD_PY = """      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with:
          target: x86_64
          manylinux: auto
          args: --release --out dist -i ${{ matrix.py }}
      - uses: pypa/gh-action-pypi-publish@release/v1
"""


def job(name, steps, extra=""):
    return "  %s:\n    runs-on: ubuntu-latest\n%s    steps:\n%s" % (name, extra, steps)


if case == "calls":  # called workflows 40 deep, the last one building
    for i in range(40):
        body = CALLED + "  j:\n    uses: ./.github/workflows/c%d.yml\n" % (i + 1) if i < 39 else CALLED + job("b", BUILD)
        write(".github/workflows/c%d.yml" % i, HEAD + body[len(CALLED):] if i == 0 else body)
elif case == "cycle":  # two workflows calling each other
    write(".github/workflows/a.yml", HEAD + "  j:\n    uses: ./.github/workflows/b.yml\n" + job("k", BUILD))
    write(".github/workflows/b.yml",
          "on: {workflow_call: {}, push: {tags: ['v*']}}\njobs:\n  j:\n    uses: ./.github/workflows/a.yml\n")
elif case == "actions":  # composite actions 40 deep, each passing its input on
    write(".github/workflows/r.yml", HEAD + job("b", "      - uses: ./act/0\n        with: {py: '3.12'}\n" + BUILD))
    for i in range(40):
        steps = ("    - uses: ./act/%d\n      with: {py: '${{ inputs.py }}'}\n" % (i + 1) if i < 39 else
                 "    - run: maturin build --release -i ${{ inputs.py }}\n      shell: bash\n")
        write("act/%d/action.yml" % i,
              "name: a%d\ninputs: {py: {default: '3.11'}}\nruns:\n  using: composite\n  steps:\n%s" % (i, steps))
elif case == "includes":  # an include list as long as 1 MiB holds
    lines, n = [], 0
    size = len(HEAD) + len(BUILD_PY) + 200
    while size < 1000000:
        line = "          - {os: ubuntu-latest, py: '3.%d', x%d: %d}\n" % (n % 30, n, n)
        lines.append(line)
        size += len(line)
        n += 1
    write(".github/workflows/r.yml", HEAD + "  b:\n    runs-on: ${{ matrix.os }}\n    strategy:\n      matrix:\n"
          "        os: [ubuntu-latest]\n        include:\n" + "".join(lines) + "    steps:\n" + BUILD_PY)
elif case == "jobs":  # 4,096 include entries, each a job of its own
    inc = "".join("          - {py: '3.%d', n: %d}\n" % (i % 30, i) for i in range(4096))
    write(".github/workflows/r.yml", HEAD + job("b", BUILD_PY, "    strategy:\n      matrix:\n        include:\n" + inc))
elif case == "product":  # 2^20 combinations: twenty lists of two
    axes = "".join("        a%d: [x, y]\n" % i for i in range(20))
    write(".github/workflows/r.yml", HEAD + job("b", BUILD, "    strategy:\n      matrix:\n" + axes))
elif case == "json":  # 2^20 combinations from fromJSON, and JSON 100,000 deep in runs-on
    obj = "{" + ", ".join('"a%d": [1, 2]' % i for i in range(20)) + "}"
    write(".github/workflows/r.yml", HEAD + job("b", BUILD, "    strategy:\n      matrix: %s\n" %
                                                  json.dumps("${{ fromJSON('%s') }}" % obj)) +
          "  c:\n    runs-on: ${{ fromJSON('%s') }}\n    steps:\n%s" % ("[" * 100000 + "]" * 100000, BUILD))
elif case == "keys":  # expressions as keys: GitHub reads them as the text they are
    write(".github/workflows/r.yml", HEAD + """  b:
    runs-on: ${{ matrix[format('{0}', 'os')] }}
    env:
      ${{ matrix.k }}: v
      "${{ secrets.X }}": w
    strategy:
      matrix:
        ${{ matrix.os }}: [a, b]
        "${{ fromJSON('[1,2]') }}": [c]
        os: [ubuntu-latest]
        include:
          - {"${{ github.event.x }}": 1, os: "${{ matrix.os }}"}
    steps:
      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with:
          ${{ matrix.os }}: x
          target: ${{ env[matrix.k] }}
          args: --release --out dist -i ${{ matrix[matrix.os] }}
      - uses: pypa/gh-action-pypi-publish@release/v1
""")
elif case == "exprs":  # 20,000 parentheses, 50,000 operands of ||, 5,000 nested calls, a format() of 20,000 holes
    deep = "(" * 20000 + "'3.12'" + ")" * 20000
    chain = " || ".join(["matrix.none"] * 50000) + " || '3.12'"
    fmt = "format('" + "{0}" * 20000 + "', 'x')"
    calls = "fromJSON(" * 5000 + "'1'" + ")" * 5000
    write(".github/workflows/r.yml", HEAD + """  b:
    runs-on: ${{ %s }}
    steps:
      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with:
          target: ${{ %s }}
          args: --release --out dist -i ${{ %s }} -i ${{ %s }}
      - uses: pypa/gh-action-pypi-publish@release/v1
""" % (deep, fmt, chain, calls))
elif case == "aliases":  # a billion laughs
    t = HEAD + "  b:\n    runs-on: ubuntu-latest\n    env:\n      a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 10):
        t += "      a%d: &a%d [%s]\n" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10))
    write(".github/workflows/r.yml", t + "    steps:\n" + BUILD)
elif case == "nesting":  # collections 10,000 deep
    write(".github/workflows/r.yml", HEAD + job("b", BUILD, "    env: {x: " + "[" * 10000 + "]" * 10000 + "}\n"))
elif case == "nodes":  # 250,000 nodes, no alias
    write(".github/workflows/r.yml", HEAD + job("b", BUILD, "    env:\n      x: [" + ", ".join(["1"] * 250000) + "]\n"))
elif case == "budget":  # six workflows of 0.9 MiB each
    env = "    env:\n" + "".join("      v%d: %s\n" % (i, "x" * 1000) for i in range(900))
    for i in range(6):
        write(".github/workflows/w%d.yml" % i, HEAD + job("b", BUILD, env))
elif case == "many":  # 300 workflows
    for i in range(300):
        write(".github/workflows/w%03d.yml" % i, HEAD + job("b", BUILD))
elif case == "uses":  # one job using 400 local actions
    write(".github/workflows/r.yml", HEAD + job("b", "".join("      - uses: ./act/%d\n" % i for i in range(400)) + BUILD))
    for i in range(400):
        write("act/%d/action.yml" % i, "name: a\nruns:\n  using: composite\n  steps:\n    - run: echo %d\n      shell: bash\n" % i)
elif case == "steps":  # four workflows of 20,000 build steps each
    for i in range(4):
        write(".github/workflows/s%d.yml" % i,
              HEAD + job("j", "      - run: maturin build --release -i 3.12\n" * 20000))
else:
    sys.exit("no case %s" % case)
