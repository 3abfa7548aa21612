// judgebox: the values of a Rust assert case between its two processes (see
// judgebox/languages/rust_split/). Both sides include this file as a module: the program's side (the
// program and a generated dispatcher) serves calls with `serve`; the tests' side (the tests and generated
// stubs) makes them with `call`. Messages on the channel (fd 7) are a u32 length and a payload; a request
// is a function's index and its arguments; a reply is a status byte (0: the result; 1: the function
// panicked, then its message, which the tests' side panics with again). Values are encoded by their static type, which both sides spell alike
// from the same signature; the tests' side trusts nothing it reads: lengths are checked against what is
// left of the message, bools are 0 or 1, chars are Unicode scalar values, strings UTF-8, a map's or a
// set's keys distinct, integers fit their type, an Option's or a Result's tag 0 or 1. A `&str` inside a
// value is decoded as a leaked String (`&'static str`). A `dyn Any` (`Box<dyn Any>`, `&dyn Any`) crosses
// as a tag naming its concrete type, one of the closed list of `judgebox_any!` below, then that value: it
// is rebuilt as a new Box of that type (an unknown tag is malformed; nesting is bounded); no code and no
// vtable crosses, only the tag of a type this file names.
use std::any::Any;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::io::{Read, Write};

const CHANNEL: i32 = 7;
const MAX_MESSAGE: usize = 256 << 20;
const MAX_DEPTH: u32 = 64; // dyn Any values in dyn Any values, values of the program's types in one another

pub type Malformed = &'static str;

pub struct Reader {
    data: Vec<u8>,
    at: usize,
    depth: u32,
}

impl Reader {
    pub fn take(&mut self, n: usize) -> Result<&[u8], Malformed> {
        if n > self.data.len() - self.at {
            return Err("a value runs past the end of its message");
        }
        self.at += n;
        Ok(&self.data[self.at - n..self.at])
    }
    fn count(&mut self) -> Result<usize, Malformed> {
        let n = u64::get(self)?;
        if n > (self.data.len() - self.at) as u64 {
            return Err("more elements than the message holds");
        }
        Ok(n as usize)
    }
    /// Into a value whose type may hold itself (a dyn Any, a program's type): nesting is bounded.
    pub fn enter(&mut self) -> Result<(), Malformed> {
        if self.depth >= MAX_DEPTH {
            return Err("values nested too deeply");
        }
        self.depth += 1;
        Ok(())
    }
    pub fn leave(&mut self) { self.depth -= 1 }
    pub fn finish(&self) -> Result<(), Malformed> {
        if self.at != self.data.len() {
            return Err("bytes left over after the values");
        }
        Ok(())
    }
}

pub trait Put {
    fn put(&self, w: &mut Vec<u8>);
}

pub trait Get: Sized {
    fn get(r: &mut Reader) -> Result<Self, Malformed>;
}

macro_rules! judgebox_numbers {
    ($($t:ty),*) => {$(
        impl Put for $t {
            fn put(&self, w: &mut Vec<u8>) { w.extend_from_slice(&self.to_le_bytes()); }
        }
        impl Get for $t {
            fn get(r: &mut Reader) -> Result<Self, Malformed> {
                let mut bytes = [0u8; std::mem::size_of::<$t>()];
                bytes.copy_from_slice(r.take(std::mem::size_of::<$t>())?);
                Ok(<$t>::from_le_bytes(bytes))
            }
        }
    )*};
}
judgebox_numbers!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, f32, f64);

