"""Writes tests/data/trace/jax_steps.{xplane.pb,trace.json.gz}: a jax CPU
profile of four steps marked with jax.profiler.StepTraceAnnotation("train",
step_num=i), for roofline stats --by step (tests/report/steps_test.cc).

    .venv/bin/python scripts/jax_steps_fixture.py   # jax 0.10.2 wrote the committed files
"""
import glob
import os
import shutil
import tempfile

import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    return jnp.tanh(x @ x).sum() * x


def main():
    x = jnp.ones((256, 256))
    step(x).block_until_ready()  # compiled outside the profile
    out = tempfile.mkdtemp()
    jax.profiler.start_trace(out)
    for i in range(4):
        with jax.profiler.StepTraceAnnotation("train", step_num=i):
            x = step(x)
            x.block_until_ready()
    jax.profiler.stop_trace()
    data = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "trace")
    shutil.copy(glob.glob(os.path.join(out, "plugins/profile/*/*.xplane.pb"))[0], os.path.join(data, "jax_steps.xplane.pb"))
    shutil.copy(glob.glob(os.path.join(out, "plugins/profile/*/*.trace.json.gz"))[0],
                os.path.join(data, "jax_steps.trace.json.gz"))


if __name__ == "__main__":
    main()
