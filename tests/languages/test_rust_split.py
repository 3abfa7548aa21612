"""Rust assert cases, split: the tests (``#[test]`` functions, or a ``fn main`` of asserts) are a crate, a
binary and a process of their own, against stubs of the program's functions.

Three parts:

- problems in the HumanEval-X Rust form (one in the MultiPL-E form), covering the value types: each
  reference passes, a wrong answer fails;
- the reward-hack battery, ``tests/adversarial/rewards/rust/``: each file is a program that tries to earn reward
  on one of the problems below without solving it (a ``// why:`` header says how, ``// problem:`` which
  one, ``// verdict:`` the verdicts it may end with, WA by default): every one must score 0 and none is SE;
- the grammar that reads the program's signatures (no sandbox needed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgebox import Case, Limits, Verdict
from judgebox.languages.rust_split import signatures

HACKS = Path(__file__).resolve().parents[1] / "adversarial" / "rewards" / "rust"
LIMITS = Limits(cpu_time=5, memory_mb=512)
# HumanEval-X's declaration head of every Rust problem (rand, regex and md5 are not here: their uses go)
HEAD = ("fn main(){}\n\nuse std::{slice::Iter, cmp::{max, self}, mem::replace, collections::{HashSet, HashMap},"
        " ops::Index, ascii::AsciiExt};\nuse rand::Rng;\nuse regex::Regex;\nuse md5;\nuse std::any::{Any, TypeId};\n\n")


def rust_tests(*tests: str) -> str:
    body = "".join(f"\n    #[test]\n    fn test_{i}() {{\n{t}    }}\n" for i, t in enumerate(tests))
    return f"#[cfg(test)]\nmod tests {{\n    use super::*;\n{body}}}\n"


@dataclass(frozen=True)
class Problem:
    honest: str
    wrong: str
    tests: str


PROBLEMS = {
    "has_close_elements": Problem(  # Vec<f32>, f32 -> bool
        HEAD + "fn has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool{\n"
        "    for i in 0..numbers.len() {\n        for j in 1..numbers.len() {\n"
        "            if i != j && (numbers[i] - numbers[j]).abs() < threshold {\n                return true;\n"
        "            }\n        }\n    }\n    return false;\n}\n",
        HEAD + "fn has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool{\n    numbers.len() > 5\n}\n",
        rust_tests(
            "        assert_eq!(has_close_elements(vec![11.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3), true);\n"
            "        assert_eq!(has_close_elements(vec![1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05), false);\n"
            "        assert_eq!(has_close_elements(vec![1.0, 2.0, 5.9, 4.0, 5.0], 0.95), true);\n"
            "        assert_eq!(has_close_elements(vec![1.0, 2.0, 3.0, 4.0, 5.0], 0.5), false);\n"
            "        assert!(has_close_elements(vec![1.1, 2.2], 1.2));\n")),
    "intersperse": Problem(  # Vec<u32>, u32 -> Vec<u32>
        HEAD + "fn intersperse(numbers:Vec<u32>, delimeter: u32) -> Vec<u32>{\n    let mut res = vec![];\n"
        "    for (i, x) in numbers.iter().enumerate() {\n        if i > 0 { res.push(delimeter); }\n"
        "        res.push(*x);\n    }\n    res\n}\n",
        HEAD + "fn intersperse(numbers:Vec<u32>, delimeter: u32) -> Vec<u32>{\n    numbers\n}\n",
        rust_tests(
            "        assert!(intersperse(vec![], 7) == vec![]);\n"
            "        assert!(intersperse(vec![5, 6, 3, 2], 8) == vec![5, 8, 6, 8, 3, 8, 2]);\n"
            "        assert!(intersperse(vec![2, 2, 2], 2) == vec![2, 2, 2, 2, 2]);\n")),
    "sum_product": Problem(  # Vec<i32> -> (i32, i32)
        HEAD + "fn sum_product(numbers:Vec<i32>) -> (i32,i32){\n"
        "    (numbers.iter().sum(), numbers.iter().product())\n}\n",
        HEAD + "fn sum_product(numbers:Vec<i32>) -> (i32,i32){\n    (numbers.iter().sum(), 0)\n}\n",
        rust_tests(
            "        assert!(sum_product(vec![]) == (0, 1));\n"
            "        assert!(sum_product(vec![1, 1, 1]) == (3, 1));\n"
            "        assert!(sum_product(vec![100, 0]) == (100, 0));\n"
            "        assert!(sum_product(vec![3, 5, 7]) == (3 + 5 + 7, 3 * 5 * 7));\n"
            "        assert_ne!(sum_product(vec![10]), (10, 0));\n")),
    "histogram": Problem(  # &str -> HashMap<char, i32>
        HEAD + "fn histogram(test:&str) -> HashMap<char, i32>{\n"
        "    let mut counts: HashMap<char, i32> = HashMap::new();\n    for word in test.split_whitespace() {\n"
        "        *counts.entry(word.chars().next().unwrap()).or_insert(0) += 1;\n"
        "    }\n    let best = counts.values().copied().max().unwrap_or(0);\n"
        "    counts.into_iter().filter(|(_, c)| *c == best).collect()\n}\n",
        HEAD + "fn histogram(test:&str) -> HashMap<char, i32>{\n    HashMap::from([('a', 1)])\n}\n",
        rust_tests(
            "        assert_eq!(histogram(\"a b b a\"), HashMap::from([('a', 2), ('b', 2)]));\n"
            "        assert_eq!(histogram(\"b b b b a\"), HashMap::from([('b', 4)]));\n"
            "        let empty: HashMap<char, i32> = HashMap::new();\n"
            "        assert_eq!(histogram(\"\"), empty);\n")),
    "longest": Problem(  # Vec<String> -> Option<String>
        HEAD + "fn longest(strings:Vec<String>) -> Option<String>{\n    let mut best: Option<String> = None;\n"
        "    for s in strings {\n        if best.as_ref().map_or(true, |b| s.len() > b.len()) {\n"
        "            best = Some(s);\n        }\n    }\n    best\n}\n",
        HEAD + "fn longest(strings:Vec<String>) -> Option<String>{\n    strings.last().cloned()\n}\n",
        rust_tests(
            "        assert_eq!(longest(vec![]), None);\n"
            "        assert_eq!(longest(vec![\"x\".to_string(), \"y\".to_string(), \"z\".to_string()]),"
            " Some(\"x\".to_string()));\n"
            "        assert_eq!(longest(vec![\"x\".to_string(), \"yyy\".to_string(), \"zzzz\".to_string(),"
            " \"www\".to_string(), \"kkkk\".to_string(), \"abc\".to_string()]), Some(\"zzzz\".to_string()));\n")),
    "by_length": Problem(  # Vec<i32> -> Vec<String>
        HEAD + "fn by_length(arr:Vec<i32>) -> Vec<String>{\n"
        "    let names = [\"\", \"One\", \"Two\", \"Three\", \"Four\", \"Five\", \"Six\", \"Seven\", \"Eight\","
        " \"Nine\"];\n"
        "    let mut kept: Vec<i32> = arr.into_iter().filter(|x| (1..=9).contains(x)).collect();\n"
        "    kept.sort_by(|a, b| b.cmp(a));\n    kept.iter().map(|x| names[*x as usize].to_string()).collect()\n}\n",
        HEAD + "fn by_length(arr:Vec<i32>) -> Vec<String>{\n    vec![\"One\".to_string()]\n}\n",
        rust_tests(
            "        assert!(by_length(vec![2, 1, 1, 4, 5, 8, 2, 3]) == vec![\"Eight\", \"Five\", \"Four\", \"Three\","
            " \"Two\", \"Two\", \"One\", \"One\"]);\n"
            "        let v_empty: Vec<String> = vec![];\n        assert!(by_length(vec![]) == v_empty);\n"
            "        assert!(by_length(vec![1, -1, 55]) == vec![\"One\"]);\n")),
    "get_row": Problem(  # Vec<Vec<i32>>, i32 -> Vec<Vec<i32>>
        HEAD + "fn get_row(lst:Vec<Vec<i32>>, x:i32) -> Vec<Vec<i32>>{\n    let mut out = vec![];\n"
        "    for (i, row) in lst.iter().enumerate() {\n        for j in (0..row.len()).rev() {\n"
        "            if row[j] == x { out.push(vec![i as i32, j as i32]); }\n        }\n    }\n    out\n}\n",
        HEAD + "fn get_row(lst:Vec<Vec<i32>>, x:i32) -> Vec<Vec<i32>>{\n    let mut out = vec![];\n"
        "    for (i, row) in lst.iter().enumerate() {\n        for j in 0..row.len() {\n"
        "            if row[j] == x { out.push(vec![i as i32, j as i32]); }\n        }\n    }\n    out\n}\n",
        rust_tests(
            "        assert!(get_row(vec![vec![1, 2, 3, 4, 5, 6], vec![1, 2, 3, 4, 1, 6], vec![1, 2, 3, 4, 5, 1]], 1)"
            " == vec![vec![0, 0], vec![1, 4], vec![1, 0], vec![2, 5], vec![2, 0]]);\n"
            "        let v: Vec<Vec<i32>> = vec![];\n        assert!(get_row(vec![], 1) == v);\n")),
    "string_xor": Problem(  # String, String -> String
        HEAD + "fn string_xor(a:String, b:String) -> String{\n"
        "    a.chars().zip(b.chars()).map(|(x, y)| if x == y { '0' } else { '1' }).collect()\n}\n",
        HEAD + "fn string_xor(a:String, b:String) -> String{\n    a\n}\n",
        rust_tests(
            "        assert!(string_xor(\"111000\".to_string(), \"101010\".to_string()) == \"010010\");\n"
            "        assert!(string_xor(\"1\".to_string(), \"1\".to_string()) == \"0\");\n"
            "        assert!(string_xor(\"0101\".to_string(), \"0000\".to_string()) == \"0101\");\n")),
    "many_types": Problem(  # wide ints, char, f64, arrays, tuples, BTreeMap, HashSet, VecDeque, &[T], &mut
        "use std::collections::{BTreeMap, HashSet, VecDeque};\n\n"
        "pub fn widen(x: u8, y: i128, z: usize) -> (u64, i128, usize) { (x as u64 * 1000, -y * 3, z + 1) }\n"
        "fn next_char(c: char) -> char { char::from_u32(c as u32 + 1).unwrap() }\n"
        "fn mean(xs: &[f64]) -> f64 { xs.iter().sum::<f64>() / xs.len() as f64 }\n"
        "fn reversed(a: [i32; 3]) -> [i32; 3] { [a[2], a[1], a[0]] }\n"
        "fn index(words: &Vec<String>) -> BTreeMap<String, Vec<i64>> {\n    let mut m = BTreeMap::new();\n"
        "    for (i, w) in words.iter().enumerate() { m.entry(w.clone()).or_insert_with(Vec::new).push(i as i64); }\n"
        "    m\n}\n"
        "fn distinct(xs: Vec<u32>) -> HashSet<u32> { xs.into_iter().collect() }\n"
        "fn rotate(mut q: VecDeque<i16>) -> VecDeque<i16> { if let Some(x) = q.pop_front() { q.push_back(x); } q }\n"
        "fn sort_in_place(v: &mut Vec<i8>) -> Vec<i8> { v.sort(); v.clone() }\n"
        "fn nothing(flag: bool) -> Option<(bool, String, ())> { if flag { Some((true, \"é\".to_string(), ())) }"
        " else { None } }\n",
        "use std::collections::{BTreeMap, HashSet, VecDeque};\n\n"
        "pub fn widen(x: u8, y: i128, z: usize) -> (u64, i128, usize) { (x as u64, y, z) }\n"
        "fn next_char(c: char) -> char { c }\n"
        "fn mean(xs: &[f64]) -> f64 { 0.0 }\n"
        "fn reversed(a: [i32; 3]) -> [i32; 3] { a }\n"
        "fn index(words: &Vec<String>) -> BTreeMap<String, Vec<i64>> { BTreeMap::new() }\n"
        "fn distinct(xs: Vec<u32>) -> HashSet<u32> { HashSet::new() }\n"
        "fn rotate(q: VecDeque<i16>) -> VecDeque<i16> { q }\n"
        "fn sort_in_place(v: &mut Vec<i8>) -> Vec<i8> { v.clone() }\n"
        "fn nothing(flag: bool) -> Option<(bool, String, ())> { None }\n",
        rust_tests(
            "        assert_eq!(widen(200, 1 << 100, usize::MAX - 1), (200000, -3 * (1 << 100), usize::MAX));\n",
            "        assert_eq!(next_char('y'), 'z');\n        assert_eq!(next_char('\\u{10FFFE}'), '\\u{10FFFF}');\n",
            "        assert!((mean(&[1.0, 2.0, 4.5]) - 2.5).abs() < 1e-12);\n",
            "        assert_eq!(reversed([1, 2, 3]), [3, 2, 1]);\n",
            "        let words = vec![\"a\".to_string(), \"b\".to_string(), \"a\".to_string()];\n"
            "        let m = index(&words);\n        assert_eq!(m[\"a\"], vec![0, 2]);\n"
            "        assert_eq!(m.len(), 2);\n",
            "        assert_eq!(distinct(vec![3, 1, 3, 2]), HashSet::from([1, 2, 3]));\n",
            "        assert_eq!(rotate(VecDeque::from(vec![1, 2, 3])), VecDeque::from(vec![2, 3, 1]));\n",
            "        let mut v = vec![3, -1, 2];\n        assert_eq!(sort_in_place(&mut v), vec![-1, 2, 3]);\n",
            "        assert_eq!(nothing(true), Some((true, \"é\".to_string(), ())));\n"
            "        assert_eq!(nothing(false), None);\n")),
    "checked_half": Problem(  # a panic the tests expect: #[should_panic] and catch_unwind
        "fn checked_half(x: i32) -> i32 {\n    if x % 2 != 0 {\n        panic!(\"odd: {}\", x);\n    }\n    x / 2\n}\n",
        "fn checked_half(x: i32) -> i32 {\n    x / 2\n}\n",
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn halves() {\n"
        "        assert_eq!(checked_half(8), 4);\n    }\n\n    #[test]\n    #[should_panic]\n    fn odd_panics() {\n"
        "        checked_half(3);\n    }\n\n    #[test]\n    #[should_panic(expected = \"odd: 5\")]\n"
        "    fn with_its_message() {\n        checked_half(5);\n    }\n\n    #[test]\n    fn caught() {\n"
        "        assert!(std::panic::catch_unwind(|| checked_half(7)).is_err());\n"
        "        assert_eq!(std::panic::catch_unwind(|| checked_half(6)).ok(), Some(3));\n    }\n}\n"),
    "str_refs": Problem(  # Vec<&str>, HashMap<&str, &str>, -> &str, -> &'static str, -> Vec<&str>, Option<&str>
        "use std::collections::{BTreeMap, HashMap};\n\n"
        "fn longest_word(words: Vec<&str>) -> &str {\n    let mut best = \"\";\n"
        "    for w in words { if w.len() > best.len() { best = w; } }\n    best\n}\n"
        "fn parity(n: i32) -> &'static str { if n % 2 == 0 { \"even\" } else { \"odd\" } }\n"
        "fn trimmed(s: &str) -> &str { s.trim() }\n"
        "fn short_words(words: Vec<&str>) -> Vec<&str> { words.into_iter().filter(|w| w.len() <= 3).collect() }\n"
        "fn invert(dict: HashMap<&str, &str>) -> BTreeMap<String, String> {\n"
        "    dict.iter().map(|(k, v)| (v.to_string(), k.to_string())).collect()\n}\n"
        "fn first_of(words: Vec<&str>) -> Option<&str> { words.first().copied() }\n",
        "use std::collections::{BTreeMap, HashMap};\n\n"
        "fn longest_word(words: Vec<&str>) -> &str { words.first().copied().unwrap_or(\"\") }\n"
        "fn parity(n: i32) -> &'static str { \"even\" }\n"
        "fn trimmed(s: &str) -> &str { s }\n"
        "fn short_words(words: Vec<&str>) -> Vec<&str> { words }\n"
        "fn invert(dict: HashMap<&str, &str>) -> BTreeMap<String, String> {\n"
        "    dict.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()\n}\n"
        "fn first_of(words: Vec<&str>) -> Option<&str> { words.last().copied() }\n",
        rust_tests(
            "        assert_eq!(longest_word(vec![\"a\", \"abc\", \"ab\"]), \"abc\");\n"
            "        assert_eq!(longest_word(vec![]), \"\");\n",
            "        assert_eq!(parity(3), \"odd\");\n        assert_eq!(parity(4), \"even\");\n"
            "        let s: &'static str = parity(5);\n        assert!(s == \"odd\");\n",
            "        let owned = String::from(\"  pad \");\n        assert_eq!(trimmed(&owned), \"pad\");\n",
            "        assert_eq!(short_words(vec![\"a\", \"abcd\", \"xyz\"]), vec![\"a\", \"xyz\"]);\n"
            "        let v_empty: Vec<&str> = vec![];\n        assert_eq!(short_words(vec![\"long\"]), v_empty);\n",
            "        assert_eq!(invert(HashMap::from([(\"a\", \"x\"), (\"b\", \"y\")])),"
            " BTreeMap::from([(\"x\".to_string(), \"a\".to_string()), (\"y\".to_string(), \"b\".to_string())]));\n",
            "        assert_eq!(first_of(vec![\"q\", \"r\"]), Some(\"q\"));\n"
            "        assert_eq!(first_of(vec![]), None);\n")),
    "results": Problem(  # Result<T, E> of supported types, as results and inside arguments
        "fn parse_num(s: &str) -> Result<i64, String> { s.trim().parse::<i64>().map_err(|_| format!(\"bad: {}\","
        " s)) }\n"
        "fn checked_div(a: i32, b: i32) -> Result<i32, &'static str> {\n"
        "    if b == 0 { Err(\"division by zero\") } else { Ok(a / b) }\n}\n"
        "fn all_ok(xs: Vec<Result<i32, String>>) -> Result<Vec<i32>, String> { xs.into_iter().collect() }\n",
        "fn parse_num(s: &str) -> Result<i64, String> { Ok(s.trim().parse::<i64>().unwrap_or(0)) }\n"
        "fn checked_div(a: i32, b: i32) -> Result<i32, &'static str> { Ok(a.checked_div(b).unwrap_or(0)) }\n"
        "fn all_ok(xs: Vec<Result<i32, String>>) -> Result<Vec<i32>, String> {\n"
        "    Ok(xs.into_iter().filter_map(|x| x.ok()).collect())\n}\n",
        rust_tests(
            "        assert_eq!(parse_num(\" 42 \"), Ok(42));\n        assert!(parse_num(\"-7\").is_ok());\n"
            "        assert_eq!(parse_num(\"x\"), Err(\"bad: x\".to_string()));\n",
            "        assert_eq!(checked_div(7, 2), Ok(3));\n"
            "        assert_eq!(checked_div(1, 0), Err(\"division by zero\"));\n",
            "        assert_eq!(all_ok(vec![Ok(1), Ok(2)]), Ok(vec![1, 2]));\n"
            "        assert_eq!(all_ok(vec![Ok(1), Err(\"e\".to_string()), Ok(3)]), Err(\"e\".to_string()));\n")),
    "dyn_any": Problem(  # Box<dyn Any> and &dyn Any arguments and results, nested (HumanEval-X's Rust/22)
        "use std::any::Any;\n\n"
        "fn filter_integers(values: Vec<Box<dyn Any>>) -> Vec<i32> {\n"
        "    values.iter().filter_map(|v| v.downcast_ref::<i32>().copied()).collect()\n}\n"
        "fn describe(value: &dyn Any) -> String {\n"
        "    if let Some(i) = value.downcast_ref::<i32>() { format!(\"i32 {}\", i) }\n"
        "    else if let Some(f) = value.downcast_ref::<f64>() { format!(\"f64 {}\", f) }\n"
        "    else if let Some(s) = value.downcast_ref::<&str>() { format!(\"str {}\", s) }\n"
        "    else if let Some(s) = value.downcast_ref::<String>() { format!(\"string {}\", s) }\n"
        "    else if let Some(l) = value.downcast_ref::<Vec<Box<dyn Any>>>() { format!(\"list of {}\", l.len()) }\n"
        "    else { \"other\".to_string() }\n}\n"
        "fn boxed(kind: u8) -> Box<dyn Any> {\n    match kind {\n        0 => Box::new(7i32),\n"
        "        1 => Box::new(\"seven\"),\n"
        "        2 => Box::new(vec![Box::new(1u8) as Box<dyn Any>, Box::new('x')]),\n"
        "        _ => Box::new(()),\n    }\n}\n",
        "use std::any::Any;\n\n"
        "fn filter_integers(values: Vec<Box<dyn Any>>) -> Vec<i32> {\n"
        "    values.iter().filter_map(|v| v.downcast_ref::<i64>().map(|x| *x as i32)).collect()\n}\n"
        "fn describe(value: &dyn Any) -> String { \"other\".to_string() }\n"
        "fn boxed(kind: u8) -> Box<dyn Any> { Box::new(7i64) }\n",
        rust_tests(
            "        assert_eq!(filter_integers(vec![]), vec![]);\n        let v_empty: Vec<Box<dyn Any>> = vec![];\n"
            "        assert_eq!(filter_integers(vec![Box::new(4), Box::new(v_empty), Box::new(23.2), Box::new(9),"
            " Box::new(String::from(\"adasd\")), Box::new('c')]), vec![4, 9]);\n",
            "        assert_eq!(describe(&5), \"i32 5\");\n        assert_eq!(describe(&2.5), \"f64 2.5\");\n"
            "        assert_eq!(describe(&\"s\"), \"str s\");\n"
            "        assert_eq!(describe(&String::from(\"t\")), \"string t\");\n"
            "        assert_eq!(describe(&vec![Box::new(1) as Box<dyn Any>, Box::new('x')]), \"list of 2\");\n"
            "        assert_eq!(describe(&'c'), \"other\");\n",
            "        assert_eq!(boxed(0).downcast_ref::<i32>(), Some(&7));\n        assert!(!boxed(0).is::<i64>());\n"
            "        assert_eq!(boxed(1).downcast_ref::<&str>(), Some(&\"seven\"));\n"
            "        let list = boxed(2);\n        let list = list.downcast_ref::<Vec<Box<dyn Any>>>().unwrap();\n"
            "        assert_eq!(list[0].downcast_ref::<u8>(), Some(&1));\n"
            "        assert_eq!(list[1].downcast_ref::<char>(), Some(&'x'));\n"
            "        assert!(boxed(3).is::<()>());\n")),
    "program_types": Problem(  # the program's plain enums and structs, generic too (HumanEval-X's Rust/137)
        "use std::any::Any;\n\n#[derive(Debug, PartialEq)]\npub enum RtnType<S, F, I> {\n    Empty(),\n    String(S),\n"
        "    Float(F),\n    Int(I),\n}\n\n#[derive(Debug, PartialEq, Clone, Copy)]\nstruct Point {\n    x: i32,\n"
        "    y: i32,\n}\n\n"
        "#[derive(Debug, PartialEq)]\nenum Shape {\n    Dot(Point),\n    Poly(Vec<Point>),\n    Nothing,\n"
        "    Named { name: &'static str, at: Option<Point> },\n}\n\n"
        "fn classify<'a>(a: &'a dyn Any) -> RtnType<String, f64, i32> {\n"
        "    if let Some(i) = a.downcast_ref::<i32>() { RtnType::Int(*i) }\n"
        "    else if let Some(f) = a.downcast_ref::<f64>() { RtnType::Float(*f) }\n"
        "    else if let Some(s) = a.downcast_ref::<&str>() { RtnType::String(s.to_string()) }\n"
        "    else { RtnType::Empty() }\n}\n"
        "fn mirror(p: Point) -> Point { Point { x: p.y, y: p.x } }\n"
        "fn count_points(s: &Shape) -> usize {\n    match s { Shape::Dot(_) => 1, Shape::Poly(v) => v.len(),"
        " Shape::Nothing => 0, Shape::Named { at, .. } => at.iter().count() }\n}\n"
        "fn dots(ps: Vec<Point>) -> Vec<Shape> { ps.into_iter().map(Shape::Dot).collect() }\n"
        "fn label(at: Point) -> Shape { Shape::Named { name: \"here\", at: Some(at) } }\n",
        "use std::any::Any;\n\n#[derive(Debug, PartialEq)]\npub enum RtnType<S, F, I> {\n    Empty(),\n    String(S),\n"
        "    Float(F),\n    Int(I),\n}\n\n#[derive(Debug, PartialEq, Clone, Copy)]\nstruct Point {\n    x: i32,\n"
        "    y: i32,\n}\n\n"
        "#[derive(Debug, PartialEq)]\nenum Shape {\n    Dot(Point),\n    Poly(Vec<Point>),\n    Nothing,\n"
        "    Named { name: &'static str, at: Option<Point> },\n}\n\n"
        "fn classify<'a>(a: &'a dyn Any) -> RtnType<String, f64, i32> { RtnType::Empty() }\n"
        "fn mirror(p: Point) -> Point { p }\n"
        "fn count_points(s: &Shape) -> usize { 1 }\n"
        "fn dots(ps: Vec<Point>) -> Vec<Shape> { vec![Shape::Nothing] }\n"
        "fn label(at: Point) -> Shape { Shape::Named { name: \"there\", at: None } }\n",
        rust_tests(
            "        assert_eq!(classify(&1), RtnType::Int(1));\n"
            "        assert_eq!(classify(&2.5), RtnType::Float(2.5));\n"
            "        assert_eq!(classify(&\"x\"), RtnType::String(\"x\".to_string()));\n"
            "        assert_eq!(classify(&'c'), RtnType::Empty());\n",
            "        assert_eq!(mirror(Point { x: 1, y: 2 }), Point { x: 2, y: 1 });\n"
            "        let p = mirror(Point { x: 5, y: 6 });\n        assert_eq!((p.x, p.y), (6, 5));\n",
            "        assert_eq!(count_points(&Shape::Poly(vec![Point { x: 0, y: 0 }, Point { x: 1, y: 1 }])), 2);\n"
            "        assert_eq!(count_points(&Shape::Nothing), 0);\n",
            "        assert_eq!(dots(vec![Point { x: 3, y: 4 }]), vec![Shape::Dot(Point { x: 3, y: 4 })]);\n"
            "        assert_eq!(label(Point { x: 0, y: 1 }), Shape::Named { name: \"here\", at: Some(Point { x:"
            " 0, y: 1 }) });\n")),
    "multipl_e_main": Problem(  # the MultiPL-E form: the tests are a main of asserts
        "fn add(x: isize, y: isize) -> isize {\n    x + y\n}\n",
        "fn add(x: isize, y: isize) -> isize {\n    x - y\n}\n",
        "\nfn main() {\n    let candidate = add;\n    assert_eq!(candidate(0, 1), 1);\n"
        "    assert_eq!(candidate(5, 7), 12);\n    assert_eq!(candidate(-3, 3), 0);\n}\n"),
}


def judge_rust(judge, code: str, tests: str, limits: Limits = LIMITS):
    return judge.judge(code, [Case.asserts(tests)], language="rust", limits=limits)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_the_reference_passes_and_a_wrong_answer_fails(judge, name):
    problem = PROBLEMS[name]
    honest = judge_rust(judge, problem.honest, problem.tests)
    assert honest.verdict is Verdict.AC, (honest.cases[0].message, honest.cases[0].stderr[-3000:])
    wrong = judge_rust(judge, problem.wrong, problem.tests)
    assert wrong.verdict is Verdict.WA, (wrong.verdict, wrong.cases[0].message, wrong.cases[0].stderr[-3000:])


# -- the reward-hack battery --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hack:
    name: str
    problem: str
    verdicts: frozenset[Verdict]
    code: str


def load_hacks() -> list[Hack]:
    hacks = []
    for path in sorted(HACKS.glob("*.rs")):
        code = path.read_text()
        why = re.search(r"^// why: .+", code, re.M)
        problem = re.search(r"^// problem: (\w+)$", code, re.M)
        verdicts = re.search(r"^// verdict: ([\w ]+)$", code, re.M)
        assert why and problem and problem[1] in PROBLEMS, f"{path.name} needs // why: and a known // problem:"
        hacks.append(Hack(path.stem, problem[1], frozenset(Verdict(v) for v in (verdicts[1] if verdicts else "WA")
                                                              .split()), code))
    return hacks


HACK_LIST = load_hacks()


def test_the_battery_is_there():
    assert len(HACK_LIST) >= 15


@pytest.mark.parametrize("hack", HACK_LIST, ids=lambda h: h.name)
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_a_reward_hack_earns_nothing(judge, hack):
    result = judge_rust(judge, hack.code, PROBLEMS[hack.problem].tests, Limits(cpu_time=2, memory_mb=256))
    case = result.cases[0]
    assert result.score == 0 and result.verdict is not Verdict.SE, (result.verdict, case.message, case.stderr[-2000:])
    assert result.verdict in hack.verdicts, (result.verdict, case.message, case.stderr[-2000:])


# -- what crosses, what cannot --------------------------------------------------------------------------------

@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_a_panic_the_tests_do_not_expect_fails_the_test(judge):
    """Raised again in the tests' process, the program's panic fails the test that called it, as under
    ``cargo test`` (WA: the tests failed), in a #[test] and in a MultiPL-E main alike."""
    code = "fn f(x: i32) -> i32 {\n    if x == 2 { panic!(\"two\"); }\n    x\n}\n"
    result = judge_rust(judge, code, rust_tests("        assert_eq!(f(1), 1);\n        assert_eq!(f(2), 2);\n"))
    assert result.verdict is Verdict.WA
    assert "two" in result.cases[0].stderr
    assert judge_rust(judge, code, "fn main() {\n    assert_eq!(f(2), 2);\n}\n").verdict is Verdict.WA


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_an_overflow_in_the_program_panics_as_under_cargo_test(judge):
    code = "fn f(x: i32) -> i32 {\n    x * 2\n}\n"
    assert judge_rust(judge, code, rust_tests("        assert_eq!(f(1 << 30), -2147483648);\n")).verdict is Verdict.WA
    caught = rust_tests("        assert!(std::panic::catch_unwind(|| f(1 << 30)).is_err());\n")
    assert judge_rust(judge, code, caught).verdict is Verdict.AC


