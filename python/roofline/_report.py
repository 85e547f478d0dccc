"""Measured traces: roofline.stats(path), roofline.report(path) and partial
statistics that merge (roofline.stats_partial, merge_partials, read_partial).

The trace is read and matched once, in C++ (roofline._core); every output
is rendered from that one report on demand, by the renderers the CLI uses::

    r = roofline.report("profile/")          # an .xplane.pb, a trace JSON, a directory
    r.summary.mfu, r.summary.predicted_s     # whole-run figures
    r.ops[0]["name"], r.ops[0]["measured_s"] # one dict per op, the JSON report's keys
    r.to_json() == `roofline report profile/ --format json`
    r                                        # in Jupyter: the HTML report inline

docs/python.md ("Traces and reports") and docs/report.md say what each
figure means.
"""

from __future__ import annotations

import dataclasses
import html
import os
from typing import Any, Iterable, Optional, Union

from roofline import _core

PathLike = Union[str, "os.PathLike[str]"]

# The read options of roofline::TraceReadOptions, as keyword arguments (the
# CLI's --max-events, --max-ops, --max-inflated-bytes, --max-decompressed-bytes,
# --jobs).
READ_LIMITS = ("max_events", "max_ops", "max_inflated_bytes", "max_decompressed_bytes", "jobs")


def _read_limits(given: dict) -> dict:
    unknown = sorted(set(given) - set(READ_LIMITS))
    if unknown:
        raise TypeError(f"unknown read limit(s) {', '.join(unknown)}; known: {', '.join(READ_LIMITS)}")
    return given


def _chip(chip) -> Optional[_core.Chip]:
    """None, a roofline.Chip, an embedded chip's name or a spec file's path."""
    if chip is None or isinstance(chip, _core.Chip):
        return chip
    if isinstance(chip, (str, os.PathLike)):
        return _core.chip(os.fspath(chip))
    raise TypeError(f"chip: expected a name, a path or a roofline.Chip, got {type(chip).__name__}")


def _paths(hlo) -> list:
    if hlo is None:
        return []
    if isinstance(hlo, (str, os.PathLike)):
        return [os.fspath(hlo)]
    return [os.fspath(p) for p in hlo]


def _require_pandas(what: str):
    try:
        import pandas
    except ImportError as e:
        raise ImportError(f"{what}.to_pandas() needs pandas (pip install pandas); "
                          f"without it, use .ops (a list of dicts) or .to_csv()") from e
    return pandas


def _frame(what: str, rows: list, first: Iterable[str]):
    """A DataFrame of `rows` (dicts with one set of keys) with `first` leading."""
    pandas = _require_pandas(what)
    if not rows:
        return pandas.DataFrame()
    lead = [k for k in first if k in rows[0]]
    return pandas.DataFrame(rows, columns=lead + [k for k in rows[0] if k not in lead])


@dataclasses.dataclass(frozen=True)
class ReportSummary:
    """Whole-run figures of a report: the keys of the JSON report's top level
    and its "summary", with their units (docs/report.md). Times over several
    devices are device-seconds (summed over devices)."""

    trace: str
    chip: str                 # the chip the predictions used
    chip_source: str          # "detected from device 'TPU v6 lite'" or "chip argument"
    target_chip: Optional[str]
    calibration: Optional[str]         # where the expected times came from (origin)
    target_calibration: Optional[str]  # the same for the what-if chip
    dominant_dtype: str       # the dtype whose peak MFU uses
    peak_flops_per_s: float
    hbm_bytes_per_s: float
    measured_s: float         # device busy time
    wall_s: float             # first op start to last op end, per device
    predicted_s: float        # roofline lower bound of the predicted ops
    expected_s: float         # their calibrated expected time
    matched_measured_s: float  # measured time of the predicted ops
    unmatched_s: float
    below_roofline_ops: int            # predicted ops measured below their roofline: left out of the totals
    below_roofline_measured_s: float   # their measured time
    async_measured_s: float
    async_predicted_s: float
    model_flops: float
    hardware_flops: float
    mfu: Optional[float]      # model_flops / (wall_s x peak of dominant_dtype); None above 1 (a note says why)
    hfu: Optional[float]
    mfu_convention: str
    duty_cycle: float
    idle_s: float
    nothing_predicted: Optional[str]  # the headline when no op has a prediction
    by_category: list = dataclasses.field(repr=False)
    steps: list = dataclasses.field(repr=False)
    modules: list = dataclasses.field(repr=False)

    @classmethod
    def _from_json(cls, j: dict) -> "ReportSummary":
        top = {k: j[k] for k in ("trace", "chip", "chip_source", "target_chip", "dominant_dtype",
                                 "peak_flops_per_s", "hbm_bytes_per_s", "nothing_predicted")}
        return cls(**top, calibration=j["calibration"]["origin"],
                   target_calibration=j["calibration"]["target_origin"], **j["summary"])


