"""roofline.jax.predict's collectives (issue 36): the mesh laid on the chip's
torus, an FSDP gradient's all-reduce + dynamic-slice costed as reduce-scatter,
and the same figure as roofline.Collective for the same all-gather.

8 virtual CPU devices (conftest.py).
"""

import pytest

import roofline
import roofline.jax as rj

jax = pytest.importorskip("jax", reason="roofline.jax needs jax (pip install jax); its tests are skipped without it")
jnp = pytest.importorskip("jax.numpy")
from jax.sharding import PartitionSpec as P  # noqa: E402

S = jax.ShapeDtypeStruct
BF16 = jnp.bfloat16


def test_fsdp_gradient_is_costed_as_reduce_scatter():
    # The partitioner writes the gradient of a weight sharded over 8 devices as
    # all-reduce -> dynamic-slice(partition-id): XLA turns it into a
    # reduce-scatter, half the all-reduce's bytes (V = 1024 x 1024 x 2 over a
    # one-way ring of 8 on v5e: 7/8 V / 4.5e10).
    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w).astype(jnp.float32))

    def step(w, x):
        return w - 0.1 * jax.grad(loss)(w, x)

    p = rj.predict(step, S((1024, 1024), BF16), S((256, 1024), BF16), chip="tpu-v5e", mesh={"fsdp": 8},
                   in_shardings=(P("fsdp", None), P("fsdp", None)), out_shardings=P("fsdp", None))
    assert p.collective_rewrites["reduce_scatters"] == 1
    assert p.collective_rewrites["mesh_timed"] == len(p.collectives)
    ar = [r for r in p.collectives if r.opcode == "all-reduce"]
    assert len(ar) == 1
    assert any("reduce-scatter" in n for n in ar[0].notes)
    v = 1024 * 1024 * 2
    assert ar[0].t_ici_s == pytest.approx(7 / 8 * v / 4.5e10, rel=1e-6)


def test_mesh_all_gather_matches_collective():
    # An all-gather of a bf16[2048,1024] weight over a v5e 2x4 (no axis wraps):
    # predict and roofline.Collective over both axes give the same time.
    def mm(x, w):
        return x @ w

    spec = P(("X", "Y"), None)
    p = rj.predict(mm, S((256, 2048), BF16), S((2048, 1024), BF16), chip="tpu-v5e", mesh={"X": 2, "Y": 4},
                   in_shardings=(spec, spec), out_shardings=spec)
    gathers = [r for r in p.collectives if r.opcode == "all-gather" and r.shape == "bf16[2048,1024]"]
    assert len(gathers) == 1 and gathers[0].group_size == 8
    chip = roofline.chip("tpu-v5e")
    c = roofline.Collective(kind="all-gather", mesh=roofline.Mesh(chip, X=2, Y=4), axes="X,Y",
                            array_bytes=2048 * 1024 * 2)
    assert gathers[0].t_ici_s == pytest.approx(roofline.predict(c, chip).t_ici_s, rel=0.05)
    assert gathers[0].t_ici_s == pytest.approx(7 / 8 * 2048 * 1024 * 2 / 4.5e10, rel=1e-6)


def test_hlo_mesh_must_be_laid_on_the_same_chip():
    text = """HloModule m, num_partitions=8

ENTRY %main (p: bf16[128,64]) -> bf16[1024,64] {
  %p = bf16[128,64]{1,0} parameter(0)
  ROOT %ag = bf16[1024,64]{1,0} all-gather(%p), channel_id=1, replica_groups=[1,8]<=[8], dimensions={0}, use_global_device_ids=true
}
"""
    v4_mesh = roofline.Mesh(roofline.chip("tpu-v4"), X=8)
    with pytest.raises(ValueError):
        roofline.hlo(text, roofline.chip("tpu-v5e"), mesh=v4_mesh)
    r = roofline.hlo(text, roofline.chip("tpu-v5e"), mesh=roofline.Mesh(roofline.chip("tpu-v5e"), X=8))
    assert r.collective_rewrites["mesh_timed"] == 1
