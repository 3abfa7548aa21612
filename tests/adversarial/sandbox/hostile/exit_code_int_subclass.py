# attack: leave with an int subclass as the exit code whose & operator raises, where the harness masks the status
# expect: AC RE


class Code(int):
    def __and__(self, other):
        raise ValueError("no masking today")


print("blocked")
raise SystemExit(Code(0))
