"""The parts of scripts/capture_gpu_profiles.py: the cases it captures
(cases.py) and the per-framework runners that capture them (runners.py)."""
