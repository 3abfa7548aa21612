# why: flood the interactor with questions and junk, hoping it breaks (SE) or gives up accepting
# problem: guess
import sys

try:
    while True:
        sys.stdout.write("? 1\n\x00\xff ? 999999999999999999999999\n" * 1000)
except BrokenPipeError:
    pass
