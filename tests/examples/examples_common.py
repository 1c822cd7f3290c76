"""Shared helpers of check_examples.py: the Checker that collects problems, and YAML / text loading."""

import os
import re
import sys

try:
    import yaml
except ImportError:
    print("check_examples: PyYAML is needed: pip install pyyaml (or apt-get install python3-yaml)", file=sys.stderr)
    sys.exit(2)

GPU = "nvidia.com/gpu"
SHARDS_ENV = "GPUBENCH_SHARDS"


class Checker:
    def __init__(self, root):
        self.root = root
        self.problems = []

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def fail(self, path, message):
        self.problems.append(f"FAIL {self.rel(path)}: {message}")
        print(self.problems[-1])

    def mark(self):
        return len(self.problems)

    def ok(self, path, message, since=None):
        """Says what passed, unless a problem was found since the mark `since` (then the FAIL lines said it)."""
        if since is None or len(self.problems) == since:
            print(f"ok   {self.rel(path)}: {message}")

    def note(self, message):
        print(f"note {message}")


def dig(node, *keys):
    """node[k1][k2]..., or None where a key is missing or a level is not a mapping / list."""
    for key in keys:
        if isinstance(key, int):
            if not isinstance(node, list) or not -len(node) <= key < len(node):
                return None
        elif not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def as_int(value):
    """An int from an int or a decimal string (YAML "3" or 3); None otherwise (True is not 1)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]+", value.strip()):
        return int(value)
    return None


def load_yaml_docs(c, path):
    """The non-empty documents of a YAML file, or None (reported) when it is missing or does not parse."""
    if not os.path.isfile(path):
        c.fail(path, "missing")
        return None
    try:
        with open(path, encoding="utf-8") as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
    except yaml.YAMLError as e:
        c.fail(path, f"does not parse as YAML: {e}")
        return None
    if not docs:
        c.fail(path, "holds no YAML document")
        return None
    return docs


def one_of_kind(c, path, docs, kind):
    found = [d for d in docs if isinstance(d, dict) and d.get("kind") == kind]
    if len(found) != 1:
        kinds = [d.get("kind") if isinstance(d, dict) else type(d).__name__ for d in docs]
        c.fail(path, f"expected exactly one {kind}, found {len(found)} (documents: {kinds})")
        return None
    return found[0]


def read_text(c, path):
    if not os.path.isfile(path):
        c.fail(path, "missing")
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()

