"""roofline.report(path): `roofline report` from Python, made once, rendered on demand."""

import dataclasses
import html.parser
import importlib.util
import json
import subprocess
import sys

import pytest

import roofline

# The Python report names its options as Python arguments where the CLI
# names its flags (roofline::OptionWords, roofline/match/identify.hpp); the
# rest of every output is the CLI's, byte for byte.
CLI_TO_PYTHON = [("use --device N for one", "pass device=N for one"),
                 ('"chip_source": "--chip"', '"chip_source": "chip argument"'),
                 ("(--chip)", "(chip argument)")]


def in_python_words(text):
    for cli, python in CLI_TO_PYTHON:
        text = text.replace(cli, python)
    return text


def cli_report(cli, *args, fmt="json"):
    done = subprocess.run([cli, "report", *map(str, args), "--format", fmt], capture_output=True, check=True)
    return in_python_words(done.stdout.decode("utf-8"))


@pytest.fixture(scope="module")
def profile(repo):
    """The real TPU v6e x4 profile: four devices, f32 ops, host offload."""
    path = repo.parent / "shared" / "data" / "real" / "xprof" / "tpu_v6e_x4_inference_2.xplane.pb"
    if not path.exists():
        pytest.skip(f"{path} is absent (the real profiles live in ../shared/data/real beside the checkout)")
    return path


@pytest.fixture(scope="module")
def kineto(repo):
    return repo / "tests" / "data" / "trace" / "kineto_small.json"


@pytest.fixture(scope="module")
def calibration_file(cli, profile, kineto, tmp_path_factory):
    """A calibration of tpu-v6e (from the TPU profile) and h100-sxm (from the
    Kineto trace), written by `roofline calibrate`."""
    path = tmp_path_factory.mktemp("calibration") / "cal.json"
    subprocess.run([cli, "calibrate", str(profile), str(kineto), "-o", str(path)], capture_output=True, check=True)
    return path


def test_json_is_the_cli_output(cli, profile, kineto):
    assert roofline.report(profile).to_json() == cli_report(cli, profile)
    assert roofline.report(kineto).to_json() == cli_report(cli, kineto)
    r = roofline.report(str(profile), chip="tpu-v5e", target_chip=roofline.chip("h100-sxm"), device=1)
    assert r.to_json() == cli_report(cli, profile, "--chip", "tpu-v5e", "--target-chip", "h100-sxm", "--device", 1)
    assert r.summary.chip_source == "chip argument"


def test_calibration_file_entry_for_the_traced_chip(cli, profile, kineto, calibration_file):
    # The file's entry for the chip the trace names (tpu-v6e) and the what-if chip's (h100-sxm).
    r = roofline.report(profile, calibration=calibration_file, target_chip="h100-sxm")
    assert r.to_json() == cli_report(cli, profile, "--calibration", calibration_file, "--target-chip", "h100-sxm")
    assert r.summary.calibration.startswith("fit to")  # the profile's memory ops fit a curve
    # the Kineto trace's 4 ops fit no class: the file's h100-sxm entry says so
    assert "roofline calibrate fitted no class" in r.summary.target_calibration
    # Without a file: the built-in calibration, as the CLI.
    assert roofline.report(kineto).summary.calibration.startswith("built-in")


def test_hlo_modules_given(cli, repo, profile):
    hlo = repo / "tests" / "data" / "hlo" / "edge_cases.hlo"
    assert roofline.report(profile, hlo=hlo).to_json() == cli_report(cli, profile, "--hlo", hlo)
    assert roofline.report(profile, hlo=[hlo, hlo]).to_json() == cli_report(cli, profile, "--hlo", f"{hlo},{hlo}")


def test_every_format_is_the_cli_output(cli, profile):
    r = roofline.report(profile)
    assert r.to_text() == cli_report(cli, profile, fmt="text")
    assert r.to_text(top=3) == cli_report(cli, profile, "--top", 3, fmt="text")
    assert r.to_markdown() == cli_report(cli, profile, fmt="md")
    assert r.to_csv() == cli_report(cli, profile, fmt="csv")
    assert r.to_html() == cli_report(cli, profile, fmt="html")


def test_summary_and_ops_are_the_json_figures(cli, profile, kineto):
    for trace in (profile, kineto):
        r = roofline.report(trace)
        j = json.loads(cli_report(cli, trace))
        s = r.summary
        for field in dataclasses.fields(s):
            if field.name in j["summary"]:
                assert getattr(s, field.name) == j["summary"][field.name], field.name
        assert (s.trace, s.chip, s.chip_source, s.dominant_dtype) == (j["trace"], j["chip"], j["chip_source"],
                                                                      j["dominant_dtype"])
        assert s.peak_flops_per_s == j["peak_flops_per_s"] and s.hbm_bytes_per_s == j["hbm_bytes_per_s"]
        assert s.calibration == j["calibration"]["origin"]
        assert r.ops == j["ops"] and r.devices == j["devices"] and r.notes == j["notes"]
        # docs/report.md: predicted_s sums the lower bounds of the predicted ops, async -done ops kept apart.
        assert s.predicted_s == pytest.approx(sum(o["predicted_s"] for o in r.ops if o["predicted"] and not o["async"]),
                                              rel=1e-12)
        assert s.unmatched_s == pytest.approx(sum(o["measured_s"] for o in r.ops if not o["predicted"]
                                                  and not o["async"]), rel=1e-12)