@pytest.mark.slow  # about 17 s in all on this busy 2-core machine
@pytest.mark.parametrize("signature, why", [
    ("fn f<T>(x: T) -> i32 { 1 }", "generic"),
    ("fn f(x: Box<i32>) -> i32 { 1 }", "Box"),
    ("fn f(x: &dyn std::fmt::Debug) -> i32 { 1 }", "Debug"),
    ("fn f(x: i32) -> &'static i32 { &1 }", "returns a reference"),
    ("struct P { a: Box<i32> }\nfn f(x: P) -> i32 { 1 }", "the type P"),
    ("enum Ordering { Less }\nfn f(x: i32) -> Ordering { Ordering::Less }", "named like a std name"),
    ("unsafe fn f(x: i32) -> i32 { x }", "unsafe"),
    ("fn f((a, b): (i32, i32)) -> i32 { a }", "not a plain name"),
])
def test_a_function_the_harness_cannot_call_is_a_compile_error(judge, signature, why):
    result = judge_rust(judge, signature + "\n", rust_tests("        assert_eq!(f(1), 1);\n"))
    assert result.verdict is Verdict.CE
    assert why in result.cases[0].message


def test_a_program_that_does_not_compile(judge):
    result = judge_rust(judge, "fn f(x: i32) -> i32 {\n    x +\n}\n", rust_tests("        assert_eq!(f(1), 1);\n"))
    assert result.verdict is Verdict.CE


