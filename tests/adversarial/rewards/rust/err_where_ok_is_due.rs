// why: answer Err(..) carrying the expected value where Ok(..) is due (and Ok where Err is), hoping a
// Result crosses by its payload alone, or that a forged tag byte past Ok/Err reads as anything
// problem: results
// verdict: WA RE
use std::io::Write;
use std::os::unix::io::FromRawFd;

fn parse_num(s: &str) -> Result<i64, String> {
    Err(s.trim().to_string())
}

fn checked_div(a: i32, b: i32) -> Result<i32, &'static str> {
    if b == 0 { Ok(0) } else { Err("3") }
}

fn all_ok(xs: Vec<Result<i32, String>>) -> Result<Vec<i32>, String> {
    // a reply of a Result whose tag is neither Ok (0) nor Err (1)
    let mut channel = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(7) });
    let _ = channel.write_all(&[14, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    Err(String::new())
}