impl Put for usize {
    fn put(&self, w: &mut Vec<u8>) { (*self as u64).put(w) }
}
impl Get for usize {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        usize::try_from(u64::get(r)?).map_err(|_| "a usize out of range")
    }
}
impl Put for isize {
    fn put(&self, w: &mut Vec<u8>) { (*self as i64).put(w) }
}
impl Get for isize {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        isize::try_from(i64::get(r)?).map_err(|_| "an isize out of range")
    }
}
impl Put for bool {
    fn put(&self, w: &mut Vec<u8>) { w.push(*self as u8) }
}
impl Get for bool {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        match u8::get(r)? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err("a bool that is neither 0 nor 1"),
        }
    }
}
impl Put for char {
    fn put(&self, w: &mut Vec<u8>) { (*self as u32).put(w) }
}
impl Get for char {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        char::from_u32(u32::get(r)?).ok_or("a char that is not a Unicode scalar value")
    }
}
impl Put for () {
    fn put(&self, _w: &mut Vec<u8>) {}
}
impl Get for () {
    fn get(_r: &mut Reader) -> Result<Self, Malformed> { Ok(()) }
}
impl Put for str {
    fn put(&self, w: &mut Vec<u8>) {
        (self.len() as u64).put(w);
        w.extend_from_slice(self.as_bytes());
    }
}
impl Put for String {
    fn put(&self, w: &mut Vec<u8>) { self.as_str().put(w) }
}
impl Get for String {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        let n = r.count()?;
        String::from_utf8(r.take(n)?.to_vec()).map_err(|_| "a string that is not UTF-8")
    }
}
impl<T: Put + ?Sized> Put for &T {
    fn put(&self, w: &mut Vec<u8>) { (**self).put(w) }
}
impl<T: Put + ?Sized> Put for Box<T> {
    fn put(&self, w: &mut Vec<u8>) { (**self).put(w) }
}
impl Get for &'static str {
    fn get(r: &mut Reader) -> Result<Self, Malformed> { Ok(Box::leak(String::get(r)?.into_boxed_str())) }
}
impl<T: Put> Put for [T] {
    fn put(&self, w: &mut Vec<u8>) {
        (self.len() as u64).put(w);
        for item in self {
            item.put(w);
        }
    }
}
impl<T: Put> Put for Vec<T> {
    fn put(&self, w: &mut Vec<u8>) { self.as_slice().put(w) }
}
impl<T: Get> Get for Vec<T> {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        let n = r.count()?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(T::get(r)?);
        }
        Ok(out)
    }
}
impl<T: Put> Put for VecDeque<T> {
    fn put(&self, w: &mut Vec<u8>) {
        (self.len() as u64).put(w);
        for item in self {
            item.put(w);
        }
    }
}
impl<T: Get> Get for VecDeque<T> {
    fn get(r: &mut Reader) -> Result<Self, Malformed> { Ok(Vec::get(r)?.into()) }
}
impl<T: Put, const N: usize> Put for [T; N] {
    fn put(&self, w: &mut Vec<u8>) {
        for item in self {
            item.put(w);
        }
    }
}
impl<T: Get, const N: usize> Get for [T; N] {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        let mut items = Vec::with_capacity(N);
        for _ in 0..N {
            items.push(T::get(r)?);
        }
        items.try_into().map_err(|_| "an array of the wrong length")
    }
}
impl<T: Put> Put for Option<T> {
    fn put(&self, w: &mut Vec<u8>) {
        match self {
            None => w.push(0),
            Some(v) => {
                w.push(1);
                v.put(w);
            }
        }
    }
}
impl<T: Get> Get for Option<T> {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        Ok(if bool::get(r)? { Some(T::get(r)?) } else { None })
    }
}
impl<T: Put, E: Put> Put for Result<T, E> {
    fn put(&self, w: &mut Vec<u8>) {
        match self {
            Ok(v) => {
                w.push(0);
                v.put(w);
            }
            Err(e) => {
                w.push(1);
                e.put(w);
            }
        }
    }
}
impl<T: Get, E: Get> Get for Result<T, E> {
    fn get(r: &mut Reader) -> Result<Self, Malformed> {
        Ok(if bool::get(r)? { Err(E::get(r)?) } else { Ok(T::get(r)?) })
    }
}

