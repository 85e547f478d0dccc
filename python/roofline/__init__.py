"""roofline: how fast should this be, and why is it slower than that?

The C++ library (roofline._core) with Python-side conveniences. Every time is
in seconds, every size in bytes, every rate per second, as in the C++ API::

    import roofline
    v5e = roofline.chip("tpu-v5e")
    p = roofline.predict(roofline.Matmul(m=32768, k=8192, n=32768), v5e)
    p.t_math_s, p.bound          # 0.0893..., 'compute'

``roofline.jax`` (predict a jitted step on a TPU or GPU) and
``roofline.torch`` (report a torch.profiler trace) load on first use and
import jax or torch only when a function needs them.

Errors raise ValueError (or FileNotFoundError for a file that is not there)
with the library's located message: file, line:column or byte offset.
docs/python.md describes every function.
"""

from roofline._core import (  # noqa: F401
    Chip,
    HloResult,
    HloRow,
    Matmul,
    Prediction,
    chip,
    chips,
    hlo,
    predict,
    render_prediction,
)
from roofline._core import (  # noqa: F401  planning: ops on meshes, plan, calibration
    Calibration,
    ChipCalibration,
    Collective,
    CollectiveTime,
    Elementwise,
    FidelityResult,
    LayoutEvaluation,
    Mesh,
    ModelConfig,
    Plan,
    PlanCandidate,
    RejectedCandidate,
    ShardedMatmul,
    ShardedMatmulPrediction,
    TrainingStep,
    calibrate,
    default_calibration,
    expected,
    fidelity,
    model,
    plan,
    read_calibration,
)
from roofline._report import STATS_HOST_TIMELINES_UP_TO_BYTES, Report, ReportSummary, Stats, report, stats  # noqa: F401
from roofline._report import Diff, diff  # noqa: F401  docs/diff.md
from roofline._report import StatsPartial, merge_partials, read_partial, stats_partial  # noqa: F401  docs/partials.md

__version__ = "0.1.0"

# roofline.jax and roofline.torch are loaded on first use (PEP 562), so
# `import roofline` stays quick and `roofline.jax.predict(...)` works after it
# alone. Neither imports jax or torch until one of its functions needs it.
_SUBMODULES = ("jax", "torch")


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"roofline.{name}")
    raise AttributeError(f"module 'roofline' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))
