"""roofline.jax: how fast would this JAX step run on a TPU, asked from a laptop.

``predict(fn, *args, chip="tpu-v5e", mesh={"data": 8})`` lowers and compiles
``fn`` with the installed jax on its CPU backend (virtual CPU devices stand in
for the mesh), takes the HLO of one device's program, shardings applied and
collectives inserted, and costs every instruction on the target chip with the
library's HLO cost model (``roofline.hlo``). Nothing runs and no array is
allocated: ``args`` may be ``jax.ShapeDtypeStruct``.

Which HLO is costed (``hlo=``):

``"partitioned"`` (the default)
    the module right after XLA's SPMD partitioner: per-device shapes and the
    collectives, with the program's own dtypes (a bf16 dot stays bf16, an
    all-reduce of bf16 gradients moves bf16), before any CPU-specific pass.
    XLA has not fused it yet: roofline's fusion pass groups it as an
    accelerator's compiler fuses (element-wise chains, reductions into their
    inputs, element-wise ops into a dot's output) and charges HBM bytes at
    the groups' boundaries (``hbm_bytes``, ``t_lower_s``); the figures with
    every op charged its own traffic stay beside them (``hbm_bytes_unfused``,
    ``t_lower_unfused_s``). docs/hlo_cost.md says what the pass models.
``"compiled"``
    XLA:CPU's optimised module (``compiled.as_text()``): fused as the CPU
    compiler fuses, and with the CPU's rewrites (bf16 dots and collectives
    carried out in f32 between converts).
``"lowered"``
    the module jax hands to XLA (``lowered.as_text(dialect="hlo")``): global
    shapes, no collectives. One device's view only when nothing is sharded.

docs/python.md ("JAX") has the measurements behind the default
(scripts/jax_hlo_study.py) and the error to expect from each form.

jax is imported inside the functions: ``import roofline.jax`` works without
it, and ``predict`` says how to install it when it is absent.
"""

from __future__ import annotations

import dataclasses
import glob
import math
import os
import shutil
import tempfile
import warnings
from typing import Any, Mapping, Optional

from roofline import _jax_worker

HLO_FORMS = ("partitioned", "compiled", "lowered")
DEFAULT_HLO = "partitioned"

# The partitioned module is fixed by XLA's SPMD passes, before any CPU
# backend work. On a mesh it comes from a worker process that stops right
# after the partitioner (roofline/_jax_worker.py); where that does not apply
# the partitioned and lowered forms compile in-process with LLVM's
# optimisation off, which leaves the module byte-identical
# (tests/python/test_package_entry.py) at about 0.75x the CPU time
# (bench/python/jax_predict_speed.py, docs/python.md "Speed").
# hlo="compiled" costs the CPU's optimised module and so compiles with jax's
# defaults.
FAST_COMPILE_OPTIONS = {"xla_backend_optimization_level": 0}
# Read the partitioned module from a worker process that exits once XLA has
# written it (roofline/_jax_worker.py); False compiles in-process.
USE_WORKER = True


@dataclasses.dataclass(frozen=True)
class OpRow:
    """One instruction of the costed module, per execution (as HloRow)."""

    name: str
    opcode: str
    category: str
    shape: str
    executions: float
    aggregate: bool  # a loop or call: its numbers total the rows it runs
    flops: float
    transcendentals: float
    hbm_bytes: float
    ici_bytes: float
    t_math_s: float
    t_hbm_s: float
    t_ici_s: float
    t_lower_s: float
    bound: str
    expected_s: Optional[float]  # None where no calibrated class curve applies
    group_size: Optional[int]  # collectives: devices in one replica group
    notes: tuple
    hbm_bytes_unfused: float = 0.0  # per execution, as if nothing were fused
    fusion_group: int = -1  # the fusion pass's group (-1: none)


@dataclasses.dataclass(frozen=True)
class LoopWarning:
    """A while loop charged fewer times than it runs (predict warns about each)."""

    name: str  # the while instruction
    computation: str  # the computation holding it
    kind: str  # "trip_count_unknown" (counted once a run) or "runs_overflow"
    reason: str


