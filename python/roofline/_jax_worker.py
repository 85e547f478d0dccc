"""The partitioned module of a jax step without compiling it to machine code.

roofline.jax costs the module XLA's SPMD partitioner writes, which exists a
fraction of a second into XLA:CPU's compile; the rest of the compile (the
CPU's own passes, then code generation of every kernel) is most of its time,
and jaxlib has no way to stop after the partitioner. So the compile runs in a
worker process that exits as soon as the partitioned module is written:

  parent   jax lowers the step; the call jax makes to compile it
           (jax._src.compiler.backend_compile_and_load) is caught before it
           reaches XLA, and what it would compile (the StableHLO module as
           bytecode, the CompileOptions, the device ids) is written to a job
           folder;
  worker   this file run as a script (it imports jax only, not roofline),
           started before the parent lowers so that its start overlaps the
           tracing; it compiles the job with an xla_dump_to of the
           partitioner's pass and exits once that file is complete.

The module is byte-identical to the one an in-process compile dumps
(tests/python/test_package_entry.py). Anything unexpected (a jax without the
private hook, a persistent cache that answers, host callbacks, a backend that
is not the CPU, a worker that fails) returns None, and roofline.jax compiles
in-process instead: slower, never different.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

_DUMP_GLOB = "*.after_spmd-partitioning.*.txt"
_RESULT = "partitioned.txt"


class _Captured(Exception):
    """Raised in place of XLA's compile once its inputs are written."""


def start_worker(num_cpu_devices):
    """A worker process that waits for a job folder on its stdin (started
    early: importing jax there overlaps the parent's tracing)."""
    env = dict(os.environ)
    flags = [f for f in env.get("XLA_FLAGS", "").split() if not f.startswith("--xla_force_host_platform_device_count")]
    env["XLA_FLAGS"] = " ".join(flags + [f"--xla_force_host_platform_device_count={num_cpu_devices}"])
    env["JAX_PLATFORMS"] = "cpu"
    try:
        return subprocess.Popen([sys.executable, os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, text=True)
    except OSError:
        return None


def stop_worker(worker):
    if worker is not None and worker.poll() is None:
        worker.kill()
        worker.wait()


def partitioned_text(worker, lowered, options, timeout_s=3600):
    """(HLO text of the partitioned module, number of devices), or None when
    the worker path does not apply or fails (the caller compiles in-process).
    `options` are XLA debug options for the worker's compile."""
    if worker is None or worker.poll() is not None:
        return None
    try:
        from jax._src import compiler
        from jax._src.interpreters import mlir
    except ImportError:
        return None
    job = tempfile.mkdtemp(prefix="roofline_jax_")
    try:
        captured = _capture(compiler, mlir, lowered, job)
        if captured is None:
            return None
        with open(os.path.join(job, "overrides.txt"), "w") as f:
            for key, value in options.items():
                f.write(f"{key}\t{value}\n")
        try:
            worker.stdin.write(job + "\n")
            worker.stdin.close()
            worker.wait(timeout=timeout_s)
        except (OSError, subprocess.TimeoutExpired):
            return None
        result = os.path.join(job, _RESULT)
        if worker.returncode != 0 or not os.path.exists(result):
            return None
        with open(result) as f:
            return f.read(), captured
    finally:
        shutil.rmtree(job, ignore_errors=True)


def _capture(compiler, mlir, lowered, job):
    """Runs jax's compile of `lowered` up to the call into XLA and writes that
    call's inputs to `job`; the number of devices, or None."""
    real = getattr(compiler, "backend_compile_and_load", None)
    if real is None:
        return None
    me = threading.get_ident()
    seen = {}

    def capture(backend, module, executable_devices, options, host_callbacks, *args, **kwargs):
        if threading.get_ident() != me:  # another thread's compile: leave it alone
            return real(backend, module, executable_devices, options, host_callbacks, *args, **kwargs)
        if host_callbacks or getattr(backend, "platform", None) != "cpu":
            raise _Captured()  # seen stays empty: compile in-process
        with open(os.path.join(job, "module.mlirbc"), "wb") as f:
            f.write(mlir.module_to_bytecode(module))
        with open(os.path.join(job, "options.pb"), "wb") as f:
            f.write(options.SerializeAsString())
        ids = [d.id for d in executable_devices]
        with open(os.path.join(job, "devices.txt"), "w") as f:
            f.write(" ".join(str(i) for i in ids))
        seen["devices"] = len(ids)
        raise _Captured()

    compiler.backend_compile_and_load = capture
    try:
        lowered.compile()
    except _Captured:
        pass
    except Exception:  # noqa: BLE001  an error of jax's own: the in-process path reports it
        return None
    finally:
        compiler.backend_compile_and_load = real
    return seen.get("devices")


def _worker_main():
    """Reads a job folder from stdin, compiles its module with a dump of the
    partitioner's pass, and exits 0 once that dump is complete (renamed to
    partitioned.txt), 3 if the compile ends without it."""
    job = sys.stdin.readline().strip()
    if not job:
        os._exit(2)
    import jax
    from jax._src.lib import xla_client as xc

    with open(os.path.join(job, "module.mlirbc"), "rb") as f:
        module = f.read()
    with open(os.path.join(job, "options.pb"), "rb") as f:
        options = xc.CompileOptions.ParseFromString(f.read())
    with open(os.path.join(job, "devices.txt")) as f:
        ids = [int(x) for x in f.read().split()]
    dump = os.path.join(job, "dump")
    overrides = list(options.env_option_overrides)
    with open(os.path.join(job, "overrides.txt")) as f:
        for line in f:
            key, value = line.rstrip("\n").split("\t")
            overrides.append((key, int(value) if value.lstrip("-").isdigit() else value))
    overrides += [("xla_dump_to", dump), ("xla_dump_hlo_pass_re", "spmd-partitioning")]
    options.env_option_overrides = overrides
    by_id = {d.id: d for d in jax.devices("cpu")}
    devices = xc.DeviceList(tuple(by_id[i] for i in ids))
    backend = jax.devices("cpu")[0].client
    failed = []

    def compile_it():
        try:
            backend.compile_and_load(module, executable_devices=devices, compile_options=options)
        except Exception as e:  # noqa: BLE001  reported by the exit code; the parent recompiles in-process
            failed.append(e)

    thread = threading.Thread(target=compile_it, daemon=True)
    thread.start()
    while True:
        found = sorted(glob.glob(os.path.join(dump, _DUMP_GLOB)))
        if found:
            # XLA writes a dump in one piece; a size that holds and a closing
            # brace say it is whole.
            size = os.path.getsize(found[-1])
            time.sleep(0.02)
            if size > 0 and os.path.getsize(found[-1]) == size:
                with open(found[-1]) as f:
                    whole = f.read().rstrip().endswith("}")
                if whole:
                    os.rename(found[-1], os.path.join(job, _RESULT))
                    sys.stderr.flush()
                    os._exit(0)  # the compile thread is abandoned mid-way, on purpose
        elif not thread.is_alive():
            os._exit(3)
        time.sleep(0.01)


if __name__ == "__main__":
    # Run as a script, this file's folder (the roofline package, with its
    # jax.py) heads sys.path and would shadow the jax package.
    # Python resolves a symlinked script's folder (the build tree links it).
    here = {os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.realpath(__file__))}
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) not in here
                   and os.path.abspath(p or os.curdir) not in here]
    _worker_main()
