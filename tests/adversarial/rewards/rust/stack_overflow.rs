// why: overflow the stack in the call, so that the process dies in the middle of the tests (the stack may
// grow as far as the memory limit, so the cgroup may stop it first: MLE, as RE would be, earns nothing)
// problem: by_length
// verdict: RE WA MLE
fn deeper(n: u64) -> u64 {
    let frame = [n; 64];
    let top = unsafe { std::ptr::read_volatile(&frame[7]) };
    top + deeper(n + 1)
}

fn by_length(arr: Vec<i32>) -> Vec<String> {
    deeper(0);
    vec![]
}
