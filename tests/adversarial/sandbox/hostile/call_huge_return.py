# attack: return a value larger than the output and file-size limits, through the harness's result fd
# expect: OLE RE
# kind: call
# call: f
# args: [2]
# returns: 4
# limits: output_bytes=1048576 file_size_bytes=1048576
# untouched: no-leftovers


def f(x):
    return "x" * (3 << 20)
