"""calibrate() and fidelity() against `roofline calibrate` / `roofline fidelity`
on the real TPU v6e profile of ../shared/data/real (skipped without it)."""

import json
import subprocess

import pytest

import roofline

# Relative, as the CLI is given it: the paths are in the output.
PROFILES = "../shared/data/real/xprof/tpu_v6e_x4_inference_2.xplane.pb"


@pytest.fixture
def in_repo(repo, monkeypatch):
    if not (repo / PROFILES).exists():
        pytest.skip(f"{PROFILES} is absent (the real profiles live in ../shared/data/real beside the checkout)")
    monkeypatch.chdir(repo)
    return repo


def run_cli(cli, repo, *args):
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True, cwd=repo).stdout


def test_calibrate_is_the_cli_file(cli, in_repo, tmp_path):
    cal = roofline.calibrate(PROFILES)
    assert cal.to_json() == run_cli(cli, in_repo, "calibrate", PROFILES)
    assert "tpu-v6e" in cal and [c.chip for c in cal.chips] == ["tpu-v6e"]
    v6e = cal["tpu-v6e"]
    assert v6e.origin.startswith("fit to ")
    assert set(v6e.classes) == {"matmul", "memory", "collective", "host link"}
    path = tmp_path / "cal.json"
    cal.write(path)
    assert path.read_text() == cal.to_json()
    assert roofline.read_calibration(path).to_json() == cal.to_json()


def test_calibration_object_times_as_the_file_does(cli, in_repo, tmp_path):
    cal = roofline.calibrate([PROFILES])
    path = tmp_path / "cal.json"
    cal.write(path)
    v6e = roofline.chip("tpu-v6e")
    # An element-wise op times through the memory curve, the class the fit moved.
    op = roofline.Elementwise(elements=1 << 24, inputs=2)
    p = roofline.predict(op, v6e)
    curve = cal["tpu-v6e"].classes["memory"]
    assert roofline.expected(op, v6e, calibration=cal) == pytest.approx(
        curve.floor_s + p.t_hbm_s / curve.memory_efficiency, rel=1e-12)
    for given in (cal, path, str(path), cal["tpu-v6e"]):
        assert roofline.expected(op, v6e, calibration=given) == roofline.expected(op, v6e, calibration=cal)
    mm = roofline.Matmul(m=4096, k=4096, n=4096)
    j = json.loads(run_cli(cli, in_repo, "predict", "matmul", "--chip", "tpu-v6e", "--m", "4096", "--k", "4096",
                           "--n", "4096", "--calibration", str(path), "--format", "json"))
    assert roofline.expected(mm, v6e, calibration=cal) == j["expected_s"]
    # hlo() and plan() take it too: the plan is the CLI's with --calibration.
    # report() too: the object and its file give the same report.
    assert roofline.report(PROFILES, calibration=cal).to_json() == roofline.report(PROFILES, calibration=path).to_json()
    hlo = roofline.hlo(in_repo / "tests" / "data" / "hlo" / "edge_cases.hlo", v6e, calibration=cal)
    assert hlo.calibration == cal["tpu-v6e"].origin
    plan = roofline.plan("llama-3-8b", v6e, 16, 131072, calibration=cal, remat="full", no_pp=True)
    cli_plan = run_cli(cli, in_repo, "plan", "--model", "llama-3-8b", "--chip", "tpu-v6e", "--chips", "16",
                       "--batch-tokens", "131072", "--remat", "full", "--no-pp", "--calibration", str(path),
                       "--format", "json")
    assert json.loads(cli_plan)["calibration"] == cal["tpu-v6e"].origin
    assert plan.to_csv() == run_cli(cli, in_repo, "plan", "--model", "llama-3-8b", "--chip", "tpu-v6e", "--chips", "16",
                                    "--batch-tokens", "131072", "--remat", "full", "--no-pp", "--calibration",
                                    str(path), "--format", "csv")
    assert json.loads(plan.to_json())["calibration"] == cal["tpu-v6e"].origin
    # A chip the file does not calibrate (nor a part of its die: v5e has
    # none) keeps its built-in curves; another chip's ChipCalibration is
    # refused.
    v5e = roofline.chip("tpu-v5e")
    assert roofline.expected(mm, v5e, calibration=cal) == roofline.expected(mm, v5e)
    with pytest.raises(ValueError, match="tpu-v6e"):
        roofline.expected(mm, v5e, calibration=cal["tpu-v6e"])


def test_fidelity_is_the_cli(cli, in_repo, tmp_path):
    r = roofline.fidelity(PROFILES)
    assert r.to_json() == run_cli(cli, in_repo, "fidelity", PROFILES, "--format", "json")
    assert r.to_text() == run_cli(cli, in_repo, "fidelity", PROFILES)
    assert r.overall.ops == sum(t.ops for t in r.traces) > 0
    assert len(r.ops) == r.overall.ops
    off = [abs(o.measured_s / o.calibrated_s - 1) for o in r.ops]
    assert off == sorted(off, reverse=True)
    assert {o.cost_class for o in r.ops} <= {"matmul", "memory", "collective", "host link"}
    assert all(o.bound_s > 0 and o.measured_s > 0 and o.count > 0 for o in r.ops)
    # One trace of one chip: its ops are split in two halves.
    assert {o.fold for o in r.ops} <= {0, 1}
    path = tmp_path / "cal.json"
    roofline.calibrate(PROFILES).write(path)
    given = roofline.fidelity(PROFILES, calibration=path)
    assert given.to_json() == run_cli(cli, in_repo, "fidelity", PROFILES, "--calibration", str(path), "--format", "json")
    assert roofline.fidelity(PROFILES, calibration=roofline.read_calibration(path)).to_json() == given.to_json()


def test_fidelity_ops_carry_the_collective_wait(in_repo):
    # The v6e trace reads 4 chips: its collectives' wait is taken from the
    # skew across them, as the CLI's JSON gives it on each collective op.
    r = roofline.fidelity(PROFILES)
    js = json.loads(r.to_json())["ops"]
    assert len(js) == len(r.ops)
    collectives = 0
    for o, j in zip(r.ops, js):
        assert (o.op, o.trace) == (j["op"], j["trace"])
        if o.cost_class != "collective":
            # No wait: the whole median is the transfer.
            assert "wait_s" not in j
            assert o.wait_s is None and o.wait_separable and o.transfer_s == o.measured_s
            continue
        collectives += 1
        assert o.wait_separable is j["wait_separable"] is True
        assert o.transfer_s == pytest.approx(j["transfer_s"], rel=1e-12)
        assert o.wait_s == pytest.approx(j["wait_s"], rel=1e-12)
        assert o.wait_s >= 0
        assert o.transfer_s == pytest.approx(max(0.0, o.measured_s - o.wait_s), rel=1e-9, abs=1e-15)
    assert collectives > 0


def test_calibrate_errors(tmp_path, repo):
    with pytest.raises(FileNotFoundError):
        roofline.calibrate(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [')
    with pytest.raises(ValueError, match="bad.json"):
        roofline.calibrate(bad)
    bad_cal = tmp_path / "cal.json"
    bad_cal.write_text('{"format": "roofline-calibration", "version": 2, "chips": [{"chip": 3}]}')
    with pytest.raises(ValueError, match="cal.json"):
        roofline.read_calibration(bad_cal)
    # A CPU trace names no chip we know: the advice is in Python's words.
    with pytest.raises(ValueError, match="pass chip=NAME"):
        roofline.calibrate(repo / "tests" / "data" / "trace" / "jax_cpu8.trace.json.gz")
