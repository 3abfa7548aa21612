# attack: in a run's own folder at an absolute path, links and renames that lead a fetch or a later run out of it: a
#   symlink to a host file, a hard link across mounts, moving the folder's contents into the work folder
# expect: AC
# untouched: host-tmp canary
import os

top = "/mnt"
# only in a run that declared /mnt (tests/server/test_server_abs_paths.py); elsewhere nothing to attack
if os.path.isdir(top):
    for name, target in (("passwd", "/etc/passwd"), ("environ", "/proc/1/environ"), ("root", "/")):
        try:
            os.symlink(target, f"{top}/{name}")
        except OSError as exc:
            print("LEAKED symlink refused unexpectedly", name, exc)
    for source in ("/etc/hostname", "/usr/bin/python3"):
        try:
            os.link(source, f"{top}/hard")
            print("WROTE hard link", source)
        except OSError:
            pass
    try:
        os.rename(top, "/tmp/moved")
        print("WROTE renamed the folder's mount point")
    except OSError:
        pass
    with open(f"{top}/note", "w") as f:
        f.write("only this run\n")
print("blocked")
