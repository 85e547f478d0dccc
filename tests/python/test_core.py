"""Chips, a matmul's roofline and HLO costs through the Python module."""

import pytest

import roofline


def test_issue_example_matmul_on_v5e():
    # 2 * 32768 * 8192 * 32768 FLOP / 1.97e14 FLOP/s (v5e bf16 peak, hardware/tpu-v5e.json)
    p = roofline.predict(roofline.Matmul(m=32768, k=8192, n=32768), roofline.chip("tpu-v5e"))
    assert p.flops == 2 * 32768 * 8192 * 32768
    assert p.t_math_s == pytest.approx(2 * 32768 * 8192 * 32768 / 1.97e14, rel=1e-12)
    assert f"{p.t_math_s:.4f}" == "0.0893"
    assert p.bound == "compute"
    # bf16 in and out: (m*k + k*n + m*n) * 2 bytes
    assert p.hbm_bytes == 2 * (32768 * 8192 + 8192 * 32768 + 32768 * 32768)
    assert p.t_lower_s == max(p.t_math_s, p.t_hbm_s, p.t_ici_s)


def test_chips_are_the_embedded_table():
    names = [c.name for c in roofline.chips()]
    assert "tpu-v5e" in names and "h100-sxm" in names
    assert len(names) == len(set(names))
    v5e = roofline.chip("tpu-v5e")
    assert v5e.kind == "tpu"
    assert v5e.peak_flops_per_s["bf16"] == 1.97e14


def test_chips_of_one_die():
    # docs/chip_spec.md `die`: the parts a calibration carries over between.
    assert roofline.chip("a100-sxm").die == roofline.chip("a100-sxm-40gb").die == "GA100"
    assert roofline.chip("h200").die == "GH100"
    assert roofline.chip("tpu-v5e").die == ""


def test_what_a_gpu_holds_on_chip():
    # docs/chip_spec.md `compute_units`: L2 + SMs x (shared memory/L1 + registers).
    v100 = roofline.chip("v100-sxm2")
    assert v100.compute_units == 80
    assert v100.on_chip_capacity_bytes == 6.144e6 + 80 * (1.28e5 + 2.62144e5)
    assert roofline.chip("mi300x").on_chip_capacity_bytes == 0  # no register file in its spec


def test_chip_from_its_own_json(tmp_path):
    spec = tmp_path / "h100-sxm.json"  # a spec file is named after its chip
    spec.write_text(roofline.chip("h100-sxm").to_json())
    assert roofline.chip(str(spec)).hbm_bytes_per_s == roofline.chip("h100-sxm").hbm_bytes_per_s
    assert roofline.chip(spec).name == "h100-sxm"  # an os.PathLike too


def test_errors_are_value_and_file_not_found(tmp_path):
    with pytest.raises(ValueError, match="unknown chip 'nosuch'"):
        roofline.chip("nosuch")
    with pytest.raises(FileNotFoundError, match="absent.json: cannot open chip spec"):
        roofline.chip(str(tmp_path / "absent.json"))
    with pytest.raises(FileNotFoundError, match="/nope/spec.json: cannot open chip spec"):
        roofline.chip("/nope/spec.json")  # was "unknown chip '/nope/spec.json'"
    mine = tmp_path / "mine.json"
    mine.write_text(roofline.chip("h100-sxm").to_json())
    with pytest.raises(ValueError, match="/name: 'h100-sxm' must be the file name without .json \\('mine'\\)"):
        roofline.chip(mine)
    with pytest.raises(ValueError, match="unknown dtype 'bf17'"):
        roofline.Matmul(m=1, k=1, n=1, dtype="bf17")
    with pytest.raises(TypeError):
        roofline.Matmul(1, 2, 3)  # keywords only


def test_invalid_matmul_is_refused_where_typed():
    # predict() of it was NaN ("invalid"); the constructor now says which dim.
    with pytest.raises(ValueError, match="m: expected a positive integer up to 2\\^53, got -1"):
        roofline.Matmul(m=-1, k=8, n=8)
    for dims in ({"m": 8, "k": 0, "n": 8}, {"m": 8, "k": 8, "n": 8, "batch": -2}, {"m": 2**60, "k": 8, "n": 8}):
        with pytest.raises(ValueError):
            roofline.Matmul(**dims)
    with pytest.raises(ValueError, match="elements"):
        roofline.Elementwise(elements=0)
    with pytest.raises(ValueError, match="flops_per_element"):
        roofline.Elementwise(elements=8, flops_per_element=float("nan"))


def test_hlo_from_path_text_and_bytes(repo):
    path = repo / "tests" / "data" / "hlo" / "edge_cases.hlo"
    v5e = roofline.chip("tpu-v5e")
    from_path = roofline.hlo(path, v5e)
    from_text = roofline.hlo(path.read_text(), v5e)
    from_bytes = roofline.hlo(path.read_bytes(), v5e)
    assert from_path.module == "edge_cases"
    for other in (from_text, from_bytes):
        assert other.total.t_lower_s == from_path.total.t_lower_s
        assert [r.name for r in other.rows] == [r.name for r in from_path.rows]
    assert from_path.total.flops == sum(r.prediction.flops * r.executions for r in from_path.rows if not r.aggregate)


def test_hlo_host_transfer_is_on_the_host_link():
    # A copy of 4 MiB to host memory (S(5)): its bytes cross PCIe, v6e's
    # 3.2e10 B/s (hardware/tpu-v6e.json), not the interconnect.
    text = ("HloModule h\nENTRY e {\n  x = f32[1024,1024]{1,0} parameter(0)\n"
            "  cs = (f32[1024,1024]{1,0:S(5)}, f32[1024,1024]{1,0}, u32[]{:S(2)}) copy-start(x)\n"
            "  ROOT cd = f32[1024,1024]{1,0:S(5)} copy-done(cs)\n}\n")
    v6e = roofline.chip("tpu-v6e")
    r = roofline.hlo(text, v6e)
    cs = next(row for row in r.rows if row.name == "cs")
    p = cs.prediction
    assert p.host_bytes == 4194304
    assert p.t_host_s == pytest.approx(4194304 / 3.2e10)
    assert p.ici_bytes == 0 and p.t_ici_s == 0
    assert p.bound == "host link"
    assert r.total.host_bytes == r.host_bytes == 4194304
    assert r.total.ici_bytes == 0


def test_hlo_errors_are_located(tmp_path):
    v5e = roofline.chip("tpu-v5e")
    with pytest.raises(FileNotFoundError, match="absent.hlo"):
        roofline.hlo(tmp_path / "absent.hlo", v5e)
    with pytest.raises(ValueError, match=r"<hlo text>:4:\d+"):
        roofline.hlo("HloModule m\n\nENTRY e {\n  p = f32[ parameter(0)\n}\n", v5e)
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\n\nENTRY e {\n  p = f32[ parameter(0)\n}\n")
    with pytest.raises(ValueError, match=r"bad.hlo:4:\d+"):
        roofline.hlo(bad, v5e)
