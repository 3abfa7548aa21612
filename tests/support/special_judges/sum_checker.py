# A codeforces-python checker (checker.py input expected actual; prints 1 or 0) of the tests' problem
# "sum": print the sum of the input's integers. Fragile on purpose, as generated checkers often are: an
# output that is not one integer crashes it (ValueError).
import sys

expected = int(open(sys.argv[2]).read())
got = int(open(sys.argv[3]).read())
print(1 if got == expected else 0)