def _iframe(page: str) -> str:
    """A whole HTML page as one <iframe>: a notebook inserts output HTML into
    its own page, where the report's <html>, <body> and <style> would restyle
    the notebook and its <script> might not run. srcdoc keeps the page whole
    and apart; every character of it is escaped into the attribute, so no
    markup of the page (nor an op name in it) reaches the notebook's DOM.
    The sandbox lets the table-sorting script run, without the notebook's origin."""
    return ('<iframe sandbox="allow-scripts" style="width:100%;height:720px;border:0" '
            f'srcdoc="{html.escape(page, quote=True)}"></iframe>')


class Report:
    """A measured trace against the roofline of every op in it: what
    `roofline report` prints, made once and rendered on demand."""

    def __init__(self, core: _core.TraceReport, source: Optional[dict] = None):
        self._core = core
        self._json: Optional[dict] = None
        self._summary: Optional[ReportSummary] = None
        self._source = source  # roofline.report's arguments: the views below read the trace again

    def _whole(self, view: str, top: int = 15) -> str:
        if self._source is None:
            raise ValueError("this report was not made by roofline.report(path, ...): no trace to read again")
        return _core.trace_whole_view(**self._source, view=view, top=top)

    def _value(self) -> dict:
        if self._json is None:
            self._json = self._core.json_value()
        return self._json

    @property
    def summary(self) -> ReportSummary:
        if self._summary is None:
            self._summary = ReportSummary._from_json(self._value())
        return self._summary

    @property
    def ops(self) -> list:
        """One dict per op, largest measured time first, with the keys of the
        JSON report's "ops" (name, count, measured_s, predicted_s, expected_s,
        bound, match, reason, ...); None for figures an op does not have."""
        return self._value()["ops"]

    @property
    def devices(self) -> list:
        return self._value()["devices"]

    @property
    def notes(self) -> list:
        return self._value()["notes"]

    @property
    def across_devices(self) -> Optional[dict]:
        """Stragglers and collective waits across the report's devices: the
        JSON report's "across_devices" (steps, collectives, devices; keys in
        docs/json.md), None with fewer than 2 devices."""
        return self._value().get("across_devices")

    @property
    def trace_formats(self) -> list:
        """The format of each file read: "xplane", "kineto-json", ..."""
        return list(self._core.formats)

    @property
    def launching_calls(self) -> int:
        """Distinct framework-op calls (PyTorch cpu_ops) that launched kernels."""
        return self._core.launching_calls

    @property
    def launching_calls_with_input_dims(self) -> int:
        """How many of them carry "Input Dims" (torch.profiler's record_shapes=True)."""
        return self._core.launching_calls_with_input_dims

    def to_json(self) -> str:
        """Exactly what `roofline report TRACE --format json` prints."""
        return self._core.render("json")

    def to_text(self, top: int = 15) -> str:
        return self._core.render("text", top)

    def to_markdown(self, top: int = 15) -> str:
        return self._core.render("md", top)

    def to_csv(self) -> str:
        return self._core.render("csv")

    def to_html(self, top: int = 15) -> str:
        """The CLI's self-contained HTML page (--format html)."""
        return self._core.render("html", top)

    def _repr_html_(self) -> str:
        return _iframe(self.to_html())

    def scopes(self, depth: int = 3) -> dict:
        """The ops totalled per name scope, as a tree: the "scopes" value of
        `roofline report TRACE --by scope --depth DEPTH --format json` (each
        node: name, path, ops, measured_s, predicted_s, expected_s, flops, mfu,
        share, sources, children). docs/report.md, "By scope"."""
        import json

        return json.loads(self._core.render_scopes("json", depth))["scopes"]

    def scopes_to(self, format: str = "text", depth: int = 3) -> str:
        """The tree by scope as `roofline report --by scope --format FORMAT` prints it
        (text, md, json, csv, or html: a collapsible tree)."""
        return self._core.render_scopes(format, depth)

    def steps(self) -> dict:
        """Per step: time, busy, duty cycle, the largest gaps with the host's
        activity in them, variance, and the roofline and MFU of the ops that
        started in it: `roofline report TRACE --by step --format json` (keys
        chip, devices). The report keeps no events, so this reads the trace
        again, whole, with the report's arguments. docs/report.md, "By step"."""
        import json

        return json.loads(self._whole("steps"))

    def steps_to(self, format: str = "text", top: int = 15) -> str:
        """As `roofline report --by step --format FORMAT --top TOP` prints it (text or json)."""
        if format not in ("text", "json"):
            raise ValueError(f"format: expected text or json, got {format!r}")
        return self._whole("steps_text" if format == "text" else "steps", top)

    def to_perfetto(self, path: Optional[PathLike] = None) -> str:
        """The timeline `roofline report --format perfetto` writes: Chrome
        trace-event JSON with the measured ops and, per device, their expected
        and roofline durations, gaps and counters (docs/report.md,
        "Timeline"). Written to `path` when given; the text is returned
        either way. Reads the trace again, whole, as steps() does."""
        out = self._whole("perfetto")
        if path is not None:
            with open(os.fspath(path), "w", encoding="utf-8") as f:
                f.write(out)
        return out

    def to_pandas(self):
        """The ops as a pandas DataFrame, one row per op (columns: the keys of .ops)."""
        first = ("name", "module", "count", "measured_s", "predicted_s", "expected_s", "bound")
        return _frame("Report", self.ops, first)

    def __repr__(self) -> str:
        s = self.summary
        return (f"<roofline.Report {s.trace!r} on {s.chip}: {len(self.ops)} ops, measured_s={s.measured_s:.6g}, "
                f"predicted_s={s.predicted_s:.6g}, expected_s={s.expected_s:.6g}, mfu={s.mfu:.4g}>")