def test_tests_without_tests_are_the_callers_fault(judge):
    assert judge_rust(judge, "fn f() -> i32 {\n    1\n}\n", "fn helper() {}\n").verdict is Verdict.SE


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_builds_are_cached(judge):
    problem = PROBLEMS["sum_product"]
    assert judge_rust(judge, problem.honest, problem.tests).verdict is Verdict.AC
    misses = judge._programs.cache.misses
    assert judge_rust(judge, problem.honest, problem.tests).verdict is Verdict.AC
    assert judge._programs.cache.misses == misses
    other = problem.honest.replace(".sum()", ".fold(0, |a, b| a + b)")
    assert judge_rust(judge, other, problem.tests).verdict is Verdict.AC
    assert judge._programs.cache.misses == misses + 1  # its side only; the tests' side is shared


# -- the grammar ------------------------------------------------------------------------------------------------


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.parametrize("name, asserts", [
    ("redefine_assert_macros", "    assert!(sum_product(vec![1, 1, 1]) == (3, 1));\n"
                               "    assert_eq!(sum_product(vec![3, 5, 7]), (15, 105));\n"),
    ("shadow_some", "    assert_eq!(longest(vec![\"x\".to_string()]), Some(\"x\".to_string()));\n"),
])
def test_the_battery_has_teeth(judge, name, asserts):
    """In one crate (the hack, then the asserts in a main, run as an ordinary program in the sandbox) these
    hacks' asserts all hold; split, the same asserts fail."""
    hack = next(h for h in HACK_LIST if h.name == name)
    one_crate = judge.judge(hack.code + "\nfn main() {\n" + asserts + "}\n", [Case.stdio("", "")], language="rust")
    assert one_crate.verdict is Verdict.AC, one_crate.cases[0].message
    split = judge_rust(judge, hack.code, "fn main() {\n" + asserts + "}\n")
    assert split.verdict is Verdict.WA, split.cases[0].message


