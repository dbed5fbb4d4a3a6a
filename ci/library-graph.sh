#!/usr/bin/env bash
# ci/library-graph.sh [BUILD_DIR]: the kernelgate libraries of a configured
# build (default build/cpu) and what each links, from CMake's own dependency
# graph (cmake --graphviz); fails naming the libraries of a cycle if there is
# one. docs/architecture.md shows its output for both builds.
set -euo pipefail
build=${1:-build/cpu}
[ -f "$build/CMakeCache.txt" ] || { echo "ci/library-graph.sh: $build is not a configured build" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --graphviz="$work/graph.dot" "$build" > /dev/null
python3 - "$work/graph.dot" <<'PY'
import re, sys

text = open(sys.argv[1]).read()
# Labels read "kg_runner\n(kernelgate::runner)": the target is the first line.
names = {node: label.split("\\n")[0] for node, label in re.findall(r'"(node\d+)" \[ label = "([^"]+)"', text)}
links = {}
for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', text):
    if names[a] != names[b] and names[a].startswith("kg_") and names[b].startswith("kg_"):
        links.setdefault(names[a], set()).add(names[b])
state = {}
def visit(library, path):
    state[library] = "open"
    for linked in sorted(links.get(library, ())):
        if state.get(linked) == "open":
            sys.exit("error: the libraries link in a cycle: " + " -> ".join(path + [linked]))
        if linked not in state:
            visit(linked, path + [linked])
    state[library] = "done"
libraries = sorted({n for n in names.values() if n.startswith("kg_") and not n.endswith("_tests")})
for library in libraries:
    if library not in state:
        visit(library, [library])
for library in libraries:
    print(f"{library:24} -> {', '.join(sorted(links.get(library, ()))) or '(nothing of kernelgate)'}")
PY
