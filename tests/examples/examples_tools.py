"""External-tool checks of check_examples.py: yamllint, shellcheck and bash -n on the example files."""

import glob
import os
import shutil
import subprocess


def yaml_files(root):
    return sorted(glob.glob(os.path.join(root, "examples", "**", "*.yaml"), recursive=True) +
                  glob.glob(os.path.join(root, "examples", "**", "*.yml"), recursive=True))


def shell_files(root):
    files = []
    for sub in ("slurm", "kubernetes", "github-actions"):
        for ext in ("*.sh", "*.sbatch"):
            files += glob.glob(os.path.join(root, "examples", sub, ext))
    files += glob.glob(os.path.join(root, "tests", "examples", "*.sh"))
    return sorted(files)


def run_tool(c, argv, files, what):
    result = subprocess.run(argv + files, capture_output=True, text=True)
    if result.returncode != 0:
        output = (result.stdout + result.stderr).strip()
        c.fail(files[0] if len(files) == 1 else os.path.join(c.root, "examples"),
               f"{what} (exit {result.returncode}):\n{output}")
        return False
    return True


def check_tools(c):
    yfiles, sfiles = yaml_files(c.root), shell_files(c.root)
    if shutil.which("yamllint"):
        if yfiles and run_tool(c, ["yamllint", "-d", "relaxed", "-f", "parsable"], yfiles, "yamllint -d relaxed"):
            c.ok(os.path.join(c.root, "examples"), f"yamllint -d relaxed: {len(yfiles)} files, no errors")
    else:
        c.note("yamllint not installed: skipped")
    if shutil.which("shellcheck"):
        if sfiles and run_tool(c, ["shellcheck", "-S", "warning"], sfiles, "shellcheck -S warning"):
            c.ok(os.path.join(c.root, "examples"), f"shellcheck -S warning: {len(sfiles)} files, no findings")
    else:
        c.note("shellcheck not installed: skipped")
    bash = shutil.which("bash")
    if bash is None:
        c.fail(c.root, "bash not found: cannot run bash -n")
        return
    mark = c.mark()
    for f in sfiles:
        run_tool(c, [bash, "-n"], [f], "bash -n")
    if sfiles and c.mark() == mark:
        c.ok(os.path.join(c.root, "examples"), f"bash -n: {len(sfiles)} files")
