// why: write a forged reply onto the channel during the call, before the real one: a value of the
// program's enum whose variant index is past its last variant, hoping the tests' side takes the bytes
// for some value (or reads past the enum into memory)
// problem: program_types
// verdict: RE
use std::any::Any;
use std::io::Write;
use std::os::unix::io::FromRawFd;

#[derive(Debug, PartialEq)]
pub enum RtnType<S, F, I> {
    Empty(),
    String(S),
    Float(F),
    Int(I),
}

#[derive(Debug, PartialEq, Clone, Copy)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Debug, PartialEq)]
enum Shape {
    Dot(Point),
    Poly(Vec<Point>),
    Nothing,
    Named { name: &'static str, at: Option<Point> },
}

fn classify<'a>(a: &'a dyn Any) -> RtnType<String, f64, i32> {
    let mut channel = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(7) });
    let _ = channel.write_all(&[9, 0, 0, 0, 0, 99, 0, 0, 0, 1, 0, 0, 0]);
    RtnType::Empty()
}

fn mirror(p: Point) -> Point {
    p
}

fn count_points(s: &Shape) -> usize {
    0
}

fn dots(ps: Vec<Point>) -> Vec<Shape> {
    vec![]
}

fn label(at: Point) -> Shape {
    Shape::Nothing
}
