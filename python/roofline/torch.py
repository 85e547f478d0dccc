"""PyTorch: a torch.profiler trace against the roofline of every kernel in it.

    with torch.profiler.profile(activities=[...CPU, ...CUDA], record_shapes=True) as prof:
        step()
    r = roofline.torch.report(prof)           # or the path of prof.export_chrome_trace()
    r.summary.mfu, r.to_pandas()

This module never imports torch: a profiler is anything with
export_chrome_trace(path), and an exported trace is read by the C++ reader.
A kernel is costed from the shapes of the aten op that launched it (its
"Input Dims"), which torch.profiler records only with record_shapes=True.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from typing import Any

from roofline._report import Report, report as _report

RECORD_SHAPES_ADVICE = (
    "the trace's CPU ops carry no input shapes (no \"Input Dims\"), so its kernels cannot be costed "
    "from the aten ops that launched them: pass record_shapes=True to torch.profiler.profile"
)


class NoInputShapesWarning(UserWarning):
    """The profile was taken without record_shapes=True."""


def _check_shapes(r: Report, name: str) -> None:
    # Kernels linked to aten ops, none of which has shapes: the profiler ran
    # with record_shapes=False. A trace whose kernels no op launched (or with
    # no kernels) says nothing either way.
    if r.launching_calls > 0 and r.launching_calls_with_input_dims == 0:
        warnings.warn(f"{name}: {RECORD_SHAPES_ADVICE}", NoInputShapesWarning, stacklevel=3)


def report(trace: Any, **kwargs: Any) -> Report:
    """roofline.report() of a PyTorch profile.

    trace: the path of a Chrome trace torch.profiler exported (.json or
    .json.gz), or a live profiler (anything with export_chrome_trace(path)),
    which is exported to a temporary file, reported and the file deleted.
    kwargs: those of roofline.report (chip, target_chip, calibration, device,
    read limits).

    Warns (NoInputShapesWarning) when the trace's CPU ops have no input
    shapes: the report then costs only collectives and copies.
    """
    if hasattr(trace, "export_chrome_trace"):
        with tempfile.TemporaryDirectory(prefix="roofline-torch-") as folder:
            path = os.path.join(folder, "trace.json")
            trace.export_chrome_trace(path)
            r = _report(path, **kwargs)
            name = "the profiler's trace"
    elif isinstance(trace, (str, os.PathLike)):
        r = _report(trace, **kwargs)
        name = os.fspath(trace)
    else:
        raise TypeError("trace: expected the path of an exported torch.profiler trace or a profiler "
                        f"(an object with export_chrome_trace), got {type(trace).__name__}")
    _check_shapes(r, name)
    return r
