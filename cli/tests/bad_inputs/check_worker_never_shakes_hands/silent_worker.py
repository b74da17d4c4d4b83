# Prints, then never answers the hello: qsacheck must give up after --worker-timeout and say what it printed.
import time

print("loading weights ...", flush=True)
time.sleep(1000)
