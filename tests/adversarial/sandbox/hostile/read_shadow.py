# attack: read the host's password hashes and other root-only files
# expect: AC
# untouched: canary
for path in ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/root/.bash_history", "/root/.ssh/id_rsa",
             "/proc/1/root/etc/shadow", "/proc/kcore"):
    try:
        with open(path, "rb") as f:
            print("LEAKED", path, f.read(64))
    except OSError:
        pass
print("blocked")
