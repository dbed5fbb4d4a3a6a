#!/usr/bin/env python3
"""Registers, spills and static shared memory of every candidate kernel, as
ptxas reports them for the gpu build (ci/kernel-resources.sh runs this).

Interpret mode has no registers of its own, so the occupancy a model run
assumes (docs/roofline.md) comes from here: each candidate source under
FOLDER is compiled again with the gpu build's own command
(compile_commands.json), ptxas's `-v` report is read per entry function, and
the table is written as FOLDER/resources.json (the cpu build compiles it in)
and, when given, as the Markdown table DOC.

With --check, nothing is compiled: the reports the gpu build's compiler
launcher kept beside each candidate OBJECT (OBJECT.ptxas) give the
table of this build, which must equal FOLDER/resources.json where the build's
compiler is the table's; that is how a build shows the committed table stale.

usage: kernel_resources.py GPU_BUILD_DIR REVISION FOLDER [DOC]
       kernel_resources.py --check FOLDER OBJECT...
"""
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers(?:, used \d+ barriers)?(?:, (\d+) bytes smem)?")


def candidate_commands(build_dir, folder):
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    return sorted(
        (e for e in entries if "/kg_candidates.dir/" in e["command"] and e["file"].endswith(".cu")
         and os.path.realpath(e["file"]).startswith(folder + os.sep)),
        key=lambda e: e["file"],
    )