@dataclasses.dataclass(frozen=True)
class XlaCost:
    """XLA's own HloCostAnalysis figures of one module (per device)."""

    module: str  # which module they count: "compiled", "costed", "lowered"
    flops: float
    transcendentals: float
    bytes_accessed: float


@dataclasses.dataclass(frozen=True)
class JaxPrediction:
    """The roofline of one device's program of a jitted function on a chip.

    Totals are one run of the module on one device (every device runs the
    same SPMD program; ``per_device`` is False only for ``hlo="lowered"`` on a
    mesh, which costs the global program): ``flops``, ``hbm_bytes``, ``ici_bytes``,
    ``t_lower_s`` (the roofline floor, loops counted per trip, HBM bytes
    charged at fusion boundaries), ``bound`` and ``expected_s`` (the floor
    through the chip's calibration); ``hbm_bytes_unfused`` and
    ``t_lower_unfused_s`` the same with nothing fused. ``loop_warnings``
    names every loop charged fewer times than it runs (each also given to
    ``warnings.warn``). ``rows`` lists
    every instruction in execution order; ``collectives`` only the
    cross-device ones. ``xla`` holds XLA's own cost analysis beside ours:
    ``xla["costed"]`` of the very module we costed (when jaxlib can parse it
    back), ``xla["compiled"]`` of the CPU executable
    (``compiled.cost_analysis()``; only where one was compiled in-process:
    on a mesh the partitioned module comes from a worker that stops before
    code generation), ``xla["lowered"]`` of the global
    pre-optimisation module (``lowered.cost_analysis()``).
    """

    chip: str
    hlo: str  # the form costed: "partitioned", "compiled" or "lowered"
    module: str
    num_devices: int
    calibration: str
    rows: tuple
    flops: float
    transcendentals: float
    hbm_bytes: float
    ici_bytes: float
    t_lower_s: float
    bound: str
    expected_s: float
    unknown_cost_instructions: int
    unknown_trip_count_loops: int  # while loops without a known trip count: their bodies counted once
    loop_warnings: tuple  # LoopWarning of every loop charged fewer times than it runs
    hbm_bytes_unfused: float  # every op charged its own HBM traffic (no fusion): the upper estimate
    t_lower_unfused_s: float  # t_lower_s with those bytes
    fusion_groups: int  # groups the fusion pass formed (0: the module was fused by XLA already)
    host_bytes: float  # what crosses PCIe to and from host memory (total.host_bytes; not in ici_bytes)
    per_device: bool  # False: hlo="lowered" on a mesh, the global program of all devices
    xla: Mapping[str, XlaCost]
    hlo_text: str = dataclasses.field(repr=False)
    total: Any = dataclasses.field(repr=False)  # roofline.Prediction of the module
    # What the collective plan did (roofline.hlo's collective_rewrites): all-reduces
    # costed as reduce-scatters, all-reduces combined, collectives timed over mesh axes
    collective_rewrites: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def collectives(self):
        return tuple(r for r in self.rows if r.group_size is not None)

    def top(self, n=10):
        """The n non-aggregate rows with the largest total floor (per execution x executions)."""
        leaves = [r for r in self.rows if not r.aggregate]
        return sorted(leaves, key=lambda r: r.t_lower_s * r.executions, reverse=True)[:n]


def _jax():
    try:
        import jax  # noqa: F401
    except ImportError as e:  # say what to do, not just what failed
        raise ImportError(
            "roofline.jax needs jax: pip install jax (the CPU wheel is enough; "
            "predictions for TPU chips are made from the CPU compiler's HLO)"
        ) from e
    return jax


