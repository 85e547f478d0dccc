"""Plan llama-3-8b training on 32 TPU v5e chips, then evaluate one layout.

Run: PYTHONPATH=build/python python3 examples/python/plan.py
(tests/python/test_plan.py runs it).
"""

import roofline

v5e = roofline.chip("tpu-v5e")

# 16 sequences of 8192 tokens per step, full remat, no pipeline.
plan = roofline.plan("llama-3-8b", v5e, chips=32, batch_tokens=16 * 8192, remat="full", no_pp=True)
print(f"{len(plan.candidates)} layouts fit, {len(plan.rejected)} rejected")
for c in plan.candidates[:3]:
    s = c.step
    print(f"  {c.mesh_text:18} {c.layout:22} expected {s.expected_s:.2f} s/step, MFU {s.mfu_expected:.1%} "
          f"(at most {s.mfu:.1%}), HBM {s.memory.total_bytes / 1e9:.1f} of {s.memory.hbm_bytes / 1e9:.1f} GB")
for r in plan.rejected[:2]:
    print(f"  rejected {r.mesh} {r.layout}: {r.kind}: {r.reason}")

# One layout of our own: data parallelism without FSDP keeps the f32
# parameters, gradients and optimizer state of a quarter of the model (TP 4)
# on each chip.
ev = roofline.plan("llama-3-8b", v5e, batch_tokens=16 * 8192, mesh="data=8,model=4", layout="dp=data tp=model")
print(f"dp=data tp=model on 8 x 4 chips: fits {ev.fits}" + ("" if ev.fits else f" ({ev.reason})"))
