"""One matmul, one collective and one sharded matmul on a TPU v5e slice.

Run: PYTHONPATH=build/python python3 examples/python/predict.py
(tests/python/test_predict.py runs it).
"""

import roofline

v5e = roofline.chip("tpu-v5e")

# A square bf16 matmul: compute-bound, T_math = 2 m k n / 1.97e14 FLOP/s.
mm = roofline.Matmul(m=8192, k=8192, n=8192)
p = roofline.predict(mm, v5e)
print(f"matmul 8192^3: {p.bound}-bound, lower bound {p.t_lower_s * 1e3:.2f} ms, "
      f"expected {roofline.expected(mm, v5e) * 1e3:.2f} ms")

# The same 32 chips as a mesh of 8 x 4, and a 1 GB all-gather over the 4.
mesh = roofline.Mesh(v5e, X=8, Y=4)
ag = roofline.Collective(kind="all-gather", mesh=mesh, axes=["Y"], array_bytes=1e9)
t = roofline.predict(ag, v5e)
print(f"{ag.kind} over {ag.axes} ({ag.group_size} chips): T_ici {t.t_ici_s * 1e3:.2f} ms, "
      f"expected {roofline.expected(ag, v5e) * 1e3:.2f} ms")

# A matmul sharded in the scaling book's notation: every strategy, fastest first.
sharded = roofline.ShardedMatmul("x[B, D_X] @ w[D_X, F_Y]", mesh=mesh, dims={"B": 8192, "D": 8192, "F": 32768})
r = roofline.predict(sharded, v5e)
print(r.case_descriptions[0])
for s in r.strategies:
    print(f"  {s.name}: lower {s.whole.t_lower_s * 1e3:.2f} ms ({s.whole.bound}), "
          f"expected {roofline.expected(s, v5e) * 1e3:.2f} ms")
