"""Hypothesis strategies drawn through the project's own generator (traces/edge_batch_generator.hpp,
the one that also serves the campaign, RapidCheck and libFuzzer): its choice source is
Hypothesis itself (libqsacheck_capi.so's qsa_capi_draw_batch calls back here for every decision),
so every shape family of the generator is reachable and Hypothesis shrinks the generator's
decisions, which shrinks the batch. No second generator.

    from hypothesis import given, settings
    from qsacheck import reference, strategies

    @given(strategies.metadata_batches(kind="compressed"))
    def test_my_kernel(batch):
        reference.assert_metadata_matches(batch, MyKernel().metadata(reference.metadata_call(batch)))

Each decision shrinks toward its simplest value: an integer toward the range's low end (the
generator puts the small case there), a chance toward False, a bulk seed toward 0.
"""

import json

from hypothesis import strategies as st

from . import reference

_SEED_MAX = 2 ** 64 - 1


class _Draws:
    """The three callbacks over one Hypothesis `draw`. An exception inside a callback (Hypothesis
    ending a draw that ran out of data, say) cannot cross C++: it is kept, every later decision
    answers its low end, and it is raised again once the generator returns."""

    def __init__(self, draw):
        self.draw, self.error = draw, None
        self.range = reference.RANGE_FN(self._range)
        self.chance = reference.CHANCE_FN(self._chance)
        self.seed = reference.SEED_FN(self._seed)

    def _guard(self, function, fallback):
        if self.error is not None:
            return fallback
        try:
            return function()
        except BaseException as e:  # noqa: B902 (re-raised after the C++ call returns)
            self.error = e
            return fallback

    def _range(self, _context, lo, hi):
        return self._guard(lambda: self.draw(st.integers(lo, hi)), lo)

    def _chance(self, _context, numerator, denominator):
        # True for the top `numerator` of `denominator` values, so that shrinking toward 0 gives False.
        return self._guard(lambda: int(self.draw(st.integers(0, denominator - 1)) >= denominator - numerator), 0)

    def _seed(self, _context):
        return self._guard(lambda: self.draw(st.integers(0, _SEED_MAX)), 0)


def _drawn(draw, function, kind, max_tokens):
    draws = _Draws(draw)
    try:
        text = reference._call(function, draws.range, draws.chance, draws.seed, None, (kind or "").encode(),
                               int(max_tokens))
    except reference.ReferenceError:
        if draws.error is None:
            raise
        text = None
    if draws.error is not None:
        raise draws.error
    return json.loads(text)


@st.composite
def generated_batches(draw, kind=None, max_tokens=256):
    """{"shape": the generator's shape family, "input": an `eval metadata` batch}. kind:
    "compressed", "ring", "passthrough" or None (any); max_tokens bounds the rows with a request."""
    return _drawn(draw, "qsa_capi_draw_batch", kind, max_tokens)


@st.composite
def invalid_batches(draw, kind=None, max_tokens=256):
    """Batches that break one rule of SPEC 1.4 (the campaign's invalid-batch generator through the
    same choices): a kernel must refuse each with the reference's error (field, index, rule)."""
    return _drawn(draw, "qsa_capi_draw_invalid_batch", kind, max_tokens)["input"]


def metadata_batches(kind=None, max_tokens=256):
    """Valid metadata batches (dicts, `eval metadata`'s input) from the project's generator."""
    return generated_batches(kind, max_tokens).map(lambda batch: batch["input"])
