"""The C++ reference in process, for unit tests of one's own kernel (docs/python-quickstart.md):
libqsacheck_capi.so (python/native) loaded with ctypes. Every result is the text `qsacheck eval`
prints for the same input (python.reference_calls_match_qsacheck_eval holds them byte-equal), so
this is the reference itself, never a second one in Python.

    from qsacheck import reference
    out = reference.metadata({"kind": "passthrough", "num_actual_tokens": 6, ...})   # SPEC 2
    out["slot_mapping"]          # a NumPy array; out["split"]: the seven numbers
    reference.assert_equal(out["slot_mapping"], mine, "slot_mapping")
    reference.compare_rows(expected_bf16, actual_bf16, "row-ulp:1").diff   # SPEC 6 tolerance

The library is found as $QSACHECK_CAPI, else beside the qsacheck program (build-*/bin) or in the
lib/ folder beside its bin/ (an installed prefix).
"""

import ctypes
import glob
import json
import os

import numpy as np

from .binary import qsacheck_binary

SPLIT_FIELDS = ("num_decodes", "num_decode_tokens", "num_prefills", "num_prefill_tokens", "max_query_len",
                "decode_query_len", "max_seq_len")
_METADATA_DTYPES = {"token_to_req": np.int32, "logical_positions": np.int64, "visible_blocks": np.int32,
                    "slot_mapping": np.int64}
_library = None

RANGE_FN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
CHANCE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64)
SEED_FN = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)


class ReferenceError(ValueError):
    """The input was refused: `error` is qsacheck's error object (field, index, rule, message)."""

    def __init__(self, error):
        super().__init__("%s (field %s, index %s, rule %s)" % (error.get("message"), error.get("field"),
                                                               error.get("index"), error.get("rule")))
        self.error = error


def library_path():
    named = os.environ.get("QSACHECK_CAPI")
    if named:
        return named
    folder = os.path.dirname(os.path.realpath(qsacheck_binary()))
    # Beside it (a build tree), or in the prefix's library folder (lib, lib64, lib/qsacheck where
    # `cmake --install` and the .deb put it, Debian's multiarch lib/<triplet>).
    for candidate in [os.path.join(folder, "libqsacheck_capi.so")] + sorted(
            glob.glob(os.path.join(folder, "..", "lib*", "libqsacheck_capi.so"))
            + glob.glob(os.path.join(folder, "..", "lib", "*", "libqsacheck_capi.so"))):
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    raise FileNotFoundError("no libqsacheck_capi.so beside %s: set QSACHECK_CAPI=/path/to/libqsacheck_capi.so" % folder)


