"""Test-suite settings.

Property tests are reproducible: the default hypothesis profile is derandomized (the same
examples on every run and machine, no example database), so a commit that changes nothing cannot
turn the suite red by luck. To let hypothesis explore new examples locally (and find new bugs):
``HYPOTHESIS_PROFILE=explore python -m pytest -q``; add what it finds as an explicit test.
"""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("reproducible", derandomize=True, database=None, deadline=None,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))