// the concrete types a dyn Any may hold, each with its tag; nothing else crosses as a dyn Any
macro_rules! judgebox_any {
    ($($tag:literal => $t:ty),* $(,)?) => {
        impl Put for dyn Any {
            fn put(&self, w: &mut Vec<u8>) {
                $(
                    if let Some(v) = self.downcast_ref::<$t>() {
                        w.push($tag);
                        return v.put(w);
                    }
                )*
                panic!("judgebox: a dyn Any holding a type that cannot cross between the processes (it may hold \
                        (), bool, char, an integer, f32, f64, String, &'static str, Box<dyn Any>, or a Vec or an \
                        Option of one of those)")
            }
        }
        impl Get for Box<dyn Any> {
            fn get(r: &mut Reader) -> Result<Self, Malformed> {
                r.enter()?;
                let value: Result<Box<dyn Any>, Malformed> = match u8::get(r)? {
                    $($tag => <$t as Get>::get(r).map(|v| Box::new(v) as Box<dyn Any>),)*
                    _ => Err("a dyn Any of an unknown type tag"),
                };
                r.leave();
                value
            }
        }
    };
}
judgebox_any!(
    0 => (), 1 => bool, 2 => char, 3 => i8, 4 => i16, 5 => i32, 6 => i64, 7 => i128, 8 => isize, 9 => u8,
    10 => u16, 11 => u32, 12 => u64, 13 => u128, 14 => usize, 15 => f32, 16 => f64, 17 => String,
    18 => &'static str, 19 => Box<dyn Any>,
    20 => Vec<Box<dyn Any>>, 21 => Vec<bool>, 22 => Vec<char>, 23 => Vec<i32>, 24 => Vec<i64>, 25 => Vec<u32>,
    26 => Vec<u64>, 27 => Vec<usize>, 28 => Vec<f32>, 29 => Vec<f64>, 30 => Vec<String>, 31 => Vec<&'static str>,
    32 => Vec<u8>, 33 => Vec<isize>,
    40 => Option<Box<dyn Any>>, 41 => Option<bool>, 42 => Option<char>, 43 => Option<i32>, 44 => Option<i64>,
    45 => Option<u32>, 46 => Option<u64>, 47 => Option<usize>, 48 => Option<f32>, 49 => Option<f64>,
    50 => Option<String>, 51 => Option<&'static str>, 52 => Option<u8>, 53 => Option<isize>,
);

macro_rules! judgebox_maps {
    ($map:ident, $($bound:path),*) => {
        impl<K: Put, V: Put> Put for $map<K, V> {
            fn put(&self, w: &mut Vec<u8>) {
                (self.len() as u64).put(w);
                for (k, v) in self {
                    k.put(w);
                    v.put(w);
                }
            }
        }
        impl<K: Get $(+ $bound)*, V: Get> Get for $map<K, V> {
            fn get(r: &mut Reader) -> Result<Self, Malformed> {
                let n = r.count()?;
                let mut out = $map::new();
                for _ in 0..n {
                    let k = K::get(r)?;
                    if out.insert(k, V::get(r)?).is_some() {
                        return Err("a map with a key twice");
                    }
                }
                Ok(out)
            }
        }
    };
}
judgebox_maps!(HashMap, Eq, Hash);
judgebox_maps!(BTreeMap, Ord);

macro_rules! judgebox_sets {
    ($set:ident, $($bound:path),*) => {
        impl<T: Put> Put for $set<T> {
            fn put(&self, w: &mut Vec<u8>) {
                (self.len() as u64).put(w);
                for item in self {
                    item.put(w);
                }
            }
        }
        impl<T: Get $(+ $bound)*> Get for $set<T> {
            fn get(r: &mut Reader) -> Result<Self, Malformed> {
                let n = r.count()?;
                let mut out = $set::new();
                for _ in 0..n {
                    if !out.insert(T::get(r)?) {
                        return Err("a set with an element twice");
                    }
                }
                Ok(out)
            }
        }
    };
}
judgebox_sets!(HashSet, Eq, Hash);
judgebox_sets!(BTreeSet, Ord);

macro_rules! judgebox_tuples {
    ($(($($name:ident),+)),*) => {$(
        impl<$($name: Put),+> Put for ($($name,)+) {
            #[allow(non_snake_case)]
            fn put(&self, w: &mut Vec<u8>) {
                let ($($name,)+) = self;
                $($name.put(w);)+
            }
        }
        impl<$($name: Get),+> Get for ($($name,)+) {
            fn get(r: &mut Reader) -> Result<Self, Malformed> { Ok(($($name::get(r)?,)+)) }
        }
    )*};
}
judgebox_tuples!((A), (A, B), (A, B, C), (A, B, C, D), (A, B, C, D, E), (A, B, C, D, E, F),
                 (A, B, C, D, E, F, G), (A, B, C, D, E, F, G, H));