class Stats:
    """Op statistics of a measured trace, as `roofline stats` computes them:
    per device (busy, idle, duty cycle, steps, idle gaps) and per op."""

    def __init__(self, core: _core.TraceStats, source: Optional[dict] = None):  # roofline.stats / StatsPartial.stats
        self._core = core
        self._json: Optional[dict] = None
        self._source = source  # roofline.stats' arguments, for steps()

    def steps(self, format: str = "json", top: int = 500):
        """Per step of each device: time, busy, duty cycle, the largest idle
        gaps with the host's activity in them, and variance, as `roofline
        stats TRACE --by step` computes them: a dict (format "json", the keys
        of its JSON: devices) or the text (format "text", `top` steps a
        device). Reads the trace again, whole (steps need its events);
        ValueError for statistics merged from partials, which keep none."""
        if self._source is None:
            raise ValueError("these statistics were not read by roofline.stats(path, ...): no trace to read again")
        if format not in ("text", "json"):
            raise ValueError(f"format: expected text or json, got {format!r}")
        out = _core.trace_steps(**self._source, format=format, top=top)
        if format == "text":
            return out
        import json

        return json.loads(out)

    def _value(self) -> dict:
        if self._json is None:
            self._json = self._core.json_value()
        return self._json

    @property
    def devices(self) -> list:
        """One dict per device with op events: the JSON's "devices"."""
        return self._value()["devices"]

    @property
    def ops(self) -> list:
        """One dict per op, largest total self time first: the JSON's "ops"."""
        return self._value()["ops"]

    @property
    def categories(self) -> list:
        return self._value()["categories"]

    @property
    def busy_s(self) -> float:
        return self._value()["busy_s"]

    @property
    def idle_s(self) -> float:
        return self._value()["idle_s"]

    @property
    def duty_cycle(self) -> float:
        return self._value()["duty_cycle"]

    @property
    def warnings(self) -> list:
        return self._value()["warnings"]

    @property
    def across_devices(self) -> Optional[dict]:
        """Stragglers and collective waits: the JSON's "across_devices",
        None with fewer than 2 devices."""
        return self._value().get("across_devices")

    def to_json(self, top: Optional[int] = None) -> str:
        """Exactly what `roofline stats TRACE --format json [--top TOP]` prints."""
        return self._core.to_json(top)

    def to_csv(self, top: Optional[int] = None) -> str:
        return self._core.to_csv(top)

    def to_text(self, top: Optional[int] = 20) -> str:
        """Exactly what `roofline stats TRACE [--top TOP]` prints (20 ops by
        default, as there; None: every op)."""
        return self._core.to_text(top)

    def to_pandas(self):
        """The ops as a pandas DataFrame, one row per op."""
        first = ("module", "name", "kernel", "category", "count", "total_s", "median_s", "share")
        return _frame("Stats", self.ops, first)

    def __repr__(self) -> str:
        v = self._value()
        return (f"<roofline.Stats {v['source']!r}: {len(self.devices)} devices with ops, {len(self.ops)} ops, "
                f"busy_s={self.busy_s:.6g}, duty_cycle={self.duty_cycle:.4g}>")


