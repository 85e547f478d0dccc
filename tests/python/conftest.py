"""Shared fixtures of the pytest suite (tests/python).

CTest runs it on the build tree's package (PYTHONPATH=build/python, the CLI
in ROOFLINE_CLI); `pytest tests/python` on an installed package works too.
"""

import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED_REAL = REPO.parent / "shared" / "data" / "real"

# test_jax.py shards over 8 virtual CPU devices; jax fixes the count when its backend starts.
if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def real_data():
    """../shared/data/real, or a skip that says it is absent."""
    if not SHARED_REAL.is_dir():
        pytest.skip(f"{SHARED_REAL} is absent: the real-profile tests need ../shared beside the repository")
    return SHARED_REAL


@pytest.fixture(scope="session")
def cli():
    """The roofline command this package was built with."""
    path = os.environ.get("ROOFLINE_CLI") or shutil.which("roofline")
    if not path or not os.path.exists(path):
        pytest.skip("no roofline command (set ROOFLINE_CLI, or pip install . puts it on PATH)")
    return path
