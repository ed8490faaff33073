"""Checks of the series of nfb-pcie-telemetry (docs/series.md), for
tests/sh/test_tool_series.sh.  Every command prints nothing and exits 0
when the check holds, and prints one line per fault and exits 1 when it
does not.

  csv FILE DOCS [--metrics-only]   the CSV of FILE against docs/series.md:
                                   eight fields on every line (csv module),
                                   the documented header and kinds, the same
                                   rows in every point, pandas.read_csv
                                   without options
  jsonl FILE [--metrics-only]      JSON lines: the first line, then points
                                   with every key and a unit for every name
  same-rows A B [COLUMN...]        two CSV series with the same rows (a
                                   replay, another counter width), but for
                                   these columns
  sums SERIES TOTALS WIDTH         the intervals' counters add up to the
                                   difference of the first and last totals
  wrap FILE WIDTH                  no negative or huge value in a series of
                                   WIDTH-bit counters
  raw-wraps REGS INDEX N           counter INDEX of a recording went down
                                   (wrapped) at least N times
  examples BIN_DIR WORK FILE...    run every example of the files (a shell
                                   command, a Python script, its output)
"""
import csv
import json
import math
import os
import re
import subprocess
import sys

faults = []


def fault(msg):
    faults.append(msg)


def doc_table(docs, what):
    """The first column of the table after '<!-- generated: WHAT'."""
    text = open(docs, encoding="utf-8").read()
    start = text.index("<!-- generated: " + what)
    block = text[start:text.index("<!-- end -->", start)]
    names = []
    for line in block.splitlines()[1:]:
        m = re.match(r"\| `([a-z_]+)` \|", line)
        if m:
            names.append(m.group(1))
    return names


def points_of(rows):
    """The rows grouped by point: (time, device) in order of appearance."""
    points = {}
    for r in rows:
        points.setdefault((r["time"], r["device"]), []).append(r)
    return list(points.values())