def report(path: PathLike, chip=None, target_chip=None, hlo=None, calibration=None,
           device: Optional[int] = None, **read_limits: Any) -> Report:
    """Expected vs observed: every op of the trace at `path` against its
    roofline, as `roofline report` makes it. `path`: a file, a profile
    directory, a glob, or a list of them read as the hosts of one job (in
    parallel on `jobs` threads, default one per core).

    chip, target_chip: a name ('tpu-v6e'), a spec file's path or a
    roofline.Chip; chip None: the chip the trace's devices name.
    hlo: a path or a list of paths of HLO modules to cost the ops from.
    calibration: None (built-in), a roofline.Calibration (roofline.calibrate)
    or a file `roofline calibrate` wrote; its
    entries for the chip and the what-if chip are used.
    device: only the device with this id (default: all, times summed).
    read_limits: max_events, max_ops, max_inflated_bytes, max_decompressed_bytes, jobs.

    Raises FileNotFoundError for a file that is not there, ValueError for
    anything else (a damaged trace: the file and the byte offset or line:col).
    """
    args = dict(path=path, chip=_chip(chip), target_chip=_chip(target_chip), hlo=_paths(hlo),
                calibration=calibration, device=device, **_read_limits(read_limits))
    return Report(_core.trace_report(**args), source=args)


class Diff:
    """Two reports of one program compared, as `roofline diff` prints them:
    ops matched by what they are (kind, module, shapes, cost), not by name;
    `failed` and `reasons` tell whether `fail_if` held (docs/diff.md)."""

    def __init__(self, core: _core.TraceDiff):
        self._core = core

    @property
    def failed(self) -> bool:
        return self._core.failed

    @property
    def reasons(self) -> list:
        return list(self._core.reasons)

    def to_text(self, top: int = 15) -> str:
        return self._core.render("text", top)

    def to_markdown(self, top: int = 15) -> str:
        return self._core.render("md", top)

    def to_json(self) -> str:
        """Exactly what `roofline diff BEFORE AFTER --format json` prints."""
        return self._core.render("json")

    def to_csv(self) -> str:
        return self._core.render("csv")

    def to_html(self, top: int = 15) -> str:
        return self._core.render("html", top)

    def _repr_html_(self) -> str:
        return _iframe(self.to_html())

    def __repr__(self) -> str:
        return f"<roofline.Diff failed={self.failed}>"


def diff(before, after, fail_if: Optional[str] = None, **report_args: Any) -> Diff:
    """Compares two profiles of one program (`roofline diff`). `before` and
    `after`: Reports (roofline.report) or anything roofline.report takes,
    read with `report_args` (chip, calibration, device, read limits).
    fail_if: "mfu<-2% or step_time>+5%" (docs/diff.md); the result's
    `failed` says whether it held. ValueError names the place of a bad one."""
    sides = [side if isinstance(side, Report) else report(side, **report_args) for side in (before, after)]
    return Diff(_core.diff_reports(sides[0]._core, sides[1]._core, fail_if=fail_if))


# What roofline stats reads host timelines up to (--host-timelines-up-to).
STATS_HOST_TIMELINES_UP_TO_BYTES = _core.STATS_HOST_TIMELINES_UP_TO_BYTES


def _host_bound(value: Any) -> Optional[int]:
    # A byte count (1e12 taken, as the CLI takes it) or None (no bound).
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 1 << 64:
        raise ValueError(f"host_timelines_up_to_bytes: expected a byte count >= 0 or None, got {value!r}")
    return value


def stats(
    path: PathLike,
    device: Optional[int] = None,
    host_timelines_up_to_bytes: Optional[int] = STATS_HOST_TIMELINES_UP_TO_BYTES,
    **read_limits: Any,
) -> Stats:
    """What the trace at `path` spent its time on, per device and per op, as
    `roofline stats` computes it. host_timelines_up_to_bytes: an XSpace with
    device planes whose host planes hold more is read without its host
    timelines (`--host-timelines-up-to`; None reads them always). Errors as
    report()."""
    limits = _read_limits(read_limits)
    return Stats(
        _core.trace_stats(
            path, device=device, host_timelines_up_to_bytes=_host_bound(host_timelines_up_to_bytes), **limits,
        ),
        source=dict(path=path, device=device, host_timelines_up_to_bytes=_host_bound(host_timelines_up_to_bytes),
                    **limits),
    )


