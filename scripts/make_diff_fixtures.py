#!/usr/bin/env python3
"""Writes two profiles of one program, before and after a change, under
tests/data/diff/ (the fixtures of `roofline diff`).

Run with the project's virtualenv (scripts/venv.sh makes it):

    .venv/bin/python scripts/make_diff_fixtures.py [OUT_DIR]

The program is a training step of a small MLP block on one CPU device:
layer norm, then x @ w_in, gelu, @ w_out, and an SGD update, inside
jax.named_scope("block") / ("mlp"). The change is the one a performance
engineer makes by mistake: the MLP's hidden size doubles (1024 -> 2048),
so its two matmuls, their gradients and the gelu grow, and the rest stays.
Each profile holds 4 executions, so totals compare.

  before.xplane.pb.gz, after.xplane.pb.gz   gzip'd, mtime 0
"""
import glob
import gzip
import os
import shutil
import sys
import tempfile

OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", "tests", "data", "diff"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

BATCH, D_MODEL, RUNS = 256, 512, 4


def layer_norm(x):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-6)


def loss(params, x):
    with jax.named_scope("block"):
        h = layer_norm(x)
        with jax.named_scope("mlp"):
            h = jax.nn.gelu(h @ params["w_in"]) @ params["w_out"]
    return jnp.mean((x + h) ** 2)


@jax.jit
def step(params, x):
    g = jax.grad(loss)(params, x)
    return jax.tree_util.tree_map(lambda p, d: p - 0.01 * d, params, g)


def profile(name, hidden):
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    params = {"w_in": jax.random.normal(k1, (D_MODEL, hidden)) * 0.02,
              "w_out": jax.random.normal(k2, (hidden, D_MODEL)) * 0.02}
    x = jax.random.normal(k3, (BATCH, D_MODEL))
    jax.block_until_ready(step(params, x))  # compile outside the trace
    tmp = tempfile.mkdtemp(prefix="roofline_diff_prof_")
    opts = jax.profiler.ProfileOptions()
    opts.python_tracer_level = 0
    opts.host_tracer_level = 1
    with jax.profiler.trace(tmp, profiler_options=opts):
        for _ in range(RUNS):
            jax.block_until_ready(step(params, x))
    found = glob.glob(os.path.join(tmp, "plugins", "profile", "*", "*.xplane.pb"))
    if len(found) != 1:
        raise SystemExit(f"{name}: expected one .xplane.pb under {tmp}, found {found}")
    os.makedirs(OUT, exist_ok=True)
    with open(found[0], "rb") as f, open(os.path.join(OUT, f"{name}.xplane.pb.gz"), "wb") as out:
        out.write(gzip.compress(f.read(), 9, mtime=0))
    shutil.rmtree(tmp, ignore_errors=True)


profile("before", 1024)
profile("after", 2048)
with open(os.path.join(OUT, "README.jax_version"), "w") as f:
    f.write(f"jax {jax.__version__}: scripts/make_diff_fixtures.py\n")
