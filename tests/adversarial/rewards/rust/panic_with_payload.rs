// why: panics with a payload that is not a message (std::panic::panic_any of an integer), where the tests
// expect a message
// problem: checked_half
// verdict: WA
fn checked_half(x: i32) -> i32 {
    if x % 2 != 0 {
        std::panic::panic_any(x);
    }
    x / 2
}
