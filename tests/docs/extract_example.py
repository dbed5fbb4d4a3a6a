#!/usr/bin/env python3
"""Writes the first C++ block after a page's heading to a file: the complete
example of docs/adding-a-candidate.md, so that the page is built and run as a
real candidate (tests/docs/CMakeLists.txt) and cannot drift from what works.

usage: extract_example.py PAGE HEADING OUTPUT
"""
import sys

page, heading, output = sys.argv[1:4]
with open(page) as f:
    lines = f.read().splitlines()
try:
    start = lines.index(heading)
    begin = lines.index("```cpp", start) + 1
    end = lines.index("```", begin)
except ValueError:
    sys.exit(f"error: {page}: no ```cpp block after the heading '{heading}'")
with open(output, "w") as f:
    f.write("\n".join(lines[begin:end]) + "\n")
