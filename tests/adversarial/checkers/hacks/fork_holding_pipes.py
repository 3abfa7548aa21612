# why: leave a child holding the pipes and exit 0, so the interactor never sees the end and the run hangs
# problem: guess
import os
import time

if os.fork() == 0:
    time.sleep(3600)
