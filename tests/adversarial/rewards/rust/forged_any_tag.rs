// why: write a forged reply onto the channel during the call, before the real one: a dyn Any whose tag
// names no type of the closed set (then an i32), hoping the tests' side rebuilds whatever the bytes say
// problem: dyn_any
// verdict: RE
use std::any::Any;
use std::io::Write;
use std::os::unix::io::FromRawFd;

fn forge(payload: &[u8]) {
    let mut channel = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(7) });
    let mut message = (payload.len() as u32).to_le_bytes().to_vec();
    message.extend_from_slice(payload);
    let _ = channel.write_all(&message);
}

fn filter_integers(values: Vec<Box<dyn Any>>) -> Vec<i32> {
    values.iter().filter_map(|v| v.downcast_ref::<i32>().copied()).collect()
}

fn describe(value: &dyn Any) -> String {
    if let Some(i) = value.downcast_ref::<i32>() { format!("i32 {}", i) }
    else if let Some(f) = value.downcast_ref::<f64>() { format!("f64 {}", f) }
    else if let Some(s) = value.downcast_ref::<&str>() { format!("str {}", s) }
    else if let Some(s) = value.downcast_ref::<String>() { format!("string {}", s) }
    else if let Some(l) = value.downcast_ref::<Vec<Box<dyn Any>>>() { format!("list of {}", l.len()) }
    else { "other".to_string() }
}

fn boxed(kind: u8) -> Box<dyn Any> {
    forge(&[0, 200, 7, 0, 0, 0]);
    Box::new(())
}
