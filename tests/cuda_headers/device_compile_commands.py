#!/usr/bin/env python3
"""The gpu build's compile commands of the cuda device's host sources
(harness/src/device/cuda/*.cpp), rewritten so that ci/check-cuda-headers.sh
can compile them against the headers of another CUDA version.

usage: device_compile_commands.py COMPILE_COMMANDS toolkit-includes
           the toolkit's include folders those commands use, one a line
       device_compile_commands.py COMPILE_COMMANDS commands [FOLDER...]
           one line per source, tab-separated: the source, then the words of
           its command with the toolkit's include folders replaced by
           -isystem FOLDER..., and without the output file, -c and the
           precompiled header (made with the toolkit's own headers)
"""
import json
import os
import shlex
import sys

# A folder that holds any of these is the toolkit's (runtime, CUPTI, nvcc's
# host support headers): the folders that take its place must hold them all.
TOOLKIT_HEADERS = ("cuda_runtime_api.h", "cupti.h", os.path.join("crt", "host_defines.h"))


def is_toolkit_folder(folder):
    return any(os.path.exists(os.path.join(folder, header)) for header in TOOLKIT_HEADERS)


def device_host_sources(compile_commands):
    with open(compile_commands) as f:
        entries = json.load(f)
    for entry in entries:
        source = entry["file"]
        if "/src/device/cuda/" in source and source.endswith(".cpp"):
            words = entry.get("arguments") or shlex.split(entry["command"])
            yield source, words


def include_folders(words):
    """Each include folder option as (its index, how many words it takes, the folder)."""
    for index, word in enumerate(words):
        if word in ("-isystem", "-I") and index + 1 < len(words):
            yield index, 2, words[index + 1]
        elif word.startswith("-isystem") and word != "-isystem":
            yield index, 1, word[len("-isystem"):]
        elif word.startswith("-I") and word != "-I":
            yield index, 1, word[len("-I"):]


def toolkit_includes(words):
    return [folder for _, _, folder in include_folders(words) if is_toolkit_folder(folder)]


def rewritten(words, source, replacements):
    dropped = set()
    first_toolkit = None
    for index, width, folder in include_folders(words):
        if is_toolkit_folder(folder):
            first_toolkit = index if first_toolkit is None else first_toolkit
            dropped.update(range(index, index + width))
    for index, word in enumerate(words):
        if word == "-o" and index + 1 < len(words):
            dropped.update((index, index + 1))
        elif word == "-include" and index + 1 < len(words) and "cmake_pch" in words[index + 1]:
            dropped.update((index, index + 1))
        elif word in ("-c", "-Winvalid-pch", source):
            dropped.add(index)
    # The replacements come first, where the toolkit's folder stood (or right
    # after the compiler, where the toolkit was found without one).
    insert_at = first_toolkit if first_toolkit is not None else 1
    added = [word for folder in replacements for word in ("-isystem", folder)]
    kept = [(index, word) for index, word in enumerate(words) if index not in dropped]
    return ([word for index, word in kept if index < insert_at] + added +
            [word for index, word in kept if index >= insert_at])


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("toolkit-includes", "commands"):
        sys.exit(__doc__)
    compile_commands, mode, replacements = sys.argv[1], sys.argv[2], sys.argv[3:]
    sources = list(device_host_sources(compile_commands))
    if not sources:
        sys.exit(f"error: {compile_commands} has no source of harness/src/device/cuda: not a gpu build")
    if mode == "toolkit-includes":
        folders = {folder for _, words in sources for folder in toolkit_includes(words)}
        print("\n".join(sorted(folders)))
        return
    for source, words in sources:
        print("\t".join([source] + rewritten(words, source, replacements)))


if __name__ == "__main__":
    main()