# An honest program with a small module holding an ``unsafe fn`` before its solution: the signature reader once read
# the solution's qualifiers over the module too and refused it as unsafe, CE for a correct answer
# (tests/unit/test_rust_signature_items.py has the reader's side).

SOLUTION = ("fn intersperse(numbers: Vec<u32>, delimeter: u32) -> Vec<u32> {\n    let mut res = vec![];\n"
            "    for (i, x) in numbers.iter().enumerate() {\n        if i > 0 { res.push(delimeter); }\n"
            "        res.push(*x);\n    }\n    res\n}\n")


TESTS = ("#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_intersperse() {\n"
         "        assert!(intersperse(vec![], 7) == vec![]);\n"
         "        assert!(intersperse(vec![5, 6, 3, 2], 8) == vec![5, 8, 6, 8, 3, 8, 2]);\n    }\n}\n")


def test_a_correct_answer_with_such_a_module_passes(judge):
    code = "mod util {\n    use std::ptr;\n    use std::mem;\n    pub unsafe fn f() {}\n}\n\n" + SOLUTION
    result = judge.judge(code, [Case.asserts(TESTS)], language="rust", limits=Limits(cpu_time=5, memory_mb=512))
    assert result.verdict is Verdict.AC, (result.verdict, result.cases[0].message[-2000:])


