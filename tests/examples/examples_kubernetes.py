"""Kubernetes checks of check_examples.py: examples/kubernetes (pvc.yaml, sweep-job.yaml, merge-job.yaml)."""

import os
import re

from examples_common import GPU, SHARDS_ENV, as_int, dig, load_yaml_docs, one_of_kind


def containers(pod_spec):
    return [x for x in (dig(pod_spec, "containers") or []) if isinstance(x, dict)] + \
           [x for x in (dig(pod_spec, "initContainers") or []) if isinstance(x, dict)]


def gpu_amounts(container):
    """The nvidia.com/gpu values in a container's limits and requests (raw, as written)."""
    out = {}
    for part in ("limits", "requests"):
        value = dig(container, "resources", part, GPU)
        if value is not None:
            out[part] = value
    return out


def env_map(container):
    out = {}
    for item in dig(container, "env") or []:
        if isinstance(item, dict) and "name" in item:
            out[item["name"]] = item
    return out


def command_text(container):
    parts = (dig(container, "command") or []) + (dig(container, "args") or [])
    return [str(p) for p in parts]


def pvc_claims(pod_spec):
    """{volume name: claimName} of the pod's persistentVolumeClaim volumes."""
    out = {}
    for v in dig(pod_spec, "volumes") or []:
        claim = dig(v, "persistentVolumeClaim", "claimName")
        if claim is not None:
            out[dig(v, "name")] = claim
    return out


def check_job_basics(c, path, job, what):
    if job.get("apiVersion") != "batch/v1":
        c.fail(path, f"{what}: apiVersion is {job.get('apiVersion')!r}, expected 'batch/v1'")
    if not dig(job, "metadata", "name"):
        c.fail(path, f"{what}: metadata.name missing")
    pod = dig(job, "spec", "template", "spec")
    if not isinstance(pod, dict):
        c.fail(path, f"{what}: spec.template.spec missing")
        return None
    if pod.get("restartPolicy") != "Never":
        c.fail(path, f"{what}: spec.template.spec.restartPolicy is {pod.get('restartPolicy')!r}, expected 'Never' "
                     "(a restarted container would run its shard again in the same pod)")
    if not containers(pod):
        c.fail(path, f"{what}: no containers")
        return None
    for ct in containers(pod):
        if not isinstance(ct.get("image"), str) or not ct["image"]:
            c.fail(path, f"{what}: container {ct.get('name')!r} has no image")
    backoff = dig(job, "spec", "backoffLimit")
    if backoff is not None and (as_int(backoff) is None or not isinstance(backoff, int) or not 0 <= backoff <= 3):
        c.fail(path, f"{what}: spec.backoffLimit is {backoff!r}; keep it a small integer (0..3): a benchmark that "
                     "fails a step fails again")
    return pod


def check_pvc(c, path):
    mark = c.mark()
    docs = load_yaml_docs(c, path)
    if docs is None:
        return None
    pvc = one_of_kind(c, path, docs, "PersistentVolumeClaim")
    if pvc is None:
        return None
    if pvc.get("apiVersion") != "v1":
        c.fail(path, f"apiVersion is {pvc.get('apiVersion')!r}, expected 'v1'")
    name = dig(pvc, "metadata", "name")
    if not name:
        c.fail(path, "metadata.name missing")
        return None
    modes = dig(pvc, "spec", "accessModes") or []
    if "ReadWriteMany" not in modes:
        c.fail(path, f"accessModes {modes} lack ReadWriteMany: shards on several nodes write to it at once")
    if dig(pvc, "spec", "resources", "requests", "storage") is None:
        c.fail(path, "spec.resources.requests.storage missing")
    c.ok(path, f"PersistentVolumeClaim {name!r}, {modes}", mark)
    return name


