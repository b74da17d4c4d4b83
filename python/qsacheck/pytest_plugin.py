"""The pytest plugin (entry point pytest11, loaded by every pytest run of an environment where the
distribution is installed): the fixture `qsacheck_campaign`.

    def test_my_kernel(qsacheck_campaign):
        qsacheck_campaign(MyKernel, workload="default", seed=1)

runs `qsacheck check --json -` (qsacheck.campaign.run_campaign's arguments; preset "ci" unless
another is named) and fails on a finding with the finding, the reproducer's path and the replay
command; the reproducers go to the test's tmp_path. The replay command and the seed also become
the test's JUnit properties (pytest --junitxml).
"""

import warnings

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "qsacheck: a test that runs a qsacheck campaign (set by the fixture)")


@pytest.fixture
def qsacheck_campaign(request, tmp_path):
    from .binary import NotFound, pasteable
    from .campaign import run_campaign

    request.node.add_marker("qsacheck")

    def campaign(backend, **options):
        options.setdefault("out", str(tmp_path))
        try:
            result = run_campaign(backend, **options)
        except NotFound as e:
            pytest.fail(str(e), pytrace=False)
        for finding in result.findings:
            request.node.user_properties.append(("qsacheck_replay", pasteable(finding.get("replay") or "")))
            request.node.user_properties.append(("qsacheck_reproducer", finding.get("reproducer", "")))
        if result.returncode == 3:
            warnings.warn("qsacheck: passed, but something did not run (exit 3):\n" + result.stderr[-1500:])
        elif result.returncode != 0:
            pytest.fail(result.describe(), pytrace=False)
        return result

    return campaign
