# attack: a 4 MB program of a million trivial statements (x=1): compiling it needs ~1.4 GiB and ~4 s of CPU
# expect: CE MLE TLE
# limits: memory_mb=256
# repeat: 1000000
# untouched: slot-reusable
x=1