// -- the channel --------------------------------------------------------------------------------------

fn channel() -> std::mem::ManuallyDrop<std::fs::File> {
    use std::os::unix::io::FromRawFd;
    // fd 7 is the run's channel in both processes, open for the process's lifetime
    std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(CHANNEL) })
}

fn send(payload: &[u8]) -> std::io::Result<()> {
    let mut message = (payload.len() as u32).to_le_bytes().to_vec();
    message.extend_from_slice(payload);
    channel().write_all(&message)
}

fn receive() -> std::io::Result<Reader> {
    let mut head = [0u8; 4];
    channel().read_exact(&mut head)?;
    let n = u32::from_le_bytes(head) as usize;
    if n > MAX_MESSAGE {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a message larger than the channel allows"));
    }
    let mut data = vec![0u8; n];
    channel().read_exact(&mut data)?;
    Ok(Reader { data, at: 0, depth: 0 })
}

// -- the program's side -------------------------------------------------------------------------------

pub type Dispatch = fn(u32, &mut Reader, &mut Vec<u8>) -> Result<(), Malformed>;

/// Answers the tests' calls until the tests' process closes the channel.
pub fn serve(dispatch: Dispatch) -> ! {
    loop {
        let mut request = match receive() {
            Ok(request) => request,
            Err(_) => std::process::exit(0),
        };
        let mut reply = vec![0u8];
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let index = u32::get(&mut request)?;
            dispatch(index, &mut request, &mut reply)
        }));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                eprintln!("judgebox: {}", why);
                std::process::exit(1);
            }
            Err(panic) => {
                let why = panic.downcast_ref::<&str>().map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".to_string());
                reply = vec![1u8];
                why.put(&mut reply);
            }
        }
        if send(&reply).is_err() {
            std::process::exit(1);
        }
    }
}

// -- the tests' side ----------------------------------------------------------------------------------

static CALLS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Ends the tests' process: no pass. (Written to fd 2 itself: libtest captures eprintln! in a test.)
pub fn fail(why: &str) -> ! {
    let _ = std::io::stderr().write_all(format!("judgebox: {}\n", why).as_bytes());
    std::process::exit(1)
}

/// Calls function `index` of the program's process with the encoded arguments; the reader holds the
/// result. A panic of the program's function is raised again here, with its message alone, as
/// `cargo test` would see it (`#[should_panic]`, `catch_unwind`); the process ending ends the tests'.
pub fn call(index: u32, arguments: Vec<u8>) -> Reader {
    match exchange(index, arguments) {
        Ok(reply) => reply,
        Err(message) => std::panic::panic_any(message),
    }
}

/// One call and its reply: the result's reader, or the message the program's function panicked with.
fn exchange(index: u32, arguments: Vec<u8>) -> Result<Reader, String> {
    let _one_at_a_time = CALLS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut request = index.to_le_bytes().to_vec();
    request.extend_from_slice(&arguments);
    if send(&request).is_err() {
        fail("the program's process ended during a call");
    }
    let mut reply = receive().unwrap_or_else(|_| fail("the program's process ended during a call"));
    match bool::get(&mut reply) {
        Ok(false) => Ok(reply),
        Ok(true) => match String::get(&mut reply).and_then(|why| reply.finish().map(|_| why)) {
            Ok(why) => Err(why),
            Err(why) => fail(&format!("a malformed reply: {}", why)),
        },
        Err(why) => fail(why),
    }
}

/// The result of a call, read whole, as the stub's declared type.
pub fn result<T: Get>(mut reply: Reader) -> T {
    match T::get(&mut reply).and_then(|value| reply.finish().map(|_| value)) {
        Ok(value) => value,
        Err(why) => fail(&format!("a malformed reply: {}", why)),
    }
}
