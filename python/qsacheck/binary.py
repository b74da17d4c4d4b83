"""Where the qsacheck program is: $QSACHECK, else `qsacheck` on PATH (docs/decisions.md, "Python
distribution": the package bundles no binary, since the one that matters is the build with the
user's CUDA and backends)."""

import os
import re
import shutil


class NotFound(RuntimeError):
    pass


def qsacheck_binary():
    named = os.environ.get("QSACHECK")
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            raise NotFound("QSACHECK=%s is not an executable file" % named)
        return named
    found = shutil.which("qsacheck")
    if found is None:
        raise NotFound("no qsacheck program: put it on PATH (cmake --install, the .deb) or set QSACHECK=/path/to/qsacheck")
    return found


_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")


def quote_command(args):
    """The worker command's quoting (docs/worker-protocol.md, "The command"): an argument of plain
    characters as it is, any other in single quotes (a quote inside as '\\''), which a POSIX shell
    reads the same way."""
    return " ".join(a if _PLAIN.fullmatch(a) else "'" + a.replace("'", "'\\''") + "'" for a in map(str, args))


def pasteable(command):
    """A command qsacheck printed ("qsacheck replay ..."), with the program as it was found, so it
    runs pasted where qsacheck is not on PATH (QSACHECK named it)."""
    if command.startswith("qsacheck ") and os.environ.get("QSACHECK"):
        return quote_command([qsacheck_binary()]) + command[len("qsacheck"):]
    return command
