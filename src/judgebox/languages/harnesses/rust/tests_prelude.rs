// judgebox: the head of a Rust assert case's tests' crate (see judgebox/languages/rust_split/). The
// generated stubs and the tests follow; no program code is compiled into this crate.
#![allow(unused_imports, dead_code, unused_variables, unused_mut, non_snake_case, deprecated)]

mod judgebox_wire {
    include!("wire.rs");
}

// what HumanEval-X's tests find through `use super::*` in one crate (the program's prompt imports them);
// a glob import, so the tests' own imports and items take precedence
mod judgebox_prelude {
    pub use ::std::any::{Any, TypeId};
    pub use ::std::ascii::AsciiExt;
    pub use ::std::cmp::{self, max, min, Ordering};
    pub use ::std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
    pub use ::std::mem::replace;
    pub use ::std::ops::Index;
    pub use ::std::slice::Iter;
}
use judgebox_prelude::*;

// runs before main: nothing of the sandbox's uid may read this process's memory or descriptors (the
// program's process is also kept out by its nested Landlock domain)
#[used]
#[link_section = ".init_array"]
static JUDGEBOX_UNDUMPABLE: extern "C" fn() = {
    extern "C" {
        fn prctl(option: i32, ...) -> i32;
    }
    extern "C" fn undumpable() {
        const PR_SET_DUMPABLE: i32 = 4;
        if unsafe { prctl(PR_SET_DUMPABLE, 0u64, 0u64, 0u64, 0u64) } != 0 {
            judgebox_wire::fail("could not make the tests' process undumpable");
        }
    }
    undumpable
};
