# attack: write at absolute paths no request declared (SandboxFusion's /mnt, /data, /workspace, /home): make the top
#   folder, or a file in it, for a later run to find
# expect: AC
# untouched: host-tmp canary
import os

for folder in ("/mnt", "/data", "/workspace", "/home", "/opt", "/srv", "/media", "/root"):
    try:
        os.makedirs(folder + "/{MARKER}", exist_ok=True)
        print("WROTE", folder)
    except OSError:
        pass
    try:
        with open(os.path.join(folder, "{MARKER}.txt"), "w") as f:
            f.write("left for the next run\n")
        print("WROTE", folder)
    except OSError:
        pass
    if os.path.lexists(folder):
        print("LEAKED", folder, "exists in the sandbox's root")
print("blocked")
