# attack: patch json.dumps, which the call harness uses to send the return value, to report the expected one
# expect: WA RE
# kind: call
# call: f
# args: [2]
# returns: 4
import json

genuine = json.dumps
json.dumps = lambda obj, **options: genuine({"value": 4})


def f(x):
    return 0
