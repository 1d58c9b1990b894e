#!/usr/bin/python3
"""docs_test.py: the shape of the documents an administrator reads first.

- README.md: at most 200 lines; no table cell longer than 300 characters;
  the sections of a map (what it is, the quick start with exactly the two
  one-line commands, run it yourself, configure, packages, where to read
  on); every results line names a current value, a goal and a command.
- doc/performance.md: three parts (how to measure, the current figures,
  the record); the current figures are one table whose columns are
  figure, value, goal, command, date, each row dated.
- doc/performance-record.md: dated entries ("## YYYY-MM-DD ..."), newest
  first.
- Every relative link of these files points at a file that exists and,
  for "file.md#anchor", at a heading of that file.

Run by `make check` with srcdir set; prints one line a failed check and a
CppUTest-style summary (scripts/count-tests.sh counts it).
"""
import os
import re
import sys

srcdir = os.environ.get("srcdir", ".")
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def read(rel):
    path = os.path.join(srcdir, rel)
    if not os.path.exists(path):
        check(False, f"{rel} is missing")
        return []
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")


def tables(lines):
    """Each markdown table as a list of rows, each a list of cells."""
    out, cur = [], None
    for line in lines:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = []
                out.append(cur)
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur.append(cells)
        else:
            cur = None
    return out


def headings(lines):
    return [l for l in lines if re.match(r"#+ ", l)]


def anchor(heading):
    h = heading.lstrip("#").strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def check_links(rel, lines):
    base = os.path.dirname(rel)
    in_code = False
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            file = os.path.normpath(os.path.join(base, path)) if path else rel
            exists = os.path.exists(os.path.join(srcdir, file))
            check(exists, f"{rel}:{n}: link to a missing file: {target}")
            if exists and frag and file.endswith(".md"):
                anchors = {anchor(h) for h in headings(read(file))}
                check(frag in anchors, f"{rel}:{n}: link to a missing heading: {target}")


# ---------------------------------------------------------------- README
readme = read("README.md")
if readme and readme[-1] == "":
    readme = readme[:-1]
check(len(readme) <= 200, f"README.md has {len(readme)} lines, more than 200")
for t in tables(readme):
    for row in t:
        for cell in row:
            check(len(cell) <= 300, f"README.md: a table cell of {len(cell)} characters: {cell[:60]}...")
titles = [h.lstrip("#").strip().lower() for h in headings(readme) if h.startswith("## ")]
for want in ["quick start", "run it yourself", "configur", "packages", "results", "where to read on"]:
    check(any(t.startswith(want) for t in titles), f"README.md: no section '## {want}...'")
text = "\n".join(readme)
m = re.search(r"## Quick start.*?```sh\n(.*?)```", text, re.S)
check(m is not None, "README.md: no sh block in the quick start")
if m:
    cmds = [l.split("#")[0].strip() for l in m.group(1).strip().split("\n")]
    check(cmds == ["./scripts/demo.sh", "./scripts/test.sh"],
          f"README.md: the quick start's commands are {cmds}")
res = [t for t in tables(readme) if t and t[0][:1] == ["figure"]]
check(len(res) == 1, "README.md: no results table whose first column is 'figure'")
if res:
    head = res[0][0]
    check(head == ["figure", "value", "goal", "command"],
          f"README.md: the results table's columns are {head}")
    for row in res[0][1:]:
        check(len(row) == 4 and row[1] and "`" in row[3],
              f"README.md: a results row without value or command: {row}")
check_links("README.md", readme)

# ---------------------------------------------------------------- performance
perf = read("doc/performance.md")
parts = [h for h in headings(perf) if h.startswith("## ")]
check(parts == ["## 1. How to measure", "## 2. The current figures", "## 3. The record"],
      f"doc/performance.md: its parts are {parts}")
text = "\n".join(perf)
cur = text.split("## 2. The current figures", 1)[-1].split("## 3. The record", 1)[0]
cur_tables = tables(cur.split("\n"))
check(len(cur_tables) == 1, f"doc/performance.md: {len(cur_tables)} tables in the current figures, want 1")
if cur_tables:
    t = cur_tables[0]
    check(t[0] == ["figure", "value", "goal", "command", "date"],
          f"doc/performance.md: the current figures' columns are {t[0]}")
    check(len(t) > 10, "doc/performance.md: fewer than 10 current figures")
    for row in t[1:]:
        check(len(row) == 5 and re.fullmatch(r"\d{4}-\d\d-\d\d", row[4] if len(row) == 5 else "") is not None
              and row[1] != "" and "`" in row[3],
              f"doc/performance.md: a current figure without value, command or date: {row}")
check(len(perf) <= 500, f"doc/performance.md has {len(perf)} lines: the record belongs in performance-record.md")
check_links("doc/performance.md", perf)

rec = read("doc/performance-record.md")
entries = [h for h in headings(rec) if h.startswith("## ")]
check(len(entries) >= 20, f"doc/performance-record.md: {len(entries)} dated entries")
last = None
for h in entries:
    dates = re.findall(r"\d{4}-\d\d-\d\d", h.split(":")[0] if re.match(r"## \d", h) else "")
    check(bool(re.match(r"## \d{4}-\d\d-\d\d", h)) and dates, f"doc/performance-record.md: an entry without a date first: {h}")
    if not dates:
        continue
    newest = max(dates)
    check(last is None or newest <= last, f"doc/performance-record.md: not newest first at: {h}")
    last = newest
check_links("doc/performance-record.md", rec)

# ---------------------------------------------------------------- CONTRIBUTING
check(os.path.exists(os.path.join(srcdir, "CONTRIBUTING.md")), "no CONTRIBUTING.md")
if os.path.exists(os.path.join(srcdir, "CONTRIBUTING.md")):
    check_links("CONTRIBUTING.md", read("CONTRIBUTING.md"))

# ---------------------------------------------------------------- dump_dir
# The plugin's dump_dir has no default (none); every example of it names
# the same directory, the one ssa-smdb(1) reads (README, man pages, etc/).
dirs = {}
for rel in ["README.md"] + ["man/" + f for f in sorted(os.listdir(os.path.join(srcdir, "man")))] + \
        ["etc/" + f for f in sorted(os.listdir(os.path.join(srcdir, "etc"))) if f.endswith((".cfg", ".conf"))]:
    for n, line in enumerate(read(rel), 1):
        for d in re.findall(r"dump_dir=([/\w.-]+)", line):
            if d.startswith("/") and "%s" not in d:
                dirs.setdefault(d.rstrip("/."), []).append(f"{rel}:{n}")
check(len(dirs) == 1, f"dump_dir's examples disagree: {dirs}")

if failures:
    print(f"Errors ({len(failures)} failures, 1 tests, 1 ran, {checks} checks, 0 ignored, 0 filtered out, 0 ms)")
    sys.exit(1)
print(f"OK (1 tests, 1 ran, {checks} checks, 0 ignored, 0 filtered out, 0 ms)")
