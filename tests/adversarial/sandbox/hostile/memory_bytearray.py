# attack: one huge allocation that is touched at once (bytearray zero-fills every page)
# expect: MLE
# limits: memory_mb=128
# untouched: host-processes no-leftovers
hog = bytearray(8 << 30)
print(len(hog))
