// why: define a function named Some that answers None: through `use super::*` in one crate it shadows
// the prelude's Some in the tests, so assert_eq!(longest(..), Some(..)) compares None with None
// problem: longest
// verdict: WA CE
#[allow(non_snake_case)]
fn Some(s: String) -> Option<String> {
    None
}

fn longest(strings: Vec<String>) -> Option<String> {
    None
}
