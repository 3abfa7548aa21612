# attack: gradual memory growth, 1 MiB at a time, never freed
# expect: MLE
# limits: memory_mb=128 cpu_time=5
# untouched: host-processes no-leftovers
hog = []
while True:
    hog.append(bytearray(1 << 20))
