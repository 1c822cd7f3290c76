#!/usr/bin/env python3
"""Checks the structure of the scale-out examples (examples/slurm, examples/kubernetes, examples/github-actions).

    python3 tests/examples/check_examples.py REPO_ROOT

It checks what would make a sweep silently wrong or fail late on the cluster: the shard count written in two
places that disagree, a GPU limit missing (or given to the merge), a claim name that does not match, an array
range that does not start at 0, an old artifact action. Each problem is printed on its own line, as
"FAIL <file>: <what>", and the exit status is 1 if there is any (2 for bad usage). Needs Python 3 and PyYAML
only. It also runs yamllint (-d relaxed) on the YAML files and shellcheck (-S warning) on the shell scripts when
those tools are installed, and `bash -n` on the shell scripts always. The checks live next to this file:
examples_common.py, examples_kubernetes.py, examples_workflow.py, examples_slurm.py and examples_tools.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from examples_common import Checker  # noqa: E402  (also exits 2 when PyYAML is missing)
from examples_kubernetes import check_kubernetes  # noqa: E402
from examples_slurm import check_slurm  # noqa: E402
from examples_tools import check_tools  # noqa: E402
from examples_workflow import check_workflow  # noqa: E402


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(f"usage: {os.path.basename(argv[0])} REPO_ROOT", file=sys.stderr)
        return 2
    c = Checker(os.path.abspath(argv[1]))
    sections = (("kubernetes", check_kubernetes), ("github-actions", check_workflow), ("slurm", check_slurm),
                ("tools", check_tools))
    counts = {}
    for name, fn in sections:
        try:
            counts[name] = fn(c)
        except Exception as e:  # a shape the checks did not expect is a problem too, not a traceback
            c.fail(os.path.join(c.root, "examples", name if name != "tools" else ""),
                   f"check crashed on an unexpected structure: {type(e).__name__}: {e}")
    shards = {k: v for k, v in counts.items() if k != "tools" and v is not None}
    if shards:
        c.note("shards per example: " + ", ".join(f"{k} {v}" for k, v in shards.items()))
    if c.problems:
        print(f"\ncheck_examples: {len(c.problems)} problem(s)", file=sys.stderr)
        for p in c.problems:
            print(p.splitlines()[0], file=sys.stderr)
        return 1
    print("\ncheck_examples: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