def library():
    global _library
    if _library is None:
        lib = ctypes.CDLL(library_path())
        lib.qsa_capi_eval_metadata.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_eval_step.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_compare_rows.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                                              ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_spec_examples.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_draw_batch.argtypes = [RANGE_FN, CHANCE_FN, SEED_FN, ctypes.c_void_p, ctypes.c_char_p,
                                            ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_draw_invalid_batch.argtypes = lib.qsa_capi_draw_batch.argtypes
        lib.qsa_capi_generate_batch.argtypes = [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_int64,
                                                ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_eval_metadata_planted.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_scenario_steps.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_batch_coverage.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.qsa_capi_free.argtypes = [ctypes.c_void_p]
        _library = lib
    return _library


def _call(function, *args):
    """Calls a qsa_capi_* function; returns its text, or raises ReferenceError with its error."""
    lib = library()
    text = ctypes.c_void_p()
    code = getattr(lib, function)(*args, ctypes.byref(text))
    try:
        result = ctypes.string_at(text.value).decode() if text.value else ""
    finally:
        lib.qsa_capi_free(text)
    if code != 0:
        raise ReferenceError(json.loads(result))
    return result


def _text(value):
    return value if isinstance(value, str) else json.dumps(value)


def metadata_json(batch):
    """`qsacheck eval metadata`'s exact output for a batch (a dict or JSON text)."""
    return _call("qsa_capi_eval_metadata", _text(batch).encode())


def planted_metadata(name, batch):
    """SPEC 2 on a planted-bug backend of `qsacheck mutants` (CPU set, docs/planted-bugs.md; name as
    "bug:slot-int32-overflow"), as metadata() gives it: for showing that a test finds a bug."""
    return _metadata_arrays(json.loads(_call("qsa_capi_eval_metadata_planted", name.encode(), _text(batch).encode())))


def step_json(case, pooled=False):
    """`qsacheck eval step [--pooled]`'s exact output for a step input (a dict or JSON text)."""
    return _call("qsa_capi_eval_step", _text(case).encode(), 1 if pooled else 0)


def metadata(batch):
    """SPEC 2 on the reference: token_to_req, logical_positions, visible_blocks, slot_mapping and
    k_work_metadata ([K, 2]) as NumPy arrays of the protocol's dtypes, and split (a dict)."""
    return _metadata_arrays(json.loads(metadata_json(batch)))


def _metadata_arrays(raw):
    out = {name: np.asarray(raw[name], dtype) for name, dtype in _METADATA_DTYPES.items()}
    out["k_work_metadata"] = np.asarray(raw["k_work_metadata"], np.int32).reshape(-1, 2)
    out["split"] = {k: raw[k] for k in SPLIT_FIELDS}
    return out


def step(case, pooled=False):
    """SPEC 5 on the reference: step_status, q_out ([N, HQ, D] uint16 bf16 or uint8 fp8 patterns),
    and the cache rows after the step as lists (eval step's `ring`, `compressed`, `pooled`)."""
    raw = json.loads(step_json(case, pooled))
    dtype = np.uint8 if _text_field(case, "store_dtype") == "fp8_e4m3" else np.uint16
    raw["q_out"] = np.asarray(raw["q_out"], dtype)
    return raw


def _text_field(case, name):
    return (json.loads(case) if isinstance(case, str) else case).get(name)


def spec_examples():
    """The metadata inputs of SPEC 8's examples (dicts)."""
    return json.loads(_call("qsa_capi_spec_examples"))


def generated_batch(seed, kind=None, max_tokens=0):
    """Batch `seed` of the project's generator on its Rng: {"shape", "input"}."""
    return json.loads(_call("qsa_capi_generate_batch", int(seed), (kind or "").encode(), int(max_tokens)))


def scenario_steps(path, steps=20):
    """The first `steps` step inputs of a scenario file (a recorded trace, a reproducer) as the
    reference runs it: `eval step` inputs (dicts), each with the caches before its step."""
    return json.loads(_call("qsa_capi_scenario_steps", os.fsencode(path), int(steps)))


def batch_coverage(batches):
    """The input-space inventory's counters (docs/input-space.md) over metadata batches (dicts):
    [{"id", "scope", "count", "missed_edges"}] for every row a metadata batch can reach."""
    return json.loads(_call("qsa_capi_batch_coverage", json.dumps(list(batches)).encode()))


class Comparison:
    """equal; first_element (flat index, -1 when equal), count, unit, distance (row-ulps); diff: a
    readable description of the first unaccepted element."""

    def __init__(self, raw, expected, actual, width, name):
        self.__dict__.update(raw)
        self.diff = ""
        if not self.equal:
            row, column = divmod(self.first_element, width)
            e, a = expected.reshape(-1)[self.first_element], actual.reshape(-1)[self.first_element]
            self.diff = ("%s: %d %s; first at row %d, element %d: expected 0x%x, actual 0x%x (%s row-ulps)"
                         % (name, self.count, self.unit, row, column, int(e), int(a), self.distance))

    def __bool__(self):
        return bool(self.equal)


def compare_rows(expected, actual, tolerance="exact", name="output"):
    """SPEC 6's comparison (the project's, in C++) of two float outputs whose last axis is a row:
    uint16 arrays are bf16 patterns, uint8 arrays fp8 e4m3fn patterns (torch tensors too)."""
    from .kernel import _to_numpy

    expected, actual = np.ascontiguousarray(_to_numpy(expected)), np.ascontiguousarray(_to_numpy(actual))
    if expected.shape != actual.shape or expected.dtype != actual.dtype or expected.dtype not in (np.uint16, np.uint8):
        raise ValueError("%s: expected and actual need one shape and dtype uint16 (bf16) or uint8 (fp8): %s %s, %s %s"
                         % (name, expected.shape, expected.dtype, actual.shape, actual.dtype))
    width = expected.shape[-1] if expected.ndim else 1
    rows = expected.size // width if width else 0
    raw = json.loads(_call("qsa_capi_compare_rows", expected.ctypes.data, actual.ctypes.data, rows, width,
                           expected.itemsize, tolerance.encode()))
    return Comparison(raw, expected, actual, width, name)


def assert_equal(expected, actual, name="output"):
    """Exact equality of integer outputs (metadata), with the first differing index and the count."""
    from .kernel import _to_numpy

    expected, actual = np.asarray(_to_numpy(expected)), np.asarray(_to_numpy(actual))
    if expected.shape != actual.shape:
        raise AssertionError("%s: shape %s, expected %s" % (name, actual.shape, expected.shape))
    differ = np.argwhere(expected != actual)
    if len(differ):
        at = tuple(int(i) for i in differ[0])
        raise AssertionError("%s: %d elements differ; first at %s: expected %s, actual %s"
                             % (name, len(differ), at, expected[at], actual[at]))


def assert_metadata_matches(batch, actual):
    """Every output of `actual` (a kernel's metadata dict) equals the reference's for `batch`."""
    expected = metadata(batch)
    for name in list(_METADATA_DTYPES) + ["k_work_metadata"]:
        assert_equal(expected[name], actual[name], name)
    for key in SPLIT_FIELDS:
        if int(actual["split"][key]) != expected["split"][key]:
            raise AssertionError("split.%s: expected %d, actual %d" % (key, expected["split"][key], actual["split"][key]))


class _Batch:
    """A MetadataCall's attributes from a batch dict, for calling a kernel's metadata() directly."""


def metadata_call(batch):
    """A batch (dict or JSON text, `eval metadata`'s input) as the object a kernel's metadata()
    gets from the worker (qsacheck_worker.MetadataCall's attributes and dtypes), so a unit test
    calls the kernel and the reference on the same input."""
    raw = json.loads(batch) if isinstance(batch, str) else batch
    call = _Batch()
    call.kind = raw["kind"]
    call.compress_ratio = int(raw.get("compress_ratio", 1)) if raw["kind"] != "passthrough" else 1
    call.storage_block_size = int(raw.get("storage_block_size", 0))
    call.ring_capacity = int(raw.get("ring_capacity", 0))
    call.num_actual_tokens = int(raw["num_actual_tokens"])
    call.reorder_batch_threshold = int(raw.get("reorder_batch_threshold", 1))
    call.query_start_loc = np.asarray(raw["query_start_loc"], np.int32)
    call.seq_lens = np.asarray(raw["seq_lens"], np.int32)
    call.common_slot_mapping = np.asarray(raw["common_slot_mapping"], np.int64)
    rows = raw.get("block_table", [])
    call.block_table = np.asarray(rows, np.int32).reshape(len(rows), len(rows[0]) if rows else 0)
    return call
