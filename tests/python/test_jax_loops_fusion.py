"""roofline.jax.predict on the programs people train: a scan over layers is
charged its trips, a loop it cannot count warns, and the partitioned module is
fused as an accelerator fuses it (issue 36, items 1 and 2).

conftest.py asks for 8 virtual CPU devices before jax starts.
"""

import pathlib
import sys
import warnings

import pytest

import roofline
import roofline.jax as rj

jax = pytest.importorskip("jax", reason="roofline.jax needs jax (pip install jax); its tests are skipped without it")
jnp = pytest.importorskip("jax.numpy")

REPO = pathlib.Path(__file__).resolve().parents[2]
S = jax.ShapeDtypeStruct


def test_scan_over_layers_is_charged_its_trips():
    # 12 layers of tanh(x @ w), x bf16[1024,1024] replicated over 8 devices:
    # each trip one dot of 2 * 1024^3 FLOPs (the tanh counts as a
    # transcendental, the counter's add as 1 FLOP): 12 x 2.147e9 = 2.577e10.
    def f(x, w):
        y, _ = jax.lax.scan(lambda c, wi: (jnp.tanh(c @ wi), None), x, w)
        return y

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no loop may be charged without a word
        pred = rj.predict(f, S((1024, 1024), jnp.bfloat16), S((12, 1024, 1024), jnp.bfloat16), chip="tpu-v5e",
                          mesh={"data": 8})
    analytic = 12 * 2 * 1024**3
    assert pred.flops == pytest.approx(analytic, rel=0.02)
    assert pred.loop_warnings == () and pred.unknown_trip_count_loops == 0
    dots = [r for r in pred.rows if r.opcode == "dot"]
    assert dots and all(r.executions == 12 for r in dots)


def test_uncountable_loop_is_named_in_a_warning():
    def f(x):
        return jax.lax.while_loop(lambda v: v.sum() < 1000.0, lambda v: v * 2.0 + 1.0, x)

    with pytest.warns(UserWarning, match=r"while loop '.*' in computation '.*': trip count unknown \(") as rec:
        pred = rj.predict(f, S((256,), jnp.float32), chip="tpu-v5e")
    assert len(pred.loop_warnings) == 1
    w = pred.loop_warnings[0]
    assert w.kind == "trip_count_unknown" and w.reason
    assert any(w.name in str(r.message) for r in rec)
    assert pred.unknown_trip_count_loops == 1


@pytest.fixture(scope="module")
def vit():
    """ViT-S/16 (examples/python/vit_s16_step.py), data parallel, the paper's
    global batch of 1024 over the 4 chips of a v3-8, costed on tpu-v3."""
    sys.path.insert(0, str(REPO / "examples" / "python"))
    try:
        import vit_s16_step as v
    finally:
        sys.path.pop(0)
    chip = "tpu-v3"
    params = v.abstract_params()
    pred = rj.predict(v.train_step, params, v.abstract_batch(1024), chip=chip, mesh={"data": 4},
                      in_shardings=v.shardings(params))
    return v, pred


def test_vit_step_flops_agree_with_compiled_cost_analysis(vit):
    # predict's worker makes no executable (docs/python.md "Speed"): jax's own
    # compile of the same step gives compiled.cost_analysis()
    v, pred = vit
    assert "compiled" not in pred.xla
    params = v.abstract_params()
    mesh = rj._mesh_from(jax, {"data": 4})
    jitted = jax.jit(v.train_step, in_shardings=rj._as_sharding(jax, mesh, v.shardings(params)))
    with jax.set_mesh(mesh):
        compiled = jitted.lower(params, v.abstract_batch(1024)).compile().cost_analysis()
    assert pred.flops == pytest.approx(rj._xla_cost("compiled", compiled).flops, rel=0.02)


def test_vit_step_fused_bytes_sit_between_nothing_and_unfused(vit):
    _, pred = vit
    assert pred.fusion_groups > 0
    # the pass only ever removes traffic an accelerator never makes
    assert 0 < pred.hbm_bytes < pred.hbm_bytes_unfused
    assert pred.t_lower_s < pred.t_lower_unfused_s


def test_vit_step_lower_bound_admits_the_published_v3_throughput(vit):
    # Beyer, Zhai, Kolesnikov 2022 ("Better plain ViT baselines"): ViT-S/16,
    # 90 ImageNet-1k epochs (1,281,167 images each) in under 7 hours on a
    # TPU v3-8 (4 chips), evaluation and input included:
    # 90 x 1,281,167 / (7 x 3600 s) / 4 = 1,143.9 images/s per chip at least.
    # A lower bound on the step time must allow that: 256 images per chip
    # per step / t_lower_s >= 1,143.9.
    v, pred = vit
    published = 90 * 1_281_167 / (7 * 3600) / 4
    per_chip = 1024 / 4
    assert per_chip / pred.t_lower_s >= published