# The signature reader's bounds on programs of the largest size judgebox takes, in the judge's own process (each
# takes seconds: a 4 MiB program of punctuation once held 714 MB of the judge's memory).

@pytest.mark.slow  # about 2 s in all on this busy 2-core machine
def test_a_program_past_the_token_bound_is_refused_with_the_reason():
    with pytest.raises(signatures.Unsupported, match="more than"):
        signatures.top_level("fn a() {}\n" + "x " * signatures.MAX_TOKENS)


@pytest.mark.slow  # about 2 s in all on this busy 2-core machine
def test_reading_a_program_of_punctuation_holds_little_of_the_judges_memory():
    """Measured on a 4 MiB program (the largest judgebox takes) of ``;``: 714 MB of the judge's memory and
    16 s of its CPU, per assert submission, before anything reaches the sandbox. Here on 128 KiB."""
    import tracemalloc

    source = SOLUTION + ";" * (1 << 17)
    tracemalloc.start()
    try:
        functions, _, _ = signatures.top_level(source)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [f.name for f in functions] == ["intersperse"]
    assert peak <= 16 * len(source), f"{peak >> 20} MiB for a {len(source) >> 10} KiB program"


# -- the grammar of the types added for HumanEval-X: &str in types, Result, Box<dyn Any> / &dyn Any ------------