def check_csv(path, docs, metrics_only):
    columns = doc_table(docs, "csv columns")
    kinds = doc_table(docs, "csv kinds")
    with open(path, newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    if not lines:
        return fault(f"{path}: empty")
    if lines[0] != columns:
        fault(f"{path}: header {lines[0]} is not the documented {columns}")
    for n, fields in enumerate(lines, 1):
        if len(fields) != len(columns):
            fault(f"{path}:{n}: {len(fields)} fields, not {len(columns)}")
    with open(path, encoding="utf-8") as f:
        raw = f.read().split("\n")
    if raw[-1] != "" or any(line.count(",") < len(columns) - 1 for line in raw[:-1]):
        fault(f"{path}: a line is cut or the last line has no newline")
    rows = [dict(zip(columns, fields)) for fields in lines[1:]]
    seen = {r["kind"] for r in rows}
    if not seen <= set(kinds):
        fault(f"{path}: undocumented kinds {seen - set(kinds)}")
    want = {"flag", "metric"} if metrics_only else set(kinds)
    if seen != want:
        fault(f"{path}: kinds {sorted(seen)}, expected {sorted(want)}")
    points = points_of(rows)
    first = [(r["kind"], r["name"], r["unit"], r["endpoint"]) for r in points[0]]
    for p in points[1:]:
        if [(r["kind"], r["name"], r["unit"], r["endpoint"]) for r in p] != first:
            fault(f"{path}: the point at time {p[0]['time']} has other rows than the first")
    for r in rows:
        if r["kind"] in ("counter", "register", "flag") and not re.fullmatch(r"[0-9]+", r["value"]):
            fault(f"{path}: {r['name']} = {r['value']!r} is not an integer")
        if r["value"] not in ("", "inf", "-inf"):
            float(r["value"])
        float(r["time"])
        if r["interval_s"]:
            float(r["interval_s"])
    import pandas as pd
    df = pd.read_csv(path)
    if list(df.columns) != columns:
        fault(f"{path}: pandas columns {list(df.columns)}")
    if len(df) != len(rows):
        fault(f"{path}: pandas read {len(df)} rows, the csv module {len(rows)}")
    for c in ("time", "value", "endpoint"):
        if df[c].dtype.kind != "f" and df[c].dtype.kind != "i":
            fault(f"{path}: pandas reads {c} as {df[c].dtype}")
    if df["time"].isna().any() or df["name"].isna().any() or df["kind"].isna().any():
        fault(f"{path}: pandas finds an empty time, name or kind")
    empties = sum(1 for r in rows if r["value"] == "")
    if df["value"].isna().sum() != empties:
        fault(f"{path}: pandas NaN values {df['value'].isna().sum()}, empty fields {empties}")


def check_jsonl(path, metrics_only):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines[-1] != "" or len(lines) < 3:
        return fault(f"{path}: no first line and point, or no final newline")
    objs = [json.loads(line) for line in lines[:-1]]
    head = objs[0]
    for k in ("tool", "version", "command", "device", "clock", "config", "units"):
        if k not in head:
            fault(f"{path}: the first line has no {k}")
    if head.get("clock") not in ("unix", "device") or not isinstance(head.get("command"), list):
        fault(f"{path}: first line clock {head.get('clock')!r}, command {head.get('command')!r}")
    keys = ["time", "interval_s", "flags", "metrics"] + ([] if metrics_only else ["counters", "data"])
    for n, p in enumerate(objs[1:], 2):
        if list(p) != keys:
            fault(f"{path}:{n}: keys {list(p)}, expected {keys}")
            continue
        names = set(p["metrics"]) | set(p.get("counters", {}))
        if names != set(head["units"]):
            fault(f"{path}:{n}: names without a unit: {sorted(names ^ set(head['units']))[:3]}")
        if set(p["flags"]) != {"lost_deltas", "readout_overrun", "wrap_risk"}:
            fault(f"{path}:{n}: flags {p['flags']}")
        if not metrics_only and set(p["data"]) != {"endpoints", "status", "config"}:
            fault(f"{path}:{n}: data {list(p['data'])}")


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def same_rows(a, b, ignore):
    ra, rb = read_rows(a), read_rows(b)
    if len(ra) != len(rb):
        return fault(f"{a}: {len(ra)} rows, {b}: {len(rb)}")
    for x, y in zip(ra, rb):
        for c in ignore:
            x.pop(c), y.pop(c)
        if x != y:
            return fault(f"first difference: {x} / {y}")


def sums(series, totals, width):
    inter = [r for r in read_rows(series) if r["kind"] == "counter"]
    tots = points_of([r for r in read_rows(totals) if r["kind"] == "counter"])
    if len(tots) < 2:
        return fault(f"{totals}: fewer than two totals")
    first = {r["name"]: int(r["value"]) for r in tots[0]}
    last = {r["name"]: int(r["value"]) for r in tots[-1]}
    added = {}
    for r in inter:
        added[r["name"]] = added.get(r["name"], 0) + int(r["value"])
    if set(added) != set(first):
        return fault("the series and the totals have other counters")
    moved = 0
    for name in first:
        want = (last[name] - first[name]) % (1 << width)
        if added[name] != want:
            fault(f"{name}: the intervals add up to {added[name]}, the totals moved {want}")
        moved += want
    if moved == 0:
        fault("no counter moved: the check proves nothing")


def wrap(path, width):
    for r in read_rows(path):
        if r["value"] in ("", "inf", "-inf"):
            if r["value"]:
                fault(f"{r['name']}: {r['value']}")
            continue
        v = float(r["value"])
        if v < 0:
            fault(f"{r['name']} at {r['time']}: negative {r['value']}")
        if r["kind"] == "counter" and int(r["value"]) >= 1 << width:
            fault(f"{r['name']} at {r['time']}: {r['value']} is beyond 2^{width}")
        if r["unit"] == "%" and v > 100.5:
            fault(f"{r['name']} at {r['time']}: {r['value']} %")
        if r["unit"] == "Gbit/s" and v > 1000:
            fault(f"{r['name']} at {r['time']}: {r['value']} Gbit/s")


def raw_wraps(regs, index, least):
    """Counter INDEX (its low and high words) of every image of a recording."""
    base = None
    values, cur = [], None
    for line in open(regs, encoding="utf-8"):
        line = line.split("#")[0].split()
        if not line:
            continue
        if line[0] == "@snapshot":
            if cur is not None:
                values.append(cur)
            cur = 0
            continue
        if len(line) != 2 or cur is None:
            continue
        off, val = int(line[0], 16), int(line[1], 16)
        if off == 0x1C:
            base = val
        if base is not None and off in (base + 8 * index, base + 8 * index + 4):
            cur |= val << (32 if off % 8 else 0)
    values.append(cur)
    downs = sum(1 for a, b in zip(values, values[1:]) if b < a)
    if downs < least:
        fault(f"{regs}: counter {index} wrapped {downs} times, fewer than {least}")


def examples(bin_dir, work, files):
    """Each example: a marker line, then a sh, a python and a text block."""
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
    count = 0
    for path in files:
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"<!-- example:[^\n]*\n```sh\n(.*?)```\n```python\n(.*?)```\n```text\n(.*?)```",
                             text, re.S):
            count += 1
            sh, py, want = m.groups()
            run = subprocess.run(["bash", "-e", "-c", sh], cwd=work, env=env,
                                 capture_output=True, text=True)
            if run.returncode:
                fault(f"{path}: example {count}: {sh.strip()}: {run.stderr.strip()}")
                continue
            run = subprocess.run([sys.executable, "-c", py], cwd=work, env=env,
                                 capture_output=True, text=True)
            if run.returncode or run.stdout != want:
                fault(f"{path}: example {count}: the script printed\n{run.stdout}{run.stderr}"
                      f"instead of\n{want}")
    if count == 0:
        fault(f"no example in {files}")


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "csv":
        check_csv(args[0], args[1], "--metrics-only" in args)
    elif cmd == "jsonl":
        check_jsonl(args[0], "--metrics-only" in args)
    elif cmd == "same-rows":
        same_rows(args[0], args[1], args[2:])
    elif cmd == "sums":
        sums(args[0], args[1], int(args[2]))
    elif cmd == "wrap":
        wrap(args[0], int(args[1]))
    elif cmd == "raw-wraps":
        raw_wraps(args[0], int(args[1]), int(args[2]))
    elif cmd == "examples":
        examples(args[0], args[1], args[2:])
    else:
        fault(f"unknown command {cmd}")
    for f in faults[:10]:
        print(f)
    return 1 if faults else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (ValueError, KeyError, OSError, json.JSONDecodeError, IndexError) as e:
        print(f"{sys.argv[1]}: {type(e).__name__}: {e}")
        sys.exit(1)
