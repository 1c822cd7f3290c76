"""GitHub Actions checks of check_examples.py: examples/github-actions/gpubench-sweep.yml."""

import fnmatch
import os
import re
import subprocess

from examples_common import dig, load_yaml_docs


# ------------------------------------------------------------------------------------------------ GitHub Actions

def steps_of(job):
    return [s for s in (dig(job, "steps") or []) if isinstance(s, dict)]


def action_uses(workflow):
    """(job id, step, 'owner/name', 'ref') for every `uses:` step."""
    out = []
    for job_id, job in (dig(workflow, "jobs") or {}).items():
        for step in steps_of(job):
            uses = step.get("uses")
            if isinstance(uses, str):
                action, _, ref = uses.partition("@")
                out.append((job_id, step, action, ref))
    return out


def check_gate(c, path, merge):
    """The gate step (env RC: compare's exit code) run with bash: it passes on 0, fails on 1, and fails on 2 or more
    (could not compare, docs/ci.md) unless NEW_BASELINE is true (the PR's gpubench-new-baseline label)."""
    gates = [s for s in steps_of(merge) if "RC" in (dig(s, "env") or {})]
    if len(gates) != 1:
        c.fail(path, f"jobs.merge: expected one gate step with env RC (compare's exit code), found {len(gates)}")
        return
    script = str(gates[0].get("run", ""))
    for rc, label, want in (("0", "false", 0), ("1", "false", 1), ("1", "true", 1), ("2", "false", 1),
                            ("2", "true", 0), ("4", "false", 1)):
        env = dict(os.environ, RC=rc, NEW_BASELINE=label)
        got = subprocess.run(["bash", "-c", script], env=env, capture_output=True, timeout=30).returncode
        if (got == 0) != (want == 0):
            c.fail(path, f"jobs.merge gate: with compare exit {rc} and NEW_BASELINE={label} it exits {got}, "
                         f"expected {'0' if want == 0 else 'non-zero'}")


def labels(runs_on):
    if isinstance(runs_on, str):
        return [runs_on]
    if isinstance(runs_on, list):
        return [str(x) for x in runs_on]
    return []