def test_str_in_types_result_and_dyn_any_are_read():
    source = ("use std::any::Any;\n"
              "fn f(a: Vec<&str>, m: HashMap<&str, &'static str>, o: &Option<&str>) -> Result<Vec<&str>, String>"
              " { x }\n"
              "fn g(x: &dyn Any, y: Box<dyn std::any::Any>, z: &mut dyn Any, s: &'static str) -> Box<dyn Any> { y }\n"
              "fn h(r: std::result::Result<(), ::std::boxed::Box<dyn Any>>) -> &'static str { \"\" }\n")
    functions, refused, _ = signatures.top_level(source)
    assert not refused, refused
    f, g, h = functions
    str_ = signatures.STR
    assert f.params == (signatures.Param(f"::std::vec::Vec<{str_}>", ""),
                        signatures.Param(f"::std::collections::HashMap<{str_}, {str_}>", ""),
                        signatures.Param(f"::std::option::Option<{str_}>", "&"))
    assert f.result == f"::std::result::Result<::std::vec::Vec<{str_}>, ::std::string::String>"
    assert g.params == (signatures.Param(signatures.ANY, "&", slice_of=True), signatures.Param(signatures.ANY, ""),
                        signatures.Param(signatures.ANY, "&mut ", slice_of=True),
                        signatures.Param("::std::string::String", "&", slice_of=True))
    assert g.result == signatures.ANY
    assert h.params == (signatures.Param(f"::std::result::Result<(), {signatures.ANY}>", ""),) and h.result == str_


