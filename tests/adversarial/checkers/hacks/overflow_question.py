# why: a question the interactor cannot read as a number (beyond 64 bits), to crash it
# problem: guess
print("? 99999999999999999999999999999999", flush=True)
print(input(), flush=True)
