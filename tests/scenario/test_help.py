#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""test_help.py WANKA — no help text stops mid-sentence.

Reads `wanka help` and `wanka help CMD` for every command it lists, cuts
each text into units — a prose paragraph (lines at the left margin up to a
blank line), or an indented list item (an option, a name and its
description, an example command) with its deeper-indented continuation
lines — and checks how each unit ends:

- a prose paragraph ends a sentence: '.', ':', ')' or '!' (a usage line,
  "usage: ...", is left as it is);
- a list item does not end on a word or sign that leaves its sentence
  open: ',', ';', '(', "'s", or a word such as "the", "of", "and", "every"
  ("in a network of sites (`sites:`), every site's" was such a help line).

Exit 0 when every unit passes, 1 listing the ones that do not.
"""
import re
import subprocess
import sys

DANGLING = {
    "a", "an", "the", "of", "and", "or", "nor", "to", "in", "into", "with", "for", "every", "each", "its",
    "their", "by", "from", "on", "at", "as", "than", "is", "are", "be", "per", "whose", "which", "that",
    "when", "if", "but", "not", "no", "this", "these", "those", "via", "over", "under", "between",
}


def help_text(wanka, *args):
    r = subprocess.run([wanka, "help", *args], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"FAIL: wanka help {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def commands(top):
    cmds, in_list = [], False
    for line in top.splitlines():
        if line.strip() == "commands:":
            in_list = True
            continue
        if in_list:
            if not line.strip():
                break
            name = line.split()[0]
            if name != "help":
                cmds.append(name)
    return cmds


def units(text):
    """(kind, first line number, lines) for each unit of text."""
    out, cur, kind, indent, start = [], [], None, 0, 0
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            if cur:
                out.append((kind, start, cur))
            cur, kind = [], None
            continue
        ind = len(line) - len(line.lstrip())
        if ind == 0:
            if kind == "item" and cur:
                out.append((kind, start, cur))
                cur = []
            if not cur:
                kind, start = "prose", n
            cur.append(line)
            continue
        if kind == "prose" and cur[0].startswith("usage:"):
            cur.append(line)  # a usage's second line
            continue
        # an item's continuation: deeper than the item and not a new option
        if kind == "item" and ind > indent and not (line.lstrip().startswith("-") and ind < 12):
            cur.append(line)
            continue
        if cur:
            out.append((kind, start, cur))
        cur, kind, start, indent = [line], "item", n, ind
    if cur:
        out.append((kind, start, cur))
    return out


def problem(kind, lines):
    first, last = lines[0].strip(), lines[-1].rstrip()
    if kind == "prose":
        if first.startswith("usage:") or first.startswith("wanka ") or first.endswith(":"):
            return None
        return None if re.search(r"[.:)!]$", last) else "the paragraph does not end a sentence"
    if re.search(r"[,;(]$", last):
        return f"the item ends on '{last[-1]}'"
    if re.search(r"'s$", last):
        return "the item ends on a possessive"
    word = re.split(r"\s+", last.strip())[-1].lower()
    if word in DANGLING and len(last.split()) > 1:
        return f"the item ends on '{word}'"
    return None


def main():
    wanka = sys.argv[1]
    top = help_text(wanka)
    cmds = commands(top)
    if len(cmds) < 10:
        sys.exit(f"FAIL: found {len(cmds)} commands in `wanka help`")
    bad = 0
    for cmd in [None] + cmds:
        text = top if cmd is None else help_text(wanka, cmd)
        for kind, n, lines in units(text):
            why = problem(kind, lines)
            if why:
                bad += 1
                print(f"FAIL: wanka help {cmd or ''}: line {n + len(lines) - 1}: {why}: {lines[-1].strip()!r}")
    print(f"{len(cmds) + 1} help texts checked, {bad} truncated")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
