#!/usr/bin/env python3
"""Writes the small HLO fixtures under tests/data/hlo/ the way JAX writes them.

Run with the project's virtualenv (jax/jaxlib for CPU):

    .venv/bin/python scripts/make_hlo_fixtures.py [OUT_DIR]

Every module is compiled for the host CPU, so the text is what
`jax.jit(f).lower(...).compile().as_text()` prints after XLA's optimizations.
The collective modules run on 8 fake host devices
(--xla_force_host_platform_device_count=8) under shard_map, and the mesh_*
modules under jit with NamedShardings, where the partitioner writes replica
groups over mesh axes (`replica_groups=mesh['axis_0'=4,'axis_1'=2] {'axis_1'}`,
HloInstructionProto field 93). A few modules are
also written as serialized HloModuleProtos (`*.hlo.pb`), and one module is
dumped with --xla_dump_to to keep that file naming and text style too.

The outputs are small (a few kB each) and deterministic for a given jax
version; the version is written into tests/data/hlo/README.jax_version.
"""

import os
import shutil
import sys
import tempfile

OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", "tests", "data", "hlo"))
DUMP = tempfile.mkdtemp(prefix="roofline_hlo_dump_")
os.environ["XLA_FLAGS"] = (
    "--xla_force_host_platform_device_count=8 "
    f"--xla_dump_to={DUMP} --xla_dump_hlo_module_re=jit_dump_me")

import jax  # noqa: E402  (XLA_FLAGS must be set first)
import numpy as np  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

try:
    from jax import shard_map  # jax >= 0.6
except ImportError:  # pragma: no cover
    from jax.experimental.shard_map import shard_map


def write(name, text):
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text)


