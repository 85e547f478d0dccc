"""How a user meets the package: `import roofline` alone gives roofline.jax and
roofline.torch without importing jax or torch; the README's Python lines run
as written; roofline.jax's fast compile leaves the partitioned module as it is."""

import os
import re
import subprocess
import sys

import pytest


def _run(code, cwd=None):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy(),
                          cwd=cwd)


def test_import_roofline_gives_jax_and_torch_lazily():
    # Before, `import roofline; roofline.jax` raised AttributeError (issue 36).
    code = ("import sys, roofline\n"
            "print('jax' in sys.modules, 'torch' in sys.modules)\n"
            "print(callable(roofline.jax.predict), callable(roofline.torch.report))\n"
            "print('jax' in sys.modules, 'torch' in sys.modules)\n"
            "print('jax' in dir(roofline), 'torch' in dir(roofline))\n")
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:4] == ["False False", "True True", "False False", "True True"]


def test_unknown_attribute_is_an_attribute_error():
    out = _run("import roofline\ntry:\n    roofline.nope\nexcept AttributeError as e:\n    print(e)\n")
    assert out.returncode == 0, out.stderr
    assert "module 'roofline' has no attribute 'nope'" in out.stdout


def readme_python(repo):
    """The README's Python block under its heading 'From Python'."""
    text = (repo / "README.md").read_text()
    section = re.split(r"\n#+ From Python\n", text, maxsplit=1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks, "README.md: no ```python block under 'From Python'"
    return blocks[0]


def test_readme_python_runs_as_written(repo):
    pytest.importorskip("jax", reason="the README's roofline.jax line needs jax (pip install jax)")
    code = readme_python(repo)
    # every name it uses is defined in it: no train_step or params from nowhere
    out = _run(code, cwd=repo)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("0.0893")  # 2 x 32768 x 8192 x 32768 / 1.97e14 = 89.3 ms
    assert re.fullmatch(r"[0-9.]+ ms a step, [\w-]+-bound", lines[-1]), lines[-1]


def test_worker_and_fast_compile_leave_the_partitioned_module_unchanged(monkeypatch):
    jax = pytest.importorskip("jax", reason="roofline.jax needs jax")
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    import roofline.jax as rj

    def step(w, x):
        h = jnp.tanh(x @ w)
        return w - 0.1 * jax.grad(lambda w: jnp.mean((jnp.tanh(x @ w) * h) ** 2))(w)

    S = jax.ShapeDtypeStruct
    args = (S((256, 256), jnp.bfloat16), S((64, 256), jnp.bfloat16))

    def text():
        t, _, compiled, n = rj.hlo_text(step, *args, mesh={"data": 8}, in_shardings=(P(), P("data")))
        assert n == 8
        return t, compiled

    from_worker, compiled = text()  # the default: a worker process that stops after the partitioner
    assert compiled is None  # no executable was made
    monkeypatch.setattr(rj, "USE_WORKER", False)
    fast, compiled = text()  # in-process, LLVM's optimisation off
    assert compiled is not None
    monkeypatch.setattr(rj, "FAST_COMPILE_OPTIONS", {})
    default, _ = text()  # jax's default compile, dumped the same way
    assert from_worker == fast == default
    assert "all-reduce" in default  # the gradient's: the partitioner did run


def test_worker_failure_falls_back_to_the_in_process_compile(monkeypatch):
    jax = pytest.importorskip("jax", reason="roofline.jax needs jax")
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    from roofline import _jax_worker
    import roofline.jax as rj

    # a worker that dies at once: the answer comes from the in-process compile
    monkeypatch.setattr(_jax_worker, "start_worker",
                        lambda n: __import__("subprocess").Popen([sys.executable, "-c", "raise SystemExit(5)"],
                                                                 stdin=__import__("subprocess").PIPE, text=True))
    S = jax.ShapeDtypeStruct
    t, _, compiled, n = rj.hlo_text(lambda a: a @ a.T, S((64, 32), jnp.float32), mesh={"data": 8},
                                    in_shardings=(P("data"),))
    assert compiled is not None and n == 8
    assert "all-gather" in t or "all-reduce" in t