def check_workflow(c):
    mark = c.mark()
    path = os.path.join(c.root, "examples", "github-actions", "gpubench-sweep.yml")
    docs = load_yaml_docs(c, path)
    if docs is None:
        return None
    wf = docs[0]
    if len(docs) != 1 or not isinstance(wf, dict):
        c.fail(path, "expected one YAML mapping (a workflow)")
        return None
    # YAML 1.1 (PyYAML) reads the bare key `on` as the boolean True.
    on = wf.get("on", wf.get(True))
    if on is None:
        c.fail(path, "no `on:` triggers")
    else:
        triggers = [on] if isinstance(on, str) else list(on)
        for t in ("pull_request", "push"):
            if t not in triggers:
                c.fail(path, f"on: lacks {t} (has {triggers})")
        branches = dig(on, "push", "branches") if isinstance(on, dict) else None
        if isinstance(on, dict) and "push" in on and (not isinstance(branches, list) or "main" not in branches):
            c.fail(path, f"on.push.branches is {branches!r}, expected it to include main")
    perms = dig(wf, "permissions") or {}
    for key, want in (("pull-requests", "write"), ("actions", "read"), ("contents", "read")):
        if perms.get(key) != want:
            c.fail(path, f"permissions.{key} is {perms.get(key)!r}, expected {want!r}")

    jobs = dig(wf, "jobs")
    if not isinstance(jobs, dict):
        c.fail(path, "no jobs")
        return None
    sweep, merge = jobs.get("sweep"), jobs.get("merge")
    if not isinstance(sweep, dict):
        c.fail(path, "no job `sweep`")
    if not isinstance(merge, dict):
        c.fail(path, "no job `merge`")
    n = None
    if isinstance(merge, dict):
        needs = merge.get("needs")
        needs = [needs] if isinstance(needs, str) else (needs or [])
        if "sweep" not in needs:
            c.fail(path, f"jobs.merge.needs is {merge.get('needs')!r}, expected it to include sweep")
        if "gpu" in labels(merge.get("runs-on")):
            c.fail(path, f"jobs.merge.runs-on {merge.get('runs-on')} asks for a GPU runner; merging needs none")
    if isinstance(sweep, dict):
        if not {"self-hosted", "gpu"} <= set(labels(sweep.get("runs-on"))):
            c.fail(path, f"jobs.sweep.runs-on is {sweep.get('runs-on')!r}, expected self-hosted GPU labels")
        # The gate compares main's shard i with the PR's shard i: both must run on one board (a runner per shard).
        if not any("matrix.shard" in label.replace(" ", "") for label in labels(sweep.get("runs-on"))):
            c.fail(path, f"jobs.sweep.runs-on {sweep.get('runs-on')} does not pin a shard to its runner (a label with "
                         "${{ matrix.shard }}): the gate would compare two boards")
        shard_list = dig(sweep, "strategy", "matrix", "shard")
        if not isinstance(shard_list, list) or not shard_list:
            c.fail(path, f"jobs.sweep.strategy.matrix.shard is {shard_list!r}, expected a list 0..N-1")
        elif any(isinstance(x, bool) or not isinstance(x, int) for x in shard_list) or \
                shard_list != list(range(len(shard_list))):
            c.fail(path, f"jobs.sweep.strategy.matrix.shard is {shard_list}, expected "
                         f"{list(range(len(shard_list)))} (0..N-1, in order)")
        else:
            n = len(shard_list)
        run_text = "\n".join(str(s.get("run", "")) for s in steps_of(sweep))
        found = re.findall(r"--shard[\s=]+\$\{\{\s*matrix\.shard\s*\}\}/(\d+)", run_text)
        if not found:
            c.fail(path, "jobs.sweep: no `--shard ${{ matrix.shard }}/N` in a run step")
        for text_n in found:
            if n is not None and int(text_n) != n:
                c.fail(path, f"jobs.sweep: --shard ${{{{ matrix.shard }}}}/{text_n}, but the matrix lists {n} "
                             f"shards: {shard_list}")

    # The artifact actions: v4 everywhere (v3 was shut down; v4 artifacts do not mix with older versions).
    uploads, downloads = [], []
    for job_id, step, action, ref in action_uses(wf):
        if action in ("actions/upload-artifact", "actions/download-artifact"):
            if not re.fullmatch(r"v4(\.\d+)*", ref):
                c.fail(path, f"jobs.{job_id}: {action}@{ref}, expected @v4")
            (uploads if action.endswith("upload-artifact") else downloads).append((job_id, step))
    sweep_names = [str(dig(s, "with", "name")) for j, s in uploads if j == "sweep"]
    if not sweep_names:
        c.fail(path, "jobs.sweep uploads no artifact (the shard report)")
    for name in sweep_names:
        if "matrix.shard" not in name.replace(" ", ""):
            c.fail(path, f"jobs.sweep: artifact name {name!r} is the same for every shard (v4 refuses a duplicate "
                         "name): put ${{ matrix.shard }} in it")
    merge_downloads = [s for j, s in downloads if j == "merge"]
    if not merge_downloads:
        c.fail(path, "jobs.merge downloads no artifact")
    for step in merge_downloads:
        pattern = dig(step, "with", "pattern")
        if not pattern:
            c.fail(path, "jobs.merge: download-artifact without `pattern:` (it would fetch every artifact)")
        elif sweep_names:
            concrete = re.sub(r"\$\{\{[^}]*\}\}", "0", sweep_names[0])
            if not fnmatch.fnmatchcase(concrete, str(pattern)):
                c.fail(path, f"jobs.merge: download pattern {pattern!r} does not match the shard artifacts "
                             f"({sweep_names[0]!r})")
        if dig(step, "with", "merge-multiple") is not True:
            c.fail(path, "jobs.merge: download-artifact without `merge-multiple: true` (each shard would land in its "
                         "own folder)")
    merge_names = [str(dig(s, "with", "name")) for j, s in uploads if j == "merge"]
    if "gpubench-report" not in merge_names:
        c.fail(path, f"jobs.merge uploads {merge_names}, expected an artifact named 'gpubench-report'")
    if isinstance(merge, dict):
        merge_text = "\n".join(str(s.get("run", "")) for s in steps_of(merge))
        for needle in ("gpubench merge", "gpubench compare", "gh pr comment"):
            if needle not in merge_text:
                c.fail(path, f"jobs.merge: no `{needle}` in a run step")
        check_gate(c, path, merge)
    c.ok(path, f"workflow: sweep over {n} shards, merge needs sweep, artifact actions v4", mark)
    return n
