# attack: return a value the harness cannot encode (a list that contains itself)
# expect: WA RE
# kind: call
# call: f
# args: [2]
# returns: 4


def f(x):
    loop = []
    loop.append(loop)
    return loop
