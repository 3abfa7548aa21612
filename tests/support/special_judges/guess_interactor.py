# The interactor of the tests' problem "guess" in Python, with testlib's exit codes (0 OK, 1 WA, 2 PE):
# an interactor needs no testlib.h, only its protocol.
import sys

secret = int(open(sys.argv[1]).read())
for asked in range(26):
    words = sys.stdin.readline().split()
    if len(words) != 2 or words[0] not in ("?", "!") or not words[1].isdigit():
        print(f"expected ? or ! and a number, got {words[:2]}", file=sys.stderr)
        sys.exit(2)
    if words[0] == "!":
        print("guessed" if int(words[1]) == secret else "the number was", secret, file=sys.stderr)
        sys.exit(0 if int(words[1]) == secret else 1)
    if asked == 25:
        sys.exit(1)
    x = int(words[1])
    print("<" if secret < x else ">" if secret > x else "=", flush=True)
