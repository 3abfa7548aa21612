"""Attack: the program binds a standard module's name to a *different* module (``import numpy as math``),
and the tests' ``math`` becomes T's numpy: ``math.isclose`` is then numpy.isclose (rtol 1e-5, atol 1e-8)
instead of math.isclose (rel_tol 1e-9), so an answer off by 3e-6 passes.

split.tests_namespace drops program names bound over a builtin, a standard module or an alias only when
they are Remotes (``class math``); a name bound to a module is always given T's copy of whichever module
the program named, so the program still chooses what ``math`` means to the expected side of the tests
(the hack README says earns nothing: "shadowing set or math").

Run: .venv/bin/python -m pytest tests/review_attacks/test_module_alias_swap.py
Judge gave: AC (the same program with a plain ``import math`` gets WA).
A correct judge gives WA: a name that is a standard module (or a conventional alias) means that module in
the tests, whatever the program bound it to.
"""

from __future__ import annotations

import judgebox
from judgebox import Case, Limits, Verdict

TEST = "assert math.isclose(area(1), 3.141592653589793)"


def test_math_bound_to_numpy_does_not_loosen_the_tests():
    program = "import numpy as math\ndef area(r):\n    return 3.1416 * r * r\n"
    honest = "import math\ndef area(r):\n    return 3.1416 * r * r\n"
    with judgebox.Judge(slots=1) as judge:
        assert judge.judge(honest, [Case.asserts(TEST)], limits=Limits(cpu_time=3)).verdict is Verdict.WA
        result = judge.judge(program, [Case.asserts(TEST)], limits=Limits(cpu_time=3))
    assert result.verdict is Verdict.WA, (result.verdict, result.cases[0].message)
