# attack: leave a directory tree 3000 levels deep in the work folder for the zygote to clean up
# expect: AC
# untouched: slot-reusable no-leftovers
import os

for _ in range(3000):
    os.mkdir("d")
    os.chdir("d")
print("blocked")
