"""The frames and the shared memory of docs/worker-protocol.md, with the standard library only.

qsacheck starts a worker with its requests on fd 3, the worker's replies on fd 4 and the shared
memory (a memfd) on fd 5. A frame is the magic b"QSAW", the JSON text's length as a little-endian
uint32, then the JSON text (UTF-8). Buffers never cross the pipes: they lie in the shared memory,
described in the JSON by offset, bytes, dtype, shape and strides.
"""

import json
import mmap
import os
import struct

PROTOCOL = 2  # qsacheck accepts 1 (no constraints, no deviations) and 2
MAGIC = b"QSAW"
MAX_FRAME = 1 << 20
REQUEST_FD, REPLY_FD, SHM_FD = 3, 4, 5


class ProtocolError(Exception):
    """qsacheck sent something this module cannot read (never happens with a correct qsacheck)."""


def _read_exactly(fd, n):
    chunks = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 16))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd=REQUEST_FD):
    """The next request as a dict, or None when qsacheck closed the pipe."""
    head = _read_exactly(fd, 8)
    if head is None:
        return None
    if head[:4] != MAGIC:
        raise ProtocolError("a request without the frame magic")
    (length,) = struct.unpack("<I", head[4:])
    if length == 0 or length > MAX_FRAME:
        raise ProtocolError("a request of %d header bytes" % length)
    body = _read_exactly(fd, length)
    if body is None:
        return None
    return json.loads(body.decode("utf-8"))


def frame(message):
    """The bytes of one frame holding `message` (a dict)."""
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return MAGIC + struct.pack("<I", len(body)) + body


def write_frame(message, fd=REPLY_FD):
    data = frame(message)
    while data:
        n = os.write(fd, data)
        data = data[n:]


class SharedMemory:
    """The mapping of fd 5, mapped again when a request's shm_bytes exceeds it (it only grows)."""

    def __init__(self, fd=SHM_FD):
        self.fd = fd
        self.map = None
        self.size = 0

    def ensure(self, size):
        if size <= self.size:
            return
        old = self.map
        self.map = mmap.mmap(self.fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.size = size
        if old is not None:
            try:
                old.close()
            except BufferError:  # arrays of an earlier call still point into it; it goes with them
                pass