def ptxas_report(entry, scratch):
    """The compile's ptxas lines; the object goes to a scratch file."""
    words = shlex.split(entry["command"])
    words[words.index("-o") + 1] = os.path.join(scratch, os.path.basename(entry["file"]) + ".o")
    done = subprocess.run(words, cwd=entry["directory"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"error: compiling {entry['file']} failed:\n{done.stderr}")
    return done.stderr


# The architecture of the table: the model's occupancy is Hopper's. A build
# for several architectures reports each kernel once per architecture; only
# this one's figures count.
TABLE_ARCH = "sm_90a"


def parse(report, source):
    kernels, name = {}, None
    for line in report.splitlines():
        if m := ENTRY.search(line):
            name, arch = m.group(1), m.group(2)
            if arch != TABLE_ARCH:
                name = None
                continue
            kernels[name] = {"source": source, "arch": arch}
        elif name and (m := FRAME.search(line)):
            kernels[name].update(stack_bytes=int(m.group(1)), spill_store_bytes=int(m.group(2)),
                                 spill_load_bytes=int(m.group(3)))
        elif name and (m := USED.search(line)):
            kernels[name].update(registers=int(m.group(1)), static_shared_bytes=int(m.group(2) or 0))
    for kernel, figures in kernels.items():
        if "registers" not in figures:
            sys.exit(f"error: ptxas gave no register count for {kernel} in {source}")
    return kernels


def demangle(names):
    done = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return dict(zip(names, done.stdout.splitlines()))


def merge(table, kernels, source):
    """Adds one source's kernels; a template in a shared header is compiled by
    several sources: one entry, the first source, and they must agree."""
    for kernel, figures in kernels.items():
        known = table.setdefault(kernel, figures)
        if {k: v for k, v in known.items() if k != "source"} != {
                k: v for k, v in figures.items() if k != "source"}:
            sys.exit(f"error: {kernel} compiles differently in {known['source']} and {source}")


def canonical(name):
    """The kernel's name with each anonymous namespace as one, as interpret
    mode compares them: nvcc writes <length>_GLOBAL__N__<hash>_<file>_<id>,
    whose hash changes from one compile to the next."""
    out, at = [], 0
    while (found := name.find("_GLOBAL__N_", at)) >= 0:
        digits = found
        while digits > at and name[digits - 1].isdigit():
            digits -= 1
        if digits == found:  # not a length-prefixed name
            out.append(name[at:found + 1])
            at = found + 1
            continue
        out.append(name[at:digits] + "12_GLOBAL__N_1")
        at = digits + len(name[digits:found]) + int(name[digits:found])
    return "".join(out) + name[at:]


def check(kernels_dir, objects):
    stored_path = os.path.join(kernels_dir, "resources.json")
    with open(stored_path) as f:
        stored = json.load(f)
    table, compilers, sources = {}, set(), 0
    for obj in objects:
        if not obj.endswith(".cu.o"):
            continue
        try:
            with open(obj + ".ptxas") as f:
                header, _, report = f.read().partition("\n")
        except FileNotFoundError:
            sys.exit(f"error: no ptxas report {obj}.ptxas: the object was not compiled through "
                     "cmake/fail_on_ptxas_notices.sh")
        source = os.path.realpath(header.removeprefix("source: "))
        if source.startswith(kernels_dir + os.sep):
            source = os.path.relpath(source, kernels_dir)
            sources += 1
            merge(table, parse(report, source), source)
    if not sources:
        sys.exit(f"error: no candidate object under {kernels_dir} among the {len(objects)} given")
    if not table:
        print(f"note: {stored_path} is of {stored['arch']}, and this build compiled no candidate under "
              f"{kernels_dir} for it: not compared")
        return
    # Registers follow the compiler and the architecture: a table of another
    # nvcc or arch cannot be judged by this build.
    compiler = os.environ.get("KERNELGATE_CUDA_COMPILER_VERSION", "")
    archs = ",".join(sorted({figures.pop("arch") for figures in table.values()}))
    if compiler and not stored["compiler"].endswith(", V" + compiler) or archs != stored["arch"]:
        print(f"note: {stored_path} is of {stored['compiler']} for {stored['arch']}, this build is nvcc "
              f"{compiler or '(unknown)'} for {archs}: not compared")
        return
    table = {canonical(k): v for k, v in table.items()}
    stored["kernels"] = {canonical(k): v for k, v in stored["kernels"].items()}
    stale = sorted(set(table) ^ set(stored["kernels"]) |
                   {k for k in set(table) & set(stored["kernels"]) if table[k] != stored["kernels"][k]})
    if stale:
        first = stale[0]
        now, then = table.get(first, "absent"), stored["kernels"].get(first, "absent")
        sys.exit(f"error: {stored_path} is stale for {len(stale)} kernel(s), first {first}: this build {now}, "
                 f"the table {then}; run ci/kernel-resources.sh")
    print(f"{stored_path}: the {len(table)} kernels of this build agree")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--check":
        check(os.path.realpath(sys.argv[2]), sys.argv[3:])
        return
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[-1])
    build_dir, revision, kernels_dir = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3])
    doc = sys.argv[4] if len(sys.argv) == 5 else None
    commands = candidate_commands(build_dir, kernels_dir)
    if not commands:
        sys.exit(f"error: {build_dir}/compile_commands.json names no candidate source under {sys.argv[3]}")
    compiler = subprocess.run([shlex.split(commands[0]["command"])[0], "--version"], capture_output=True,
                              text=True, check=True).stdout.strip().splitlines()[-2]
    table = {}
    with tempfile.TemporaryDirectory() as scratch, concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        reports = pool.map(lambda e: (e, ptxas_report(e, scratch)), commands)
        for entry, report in reports:
            source = os.path.relpath(entry["file"], kernels_dir)
            merge(table, parse(report, source), source)
    archs = sorted({f.pop("arch") for f in table.values()})
    out = {"kind": "kernelgate-kernel-resources", "schema_version": 1, "arch": ",".join(archs),
           "compiler": compiler, "revision": revision, "kernels": dict(sorted(table.items()))}
    with open(os.path.join(kernels_dir, "resources.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    if doc is None:
        return

    readable = demangle(list(out["kernels"]))
    lines = [
        "# Registers and shared memory of every candidate kernel",
        "",
        f"Generated by `ci/kernel-resources.sh` (do not edit) at revision `{revision}`: ptxas's `-v` report "
        f"of the gpu build's compile of each candidate ({compiler}, {out['arch']}). The same table is "
        "`kernels/resources.json`, which the cpu build embeds: a model run takes each launched kernel's "
        "registers and static shared memory from it for the occupancy (docs/roofline.md).",
        "",
        "| kernel | source | registers | spill stores / loads (bytes) | stack (bytes) | static shared (bytes) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for kernel, f in out["kernels"].items():
        lines.append(f"| `{readable[kernel]}` | `{f['source']}` | {f['registers']} | "
                     f"{f['spill_store_bytes']} / {f['spill_load_bytes']} | {f['stack_bytes']} | "
                     f"{f['static_shared_bytes']} |")
    with open(doc, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