def check_sweep_job(c, path, pvc_name):
    mark = c.mark()
    docs = load_yaml_docs(c, path)
    if docs is None:
        return None
    job = one_of_kind(c, path, docs, "Job")
    if job is None:
        return None
    pod = check_job_basics(c, path, job, "sweep Job")
    spec = dig(job, "spec") or {}
    if spec.get("completionMode") != "Indexed":
        c.fail(path, f"spec.completionMode is {spec.get('completionMode')!r}, expected 'Indexed' "
                     "(without it there is no JOB_COMPLETION_INDEX)")
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    if not isinstance(completions, int) or isinstance(completions, bool) or completions < 1:
        c.fail(path, f"spec.completions is {completions!r}, expected a positive integer")
        completions = None
    if not isinstance(parallelism, int) or isinstance(parallelism, bool) or parallelism < 1:
        c.fail(path, f"spec.parallelism is {parallelism!r}, expected a positive integer")
        parallelism = None
    if completions is not None and parallelism is not None and completions != parallelism:
        c.fail(path, f"spec.completions ({completions}) != spec.parallelism ({parallelism})")
    if pod is None:
        return completions

    gpu_containers = [ct for ct in containers(pod) if gpu_amounts(ct)]
    if len(gpu_containers) != 1:
        c.fail(path, f"expected one container with a {GPU} limit, found {len(gpu_containers)}")
    for ct in gpu_containers:
        amounts = gpu_amounts(ct)
        limit = amounts.get("limits")
        if as_int(limit) != 1:
            c.fail(path, f"container {ct.get('name')!r}: resources.limits[{GPU}] is {limit!r}, expected 1 "
                         "(one GPU per shard)")
        if "requests" in amounts and as_int(amounts["requests"]) != as_int(limit):
            c.fail(path, f"container {ct.get('name')!r}: {GPU} request {amounts['requests']!r} != limit {limit!r}")

    runner = gpu_containers[0] if gpu_containers else containers(pod)[0]
    name = runner.get("name")
    env = env_map(runner)
    shards_item = env.get(SHARDS_ENV)
    if shards_item is None:
        c.fail(path, f"container {name!r}: env {SHARDS_ENV} missing (Kubernetes does not tell a pod the "
                     "completions; gpubench reads the shard count from it)")
    else:
        value = shards_item.get("value")
        if not isinstance(value, str):
            c.fail(path, f"env {SHARDS_ENV}: value {value!r} must be a quoted string (Kubernetes refuses a number)")
        shards = as_int(value)
        if shards is None:
            c.fail(path, f"env {SHARDS_ENV}: value {value!r} is not an integer")
        elif completions is not None and shards != completions:
            c.fail(path, f"env {SHARDS_ENV} is {shards} but spec.completions is {completions}: they must be equal, "
                         "or units are run twice or never")

    cmd = command_text(runner)
    text = " ".join(cmd)
    if "JOB_COMPLETION_INDEX" not in text:
        c.fail(path, f"container {name!r}: the command does not use JOB_COMPLETION_INDEX (shard reports would "
                     "overwrite each other)")
    if "$(JOB_COMPLETION_INDEX)" in text and "JOB_COMPLETION_INDEX" not in env:
        c.fail(path, f"container {name!r}: $(JOB_COMPLETION_INDEX) is expanded by Kubernetes only for variables "
                     "declared in env; use a shell (command: [sh, -c]) and ${JOB_COMPLETION_INDEX}")
    uses_shell_var = re.search(r"\$\{?JOB_COMPLETION_INDEX\b", text) is not None
    shell = len(cmd) >= 2 and os.path.basename(cmd[0]) in ("sh", "bash", "dash") and cmd[1].startswith("-") \
        and "c" in cmd[1]
    if uses_shell_var and not shell:
        c.fail(path, f"container {name!r}: ${{JOB_COMPLETION_INDEX}} needs a shell to expand it; the command "
                     f"starts with {cmd[:2]}, not [sh, -c]")
    if "run" not in text.split() and not re.search(r"\bgpubench\s+run\b", text):
        c.fail(path, f"container {name!r}: the command does not run `gpubench run`")
    if re.search(r"--shard[\s=]", text):
        c.fail(path, f"container {name!r}: passes --shard: let gpubench read JOB_COMPLETION_INDEX and "
                     f"{SHARDS_ENV} itself")
    m = re.search(r"--shards[\s=]+(\S+)", text)
    if m and completions is not None and as_int(m.group(1).strip("'\"")) != completions:
        c.fail(path, f"container {name!r}: --shards {m.group(1)} != spec.completions {completions}")
    m = re.search(r"(?:-o|--output)[\s=]+[\"']?(\S+?)[\"']?(?:\s|$)", text)
    out_prefix = m.group(1) if m else None
    if out_prefix is None:
        c.fail(path, f"container {name!r}: no -o PREFIX for the shard report")

    claims = pvc_claims(pod)
    if not claims:
        c.fail(path, "no persistentVolumeClaim volume for the reports")
    for volume, claim in claims.items():
        if pvc_name is not None and claim != pvc_name:
            c.fail(path, f"volume {volume!r}: claimName {claim!r} != pvc.yaml's name {pvc_name!r}")
    mounts = {dig(mt, "name"): dig(mt, "mountPath") for mt in dig(runner, "volumeMounts") or []}
    report_mounts = [mounts[v] for v in claims if v in mounts]
    if not report_mounts:
        c.fail(path, f"container {name!r}: the reports claim is not mounted")
    elif out_prefix is not None and not any(out_prefix.startswith(mp.rstrip("/") + "/") for mp in report_mounts):
        c.fail(path, f"container {name!r}: -o {out_prefix} is not on the reports volume ({report_mounts})")
    config_volumes = [dig(v, "name") for v in dig(pod, "volumes") or [] if dig(v, "configMap", "name")]
    if not config_volumes:
        c.fail(path, "no configMap volume for the config")
    elif not any(v in mounts for v in config_volumes):
        c.fail(path, f"container {name!r}: the config volume is not mounted")
    else:
        config_mounts = [mounts[v] for v in config_volumes if v in mounts]
        if not any(mp.rstrip("/") + "/" in text for mp in config_mounts):
            c.fail(path, f"container {name!r}: the command reads no file under the config mount {config_mounts}")
    c.ok(path, f"Indexed Job {dig(job, 'metadata', 'name')!r}: completions {completions}, parallelism "
               f"{parallelism}, {SHARDS_ENV} {dig(shards_item, 'value')!r}", mark)
    return completions