def _mesh_from(jax, mesh):
    """None, a jax.sharding.Mesh, or {axis: size} -> a Mesh (or None)."""
    if mesh is None or isinstance(mesh, jax.sharding.Mesh):
        return mesh
    if not isinstance(mesh, Mapping) or not mesh:
        raise ValueError(f"mesh: expected None, a jax.sharding.Mesh or a dict of axis sizes like {{'data': 8}}, got {mesh!r}")
    names = tuple(str(k) for k in mesh)
    sizes = tuple(int(v) for v in mesh.values())
    if any(s < 1 for s in sizes):
        raise ValueError(f"mesh: every axis size must be positive, got {dict(mesh)!r}")
    need = math.prod(sizes)
    _ensure_cpu_devices(jax, need)
    devices = jax.devices("cpu")[:need]
    # Auto axes: XLA's partitioner propagates the given shardings, as jit did
    # before explicit sharding (jax.make_mesh's default is now Explicit, which
    # would turn with_sharding_constraint into an assertion on the types).
    auto = getattr(jax.sharding, "AxisType", None)
    kw = {"axis_types": (auto.Auto,) * len(sizes)} if auto is not None else {}
    return jax.make_mesh(sizes, names, devices=devices, **kw)


def _ensure_cpu_devices(jax, need):
    """Asks for `need` virtual CPU devices if the backend has not started yet;
    a clear error if it started with fewer (the count is fixed at start)."""
    from jax._src import xla_bridge

    if not xla_bridge.backends_are_initialized():
        current = jax.config.jax_num_cpu_devices
        if current is None or current < need:
            flags = os.environ.get("XLA_FLAGS", "")
            if "xla_force_host_platform_device_count" not in flags:
                jax.config.update("jax_num_cpu_devices", need)
    have = len(jax.devices("cpu"))
    if have < need:
        raise ValueError(
            f"mesh needs {need} devices but jax's CPU backend started with {have}; the count is fixed when "
            f"jax first uses a device, so set it before that: jax.config.update('jax_num_cpu_devices', {need}) "
            f"right after `import jax`, or XLA_FLAGS=--xla_force_host_platform_device_count={need} in the "
            f"environment"
        )


def _as_sharding(jax, mesh, spec):
    """PartitionSpecs (in pytrees) become NamedShardings on `mesh`."""
    P = jax.sharding.PartitionSpec

    def one(s):
        if isinstance(s, P):
            if mesh is None:
                raise ValueError("in_shardings/out_shardings: a PartitionSpec needs mesh= (a Mesh or {axis: size})")
            return jax.sharding.NamedSharding(mesh, s)
        return s

    return jax.tree_util.tree_map(one, spec, is_leaf=lambda x: isinstance(x, P) or x is None)


def _xla_cost(module, c):
    if isinstance(c, list):  # older jax: one dict per module
        c = c[0] if c else {}
    c = c or {}
    return XlaCost(module=module, flops=float(c.get("flops", 0.0)), transcendentals=float(c.get("transcendentals", 0.0)),
                   bytes_accessed=float(c.get("bytes accessed", 0.0)))


def _cost_of_text(jax, text):
    """XLA's HloCostAnalysis of an HLO text, through jaxlib's (private) bindings;
    None when this jaxlib lacks them."""
    try:
        from jax._src import xla_bridge
        from jax._src.lib import _jax
        import jaxlib._hlo as hlo_mod

        module = hlo_mod.hlo_module_from_text(text)
        return _jax.hlo_module_cost_analysis(xla_bridge.get_backend("cpu"), module)
    except Exception:  # an optional comparison: absent APIs must not break predict
        return None


def _partitioned_text(dump_dir):
    """The module after the SPMD partitioner, or before optimisation when no
    partitioner ran (one device: that module is already one device's)."""
    after = sorted(glob.glob(os.path.join(dump_dir, "*.after_spmd-partitioning.*.txt")))
    if after:
        return after[-1]
    before = sorted(glob.glob(os.path.join(dump_dir, "*.before_optimizations.txt")))
    if before:
        return before[-1]
    raise ValueError(f"predict: XLA wrote no partitioned or pre-optimisation module under {dump_dir}")


