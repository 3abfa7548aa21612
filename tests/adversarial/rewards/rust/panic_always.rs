// why: panics on every call, hoping the tests that expect a panic carry the rest
// problem: checked_half
// verdict: WA
fn checked_half(x: i32) -> i32 {
    panic!("odd: {}", x)
}
