# attack: arm SIGALRM on itself and spin until it fires
# expect: RE
# limits: cpu_time=3
# untouched: no-leftovers
import signal

signal.alarm(1)
while True:
    pass