def hlo_text(fn, *args, mesh=None, hlo=DEFAULT_HLO, in_shardings=None, out_shardings=None, static_argnums=None,
             **kwargs):
    """The HLO text predict() would cost, with the jax objects it came from:
    (text, lowered, compiled, num_devices). `compiled` is None where the
    partitioned module came from the worker process, which stops before an
    executable exists."""
    if hlo not in HLO_FORMS:
        raise ValueError(f"hlo: expected one of {', '.join(HLO_FORMS)}, got {hlo!r}")
    jax = _jax()
    mesh_obj = _mesh_from(jax, mesh)
    jitted = fn
    if not hasattr(fn, "lower"):
        jit_kw = {}
        if in_shardings is not None:
            jit_kw["in_shardings"] = _as_sharding(jax, mesh_obj, in_shardings)
        if out_shardings is not None:
            jit_kw["out_shardings"] = _as_sharding(jax, mesh_obj, out_shardings)
        if static_argnums is not None:
            jit_kw["static_argnums"] = static_argnums
        jitted = jax.jit(fn, **jit_kw)
    elif in_shardings is not None or out_shardings is not None or static_argnums is not None:
        raise ValueError("in_shardings/out_shardings/static_argnums: fn is already jitted; give them to jax.jit instead")

    def lower():
        return jitted.lower(*args, **kwargs)

    # The partitioned module of a step on several devices comes from a worker
    # process that stops once the partitioner has written it (_jax_worker.py);
    # started before lowering so that its start overlaps the tracing.
    worker = None
    if hlo == "partitioned" and USE_WORKER and len(jax.devices("cpu")) > 1:
        worker = _jax_worker.start_worker(len(jax.devices("cpu")))
    try:
        if mesh_obj is not None and hasattr(jax, "set_mesh"):
            with jax.set_mesh(mesh_obj):  # lets fn use bare PartitionSpecs and shard_map without a mesh
                lowered = lower()
        else:
            lowered = lower()
        if worker is not None:
            got = _jax_worker.partitioned_text(worker, lowered, FAST_COMPILE_OPTIONS)
            if got is not None and got[1] > 1:
                return got[0], lowered, None, got[1]
    finally:
        _jax_worker.stop_worker(worker)
    dump_dir = tempfile.mkdtemp(prefix="roofline_jax_")
    try:
        if hlo == "compiled":
            compiled = lowered.compile()  # the CPU's own module, as jax compiles it by default
        else:
            options = dict(FAST_COMPILE_OPTIONS)
            if hlo == "partitioned":
                options.update(xla_dump_to=dump_dir, xla_dump_hlo_pass_re="spmd-partitioning")
            compiled = lowered.compile(compiler_options=options)
        if hlo == "partitioned":
            with open(_partitioned_text(dump_dir)) as f:
                text = f.read()
        elif hlo == "compiled":
            text = compiled.as_text()
        else:
            text = lowered.as_text(dialect="hlo")
    finally:
        shutil.rmtree(dump_dir, ignore_errors=True)
    shardings = [s for s in jax.tree_util.tree_leaves(compiled.input_shardings) if hasattr(s, "device_set")]
    num_devices = max((len(s.device_set) for s in shardings), default=1)
    return text, lowered, compiled, num_devices


