# attack: look for files left by earlier runs of this slot (the hostile battery writes plenty), then leave some
# expect: AC
# untouched: no-leftovers
import os

for folder in ("/tmp", "/dev/shm"):
    for name in os.listdir(folder):
        print("LEFTOVER", folder, name)
    with open(f"{folder}/left-by-an-earlier-run", "w") as f:
        f.write("persist\n")
print("blocked")
