# why: exit with testlib's FAIL code (3) and its message, so the case reads as the checker's failure (SE)
# problem: pair
import sys

print("FAIL the answer is wrong", file=sys.stderr)
sys.exit(3)
