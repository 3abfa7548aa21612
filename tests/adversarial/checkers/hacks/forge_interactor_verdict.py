# why: print the interactor's accepting message on stderr and exit 0 without playing
# problem: guess
import sys

sys.stderr.write("ok guessed 777 in 1 questions\n")
