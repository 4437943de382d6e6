#!/usr/bin/env python3
"""Imports every NN_*.json here with augment and writes IMPORT.md.

Usage: python3 measure_import.py PATH/TO/augment
"""
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^\s+(\S+): (\S+) \((.*)\)$")


def main():
    binary = sys.argv[1]
    out_dir = tempfile.mkdtemp(prefix="corpus-out-")
    rows, blockers = [], collections.defaultdict(set)
    for path in sorted(glob.glob(os.path.join(HERE, "[0-9][0-9]_*.json"))):
        name = os.path.basename(path)
        res = subprocess.run([binary, "import", "albumentations", path,
                              "-o", os.path.join(out_dir, name)],
                             capture_output=True, text=True)
        missing = []
        for line in res.stderr.splitlines():
            m = LINE.match(line)
            if m:
                missing.append((m.group(1), m.group(2), m.group(3)))
                blockers[m.group(2)].add(name[:2])
        first = res.stderr.strip().splitlines()[0] if res.returncode and res.stderr.strip() else ""
        rows.append((name, res.returncode, missing, first))
    ok = sum(1 for r in rows if r[1] == 0)
    out = ["# Import of the corpus", "",
           "`augment import albumentations NN_x.json -o OUT` on each file, with the binary built from",
           "the project at the time of writing. Regenerate with `python3 measure_import.py BUILD/apps/augment/augment`.",
           "", "**%d of %d pipelines import** (exit 0); %d are refused." % (ok, len(rows), len(rows) - ok), "",
           "## Per pipeline", "", "| file | exit | transforms augment lacks (importer's note) |", "|---|---|---|"]
    for name, rc, missing, first in rows:
        if rc == 0:
            out.append("| %s | 0 | — |" % name)
        elif missing:
            cell = "; ".join("`%s` at %s (%s)" % (n, where, why) for where, n, why in missing)
            out.append("| %s | %d | %s |" % (name, rc, cell))
        else:
            out.append("| %s | %d | %s |" % (name, rc, first.replace("|", "\\|")))
    out += ["", "## Which missing transforms block the most pipelines", "",
            "A pipeline counts once per transform, however often the transform occurs in it.", "",
            "| transform | pipelines blocked | which |", "|---|---|---|"]
    for n, who in sorted(blockers.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append("| %s | %d | %s |" % (n, len(who), ", ".join(sorted(who))))
    only = collections.Counter()
    for name, rc, missing, _ in rows:
        names = {m[1] for m in missing}
        if len(names) == 1:
            only[next(iter(names))] += 1
    out += ["", "Pipelines refused for one missing transform only (adding that one transform would let them import):", ""]
    for n, c in only.most_common():
        out.append("- %s: %d" % (n, c))
    with open(os.path.join(HERE, "IMPORT.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("%d/%d import" % (ok, len(rows)))


if __name__ == "__main__":
    main()