def write_bytes(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def compiled(f, *args):
    return jax.jit(f).lower(*args).compile()


def save(name, f, *args, proto=False):
    c = compiled(f, *args)
    write(f"{name}.hlo.txt", c.as_text())
    if proto:
        modules = c.runtime_executable().hlo_modules()
        write_bytes(f"{name}.hlo.pb", modules[0].as_serialized_hlo_module_proto())


def main():
    os.makedirs(OUT, exist_ok=True)
    key = jax.random.PRNGKey(0)

    # matmul: bf16[256,512] @ bf16[512,1024]
    a = jnp.ones((256, 512), jnp.bfloat16)
    b = jnp.ones((512, 1024), jnp.bfloat16)
    save("matmul", lambda x, y: x @ y, a, b, proto=True)

    # batched matmul with batch dims: f32[4,64,32] x f32[4,32,16]
    save("batched_matmul",
         lambda x, y: jnp.einsum("bmk,bkn->bmn", x, y),
         jnp.ones((4, 64, 32), jnp.float32), jnp.ones((4, 32, 16), jnp.float32))

    # conv: NHWC f32[8,32,32,16] with a 3x3x16x32 kernel, SAME padding, stride 1
    def conv(x, k):
        return jax.lax.conv_general_dilated(
            x, k, window_strides=(1, 1), padding="SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC"))
    save("conv", conv, jnp.ones((8, 32, 32, 16), jnp.float32),
         jnp.ones((3, 3, 16, 32), jnp.float32))

    # depthwise (grouped) conv, stride 2
    def depthwise(x, k):
        return jax.lax.conv_general_dilated(
            x, k, window_strides=(2, 2), padding="VALID",
            dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=16)
    save("conv_depthwise", depthwise, jnp.ones((2, 16, 16, 16), jnp.float32),
         jnp.ones((3, 3, 1, 16), jnp.float32))

    # reduction: sum over the last axis and a max over the first
    save("reduction", lambda x: (x.sum(axis=-1), x.max(axis=0)),
         jnp.ones((128, 1024), jnp.float32))

    # fusion-heavy MLP: layernorm -> dense -> gelu -> dense
    def mlp(x, w1, w2):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        h = (x - mu) * jax.lax.rsqrt(var + 1e-6)
        h = jax.nn.gelu(h @ w1)
        return h @ w2
    save("mlp", mlp, jax.random.normal(key, (32, 256)), jnp.ones((256, 1024)),
         jnp.ones((1024, 256)), proto=True)

    # while loop with a static trip count (fori_loop)
    def loop(x):
        return jax.lax.fori_loop(0, 10, lambda i, v: jnp.sin(v) * 2.0 + i, x)
    save("while_loop", loop, jnp.ones((1024,), jnp.float32), proto=True)

    # while loop whose trip count depends on data (no known_trip_count)
    def loop_dynamic(x):
        return jax.lax.while_loop(lambda v: v.sum() < 1e6, lambda v: v * 2.0, x)
    save("while_dynamic", loop_dynamic, jnp.ones((256,), jnp.float32))

    # gather / scatter / dynamic-update-slice
    def gather_scatter(table, idx, upd):
        g = table[idx]
        s = table.at[idx].add(upd)
        return g, s
    save("gather_scatter", gather_scatter, jnp.ones((1000, 64)),
         jnp.arange(16, dtype=jnp.int32), jnp.ones((16, 64)))

    # collectives on 8 host devices
    mesh = Mesh(jax.devices()[:8], ("x",))
    mesh2 = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("a", "b"))

    def sm(f, in_specs, out_specs, m=mesh):
        try:
            return shard_map(f, mesh=m, in_specs=in_specs, out_specs=out_specs, check_vma=False)
        except TypeError:  # older jax spells it check_rep
            return shard_map(f, mesh=m, in_specs=in_specs, out_specs=out_specs, check_rep=False)

    x8 = jnp.ones((8 * 128, 256), jnp.float32)
    save("psum", sm(lambda v: jax.lax.psum(v, "x"), P("x"), P()), x8, proto=True)
    save("all_gather", sm(lambda v: jax.lax.all_gather(v, "x", tiled=True), P("x"), P()), x8)
    save("reduce_scatter",
         sm(lambda v: jax.lax.psum_scatter(v, "x", tiled=True), P(), P("x")), x8)
    save("all_to_all",
         sm(lambda v: jax.lax.all_to_all(v, "x", 0, 1, tiled=True), P("x"), P("x")), x8)
    save("ppermute",
         sm(lambda v: jax.lax.ppermute(v, "x", [(i, (i + 1) % 8) for i in range(8)]),
            P("x"), P("x")), x8)
    # a psum over one axis of a 2x4 mesh: groups of 4 (iota replica groups)
    save("psum_2d", sm(lambda v: jax.lax.psum(v, "b"), P(("a", "b")), P("a"), m=mesh2), x8)

    # jit with shardings (no shard_map): the SPMD partitioner writes the
    # replica groups in the forms jaxlib 0.10 uses, as text and proto both.
    def sharded(name, f, args, in_specs, out_spec, m):
        args = [jax.device_put(a, NamedSharding(m, s)) for a, s in zip(args, in_specs)]
        c = jax.jit(f, out_shardings=NamedSharding(m, out_spec)).lower(*args).compile()
        write(f"{name}.hlo.txt", c.as_text())
        write_bytes(f"{name}.hlo.pb",
                    c.runtime_executable().hlo_modules()[0].as_serialized_hlo_module_proto())

    devs = np.array(jax.devices()[:8])
    line = Mesh(devs, ("d",))
    # x @ w contracted over the sharded axis: one all-reduce over all 8,
    # replica_groups=mesh['axis_0'=1,'axis_1'=8] {'axis_1'}
    sharded("mesh_matmul", lambda a, b: a @ b,
            [jnp.ones((64, 128), jnp.float32), jnp.ones((128, 32), jnp.float32)],
            [P(None, "d"), P("d", None)], P(), line)
    # a 4x2 mesh: a row sum over the 2-device axis, then an all-gather over it
    grid = Mesh(devs.reshape(4, 2), ("a", "b"))
    sharded("mesh_4x2", lambda a: jnp.sum(a, axis=1, keepdims=True) * a,
            [jnp.ones((64, 128), jnp.float32)], [P("a", "b")], P("a", None), grid)
    # devices not in iota order: the mesh carries device_ids=([4,2]T(1,0))
    turned = Mesh(devs.reshape(2, 4).T, ("a", "b"))
    sharded("mesh_device_ids", lambda a: a.sum(0),
            [jnp.ones((64, 128), jnp.float32)], [P("a", "b")], P(), turned)

    # one module through --xla_dump_to
    def dump_me(x, y):
        return jnp.exp(x) + y
    jax.jit(dump_me).lower(jnp.ones((64, 64)), jnp.ones((64, 64))).compile()
    for fn in sorted(os.listdir(DUMP)):
        if fn.endswith("after_optimizations.txt") and "jit_dump_me" in fn:
            shutil.copy(os.path.join(DUMP, fn), os.path.join(OUT, "dump_" + fn.split(".", 1)[1]))
    shutil.rmtree(DUMP, ignore_errors=True)

    write("README.jax_version", f"jax {jax.__version__} jaxlib "
          f"{jax.lib.__version__ if hasattr(jax.lib, '__version__') else ''} backend cpu\n")


if __name__ == "__main__":
    main()
