"""Slurm checks of check_examples.py: examples/slurm (sweep.sbatch, merge.sbatch, submit.sh)."""

import os
import re
import shutil
import subprocess
import tempfile

from examples_common import read_text


def code_lines(text):
    """The lines of a shell script without comments (#SBATCH lines are comments too, so they go)."""
    out = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        out.append(re.sub(r"\s#.*$", "", line))
    return "\n".join(out)


def sbatch_options(text):
    """The #SBATCH options before the first command (sbatch reads no further)."""
    opts = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#SBATCH"):
            opts.extend(stripped[len("#SBATCH"):].split())
        elif stripped and not stripped.startswith("#"):
            break
    return opts


def check_slurm(c):
    d = os.path.join(c.root, "examples", "slurm")
    tasks = None
    sweep_path = os.path.join(d, "sweep.sbatch")
    mark = c.mark()
    text = read_text(c, sweep_path)
    if text is not None:
        opts = sbatch_options(text)
        arrays = [o.split("=", 1)[1] for o in opts if o.startswith("--array=")]
        if len(arrays) != 1:
            c.fail(sweep_path, f"expected one `#SBATCH --array=0-K` before the first command, found {arrays}")
        else:
            m = re.fullmatch(r"(\d+)-(\d+)(%\d+)?", arrays[0])
            if not m:
                c.fail(sweep_path, f"--array={arrays[0]}: expected a range 0-K (optionally %MAX)")
            elif int(m.group(1)) != 0:
                c.fail(sweep_path, f"--array={arrays[0]}: the range must start at 0")
            elif int(m.group(2)) < int(m.group(1)):
                c.fail(sweep_path, f"--array={arrays[0]}: empty range")
            else:
                tasks = int(m.group(2)) + 1
        if "--gres=gpu:1" not in opts:
            c.fail(sweep_path, f"no `#SBATCH --gres=gpu:1` (one GPU per task); options: {opts}")
        code = code_lines(text)
        if re.search(r"--shard[\s=]", code):
            c.fail(sweep_path, "passes --shard: gpubench must read the SLURM_ARRAY_* variables itself")
        if not re.search(r"\brun\b", code) or "shard-$SLURM_ARRAY_TASK_ID" not in code:
            c.fail(sweep_path, 'expected `gpubench run ... -o "$REPORTS/shard-$SLURM_ARRAY_TASK_ID"`')
        if "set -euo pipefail" not in code:
            c.fail(sweep_path, "no `set -euo pipefail`")
        if tasks is not None:
            c.ok(sweep_path, f"--array={arrays[0]}: {tasks} tasks, one GPU each", mark)

    merge_path = os.path.join(d, "merge.sbatch")
    mark = c.mark()
    text = read_text(c, merge_path)
    if text is not None:
        opts = sbatch_options(text)
        if any(re.match(r"--(gres=gpu|gpus|gpus-per)", o) for o in opts):
            c.fail(merge_path, f"asks for a GPU ({opts}); merging needs none")
        code = code_lines(text)
        if not re.search(r"\bmerge\b", code):
            c.fail(merge_path, "does not run `gpubench merge`")
        if "GPUBENCH_MERGE_FLAGS" not in code:
            c.fail(merge_path, "does not honour GPUBENCH_MERGE_FLAGS")
        if "set -euo pipefail" not in code:
            c.fail(merge_path, "no `set -euo pipefail`")
        c.ok(merge_path, "merge, no GPU", mark)

    submit_path = os.path.join(d, "submit.sh")
    mark = c.mark()
    text = read_text(c, submit_path)
    if text is not None:
        code = code_lines(text)
        if "--parsable" not in code:
            c.fail(submit_path, "does not submit with `sbatch --parsable` (it needs the job id)")
        if "afterok:" not in code:
            c.fail(submit_path, "does not chain the merge with --dependency=afterok:<jobid>")
        check_submit_runs(c, submit_path)
        c.ok(submit_path, "sweep, then merge afterok", mark)
    return tasks


def check_submit_runs(c, submit_path):
    """Runs submit.sh with a stub sbatch that logs its arguments: GPUBENCH_SHARDS=8 submits --array=0-7 to the sweep
    only; a leading zero (bash reads 08 as octal and fails) and an --array argument (it would reach the merge too)
    exit 2 before any sbatch (trial 11)."""
    with tempfile.TemporaryDirectory() as tmp:
        stub = os.path.join(tmp, "sbatch")
        log = os.path.join(tmp, "sbatch.log")
        with open(stub, "w") as f:
            f.write('#!/usr/bin/env bash\necho "$*" >> "%s"\necho 42\n' % log)
        os.chmod(stub, 0o755)

        def submit(shards, *args):
            if os.path.exists(log):
                os.remove(log)
            shutil.rmtree(os.path.join(tmp, "reports"), ignore_errors=True)
            env = dict(os.environ, PATH=tmp + os.pathsep + os.environ.get("PATH", ""),
                       GPUBENCH_REPORTS=os.path.join(tmp, "reports"))
            env.pop("GPUBENCH_SHARDS", None)
            if shards is not None:
                env["GPUBENCH_SHARDS"] = shards
            rc = subprocess.run(["bash", submit_path, *args], env=env, capture_output=True, timeout=60).returncode
            calls = open(log).read().splitlines() if os.path.exists(log) else []
            return rc, calls

        rc, calls = submit("8")
        if rc != 0 or len(calls) != 2:
            c.fail(submit_path, f"with GPUBENCH_SHARDS=8 and a stub sbatch: exit {rc}, {len(calls)} sbatch calls")
        elif "--array=0-7" not in calls[0].split() or any(a.startswith("--array") for a in calls[1].split()):
            c.fail(submit_path, f"GPUBENCH_SHARDS=8 should give the sweep --array=0-7 and the merge none: {calls}")
        for shards, args, what in (("08", (), "GPUBENCH_SHARDS=08"), (None, ("--array=0-7",), "an --array argument"),
                                   (None, ("--arr=0-7",), "an abbreviated --array"),
                                   ("99999999", (), "a count above 2^20")):
            rc, calls = submit(shards, *args)
            if rc != 2 or calls:
                c.fail(submit_path, f"{what}: exit {rc} with {len(calls)} sbatch calls, expected exit 2 before any")
            if os.path.exists(os.path.join(tmp, "reports")):
                c.fail(submit_path, f"{what}: the refusal left the report folder behind")
