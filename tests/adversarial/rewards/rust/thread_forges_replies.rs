// why: a thread that outlives the call and writes forged replies (true, and malformed bools) onto the
// channel, racing the real replies
// problem: has_close_elements
// verdict: RE WA
use std::io::Write;
use std::os::unix::io::FromRawFd;

fn has_close_elements(numbers: Vec<f32>, threshold: f32) -> bool {
    std::thread::spawn(|| {
        let mut channel = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(7) });
        loop {
            let _ = channel.write_all(&[2, 0, 0, 0, 0, 1]);
            let _ = channel.write_all(&[2, 0, 0, 0, 0, 7]);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    false
}
