#!/usr/bin/env python3
"""Checks that the client library builds beyond Linux: MotionClient and every module it depends on, directly or not
(read from `swift package describe --type json`), hold no Linux-only code. A module in that closure fails when

- it is a system library (a Debian package: zlib, OpenSSL, SQLite, libpq), CNetShim or HTTPServer;
- one of its Swift files imports CNetShim or HTTPServer, or Glibc or Musl outside `#if` (an `import Glibc` under
  `#if canImport(Glibc)`, with `Darwin` under `#elseif`, is portable);
- one of its Swift files names epoll in code (comments may mention it).

    python3 tools/check-portable-client.py [TARGET ...]   (default: MotionClient)

Prints the modules and files checked, one line per problem; exits 1 if there is any. Standard library only.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# Modules that exist only on Linux: never in the client's closure (a system library is refused by its kind).
LINUX_ONLY = {"Glibc", "Musl", "CNetShim", "HTTPServer"}
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_]\w*)")
CONDITION = re.compile(r"^\s*#(if|elseif|else|endif)\b")
EPOLL = re.compile(r"epoll", re.IGNORECASE)


def describe():
    """The package's targets by name, from SwiftPM."""
    output = subprocess.run(
        ["swift", "package", "--package-path", ROOT, "describe", "--type", "json"],
        check=True, capture_output=True, text=True).stdout
    # SwiftPM may print progress lines before the JSON.
    package = json.loads(output[output.index("{"):])
    return {target["name"]: target for target in package["targets"]}


def closure(targets, roots):
    """The roots and every target they depend on, in the order found."""
    order, pending = [], list(roots)
    while pending:
        name = pending.pop(0)
        if name in order:
            continue
        if name not in targets:
            sys.exit(f"check-portable-client: no target {name}")
        order.append(name)
        pending += targets[name].get("target_dependencies", [])
    return order


def code_lines(text):
    """The file's lines with comments and string contents blanked (line numbers kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.DOTALL)
    return [re.sub(r'"(?:[^"\\]|\\.)*"', '""', line.split("//")[0]) for line in text.splitlines()]


def check_file(path):
    """The problems of one Swift file."""
    problems, depth = [], 0
    with open(path, encoding="utf-8") as f:
        lines = code_lines(f.read())
    path = os.path.relpath(path, ROOT)
    for number, line in enumerate(lines, 1):
        condition = CONDITION.match(line)
        if condition:
            depth += {"if": 1, "endif": -1}.get(condition.group(1), 0)
            continue
        imported = IMPORT.match(line)
        if imported and imported.group(1) in LINUX_ONLY:
            module = imported.group(1)
            if module not in ("Glibc", "Musl") or depth == 0:
                where = "" if module not in ("Glibc", "Musl") else " outside #if"
                problems.append(f"{path}:{number}: imports {module}{where}")
        if EPOLL.search(line):
            problems.append(f"{path}:{number}: uses epoll")
    return problems


def main():
    roots = sys.argv[1:] or ["MotionClient"]
    targets = describe()
    modules = closure(targets, roots)
    print(f"{', '.join(roots)} and its dependencies: {', '.join(modules)}")
    problems, files = [], 0
    for name in modules:
        target = targets[name]
        kind = target.get("module_type", "")
        if name in LINUX_ONLY or kind == "SystemLibraryTarget":
            problems.append(f"{name}: a Linux-only module ({kind}) in the closure of {', '.join(roots)}")
            continue
        swift = [source for source in target.get("sources", []) if source.endswith(".swift")]
        if kind != "SwiftTarget" or not swift:
            problems.append(f"{name}: not a Swift module ({kind}); only Swift modules are checked")
            continue
        for source in swift:
            problems += check_file(os.path.join(ROOT, target["path"], source))
        files += len(swift)
        print(f"  {name}: {len(swift)} Swift files")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-portable-client: {len(problems)} problem(s)")
        sys.exit(1)
    print(f"checked {files} Swift files of {len(modules)} modules: no Glibc or Musl import outside #if, no epoll, "
          f"no {' or '.join(sorted(LINUX_ONLY - {'Glibc', 'Musl'}))}, no system library")


if __name__ == "__main__":
    main()