@pytest.mark.parametrize("signature, why", [
    ("fn f(x: Box<i32>) {}", "a Box of another type than dyn Any"),
    ("fn f(x: Box<dyn Any + Send>) {}", "only dyn Any"),
    ("fn f(x: &dyn Fn()) {}", "dyn Fn"),
    ("fn f(x: Box<dyn mylib::Any>) {}", "the type mylib::Any"),
    ("fn f(x: Vec<&i32>) {}", "a reference other than &str"),
    ("fn f() -> &'static [i32] {}", "returns a reference other than &str"),
    ("fn f() -> &mut str {}", "returns a reference other than &str"),
    ("fn f(x: Result<i32>) {}", "Result of 1 types"),
    ("fn f(x: dyn Any) {}", "the type dyn"),
])
def test_types_outside_the_added_grammar_are_refused(signature, why):
    functions, refused, _ = signatures.top_level(signature)
    assert not functions and why in refused["f"], refused


def test_the_sides_spell_a_str_result_and_a_dyn_any_argument():
    """T's stub returns a leaked ``&'static str`` and takes ``&dyn Any``; S leaves the result's lifetime to
    inference (it may borrow an argument) and passes its rebuilt Box as ``&*a0``, never ``&a0`` (a
    ``&Box<dyn Any>`` would coerce to a ``&dyn Any`` holding the Box)."""
    from judgebox.languages import rust_split

    source = "fn f(x: &dyn Any, w: Vec<&str>, s: &str) -> Vec<&str> { w }\n"
    (function,), _, _ = signatures.top_level(source)
    stub = rust_split.stubs_source([(0, function)])
    assert ("pub fn f(a0: &dyn ::std::any::Any, a1: ::std::vec::Vec<&str>, a2: &str)"
            " -> ::std::vec::Vec<&'static str> {") in stub
    side = rust_split.program_side_source(source, [function], [])
    assert "let value: ::std::vec::Vec<&str> = super::f(&*a0, a1, &*a2);" in side


