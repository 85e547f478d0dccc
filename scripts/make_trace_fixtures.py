#!/usr/bin/env python3
"""Writes tiny real jax profiles for the trace reader tests.

Two fixtures, each from its own python process (XLA_FLAGS must be set before
jax is imported):

jax_cpu   tests/data/trace/jax_cpu/plugins/profile/2026_01_01_00_00_00/
          one CPU device. jax.profiler.trace on the CPU backend writes
            <host>.xplane.pb        (XSpace protobuf)
            <host>.trace.json.gz    (TSL trace-viewer JSON)
            perfetto_trace.json.gz  (the same JSON, metadata key dropped)
          so the tests can check that both readers see the same ops with the
          same times. The run folder is renamed to a fixed name so the tree is
          stable.
jax_cpu8  tests/data/trace/jax_cpu8.xplane.pb and, from the same capture,
          tests/data/trace/jax_cpu8.trace.json.gz (the TSL JSON export):
          eight virtual CPU devices (--xla_force_host_platform_device_count=8):
          a matmul sharded over its contracting dimension and a psum of the
          partial products, 3 steps. XLA's CPU thunks of all eight devices run
          on the host's threads; each carries its device_ordinal.

Usage: .venv/bin/python scripts/make_trace_fixtures.py [jax_cpu|jax_cpu8 [OUT]]
(no argument: both, to their default places). Needs jax (scripts/venv.sh).
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_OUT = {
    "jax_cpu": REPO / "tests/data/trace/jax_cpu",
    "jax_cpu8": REPO / "tests/data/trace/jax_cpu8.xplane.pb",
}


def show(f):
    f = pathlib.Path(f)
    print(f"{f.relative_to(REPO) if f.is_relative_to(REPO) else f}: {f.stat().st_size} bytes")


def make_jax_cpu(out):
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(x, w):
        y = jnp.tanh(x @ w)
        z = jnp.sort(y, axis=-1)
        return (z * 2.0).sum(), y.T @ y

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
        show(f)


def make_jax_cpu8(out):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devices = jax.devices()
    assert len(devices) == 8, f"expected 8 virtual CPU devices, got {len(devices)}"
    mesh = Mesh(np.array(devices).reshape(8), ("x",))

    def partial_matmul(x, w):
        # Each device multiplies its slice of the contracting dimension; the
        # psum adds the eight partial products (an all-reduce).
        return jax.lax.psum(x @ w, "x")

    step = jax.jit(jax.shard_map(partial_matmul, mesh=mesh, in_specs=(P(None, "x"), P("x", None)),
                                 out_specs=P()))
    x = jax.device_put(jnp.ones((64, 256), jnp.float32), NamedSharding(mesh, P(None, "x")))
    w = jax.device_put(jnp.full((256, 64), 0.01, jnp.float32), NamedSharding(mesh, P("x", None)))
    jax.block_until_ready(step(x, w))  # compile outside the capture
    with tempfile.TemporaryDirectory() as tmp:
        with jax.profiler.trace(tmp):
            for _ in range(3):
                jax.block_until_ready(step(x, w))
        (xplane,) = (pathlib.Path(tmp) / "plugins/profile").glob("*/*.xplane.pb")
        (json_export,) = (pathlib.Path(tmp) / "plugins/profile").glob("*/*.trace.json.gz")
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(xplane, out)
        json_out = out.with_name(out.name.replace(".xplane.pb", ".trace.json.gz"))
        shutil.copyfile(json_export, json_out)
    show(out)
    show(json_out)


def main():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    if len(sys.argv) == 1:
        for name in DEFAULT_OUT:
            subprocess.run([sys.executable, __file__, name], check=True)
        return
    name = sys.argv[1]
    if name not in DEFAULT_OUT:
        sys.exit(f"usage: {sys.argv[0]} [jax_cpu|jax_cpu8 [OUT]]")
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_OUT[name]
    if name == "jax_cpu8":
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   " --xla_force_host_platform_device_count=8").strip()
        make_jax_cpu8(out)
    else:
        make_jax_cpu(out)


if __name__ == "__main__":
    main()
