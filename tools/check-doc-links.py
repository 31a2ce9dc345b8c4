#!/usr/bin/env python3
"""Checks the repository's Markdown links: every `[text](target)` that is not a web address must name a file or
folder inside the repository (and, with `#anchor`, a heading of that Markdown file). Markdown files the text only
mentions (`docs/resume.md`, `README.md`) must exist too, from the repository's root or beside the file: the
repository is read on its own, so it names nothing outside it.

    python3 tools/check-doc-links.py [FILE.md ...]   (default: README.md, CHANGELOG.md, docs/*.md, bench/RESULTS.md)

Prints one line per problem; exits 1 if there is any. Standard library only.
"""

import glob
import os
import re
import sys

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LINK = re.compile(r"\]\(([^()\s]+)\)")
MD_MENTION = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*[\w-]+\.md\b")
URL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def slug(heading):
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        prose = FENCE.sub("", f.read())
    return {slug(line.lstrip("#")) for line in prose.splitlines() if line.startswith("#")}


def check(path):
    """The broken links of one file, and its mentions of missing Markdown files."""
    broken, missing = [], []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for target in LINK.findall(FENCE.sub("", text)):  # links inside fenced code are code
        if URL.match(target):
            continue  # a web address, not a path
        file_part, _, anchor = target.partition("#")
        resolved = os.path.realpath(os.path.join(os.path.dirname(path), file_part) if file_part else path)
        if os.path.commonpath([resolved, ROOT]) != ROOT:
            broken.append(f"{path}: points outside the repository: {target}")
        elif not os.path.exists(resolved):
            broken.append(f"{path}: no such file: {target}")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            broken.append(f"{path}: no heading for #{anchor} in {os.path.relpath(resolved, ROOT)}")
    for mention in sorted(set(MD_MENTION.findall(text))):
        beside = os.path.join(os.path.dirname(path), mention)
        if not os.path.exists(os.path.join(ROOT, mention)) and not os.path.exists(beside):
            missing.append(f"{path}: mentions a file the repository does not hold: {mention}")
    return broken, missing


def main(arguments):
    os.chdir(ROOT)
    files = arguments or ["README.md", "CHANGELOG.md", *sorted(glob.glob("docs/*.md")), "bench/RESULTS.md"]
    broken, missing = [], []
    for path in files:
        b, m = check(path)
        broken += b
        missing += m
    for line in broken + missing:
        print(line)
    print(f"{len(files)} files: {len(broken)} broken links, {len(missing)} files named but missing", file=sys.stderr)
    return 1 if broken or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
