"""A PyTorch profile against the roofline of every kernel in it.

    python examples/python/torch_report.py [TRACE]

With torch installed and no TRACE, profiles a few bf16 matmuls on the GPU
(record_shapes=True: kernels are costed from the shapes of the aten ops that
launched them) and reports the live profiler. Otherwise reports TRACE, the
file prof.export_chrome_trace() wrote (default: a small Kineto fixture).
"""

import importlib.util
import pathlib
import sys

import roofline
import roofline.torch

repo = pathlib.Path(__file__).resolve().parents[2]

if len(sys.argv) > 1 or importlib.util.find_spec("torch") is None:
    trace = sys.argv[1] if len(sys.argv) > 1 else repo / "tests" / "data" / "trace" / "kineto_small.json"
else:
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    a = torch.randn(4096, 4096, dtype=torch.bfloat16, device=device)
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities, record_shapes=True) as trace:
        for _ in range(4):
            a = a @ a / 64
        if device == "cuda":
            torch.cuda.synchronize()

r = roofline.torch.report(trace)
s = r.summary
print(f"{len(r.ops)} kernels on {s.chip}: measured {s.measured_s * 1e6:.1f} us, "
      f"roofline {s.predicted_s * 1e6:.1f} us, expected {s.expected_s * 1e6:.1f} us")
for op in r.ops[:5]:
    source = f"{op['bound']}, from {op['match']}" if op["predicted"] else op["reason"]
    print(f"  {op['name'][:48]:48} {op['measured_s'] * 1e6:8.1f} us  ({source})")
