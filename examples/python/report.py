"""A measured trace against the roofline of every op in it, from Python.

    python examples/python/report.py [TRACE [CHIP]]

TRACE: an .xplane.pb, a trace JSON (.json, .json.gz) or a profile directory
(default: examples/profiles, a ResNet-50 training step on a V100). CHIP: the chip to
predict on (default: the one the trace names). docs/python.md explains.
"""

import pathlib
import sys

import roofline

here = pathlib.Path(__file__).resolve().parent
trace = sys.argv[1] if len(sys.argv) > 1 else here.parent / "profiles"
chip = sys.argv[2] if len(sys.argv) > 2 else None

r = roofline.report(trace, chip=chip)
s = r.summary
print(f"{s.trace}: {len(r.ops)} ops on {s.chip} ({s.chip_source})")
print(f"measured {s.measured_s * 1e3:.3f} ms, roofline {s.predicted_s * 1e3:.3f} ms, "
      f"expected {s.expected_s * 1e3:.3f} ms, MFU {s.mfu * 100:.3g}%")

# The ops that lose the most time against their calibrated expectation.
print("most time lost against the expectation:")
predicted = [op for op in r.ops if op["predicted"] and not op["async"]]
for op in sorted(predicted, key=lambda op: op["lost_expected_s"], reverse=True)[:5]:
    print(f"  {op['name'][:40]:40} {op['count']:>5} x  measured {op['measured_s'] * 1e3:9.3f} ms  "
          f"expected {op['expected_s'] * 1e3:9.3f} ms  {op['bound']}")
for note in r.notes:
    print(f"note: {note}")
