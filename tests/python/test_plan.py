"""roofline.plan against `roofline plan` on the same request."""

import json
import re
import subprocess
import sys

import pytest

import roofline

V5E = roofline.chip("tpu-v5e")
# llama-3-8b on 16 v5e chips, 16 sequences of 8192 tokens: a plan of a few
# hundred combinations, found in tens of milliseconds.
ARGS = ["--model", "llama-3-8b", "--chip", "tpu-v5e", "--chips", "16", "--batch-tokens", "131072"]


def run_cli(cli, *args):
    return subprocess.run([cli, "plan", *args], check=True, capture_output=True, text=True).stdout


def without_search_time(text):
    # The search time is measured, so it differs from run to run.
    text = re.sub(r'"search_seconds": [0-9.e+-]+', '"search_seconds": 0', text)
    return re.sub(r"searched in [0-9.]+ [mun]?s", "searched in 0 s", text)


def test_plan_json_is_the_cli_json(cli):
    p = roofline.plan("llama-3-8b", V5E, 16, 131072)
    assert without_search_time(p.to_json() + "\n") == without_search_time(run_cli(cli, *ARGS, "--format", "json"))
    assert p.to_csv() == run_cli(cli, *ARGS, "--format", "csv")
    assert without_search_time(p.to_text()) == without_search_time(run_cli(cli, *ARGS))


def test_plan_fields_are_the_json_fields(cli):
    p = roofline.plan("llama-3-8b", V5E, 16, 131072)
    j = json.loads(p.to_json(top=1000))
    assert len(p.candidates) == len(j["candidates"]) > 0
    for c, jc in zip(p.candidates, j["candidates"]):
        assert (c.mesh_text, c.layout, c.strategy, c.remat, c.microbatches) == (
            jc["mesh"], jc["layout"], jc["strategy"], jc["remat"], jc["microbatches"])
        assert c.step.step_time_s == jc["step_time_s"] and c.step.mfu == jc["mfu"]
        # The host-offload copies are the roofline's host-link term, not the interconnect's.
        assert c.step.t_host_s == c.step.roofline.t_host_s == jc["t_host_s"]
        assert c.step.roofline.t_ici_s == jc["t_ici_s"]
        assert c.step.memory.total_bytes <= V5E.hbm_bytes  # ranked ones fit
        # The parts JSON lists (those with work), each with its forward share.
        parts = {p.name: p for p in c.step.parts}
        for jp in jc["parts"]:
            assert (parts[jp["part"]].expected_s, parts[jp["part"]].expected_forward_s) == (
                jp["expected_s"], jp["expected_forward_s"])
            assert 0 <= jp["expected_forward_s"] <= jp["expected_s"]
    # Ranked by the expected step time, best first.
    ranking = [c.ranking_s for c in p.candidates]
    assert ranking == sorted(ranking)
    assert len(p.candidates) + len(p.rejected) == p.considered
    assert {r.kind for r in p.rejected} <= {"memory", "constraint", "shape"}
    assert all(r.reason for r in p.rejected)


def test_constraints_are_the_cli_options(cli):
    # 16 sequences of 4096 tokens: full remat and no pipeline leave 5 layouts that fit.
    p = roofline.plan("llama-3-8b", V5E, 16, 65536, remat="full", no_pp=True, seq_len=4096)
    q = roofline.plan("llama-3-8b", V5E, 16, 65536, remat=["full"], max_pipeline_stages=1, seq_len=4096)
    args = ["--model", "llama-3-8b", "--chip", "tpu-v5e", "--chips", "16", "--batch-tokens", "65536"]
    cli_text = run_cli(cli, *args, "--remat", "full", "--no-pp", "--seq", "4096", "--format", "json")
    assert without_search_time(p.to_json() + "\n") == without_search_time(cli_text)
    assert without_search_time(q.to_json()) == without_search_time(p.to_json())
    assert len(p.candidates) > 0
    assert {c.remat for c in p.candidates} == {"full"} and {c.pipeline_stages for c in p.candidates} == {1}


def test_model_config_object_plans_as_the_name():
    m = roofline.model("llama-3-8b")
    same = roofline.ModelConfig(name="llama-3-8b", layers=32, d_model=4096, d_ff=14336, heads=32, kv_heads=8,
                                vocab=128256, seq_len=8192)
    assert same.head_dim == m.head_dim == 128  # d_model / heads
    a = roofline.plan(m, V5E, 16, 131072, remat="full")
    b = roofline.plan(same, V5E, 16, 131072, remat="full")
    assert without_search_time(a.to_json()) == without_search_time(b.to_json())


def test_one_layout_is_evaluated_as_the_cli(cli):
    ev = roofline.plan("llama-3-8b", V5E, batch_tokens=131072, mesh="data=8,model=2", layout="fsdp=data tp=model")
    cli_json = run_cli(cli, "--model", "llama-3-8b", "--chip", "tpu-v5e", "--batch-tokens", "131072",
                       "--mesh", "data=8,model=2", "--layout", "fsdp=data tp=model", "--format", "json")
    assert ev.to_json() + "\n" == cli_json
    j = json.loads(cli_json)
    assert ev.fits == j["fits"] and ev.candidate.remat == "full"  # the CLI's default policy with a layout
    # The same with a Mesh object.
    mesh = roofline.Mesh(V5E, data=8, model=2)
    again = roofline.plan("llama-3-8b", V5E, batch_tokens=131072, mesh=mesh, layout="fsdp=data tp=model")
    assert again.to_json() == ev.to_json()


def test_a_layout_that_does_not_fit_says_why():
    # Plain DP keeps a whole copy of the state on each chip: llama-3-70b has
    # over 70e9 parameters at 4 + 4 + 2 * 4 bytes (f32 params, grads, Adam's
    # two moments; TrainingDTypes), over 1.1 TB against 16 GB.
    ev = roofline.plan("llama-3-70b", V5E, batch_tokens=16 * 8192, mesh="data=16", layout="dp=data", remat="none")
    mem = ev.candidate.step.memory
    assert mem.params_bytes + mem.grads_bytes + mem.optimizer_bytes > 70e9 * 16
    assert not ev.fits and not mem.fits and mem.total_bytes > mem.hbm_bytes == V5E.hbm_bytes
    assert ev.reason.startswith("needs ") and "HBM" in ev.reason


def test_plan_errors_are_value_errors():
    with pytest.raises(ValueError, match="nosuch"):
        roofline.plan("nosuch", V5E, 16, 131072)
    with pytest.raises(ValueError, match="column"):
        roofline.plan("llama-3-8b", V5E, batch_tokens=131072, mesh="data=8,model=2", layout="fsdp=data tp=modl")
    with pytest.raises(ValueError, match="unknown policy 'fast'"):
        roofline.plan("llama-3-8b", V5E, 16, 131072, remat="full,fast")
    with pytest.raises(ValueError, match="give one"):
        roofline.plan("llama-3-8b", V5E, 16, 131072, no_pp=True, max_pipeline_stages=2)
    with pytest.raises(TypeError, match="batch_tokens"):
        roofline.plan("llama-3-8b", V5E, 16)


def test_example_script_runs(repo):
    out = subprocess.run([sys.executable, str(repo / "examples" / "python" / "plan.py")], check=True,
                         capture_output=True, text=True).stdout
    assert "MFU" in out and "fits" in out