def predict(fn, *args, chip="tpu-v5e", mesh=None, hlo=DEFAULT_HLO, calibration=None, in_shardings=None,
            out_shardings=None, static_argnums=None, **kwargs):
    """Predicted time, FLOPs, bytes and bound of every op of `fn(*args, **kwargs)`
    on `chip`, one device of `mesh`, from the CPU backend's HLO.

    fn: a function or a jitted one (then shardings go to jax.jit, not here).
    args: arrays or jax.ShapeDtypeStruct (with .sharding to shard an input).
    chip: a name, a spec path or a roofline.Chip.
    mesh: None, a jax.sharding.Mesh, or {axis: size} made of virtual CPU
      devices (set before jax starts its backend; a clear error otherwise).
    in_shardings/out_shardings: for jax.jit; PartitionSpecs are taken on mesh.
    hlo: which HLO to cost, one of HLO_FORMS (see the module docstring).
    calibration: as roofline.hlo (None: the built-in curves).
    """
    import roofline

    text, lowered, compiled, num_devices = hlo_text(fn, *args, mesh=mesh, hlo=hlo, in_shardings=in_shardings,
                                                    out_shardings=out_shardings, static_argnums=static_argnums,
                                                    **kwargs)
    per_device = not (hlo == "lowered" and num_devices > 1)
    if not per_device:
        warnings.warn(f"hlo='lowered' costs the global program of all {num_devices} devices (global shapes, no "
                      "collectives): its totals are not one device's; hlo='partitioned' (the default) is",
                      stacklevel=2)
    jax = _jax()
    target = chip if isinstance(chip, roofline.Chip) else roofline.chip(chip)
    result = roofline.hlo(text, target, calibration, mesh=_chip_mesh(roofline, jax, target, mesh) if per_device else None)
    rows = tuple(_row(r) for r in result.rows)
    xla = {"lowered": _xla_cost("lowered", lowered.cost_analysis())}
    if compiled is not None:  # None: the worker stopped before an executable existed
        xla["compiled"] = _xla_cost("compiled", compiled.cost_analysis())
    costed = _cost_of_text(jax, text)
    if costed is not None:
        xla["costed"] = _xla_cost("costed", costed)
    loops = tuple(LoopWarning(name=w.name, computation=w.computation, kind=w.kind, reason=w.reason)
                  for w in result.loop_warnings)
    for w in loops:
        what = ("trip count unknown (" + w.reason + "): its body is counted once per run"
                if w.kind == "trip_count_unknown" else w.reason)
        warnings.warn(f"while loop {w.name!r} in computation {w.computation!r}: {what}", stacklevel=2)
    t = result.total
    return JaxPrediction(chip=target.name, hlo=hlo, module=result.module, num_devices=num_devices,
                         calibration=result.calibration, rows=rows, flops=t.flops, transcendentals=t.transcendentals,
                         hbm_bytes=t.hbm_bytes, ici_bytes=t.ici_bytes, t_lower_s=t.t_lower_s, bound=t.bound,
                         expected_s=result.expected_s, unknown_cost_instructions=result.unknown_cost_instructions,
                         unknown_trip_count_loops=result.unknown_trip_count_loops, loop_warnings=loops,
                         hbm_bytes_unfused=result.unfused.hbm_bytes, t_lower_unfused_s=result.unfused.t_lower_s,
                         fusion_groups=result.fusion_groups, host_bytes=result.host_bytes,
                         per_device=per_device, xla=xla, hlo_text=text, total=t,
                         collective_rewrites=dict(result.collective_rewrites))


def _chip_mesh(roofline, jax, chip, mesh):
    """The mesh's axes laid on the chip's torus (roofline.Mesh), so each replica
    group is timed over the torus axes it spans; None without a mesh, or with a
    warning when the chip cannot hold it (groups are then one ring each)."""
    if mesh is None:
        return None
    sizes = dict(mesh.shape) if isinstance(mesh, jax.sharding.Mesh) else {str(k): int(v) for k, v in mesh.items()}
    try:
        return roofline.Mesh(chip, **{str(k): int(v) for k, v in sizes.items()})
    except (ValueError, TypeError) as e:
        warnings.warn(f"mesh {sizes} cannot be laid on {chip.name} ({e}); each replica group is timed as one ring",
                      stacklevel=3)
        return None


def _row(r):
    p = r.prediction
    return OpRow(name=r.name, opcode=r.opcode, category=r.category, shape=r.shape, executions=r.executions,
                 aggregate=r.aggregate, flops=p.flops, transcendentals=p.transcendentals, hbm_bytes=p.hbm_bytes,
                 ici_bytes=p.ici_bytes, t_math_s=p.t_math_s, t_hbm_s=p.t_hbm_s, t_ici_s=p.t_ici_s,
                 t_lower_s=p.t_lower_s, bound=p.bound, expected_s=r.expected_s, group_size=r.group_size,
                 notes=tuple(r.notes), hbm_bytes_unfused=r.hbm_bytes_unfused, fusion_group=r.fusion_group)


def report(profile_dir, **kwargs):
    """The report of a jax.profiler trace directory (or one .xplane.pb):
    roofline.report(profile_dir, **kwargs), which reads the trace and the HLO
    it embeds and sets each measured op beside its prediction."""
    from roofline._report import report as _report

    return _report(os.fspath(profile_dir), **kwargs)
