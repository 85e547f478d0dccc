"""The library's renderers from Python: HloResult.to_text/to_json/to_csv and
render_prediction give what `roofline hlo` and `roofline predict` print,
byte for byte (roofline/report/hlo.hpp, roofline/report/prediction.hpp)."""

import json
import subprocess

import pytest

import roofline

HLO = "tests/data/hlo"
# Text and proto, a loop with a known trip count, one without (a warning),
# loops whose runs pass 2^53, collectives, and a module the fusion pass groups.
HLO_FILES = ["matmul.hlo.pb", "mlp.hlo.txt", "while_loop.hlo.pb", "while_dynamic.hlo.txt", "huge_trip_counts.hlo",
             "edge_cases.hlo",
             "psum.hlo.txt", "all_gather.hlo.txt", "dump_jit_dump_me.cpu_after_optimizations.txt"]


def run_cli(cli, *args):
    return subprocess.run([cli, *args], check=True, capture_output=True).stdout.decode("utf-8", "replace")


def rendered(result, fmt, top):
    return {"text": result.to_text, "json": result.to_json, "csv": result.to_csv}[fmt](top=top)


@pytest.mark.parametrize("name", HLO_FILES)
@pytest.mark.parametrize("chip", ["tpu-v5e", "h100-sxm", "v100-sxm2"])
def test_hlo_renderings_are_the_cli_outputs(cli, repo, name, chip):
    path = repo / HLO / name
    result = roofline.hlo(path, roofline.chip(chip))
    for fmt in ("text", "json", "csv"):
        for top in (0, 3):
            args = ["hlo", str(path), "--chip", chip, "--format", fmt] + (["--top", str(top)] if top else [])
            assert rendered(result, fmt, top) == run_cli(cli, *args), (fmt, top)


def test_hlo_text_on_a_mesh_is_the_cli_text(cli, repo):
    # The mesh line and the collectives timed over its axes.
    path = repo / HLO / "mesh_4x2.hlo.txt"
    v5e = roofline.chip("tpu-v5e")
    result = roofline.hlo(path, v5e, mesh=roofline.Mesh(v5e, X=4, Y=2))
    cli_text = run_cli(cli, "hlo", str(path), "--chip", "tpu-v5e", "--mesh", "X=4,Y=2")
    assert "  mesh: " in cli_text
    assert result.to_text() == cli_text
    assert result.to_json() == run_cli(cli, "hlo", str(path), "--chip", "tpu-v5e", "--mesh", "X=4,Y=2",
                                       "--format", "json")


def test_hlo_json_rendering_holds_the_result_fields(repo):
    result = roofline.hlo(repo / HLO / "mlp.hlo.txt", roofline.chip("tpu-v5e"))
    j = json.loads(result.to_json())
    assert j["module"] == result.module
    assert j["total"]["t_lower_s"] == result.total.t_lower_s
    assert j["total"]["expected_s"] == result.expected_s
    assert sorted(r["name"] for r in j["instructions"]) == sorted(r.name for r in result.rows)
    assert len(json.loads(result.to_json(top=2))["instructions"]) == 2


V5E = roofline.chip("tpu-v5e")
H100 = roofline.chip("h100-sxm")
PREDICTIONS = [
    ("matmul", roofline.Matmul(m=8192, k=8192, n=8192), V5E,
     ["predict", "matmul", "--chip", "tpu-v5e", "--m", "8192", "--k", "8192", "--n", "8192"]),
    ("matmul fp8 on h100", roofline.Matmul(m=4096, k=1024, n=512, batch=4, dtype="f8e4m3fn", out_dtype="bf16"), H100,
     ["predict", "matmul", "--chip", "h100-sxm", "--m", "4096", "--k", "1024", "--n", "512", "--batch", "4",
      "--dtype", "f8e4m3fn", "--out-dtype", "bf16"]),
    ("all-gather", roofline.Collective(kind="all-gather", mesh=roofline.Mesh(V5E, X=8, Y=4), axes="Y",
                                       array_bytes=268435456), V5E,
     ["predict", "collective", "--op", "all-gather", "--chip", "tpu-v5e", "--mesh", "X=8,Y=4", "--axes", "Y",
      "--bytes", "268435456"]),
    ("permute", roofline.Collective(kind="permute", mesh=roofline.Mesh(V5E, X=16), axes="X", array_bytes=1e6,
                                    shift=3), V5E,
     ["predict", "collective", "--op", "permute", "--chip", "tpu-v5e", "--mesh", "X=16", "--axes", "X",
      "--bytes", "1000000", "--hops", "3"]),
    ("sharded", roofline.ShardedMatmul("x[B_X, D_Y] @ w[D_Y, F]", mesh=roofline.Mesh(V5E, X=8, Y=4),
                                       dims="B=8192,D=8192,F=32768"), V5E,
     ["predict", "x[B_X, D_Y] @ w[D_Y, F]", "--chip", "tpu-v5e", "--mesh", "X=8,Y=4", "--dims",
      "B=8192,D=8192,F=32768"]),
]


@pytest.mark.parametrize("op,chip,args", [p[1:] for p in PREDICTIONS], ids=[p[0] for p in PREDICTIONS])
def test_render_prediction_is_the_cli_output(cli, op, chip, args):
    assert roofline.render_prediction(op, chip) == run_cli(cli, *args)
    assert roofline.render_prediction(op, chip, format="json") == run_cli(cli, *args, "--format", "json")


def test_render_prediction_refuses_what_the_cli_refuses():
    with pytest.raises(ValueError, match="format"):
        roofline.render_prediction(roofline.Matmul(m=8, k=8, n=8), V5E, format="csv")
    with pytest.raises(TypeError):
        roofline.render_prediction(roofline.Elementwise(elements=8), V5E)