def _inputs(path) -> list:
    """The inputs roofline.stats takes (a path, a glob, or a list of them) as str."""
    if isinstance(path, (str, os.PathLike)):
        return [os.fspath(path)]
    if isinstance(path, (dict, bytes)) or not hasattr(path, "__iter__"):
        raise TypeError("expected a path (str or os.PathLike), a glob, or a list of them")
    return [os.fspath(p) for p in path]


class StatsPartial:
    """Partial op statistics of some inputs (docs/partials.md): what
    `roofline stats INPUT... --partial` writes. Partials merge, in input
    order, into the statistics of all their inputs, equal to the bit to one
    pass over them. Pickles as its JSON text, so map-reduce engines (Dask,
    Ray, Spark) ship it between processes and machines."""

    def __init__(self, core: _core.StatsPartial):
        self._core = core

    @property
    def source(self) -> str:
        """The inputs as given, joined by spaces."""
        return self._core.source

    @property
    def files(self) -> list:
        """The files read, in input order."""
        return list(self._core.files)

    def to_json(self) -> str:
        """The partial file: exactly what `roofline stats INPUT... --partial` writes."""
        return self._core.to_json()

    def stats(self) -> Stats:
        """The statistics of the inputs: the Stats roofline.stats(inputs)
        returns, whose to_json() is `roofline merge PART... --format json`."""
        return Stats(self._core.finish())

    def __repr__(self) -> str:
        return f"<roofline.StatsPartial {self.source!r}: {len(self._core.files)} files>"


def stats_partial(
    path: PathLike,
    device: Optional[int] = None,
    host_timelines_up_to_bytes: Optional[int] = STATS_HOST_TIMELINES_UP_TO_BYTES,
    **read_limits: Any,
) -> StatsPartial:
    """The partial statistics of the trace(s) at `path` (inputs as
    roofline.stats takes them; several are read `jobs` at a time, each
    reduced to its partial and dropped): `roofline stats PATH... --partial`.
    device: only the device with this id (ValueError when none has op
    events). Errors as roofline.stats: FileNotFoundError for a file that is
    not there, ValueError for anything else. host_timelines_up_to_bytes as
    roofline.stats."""
    return StatsPartial(
        _core.stats_partial(
            _inputs(path),
            device=device,
            host_timelines_up_to_bytes=_host_bound(host_timelines_up_to_bytes),
            **_read_limits(read_limits),
        )
    )


def merge_partials(parts: Iterable[StatsPartial]) -> StatsPartial:
    """The partial of all the parts' inputs, in the order given: associative
    (merge([a, b, c]) == merge([merge([a, b]), c]) == merge([a, merge([b, c])])),
    not commutative: give the parts in the order the files would be given to
    roofline.stats, since that order breaks ties between equal totals and
    orders devices, files and warnings. ValueError for what a merge refuses
    (the same file twice, different options, a host name shared across
    inputs; docs/partials.md) or no part at all."""
    cores = []
    for p in parts:
        if not isinstance(p, StatsPartial):
            raise TypeError(f"merge_partials: expected roofline.StatsPartial items, got {type(p).__name__}")
        cores.append(p._core)
    return StatsPartial(_core.merge_partials(cores))


def read_partial(source: Union[PathLike, bytes], origin: Optional[str] = None) -> StatsPartial:
    """A partial from a file (`roofline stats --partial -o FILE`) or its text.

    source: an os.PathLike, or a str whose first non-blank character is not
    '{', is a file's path; bytes, or a str beginning with '{' (after blanks),
    is the partial's JSON text itself (a partial file is one JSON object, so
    it always begins with '{'). origin names text in errors (default
    "<partial text>"). A damaged partial raises ValueError naming the file
    (or origin) and the JSON path; a missing file FileNotFoundError."""
    if isinstance(source, str) and source.lstrip().startswith("{"):
        source = source.encode("utf-8")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return StatsPartial(_core.parse_stats_partial(bytes(source), origin or "<partial text>"))
    if isinstance(source, (str, os.PathLike)):
        return StatsPartial(_core.read_stats_partial_file(os.fspath(source)))
    raise TypeError(f"read_partial: expected a path, or the partial's text (str or bytes), got {type(source).__name__}")
