// why: a constructor (.init_array) that exits 0 before main and before any test runs
// problem: has_close_elements
// verdict: RE WA
#[used]
#[link_section = ".init_array"]
static EXIT_FIRST: extern "C" fn() = {
    extern "C" fn first() {
        std::process::exit(0)
    }
    first
};

fn has_close_elements(numbers: Vec<f32>, threshold: f32) -> bool {
    false
}
