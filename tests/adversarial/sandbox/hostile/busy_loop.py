# attack: busy loop
# expect: TLE
# limits: cpu_time=1
# untouched: no-leftovers
while True:
    pass
