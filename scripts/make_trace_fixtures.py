#!/usr/bin/env python3
"""Writes a tiny real jax profile for the trace reader tests.

jax.profiler.trace on the CPU backend writes, for one run,
  <log>/plugins/profile/<run>/<host>.xplane.pb        (XSpace protobuf)
  <log>/plugins/profile/<run>/<host>.trace.json.gz    (TSL trace-viewer JSON)
  <log>/plugins/profile/<run>/perfetto_trace.json.gz  (the same JSON, metadata key dropped)
so the tests can check that both readers see the same ops with the same
times. The run folder is renamed to a fixed name so the tree is stable.

Usage: .venv/bin/python scripts/make_trace_fixtures.py [OUT_DIR]
(default tests/data/trace/jax_cpu). Needs jax (pip install jax).
"""
import os
import pathlib
import shutil
import sys
import tempfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


@jax.jit
def step(x, w):
    y = jnp.tanh(x @ w)
    z = jnp.sort(y, axis=-1)
    return (z * 2.0).sum(), y.T @ y


def main():
    repo = pathlib.Path(__file__).resolve().parent.parent
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else repo / "tests/data/trace/jax_cpu"
    x = jnp.ones((128, 256), jnp.float32)
    w = jnp.full((256, 128), 0.01, jnp.float32)
    jax.block_until_ready(step(x, w))  # compile outside the capture
    with tempfile.TemporaryDirectory() as tmp:
        with jax.profiler.trace(tmp, create_perfetto_trace=True):
            for _ in range(4):
                jax.block_until_ready(step(x, w))
        runs = sorted((pathlib.Path(tmp) / "plugins/profile").iterdir())
        if out.exists():
            shutil.rmtree(out)
        dest = out / "plugins/profile/2026_01_01_00_00_00"
        dest.parent.mkdir(parents=True)
        shutil.copytree(runs[-1], dest)
    for f in sorted(dest.iterdir()):
        print(f"{f.relative_to(repo) if f.is_relative_to(repo) else f}: {f.stat().st_size} bytes")


if __name__ == "__main__":
    main()
