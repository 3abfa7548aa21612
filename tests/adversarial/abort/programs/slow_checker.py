# A checker that names itself and then never answers: close(cancel=True) lands while it runs.
import ctypes

ctypes.CDLL(None).prctl(15, b"jbxab-checker", 0, 0, 0)
while True:
    pass
