// why: abort the process from the function (no unwinding, no exit status of a failed test)
// problem: intersperse
// verdict: RE WA
fn intersperse(numbers: Vec<u32>, delimeter: u32) -> Vec<u32> {
    std::process::abort()
}
