"""roofline: how fast should this be, and why is it slower than that?

The C++ library (roofline._core) with Python-side conveniences. Every time is
in seconds, every size in bytes, every rate per second, as in the C++ API::

    import roofline
    v5e = roofline.chip("tpu-v5e")
    p = roofline.predict(roofline.Matmul(m=32768, k=8192, n=32768), v5e)
    p.t_math_s, p.bound          # 0.0893..., 'compute'

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
from roofline._report import StatsPartial, merge_partials, read_partial, stats_partial  # noqa: F401  docs/partials.md
from roofline import torch  # noqa: F401,E402  (roofline.torch.report; never imports torch)

__version__ = "0.1.0"