def check_merge_job(c, path, pvc_name):
    mark = c.mark()
    docs = load_yaml_docs(c, path)
    if docs is None:
        return
    job = one_of_kind(c, path, docs, "Job")
    if job is None:
        return
    pod = check_job_basics(c, path, job, "merge Job")
    if pod is None:
        return
    for ct in containers(pod):
        for part, value in gpu_amounts(ct).items():
            if as_int(value) != 0:
                c.fail(path, f"container {ct.get('name')!r} asks for a GPU ({part}[{GPU}] = {value!r}); "
                             "merging needs none")
    text = " ".join(" ".join(command_text(ct)) for ct in containers(pod))
    if not re.search(r"\bmerge\b", text):
        c.fail(path, "no container runs `gpubench merge`")
    claims = pvc_claims(pod)
    if not claims:
        c.fail(path, "no persistentVolumeClaim volume with the shard reports")
    for volume, claim in claims.items():
        if pvc_name is not None and claim != pvc_name:
            c.fail(path, f"volume {volume!r}: claimName {claim!r} != pvc.yaml's name {pvc_name!r}")
    c.ok(path, f"Job {dig(job, 'metadata', 'name')!r}: no GPU, claim {sorted(claims.values())}", mark)


def check_kubernetes(c):
    d = os.path.join(c.root, "examples", "kubernetes")
    pvc_name = check_pvc(c, os.path.join(d, "pvc.yaml"))
    shards = check_sweep_job(c, os.path.join(d, "sweep-job.yaml"), pvc_name)
    check_merge_job(c, os.path.join(d, "merge-job.yaml"), pvc_name)
    return shards
