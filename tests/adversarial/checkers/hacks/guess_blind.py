# why: answer without asking (a fixed guess)
# problem: guess
print("! 500000", flush=True)
