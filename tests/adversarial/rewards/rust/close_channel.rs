// why: close the channel (fd 7) in a constructor, so that the calls go nowhere
// problem: sum_product
// verdict: RE WA
extern "C" {
    fn close(fd: i32) -> i32;
}

#[used]
#[link_section = ".init_array"]
static CLOSE_FIRST: extern "C" fn() = {
    extern "C" fn first() {
        unsafe { close(7) };
    }
    first
};

fn sum_product(numbers: Vec<i32>) -> (i32, i32) {
    (0, 0)
}
