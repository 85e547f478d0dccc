"""Ops beside Matmul, meshes, collectives, sharded matmuls and expected().

Every figure comes from the op's formula and the chip spec (hardware/*.json),
or from the CLI's JSON on the same input.
"""

import json
import pathlib
import subprocess
import sys

import pytest

import roofline

V5E = roofline.chip("tpu-v5e")


def cli_json(cli, *args):
    out = subprocess.run([cli, *args, "--format", "json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_elementwise_is_its_formula():
    # bytes = elements * (inputs * |bf16| + |f32 out|) = 1e6 * (2 * 2 + 4); FLOPs = elements * 3
    op = roofline.Elementwise(elements=1_000_000, inputs=2, flops_per_element=3, transcendentals_per_element=1,
                              out_dtype="f32")
    assert op.dtype == "bf16" and op.out_dtype == "f32"
    p = roofline.predict(op, V5E)
    assert p.hbm_bytes == 1e6 * (2 * 2 + 4)
    assert p.flops == 3e6
    assert p.transcendentals == 1e6
    assert p.t_hbm_s == pytest.approx(8e6 / 8.2e11, rel=1e-12)  # v5e HBM 8.2e11 B/s
    assert p.bound == "memory"


def test_elementwise_negative_is_refused():
    with pytest.raises(ValueError, match="elements: expected a positive integer"):
        roofline.Elementwise(elements=-1)


def test_mesh_from_keywords_and_text_agree():
    a = roofline.Mesh(V5E, data=8, model=4)
    b = roofline.Mesh(V5E, "data=8,model=4")
    assert a.sizes == {"data": 8, "model": 4} == b.sizes
    assert [x.name for x in a.axes] == ["data", "model"]
    assert a.device_count == 32 and a.chip == "tpu-v5e"
    assert a.text == "data=8,model=4" and a.layout == b.layout
    assert a.slice_shape == b.slice_shape and sorted(a.slice_shape) == [4, 8]  # v5e 32 chips: a 4x8 slice


def test_mesh_dcn_axis_and_errors():
    m = roofline.Mesh(roofline.chip("tpu-v5p"), data=16, model=4, slice="2:dcn")
    assert [(x.name, x.size, x.network) for x in m.axes] == [("data", 16, "ici"), ("model", 4, "ici"), ("slice", 2, "dcn")]
    with pytest.raises(ValueError, match="column 6"):
        roofline.Mesh(V5E, "X=8,Y")
    with pytest.raises(ValueError, match="size 0"):
        roofline.Mesh(V5E, X=0)
    with pytest.raises(TypeError):
        roofline.Mesh(V5E, "X=8", Y=4)


def test_collective_matches_formula_and_cli(cli):
    mesh = roofline.Mesh(V5E, X=8, Y=4)
    c = roofline.Collective(kind="all-gather", mesh=mesh, axes=["Y"], array_bytes=1e9)
    assert c.group_size == 4 and c.axes == ["Y"]
    t = roofline.predict(c, V5E)
    # Y=4 on the 4x8 v5e slice does not wrap: a one-way ring, V (N-1)/N over one
    # 4.5e10 B/s link (hardware/tpu-v5e.json).
    assert t.bytes_per_link == pytest.approx(1e9 * 3 / 4)
    assert t.t_bandwidth_s == pytest.approx(1e9 * 3 / 4 / 4.5e10, rel=1e-12)
    j = cli_json(cli, "predict", "collective", "--op", "all-gather", "--chip", "tpu-v5e", "--mesh", "X=8,Y=4",
                 "--axes", "Y", "--bytes", "1e9")
    assert (t.t_ici_s, t.t_bandwidth_s, t.t_latency_s, t.bytes_per_link, t.hops, t.bound) == (
        j["t_ici_s"], j["t_bandwidth_s"], j["t_latency_s"], j["ici_bytes"], j["hops"], j["bound"])
    assert c.group_size == j["group_size"] and mesh.layout == j["layout"]
    assert roofline.expected(c, V5E) == j["expected_s"]
    assert roofline.expected(t, V5E) == j["expected_s"]


def test_collective_axes_as_run_together_text_and_errors():
    mesh = roofline.Mesh(V5E, X=8, Y=4)
    both = roofline.Collective(kind="all-reduce", mesh=mesh, axes="XY", array_bytes=1e8)
    assert both.axes == ["X", "Y"] and both.group_size == 32
    with pytest.raises(ValueError, match="Z"):
        roofline.Collective(kind="all-gather", mesh=mesh, axes="Z", array_bytes=1)
    with pytest.raises(ValueError, match="all-gather, reduce-scatter"):
        roofline.Collective(kind="gather", mesh=mesh, axes="X", array_bytes=1)
    with pytest.raises(ValueError, match="applies to kind=.permute. only"):
        roofline.Collective(kind="all-gather", mesh=mesh, axes="X", array_bytes=1, shift=2)
    with pytest.raises(ValueError, match="tpu-v5e"):
        roofline.predict(both, roofline.chip("tpu-v5p"))  # a mesh predicts on the chip it was laid on


def test_sharded_matmul_matches_cli(cli):
    mesh = roofline.Mesh(V5E, X=8, Y=4)
    expr = "x[B, D_X] @ w[D_X, F_Y]"
    op = roofline.ShardedMatmul(expr, mesh=mesh, dims={"B": 8192, "D": 8192, "F": 32768})
    r = roofline.predict(op, V5E)
    j = cli_json(cli, "predict", expr, "--chip", "tpu-v5e", "--mesh", "X=8,Y=4", "--dims", "B=8192,D=8192,F=32768")
    assert r.cases == [c["case"] for c in j["cases"]]
    assert r.case_descriptions == [c["description"] for c in j["cases"]]
    assert [s.name for s in r.strategies] == [s["strategy"] for s in j["strategies"]]
    assert r.chosen.name == j["strategy"]
    for s, js in zip(r.strategies, j["strategies"]):
        assert s.whole.t_lower_s == js["t_lower_s"] and s.whole.t_upper_s == js["t_upper_s"]
        assert (s.local.m, s.local.k, s.local.n) == (js["local_matmul"]["m"], js["local_matmul"]["k"], js["local_matmul"]["n"])
        assert [c.what for c in s.collectives] == [c["what"] for c in js["collectives"]]
        assert roofline.expected(s, V5E) == js["expected_s"]
    assert roofline.expected(op, V5E) == j["expected_s"] == roofline.expected(r, V5E)
    # Case 3 on X, chosen as local matmul then all-reduce: each device contracts
    # D / 8 = 1024 and multiplies all B rows by F / 4 columns.
    assert r.cases == [3]
    assert (r.chosen.local.m, r.chosen.local.k, r.chosen.local.n) == (8192, 8192 // 8, 32768 // 4)
    assert [(c.kind, c.axes) for c in r.chosen.collectives] == [("all-reduce", ["X"])]


def test_sharded_matmul_dims_as_text_and_errors():
    mesh = roofline.Mesh(V5E, X=8, Y=4)
    a = roofline.ShardedMatmul("x[B_X, D] @ w[D, F_Y]", mesh=mesh, dims="B=8192,D=8192,F=32768")
    assert a.dims == {"B": 8192, "D": 8192, "F": 32768}
    # No communication in case 1: the local matmul is [B/8, D] @ [D, F/4].
    local = roofline.predict(a, V5E).chosen.local
    assert (local.m, local.k, local.n) == (1024, 8192, 8192)
    with pytest.raises(ValueError, match=r"expression:1:\d+"):
        roofline.ShardedMatmul("x[B_X, D @ w[D, F_Y]", mesh=mesh, dims="B=1,D=1,F=1")
    with pytest.raises(ValueError, match="F"):
        roofline.predict(roofline.ShardedMatmul("x[B_X, D] @ w[D, F_Y]", mesh=mesh, dims={"B": 8192, "D": 8192}), V5E)


def test_expected_matmul_is_the_cli_and_the_curve(cli):
    mm = roofline.Matmul(m=8192, k=8192, n=8192)
    j = cli_json(cli, "predict", "matmul", "--chip", "tpu-v5e", "--m", "8192", "--k", "8192", "--n", "8192")
    assert roofline.expected(mm, V5E) == j["expected_s"]
    # floor + T_math / e_math with e_math = 1.8715e14 / 1.97e14 (v5e achieved / peak bf16)
    cal = roofline.default_calibration(V5E)
    p = roofline.predict(mm, V5E)
    curve = cal.classes["matmul"]
    assert roofline.expected(mm, V5E) == pytest.approx(curve.floor_s + p.t_math_s / (1.8715e14 / 1.97e14), rel=1e-12)
    assert roofline.expected(p, V5E, cost_class="matmul") == roofline.expected(mm, V5E)
    with pytest.raises(TypeError, match="cost_class"):
        roofline.expected(p, V5E)


def test_example_script_runs(repo):
    out = subprocess.run([sys.executable, str(repo / "examples" / "python" / "predict.py")], check=True,
                         capture_output=True, text=True).stdout
    assert "compute" in out and "all-gather" in out
