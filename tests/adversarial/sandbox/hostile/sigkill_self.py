# attack: SIGKILL itself after printing the right answer
# expect: RE
# untouched: no-leftovers
import os
import sys

print("blocked")
sys.stdout.flush()
os.kill(os.getpid(), 9)
