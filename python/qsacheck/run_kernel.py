"""python3 -m qsacheck.run_kernel module:Class [--kwargs JSON]: the class as a qsacheck worker
(qsacheck.kernel). qsacheck starts it: `qsacheck check --backend worker:"python3 -m
qsacheck.run_kernel my_kernels:MyKernel"`."""

import argparse
import json
import sys

from qsacheck_worker import protocol

from .kernel import load, serve_class


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m qsacheck.run_kernel", description=__doc__.split("\n")[0])
    parser.add_argument("kernel", help="module:Class or path/file.py:Class")
    parser.add_argument("--kwargs", default="{}", help="JSON object: the class's constructor arguments")
    args = parser.parse_args(argv)
    try:
        code = serve_class(load(args.kernel), json.loads(args.kwargs))
    except (protocol.ProtocolError, BrokenPipeError, OSError) as e:
        print("qsacheck.run_kernel: %s" % e, file=sys.stderr)
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