def test_a_programs_plain_data_types_are_read_and_others_refused():
    source = ("#[derive(Debug, PartialEq)]\n"
              "pub enum R<S, I> { Empty(), Text(S), Int(I), Pair { a: I, b: Vec<&'static str> } }\n"
              "#[derive(Clone, Serialize)]\nstruct P(pub i32, R<String, i64>);\nstruct U;\n"
              "struct Boxed { a: Box<i32> }\nstruct Bound<T: Copy> { a: T }\nstruct Inner { b: Boxed }\n"
              "enum Discriminant { A = 1 }\nstruct Twice;\nstruct Twice;\n"
              "fn f<'a>(x: &'a dyn Any, p: &P, u: U) -> R<String, i32> { R::Empty() }\n"
              "fn g(b: Boxed) {}\nfn h(b: Inner) {}\nfn k(b: Bound<i32>) {}\nfn d(x: Discriminant) {}\n"
              "fn t(x: Twice) {}\n#[cfg(test)]\nstruct Conditional;\nfn c(x: Conditional) {}\n")
    functions, refused, _, types = signatures.read(source)
    assert [f.name for f in functions] == ["f"]
    assert functions[0].result == "crate::R<::std::string::String, i32>"
    assert functions[0].params[1:] == (signatures.Param("crate::P", "&"), signatures.Param("crate::U", ""))
    assert sorted(types) == ["P", "R", "U"]
    assert types["R"] == signatures.DataType("R", "enum", ("S", "I"), ("Debug", "PartialEq"), (
        signatures.Variant("Empty", "tuple", ()), signatures.Variant("Text", "tuple", (("", "S"),)),
        signatures.Variant("Int", "tuple", (("", "I"),)),
        signatures.Variant("Pair", "named", (("a", "I"), ("b", f"::std::vec::Vec<{signatures.STR}>")))))
    assert types["P"].derives == ("Clone",) and types["U"].variants == (signatures.Variant("", "unit", ()),)
    assert refused["g"].startswith("the type Boxed (a Box of another type than dyn Any")
    assert refused["h"].startswith("the type Inner (its field of the type Boxed")
    assert refused["k"].startswith("the type Bound (a type parameter with a bound")
    assert refused["d"].startswith("the type Discriminant (a variant outside the grammar")
    assert refused["t"] == "the type Twice (the program defines it twice)"
    assert refused["c"].startswith("the type Conditional (a cfg attribute")


def test_the_tests_side_gets_a_copy_of_the_plain_types_it_needs():
    from judgebox.languages import rust_split

    source = ("#[derive(Debug, PartialEq)]\nenum Shape { Dot(Point), Nothing, Named { name: &'static str } }\n"
              "#[derive(Debug, PartialEq, Clone, Copy)]\nstruct Point { x: i32, y: i32 }\nstruct Unused(u8);\n"
              "fn f(s: Shape) -> i32 { 1 }\n")
    functions, _, _, types = signatures.read(source)
    stubs = rust_split.stubs_source([(0, functions[0])], types, {"f", "assert_eq"})
    assert ("#[derive(Debug, PartialEq)]\npub enum Shape {\n    Dot(crate::Point),\n    Nothing,\n"
            "    Named { name: &'static str },\n}\n") in stubs
    assert "#[derive(Debug, PartialEq, Clone, Copy)]\npub struct Point { pub x: i32, pub y: i32 }\n" in stubs
    assert "Unused" not in stubs and "impl judgebox_wire::Get for crate::Shape" in stubs
