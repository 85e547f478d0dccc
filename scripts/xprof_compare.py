#!/usr/bin/env python3
"""Compares `roofline stats` with XProf's HLO op stats, per device and per op.

For each XSpace (.xplane.pb) file: every device plane (/device:TPU:N,
/device:GPU:N) is cut out into an XSpace of its own (that plane and the
non-device planes: host threads, /host:metadata, Task Environment), XProf
converts a copy of it to its `hlo_stats` table, and
`roofline stats FILE --device N --format json` gives our ops of that device.
Rows are matched by (program id, HLO op name); ours are summed over kernels
(one GPU HLO op may launch several). Compared:

  occurrences       XProf #Occurrences         vs our count
  self time         XProf Total self time (us) vs our total_s
  FLOPs             XProf Normalized GFLOP/s x Total time vs our xla_flops x count
  bytes             XProf Measured memory BW (GiB/s) x Total time vs our xla_bytes x count

(XProf's rates are its flops_v2 and bytes_accessed over total time, so rate x
total time gives them back.) Where both read the same fields of the profile
the figures must agree to 0.1%; every other difference is printed with its
reason (docs/xprof.md). Exit status: 0 agreement, 1 a disagreement on shared
fields, 77 skipped (no xprof, no roofline binary, or no profile to read).

Usage: python3 scripts/xprof_compare.py --roofline build/roofline [FILE.xplane.pb ...]
Without files: the real profiles in ../shared/data/real/{xprof,tracelens} and
tests/data/trace/jax_cpu8.xplane.pb. xprof runs from the first python among
--python, $ROOFLINE_XPROF_PYTHON, .venv/bin/python (scripts/venv.sh) and this
interpreter that can import it.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
SKIP = 77
TOLERANCE = 1e-3  # 0.1%


# --- XSpace wire format, just enough to cut planes out (field numbers from
# tsl/profiler/protobuf/xplane.proto: XSpace.planes = 1, XPlane.name = 2).
def _varint(b, p):
    r = s = 0
    while True:
        c = b[p]
        p += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, p


def _fields(b, start, end):
    """(number, raw start, raw end, payload start, payload end) per field."""
    p = start
    while p < end:
        at = p
        tag, p = _varint(b, p)
        wire = tag & 7
        if wire == 0:
            _, p = _varint(b, p)
            yield tag >> 3, at, p, None, None
        elif wire == 1:
            p += 8
            yield tag >> 3, at, p, None, None
        elif wire == 5:
            p += 4
            yield tag >> 3, at, p, None, None
        elif wire == 2:
            n, p = _varint(b, p)
            yield tag >> 3, at, p + n, p, p + n
            p += n
        else:
            raise ValueError(f"byte {at}: wire type {wire} not expected in an XSpace")


def plane_name(b, s, e):
    for num, _, _, ps, pe in _fields(b, s, e):
        if num == 2 and ps is not None:
            return b[ps:pe].decode("utf-8", "replace")
    return ""


def split_devices(data):
    """{device plane name: XSpace bytes with that device and no other}."""
    keep, devices = [], {}
    for num, at, end, ps, pe in _fields(data, 0, len(data)):
        if num == 1:
            name = plane_name(data, ps, pe)
            if name.startswith("/device:"):
                devices[name] = data[at:end]
                continue
        keep.append(data[at:end])
    common = b"".join(keep)
    return {name: plane + common for name, plane in devices.items()}


# --- XProf and roofline.
XPROF_CODE = r"""
import json, sys
from xprof.convert import raw_to_tool_data as r
data, _ = r.xspace_to_tool_data([sys.argv[1]], 'hlo_stats', {'use_saved_result': False})
sys.stdout.write(data.decode() if isinstance(data, bytes) else (data or ''))
"""


def xprof_rows(python, xspace_bytes, workdir):
    """XProf's hlo_stats rows as dicts keyed by column id. Each conversion gets
    its own folder: xprof caches results beside its input, per folder."""
    d = pathlib.Path(tempfile.mkdtemp(dir=workdir))
    path = d / "profile.xplane.pb"
    path.write_bytes(xspace_bytes)
    out = subprocess.run([python, "-c", XPROF_CODE, str(path)], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        raise RuntimeError(f"xprof failed on {path}: {out.stderr[-2000:]}")
    table = json.loads(out.stdout)
    ids = [c["id"] for c in table["cols"]]
    return [dict(zip(ids, [c.get("v") for c in row["c"]])) for row in table["rows"]]


def our_stats(roofline, path, device_id=None):
    cmd = [roofline, "stats", str(path), "--format", "json"]
    if device_id is not None:
        cmd += ["--device", str(device_id)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def ours_by_op(stats):
    """(program id, op name) -> summed figures of our non-async rows."""
    ops = {}
    for o in stats["ops"]:
        if o["async"]:
            continue  # "Async XLA Ops" rows: XProf's op stats read only "XLA Ops"
        key = (str(o["program_id"]) if o["program_id"] is not None else "", o["name"])
        a = ops.setdefault(key, {"count": 0, "self_us": 0.0, "flops": None, "bytes": None, "category": o["category"]})
        a["count"] += o["count"]
        a["self_us"] += o["total_s"] * 1e6
        for mine, theirs in (("xla_flops", "flops"), ("xla_bytes", "bytes")):
            if o[mine] is not None:
                a[theirs] = (a[theirs] or 0) + o[mine] * o["count"]
    return ops


def xprof_by_op(rows):
    ops = {}
    for r in rows:
        key = (r["program_id"] or "", r["hlo_op_name"])
        total_ns = r["total_time"] * 1e3
        a = ops.setdefault(key, {"count": 0, "self_us": 0.0, "flops": 0.0, "bytes": 0.0, "category": r["category"]})
        a["count"] += int(r["occurrences"])
        a["self_us"] += r["total_self_time"]
        a["flops"] += r["normalized_flop_rate"] * total_ns
        a["bytes"] += r["measured_memory_bw"] * (2**30 / 1e9) * total_ns
    return ops


def rel(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


class Report:
    def __init__(self):
        self.rows = []  # (file, device, op, field, ours, xprof, verdict, reason)
        self.agreed = {}  # field -> count of agreeing comparisons
        self.worst = {}  # field -> largest relative difference among them
        self.failures = 0

    def compare(self, file, device, op, field, ours, theirs, shared, reason=""):
        if ours is None and theirs in (None, 0, 0.0):
            key = f"{field} (none in ours, 0 in XProf)"
            self.agreed[key] = self.agreed.get(key, 0) + 1
            return
        if ours is not None and theirs is not None and rel(float(ours), float(theirs)) <= TOLERANCE:
            self.agreed[field] = self.agreed.get(field, 0) + 1
            self.worst[field] = max(self.worst.get(field, 0.0), rel(float(ours), float(theirs)))
            return
        if shared:
            self.failures += 1
            verdict = "DISAGREE"
        else:
            verdict = "differs"
        self.rows.append((file, device, op, field, ours, theirs, verdict, reason))

    def note(self, file, device, op, field, ours, theirs, reason):
        self.rows.append((file, device, op, field, ours, theirs, "differs", reason))

    def print(self):
        def fmt(v):
            if v is None:
                return "-"
            if isinstance(v, float):
                return f"{v:.6g}"
            return str(v)

        print("agreeing comparisons (within 0.1%; largest relative difference): " +
              ", ".join(f"{k} {v} ({self.worst.get(k, 0.0):.1e})" for k, v in sorted(self.agreed.items())))
        if not self.rows:
            print("no differences")
            return
        # Disagreements one by one; explained differences one line per
        # (file, device, field, reason), with the ops counted and summed.
        table = [("file", "device", "op", "field", "ours", "xprof", "verdict", "reason")]
        groups = {}
        for f, d, o, fl, a, b, v, r in self.rows:
            if v == "DISAGREE":
                table.append((f, d, o[:48], fl, fmt(a), fmt(b), v, r or "-"))
                continue
            g = groups.setdefault((f, d, fl, r), {"ops": [], "ours": None, "xprof": None})
            g["ops"].append(o)
            for k, x in (("ours", a), ("xprof", b)):
                if x is not None:
                    g[k] = (g[k] or 0) + x
        for (f, d, fl, r), g in groups.items():
            ops = g["ops"][0][:48] if len(g["ops"]) == 1 else f"{len(g['ops'])} ops"
            table.append((f, d, ops, fl, fmt(g["ours"]), fmt(g["xprof"]), "differs", r))
        print(f"{len(table) - 1} differences:")
        widths = [max(len(row[i]) for row in table) for i in range(7)]
        for row in table:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[7])


def compare_file(path, roofline, python, workdir, report):
    name = path.name
    data = path.read_bytes()
    overall = our_stats(roofline, path)
    ours_devices = {d["name"]: d for d in overall["devices"]}
    planes = split_devices(data)
    if not planes:
        # XLA:CPU: jax on CPU writes no device plane; XProf builds its op stats
        # from device planes only.
        rows = xprof_rows(python, data, workdir)
        n = sum(o["count"] for o in overall["ops"] if not o["async"])
        report.note(name, "all", "*", "occurrences", n, sum(int(r["occurrences"]) for r in rows),
                    f"no device plane; XProf's hlo_stats reads device planes only (we read XLA:CPU thunks "
                    f"on host threads: {len(overall['devices'])} devices)")
        return
    for plane, xspace in sorted(planes.items()):
        dev = ours_devices.get(plane)
        rows = xprof_rows(python, xspace, workdir)
        if dev is None:
            if rows:
                report.note(name, plane, "*", "occurrences", 0, sum(int(r["occurrences"]) for r in rows),
                            "we read no op events on this plane")
            continue
        ours = ours_by_op(our_stats(roofline, path, dev["id"]))
        theirs = xprof_by_op(rows)
        if not theirs:
            report.note(name, plane, "*", "occurrences", sum(a["count"] for a in ours.values()), 0,
                        "XProf's hlo_stats has no rows: the kernels name no HLO op (hlo_op stat), so XProf "
                        "lists them under framework ops, not HLO ops")
            continue
        for key in sorted(set(ours) | set(theirs)):
            label = f"{key[1]} ({key[0]})" if key[0] else key[1]
            a, b = ours.get(key), theirs.get(key)
            if a is None or b is None:
                if b is None and not key[0]:
                    why = ("kernel names no HLO op (no hlo_op / program_id stats); XProf's hlo_stats "
                           "lists HLO ops only")
                else:
                    why = "op only in ours" if b is None else "op only in XProf"
                report.note(name, plane, label, "occurrences", a and a["count"], b and b["count"], why)
                continue
            is_gpu = "/device:GPU:" in plane
            report.compare(name, plane, label, "occurrences", a["count"], b["count"], True)
            report.compare(name, plane, label, "self_us", a["self_us"], b["self_us"], True)
            # TPU: both read the op's flops / bytes_accessed event metadata
            # stats. GPU: XProf computes them from the HLO module (cost
            # analysis of the embedded HloProto); the trace has no such stat.
            report.compare(name, plane, label, "flops", a["flops"], b["flops"], not is_gpu,
                           "GPU: XProf's own cost analysis of the HLO; the trace records no flops")
            report.compare(name, plane, label, "bytes", a["bytes"], b["bytes"], not is_gpu,
                           "GPU: XProf's own cost analysis of the HLO; the trace records no bytes")


def find_python(explicit):
    candidates = [explicit, os.environ.get("ROOFLINE_XPROF_PYTHON"), str(REPO / ".venv/bin/python"), sys.executable]
    for c in candidates:
        if c and pathlib.Path(c).exists():
            ok = subprocess.run([c, "-c", "import xprof.convert.raw_to_tool_data"], capture_output=True)
            if ok.returncode == 0:
                return c
    return None


def default_files():
    real = pathlib.Path(os.environ.get("ROOFLINE_REAL_DATA", REPO.parent / "shared/data/real"))
    files = sorted(real.glob("xprof/*.xplane.pb")) + sorted(real.glob("tracelens/*.xplane.pb"))
    fixture = REPO / "tests/data/trace/jax_cpu8.xplane.pb"
    if fixture.exists():
        files.append(fixture)
    return files, real


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--roofline", default=str(REPO / "build/roofline"))
    ap.add_argument("--python", help="a python that can import xprof")
    ap.add_argument("files", nargs="*", type=pathlib.Path)
    args = ap.parse_args()
    if not pathlib.Path(args.roofline).exists():
        print(f"SKIPPED: no roofline binary at {args.roofline}")
        return SKIP
    python = find_python(args.python)
    if python is None:
        print("SKIPPED: no python with xprof (run scripts/venv.sh, or set ROOFLINE_XPROF_PYTHON)")
        return SKIP
    files = args.files
    if not files:
        files, real = default_files()
        if not any(real in f.parents for f in files):
            print(f"SKIPPED: the real profiles are absent ({real}); only the fixture would be compared")
            return SKIP
    report = Report()
    workdir = tempfile.mkdtemp(prefix="xprof_compare_")
    try:
        for f in files:
            print(f"{f}", flush=True)
            compare_file(f, args.roofline, python, workdir, report)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    report.print()
    if report.failures:
        print(f"FAILED: {report.failures} disagreements on figures both read from the same fields")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
