"""roofline.torch.report(trace): torch.profiler traces and profilers, without torch."""

import json
import os
import shutil
import subprocess
import sys
import warnings

import pytest

import roofline
import roofline.torch


@pytest.fixture(scope="module")
def kineto(repo):
    return repo / "tests" / "data" / "trace" / "kineto_small.json"


def without_shapes(kineto, tmp_path):
    """kineto_small.json as torch.profiler writes it with record_shapes=False:
    the cpu_ops' "Input Dims" (and "Input type") left out."""
    data = json.loads(kineto.read_text())
    for event in data["traceEvents"]:
        event.get("args", {}).pop("Input Dims", None)
        event.get("args", {}).pop("Input type", None)
    path = tmp_path / "no_shapes.json"
    path.write_text(json.dumps(data))
    return path


class FakeProfiler:
    """What roofline.torch needs of torch.profiler.profile: export_chrome_trace(path)."""

    def __init__(self, trace):
        self.trace = trace
        self.exported = []

    def export_chrome_trace(self, path):
        shutil.copyfile(self.trace, path)
        self.exported.append(path)


def without_trace_path(report):
    j = json.loads(report.to_json())
    del j["trace"]
    return j


def test_exported_trace_is_the_plain_report(kineto, repo):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # shapes were recorded: no warning
        r = roofline.torch.report(kineto)
        gz = roofline.torch.report(str(repo / "tests" / "data" / "trace" / "kineto_small.json.gz"))
    assert r.to_json() == roofline.report(kineto).to_json()
    assert r.launching_calls_with_input_dims > 0
    assert without_trace_path(gz) == without_trace_path(r)


def test_live_profiler_is_exported_reported_and_deleted(kineto):
    prof = FakeProfiler(kineto)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = roofline.torch.report(prof, chip="h100-sxm")
    assert len(prof.exported) == 1 and not os.path.exists(prof.exported[0])
    assert without_trace_path(r) == without_trace_path(roofline.report(kineto, chip="h100-sxm"))


def test_no_input_shapes_warns_to_record_shapes(kineto, tmp_path):
    path = without_shapes(kineto, tmp_path)
    with pytest.warns(roofline.torch.NoInputShapesWarning, match=r"record_shapes=True"):
        r = roofline.torch.report(path)
    assert r.launching_calls > 0 and r.launching_calls_with_input_dims == 0
    # The GEMM its aten::mm launched is not costed, and says why.
    gemm = next(o for o in r.ops if o["name"] == "sm90_xmma_gemm_bf16bf16_bf16f32")
    assert not gemm["predicted"] and "record_shapes=False" in gemm["reason"]
    with pytest.warns(roofline.torch.NoInputShapesWarning, match="the profiler's trace"):
        roofline.torch.report(FakeProfiler(path))


def test_real_traces(real_data):
    with pytest.warns(roofline.torch.NoInputShapesWarning):  # SOURCES.md: "It has no Input Dims"
        roofline.torch.report(real_data / "hta" / "a100_alexnet_trace.json.gz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SOURCES.md: cpu_ops carry Input Dims (4,186 of 4,186)
        r = roofline.torch.report(real_data / "tracelens" / "h100_qwen1.5-0.5b.pt.trace.json.gz")
    assert any(o["match"] == "input-dims" for o in r.ops)  # costed from Input Dims


def test_wrong_argument_and_missing_file(tmp_path):
    with pytest.raises(TypeError, match="export_chrome_trace"):
        roofline.torch.report(42)
    with pytest.raises(FileNotFoundError):
        roofline.torch.report(tmp_path / "absent.pt.trace.json")


def test_imports_without_torch():
    code = "import sys, roofline.torch; assert 'torch' not in sys.modules; print(roofline.torch.report.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "report"


def test_example_script(repo, kineto):
    # Without torch the example reports the Kineto fixture.
    done = subprocess.run([sys.executable, str(repo / "examples" / "python" / "torch_report.py")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    r = roofline.report(kineto)
    s = r.summary
    lines = done.stdout.splitlines()
    assert lines[0] == (f"{len(r.ops)} kernels on {s.chip}: measured {s.measured_s * 1e6:.1f} us, "
                        f"roofline {s.predicted_s * 1e6:.1f} us, expected {s.expected_s * 1e6:.1f} us")
    assert len(lines) == 1 + min(5, len(r.ops))