def test_pandas_frame_of_ops(profile):
    pandas = pytest.importorskip("pandas")
    r = roofline.report(profile)
    df = r.to_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == len(r.ops) and list(df.columns[:4]) == ["name", "module", "count", "measured_s"]
    assert list(df["measured_s"]) == [o["measured_s"] for o in r.ops]


def test_pandas_missing_is_a_clear_import_error(profile, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now raises ImportError
    with pytest.raises(ImportError, match=r"to_pandas\(\) needs pandas"):
        roofline.report(profile).to_pandas()


def test_errors_are_located(repo, kineto, profile, tmp_path):
    with pytest.raises(FileNotFoundError):
        roofline.report(tmp_path / "absent.json")
    truncated = tmp_path / "truncated.json"
    text = kineto.read_text()
    truncated.write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match=r"truncated\.json: .*(byte \d+|\d+:\d+)"):
        roofline.report(truncated)
    xplane = profile
    cut = tmp_path / "cut.xplane.pb"
    cut.write_bytes(xplane.read_bytes()[:4000])
    with pytest.raises(ValueError, match=r"cut\.xplane\.pb: byte \d+"):
        roofline.report(cut)
    with pytest.raises(ValueError, match="no device 9 with op events"):
        roofline.report(profile, device=9)
    with pytest.raises(ValueError, match="pass chip=NAME"):
        roofline.report(repo / "tests" / "data" / "trace" / "tsl_tpu_nested.json")
    with pytest.raises(ValueError, match="unknown chip 'nosuch'"):
        roofline.report(profile, chip="nosuch")
    with pytest.raises(FileNotFoundError):
        roofline.report(profile, calibration=tmp_path / "absent-cal.json")
    with pytest.raises(FileNotFoundError):
        roofline.report(profile, hlo=tmp_path / "absent.hlo")
    with pytest.raises(ValueError, match="max_events"):
        roofline.report(kineto, max_events=2)
    with pytest.raises(TypeError, match="unknown read limit"):
        roofline.report(kineto, max_event=2)


def hostile_trace(kineto, tmp_path):
    """kineto_small.json with its GEMM kernel renamed to markup."""
    hostile = tmp_path / "hostile.json"
    hostile.write_text(kineto.read_text().replace("sm90_xmma_gemm_bf16bf16_bf16f32", "<script>alert(1)</script>"))
    return hostile


class Elements(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_repr_html_is_the_page_in_one_iframe(kineto, tmp_path):
    r = roofline.report(hostile_trace(kineto, tmp_path))
    assert any(o["name"] == "<script>alert(1)</script>" for o in r.ops)
    page = r.to_html()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page  # the renderer escapes
    shown = r._repr_html_()
    # What a notebook inserts is one element; the page, markup and all, is
    # only an attribute's text, so nothing of it runs or styles the notebook.
    parser = Elements()
    parser.feed(shown)
    assert [tag for tag, _ in parser.tags] == ["iframe"]
    assert parser.tags[0][1]["srcdoc"] == page
    assert "<" not in shown[shown.index("srcdoc="):-len("</iframe>")]


def test_report_is_made_once(profile):
    r = roofline.report(profile)
    assert r.ops is r.ops  # converted once, kept
    assert r.to_json() == r.to_json()
    assert "roofline.Report" in repr(r) and r.summary.chip in repr(r)


def run_example(repo, name, *args):
    done = subprocess.run([sys.executable, str(repo / "examples" / "python" / name), *map(str, args)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_example_script(cli, repo):
    out = run_example(repo, "report.py").splitlines()
    j = json.loads(cli_report(cli, repo / "examples" / "profiles"))
    s = j["summary"]
    assert out[0] == f"{j['trace']}: {len(j['ops'])} ops on {j['chip']} ({j['chip_source']})"
    assert out[1] == (f"measured {s['measured_s'] * 1e3:.3f} ms, roofline {s['predicted_s'] * 1e3:.3f} ms, "
                      f"expected {s['expected_s'] * 1e3:.3f} ms, MFU {s['mfu'] * 100:.3g}%")
    assert out[-len(j["notes"]):] == [f"note: {n}" for n in j["notes"]]


def test_example_notebook_runs_with_outputs_cleared(repo, monkeypatch):
    import ast

    folder = repo / "examples" / "python"
    notebook = json.loads((folder / "report.ipynb").read_text())
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert code and all(c["outputs"] == [] and c["execution_count"] is None for c in code)
    monkeypatch.chdir(folder)  # a notebook runs in its own folder
    namespace, shown = {}, []
    have_pandas = importlib.util.find_spec("pandas") is not None
    for cell in code:  # as a kernel does: the last expression is displayed
        source = "".join(cell["source"])
        if "to_pandas" in source and not have_pandas:
            continue  # the installed-wheel run has no pandas: its message is tested apart
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "cell", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "cell", "eval"), namespace)
            shown.append(value._repr_html_() if hasattr(value, "_repr_html_") else repr(value))
    assert any(s.startswith("<iframe") for s in shown)
