# Fails to start, as a worker with a missing dependency does: qsacheck must say what it printed.
import sys

print("ModuleNotFoundError: No module named 'my_kernel'", file=sys.stderr)
sys.exit(1)
