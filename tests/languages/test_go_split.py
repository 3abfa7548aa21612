"""Go assert cases, split: the tests (testify's assert in func TestXxx) run in a binary and process of their
own, against stubs of the program's functions.

Three parts:

- problems in the HumanEval-X Go form, covering the value types: each reference passes, a wrong answer
  fails;
- the reward-hack battery, ``tests/adversarial/rewards/go/``: each file is a program that tries to earn reward on
  one of the problems below without solving it (a ``// why:`` header says how, ``// problem:`` which one,
  ``// verdict:`` the verdicts it may end with, WA by default): every one must score 0 and none is SE;
- what crosses between the processes and what cannot (unsupported signatures, malformed listings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgebox import Case, Limits, Verdict
from judgebox.languages import go_split

HACKS = Path(__file__).resolve().parents[1] / "adversarial" / "rewards" / "go"
LIMITS = Limits(cpu_time=5, memory_mb=512)


@dataclass(frozen=True)
class Problem:
    honest: str
    wrong: str
    tests: str


PROBLEMS = {
    "has_close_elements": Problem(  # []float64, float64 -> bool
        'import (\n    "math"\n)\n\nfunc HasCloseElements(numbers []float64, threshold float64) bool {\n'
        "    for i := 0; i < len(numbers); i++ {\n        for j := i + 1; j < len(numbers); j++ {\n"
        "            if math.Abs(numbers[i]-numbers[j]) < threshold {\n                return true\n"
        "            }\n        }\n    }\n    return false\n}\n",
        "func HasCloseElements(numbers []float64, threshold float64) bool {\n    return len(numbers) > 5\n}\n",
        "func TestHasCloseElements(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal(true, HasCloseElements([]float64{1.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.3))\n"
        "    assert.Equal(false, HasCloseElements([]float64{1.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.05))\n"
        "    assert.Equal(true, HasCloseElements([]float64{1.0, 2.0, 5.9, 4.0, 5.0}, 0.95))\n"
        "    assert.Equal(false, HasCloseElements([]float64{1.0, 2.0, 3.0, 4.0, 5.0}, 0.5))\n"
        "    assert.Equal(true, HasCloseElements([]float64{1.1, 2.2}, 1.2))\n}\n"),
    "intersperse": Problem(  # []int, int -> []int; an empty result must be empty, not nil
        "package main\n\nfunc Intersperse(numbers []int, delimeter int) []int {\n    result := make([]int, 0)\n"
        "    for i, x := range numbers {\n        if i > 0 {\n            result = append(result, delimeter)\n"
        "        }\n        result = append(result, x)\n    }\n    return result\n}\n",
        "package main\n\nfunc Intersperse(numbers []int, delimeter int) []int {\n    var result []int\n"
        "    for i, x := range numbers {\n        if i > 0 {\n            result = append(result, delimeter)\n"
        "        }\n        result = append(result, x)\n    }\n    return result\n}\n",
        "func TestIntersperse(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal([]int{}, Intersperse([]int{}, 7))\n"
        "    assert.Equal([]int{5, 8, 6, 8, 3, 8, 2}, Intersperse([]int{5, 6, 3, 2}, 8))\n"
        "    assert.Equal([]int{2, 2, 2, 2, 2}, Intersperse([]int{2, 2, 2}, 2))\n}\n"),
    "sum_product": Problem(  # []int -> [2]int
        "func SumProduct(numbers []int) [2]int {\n    s, p := 0, 1\n    for _, n := range numbers {\n"
        "        s += n\n        p *= n\n    }\n    return [2]int{s, p}\n}\n",
        "func SumProduct(numbers []int) [2]int {\n    s := 0\n    for _, n := range numbers {\n        s += n\n"
        "    }\n    return [2]int{s, s}\n}\n",
        "func TestSumProduct(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal([2]int{0, 1}, SumProduct([]int{}))\n"
        "    assert.Equal([2]int{3, 1}, SumProduct([]int{1, 1, 1}))\n"
        "    assert.Equal([2]int{100, 0}, SumProduct([]int{100, 0}))\n"
        "    assert.Equal([2]int{3 + 5 + 7, 3 * 5 * 7}, SumProduct([]int{3, 5, 7}))\n}\n"),
    "histogram": Problem(  # string -> map[rune]int
        'import (\n    "strings"\n)\n\nfunc Histogram(test string) map[rune]int {\n    dict := make(map[rune]int)\n'
        "    counts := make(map[rune]int)\n    best := 0\n    for _, word := range strings.Fields(test) {\n"
        "        r := []rune(word)[0]\n        counts[r]++\n        if counts[r] > best {\n"
        "            best = counts[r]\n        }\n    }\n    for r, c := range counts {\n"
        "        if c == best {\n            dict[r] = c\n        }\n    }\n    return dict\n}\n",
        "func Histogram(test string) map[rune]int {\n    return map[rune]int{'a': 1}\n}\n",
        "func TestHistogram(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal(map[rune]int{'a': 2, 'b': 2}, Histogram(\"a b b a\"))\n"
        "    assert.Equal(map[rune]int{'a': 2, 'b': 2}, Histogram(\"a b c a b\"))\n"
        "    assert.Equal(map[rune]int{'b': 4}, Histogram(\"b b b b a\"))\n"
        "    assert.Equal(map[rune]int{}, Histogram(\"\"))\n}\n"),
    "by_length": Problem(  # []int -> []string
        'import (\n    "sort"\n)\n\nfunc ByLength(arr []int) []string {\n'
        '    names := []string{"", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"}\n'
        "    kept := []int{}\n    for _, x := range arr {\n        if x >= 1 && x <= 9 {\n"
        "            kept = append(kept, x)\n        }\n    }\n    sort.Sort(sort.Reverse(sort.IntSlice(kept)))\n"
        "    out := []string{}\n    for _, x := range kept {\n        out = append(out, names[x])\n    }\n"
        "    return out\n}\n",
        "func ByLength(arr []int) []string {\n    return []string{\"One\"}\n}\n",
        "func TestByLength(t *testing.T) {\n    assert := assert.New(t)\n"
        '    assert.Equal([]string{"Eight", "Five", "Four", "Three", "Two", "Two", "One", "One"},'
        " ByLength([]int{2, 1, 1, 4, 5, 8, 2, 3}))\n"
        "    assert.Equal([]string{}, ByLength([]int{}))\n"
        '    assert.Equal([]string{"One"}, ByLength([]int{1, -1, 55}))\n}\n'),
    "prod_signs": Problem(  # []int -> interface{} (nil or an int)
        "func ProdSigns(arr []int) interface{} {\n    if len(arr) == 0 {\n        return nil\n    }\n"
        "    sign, sum := 1, 0\n    for _, x := range arr {\n        if x == 0 {\n            sign = 0\n"
        "        } else if x < 0 {\n            sign = -sign\n        }\n        if x < 0 {\n"
        "            sum -= x\n        } else {\n            sum += x\n        }\n    }\n    return sign * sum\n}\n",
        "func ProdSigns(arr []int) interface{} {\n    if len(arr) == 0 {\n        return 0\n    }\n"
        "    return -9\n}\n",
        "func TestProdSigns(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal(-9, ProdSigns([]int{1, 2, 2, -4}))\n"
        "    assert.Equal(0, ProdSigns([]int{0, 1}))\n"
        "    assert.Equal(-10, ProdSigns([]int{1, 1, 1, 2, 3, -1, 1}))\n"
        "    assert.Equal(nil, ProdSigns([]int{}))\n}\n"),
    "largest_smallest": Problem(  # []int -> [2]interface{}
        "func LargestSmallestIntegers(lst []int) [2]interface{} {\n    var neg, pos interface{}\n"
        "    for _, x := range lst {\n        if x < 0 && (neg == nil || x > neg.(int)) {\n            neg = x\n"
        "        }\n        if x > 0 && (pos == nil || x < pos.(int)) {\n            pos = x\n        }\n    }\n"
        "    return [2]interface{}{neg, pos}\n}\n",
        "func LargestSmallestIntegers(lst []int) [2]interface{} {\n    return [2]interface{}{0, 0}\n}\n",
        "func TestLargestSmallestIntegers(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal([2]interface{}{nil, 1}, LargestSmallestIntegers([]int{2, 4, 1, 3, 5, 7}))\n"
        "    assert.Equal([2]interface{}{-2, 1}, LargestSmallestIntegers([]int{4, 5, 3, 6, 2, 7, -7, -2, 1}))\n"
        "    assert.Equal([2]interface{}{nil, nil}, LargestSmallestIntegers([]int{}))\n}\n"),
    "filter_integers": Problem(  # []interface{} -> []int
        "func FilterIntegers(values []interface{}) []int {\n    out := make([]int, 0)\n"
        "    for _, v := range values {\n        if i, ok := v.(int); ok {\n            out = append(out, i)\n"
        "        }\n    }\n    return out\n}\n",
        "func FilterIntegers(values []interface{}) []int {\n    return []int{}\n}\n",
        "func TestFilterIntegers(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal([]int{}, FilterIntegers([]interface{}{}))\n"
        "    assert.Equal([]int{4, 9}, FilterIntegers([]interface{}{4, map[string]int{}, []int{}, 23.2, 9,"
        " \"adasd\"}))\n"
        "    assert.Equal([]int{3, 3, 3}, FilterIntegers([]interface{}{3, 'c', 3, 3, \"a\", \"b\"}))\n}\n"),
    "get_row": Problem(  # [][]int, int -> [][2]int
        "func GetRow(lst [][]int, x int) [][2]int {\n    out := make([][2]int, 0)\n"
        "    for i, row := range lst {\n        for j := len(row) - 1; j >= 0; j-- {\n"
        "            if row[j] == x {\n                out = append(out, [2]int{i, j})\n            }\n        }\n"
        "    }\n    return out\n}\n",
        "func GetRow(lst [][]int, x int) [][2]int {\n    out := make([][2]int, 0)\n"
        "    for i, row := range lst {\n        for j := range row {\n"
        "            if row[j] == x {\n                out = append(out, [2]int{i, j})\n            }\n        }\n"
        "    }\n    return out\n}\n",
        "func TestGetRow(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal([][2]int{{0, 0}, {1, 4}, {1, 0}, {2, 5}, {2, 0}}, GetRow([][]int{\n"
        "        {1, 2, 3, 4, 5, 6},\n        {1, 2, 3, 4, 1, 6},\n        {1, 2, 3, 4, 5, 1},\n    }, 1))\n"
        "    assert.Equal([][2]int{}, GetRow([][]int{}, 1))\n}\n"),
    "div_mod": Problem(  # two int64 -> (int64, int64), uint8 -> uint16, []byte, float32
        "func DivMod(a, b int64) (int64, int64) {\n    return a / b, a % b\n}\n\n"
        "func Widen(x uint8) uint16 {\n    return uint16(x) * 300\n}\n\n"
        "func Upper(s []byte) []byte {\n    out := make([]byte, len(s))\n    for i, c := range s {\n"
        "        if c >= 'a' && c <= 'z' {\n            c -= 32\n        }\n        out[i] = c\n    }\n"
        "    return out\n}\n\n"
        "func Half(x float32) float32 {\n    return x / 2\n}\n",
        "func DivMod(a, b int64) (int64, int64) {\n    return a % b, a / b\n}\n\n"
        "func Widen(x uint8) uint16 {\n    return uint16(x * 3)\n}\n\n"
        "func Upper(s []byte) []byte {\n    return s\n}\n\n"
        "func Half(x float32) float32 {\n    return x\n}\n",
        "func TestDivMod(t *testing.T) {\n    q, r := DivMod(-7000000000000, 3)\n"
        "    assert.Equal(t, int64(-2333333333333), q)\n    assert.Equal(t, int64(-1), r)\n}\n\n"
        "func TestWiden(t *testing.T) {\n    assert.Equal(t, uint16(60000), Widen(200))\n}\n\n"
        "func TestUpper(t *testing.T) {\n"
        "    assert.Equal(t, []byte(\"HELLO, 1!\"), Upper([]byte(\"hello, 1!\")))\n}\n\n"
        "func TestHalf(t *testing.T) {\n    assert.Equal(t, float32(0.75), Half(1.5))\n}\n"),
    "string_xor": Problem(  # string, string -> string (a test file with its own package clause and imports)
        "func StringXor(a string, b string) string {\n    out := []byte{}\n    for i := range a {\n"
        "        if a[i] == b[i] {\n            out = append(out, '0')\n        } else {\n"
        "            out = append(out, '1')\n        }\n    }\n    return string(out)\n}\n",
        "func StringXor(a string, b string) string {\n    return a\n}\n",
        'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n    "fmt"\n)\n\n'
        "func TestStringXor(t *testing.T) {\n    assert := assert.New(t)\n"
        '    assert.Equal("010010", StringXor("111000", "101010"))\n'
        '    assert.Equal("0", StringXor("1", "1"))\n'
        '    assert.Equal("0101", StringXor("0101", "0000"))\n}\n'),
    "must_double": Problem(  # a panic the tests expect: assert.Panics, PanicsWithValue, PanicsWithError, recover()
        'import "errors"\n\nfunc MustDouble(x int) int {\n    if x < 0 {\n        panic("negative")\n    }\n'
        '    if x > 1000 {\n        panic(errors.New("too large"))\n    }\n    return 2 * x\n}\n',
        "func MustDouble(x int) int {\n    return 2 * x\n}\n",
        "func TestMustDouble(t *testing.T) {\n    assert.Equal(t, 4, MustDouble(2))\n"
        "    assert.Panics(t, func() { MustDouble(-1) })\n"
        '    assert.PanicsWithValue(t, "negative", func() { MustDouble(-3) })\n'
        '    assert.PanicsWithError(t, "too large", func() { MustDouble(5000) })\n'
        "    assert.NotPanics(t, func() { MustDouble(0) })\n}\n\n"
        "func TestRecovered(t *testing.T) {\n    defer func() {\n"
        '        assert.Equal(t, "negative", recover())\n    }()\n    MustDouble(-7)\n'
        '    t.Fatal("no panic")\n}\n'),
    "named_types": Problem(  # a program's named types of the set: Celsius float64, Grid [][]int, Counts map
        'import "strings"\n\ntype Celsius float64\n\ntype Fahrenheit float64\n\ntype Grid [][]int\n\n'
        "type Counts map[string]int\n\nfunc (c Celsius) String() string {\n    return \"C\"\n}\n\n"
        "func ToFahrenheit(c Celsius) Fahrenheit {\n    return Fahrenheit(c*9/5 + 32)\n}\n\n"
        "func Transpose(g Grid) Grid {\n    if len(g) == 0 {\n        return Grid{}\n    }\n"
        "    out := make(Grid, len(g[0]))\n    for j := range out {\n        out[j] = make([]int, len(g))\n"
        "        for i := range g {\n            out[j][i] = g[i][j]\n        }\n    }\n    return out\n}\n\n"
        "func WordCounts(s string) Counts {\n    out := Counts{}\n    for _, w := range strings.Fields(s) {\n"
        "        out[w]++\n    }\n    return out\n}\n",
        "type Celsius float64\n\ntype Fahrenheit float64\n\ntype Grid [][]int\n\ntype Counts map[string]int\n\n"
        "func ToFahrenheit(c Celsius) Fahrenheit {\n    return Fahrenheit(c)\n}\n\n"
        "func Transpose(g Grid) Grid {\n    return g\n}\n\n"
        "func WordCounts(s string) Counts {\n    return Counts{}\n}\n",
        "func TestToFahrenheit(t *testing.T) {\n    assert.Equal(t, Fahrenheit(212), ToFahrenheit(100))\n"
        "    assert.Equal(t, Fahrenheit(32), ToFahrenheit(Celsius(0)))\n}\n\n"
        "func TestTranspose(t *testing.T) {\n"
        "    assert.Equal(t, Grid{{1, 3}, {2, 4}}, Transpose(Grid{{1, 2}, {3, 4}}))\n"
        "    assert.Equal(t, Grid{}, Transpose(Grid{}))\n}\n\n"
        "func TestWordCounts(t *testing.T) {\n"
        '    assert.Equal(t, Counts{"a": 2, "b": 1}, WordCounts("a b a"))\n'
        '    assert.Equal(t, 0, len(WordCounts("")))\n}\n'),
    "structs": Problem(  # named structs: as arguments and results, in slices, nested, unexported fields, in interface{}
        'import "sort"\n\ntype Point struct {\n    X, Y int\n}\n\n'
        "type Segment struct {\n    from, to Point\n    name     string\n    tags     []string\n}\n\n"
        "type Tree struct {\n    Label string\n    Kids  []Tree\n}\n\n"
        "func Midpoint(a, b Point) Point {\n    return Point{(a.X + b.X) / 2, (a.Y + b.Y) / 2}\n}\n\n"
        "func SortPoints(ps []Point) []Point {\n    out := append([]Point{}, ps...)\n"
        "    sort.Slice(out, func(i, j int) bool {\n        if out[i].X != out[j].X {\n"
        "            return out[i].X < out[j].X\n        }\n        return out[i].Y < out[j].Y\n    })\n"
        "    return out\n}\n\n"
        "func length(s Segment) int {\n    dx, dy := s.to.X-s.from.X, s.to.Y-s.from.Y\n    return dx*dx + dy*dy\n}\n\n"
        "func Longest(segs []Segment) Segment {\n    best := segs[0]\n    for _, s := range segs[1:] {\n"
        "        if length(s) > length(best) {\n            best = s\n        }\n    }\n    return best\n}\n\n"
        "func Chain(n int) Tree {\n    t := Tree{Label: fmt.Sprint(n)}\n    if n > 0 {\n"
        "        t.Kids = []Tree{Chain(n - 1)}\n    }\n    return t\n}\n\n"
        "func Describe(p Point) interface{} {\n    if p.X == 0 && p.Y == 0 {\n        return \"origin\"\n    }\n"
        "    return p\n}\n",
        "type Point struct {\n    X, Y int\n}\n\n"
        "type Segment struct {\n    from, to Point\n    name     string\n    tags     []string\n}\n\n"
        "type Tree struct {\n    Label string\n    Kids  []Tree\n}\n\n"
        "func Midpoint(a, b Point) Point {\n    return a\n}\n\n"
        "func SortPoints(ps []Point) []Point {\n    return ps\n}\n\n"
        "func Longest(segs []Segment) Segment {\n    return segs[0]\n}\n\n"
        "func Chain(n int) Tree {\n    return Tree{Label: \"x\"}\n}\n\n"
        "func Describe(p Point) interface{} {\n    return p\n}\n",
        "func TestMidpoint(t *testing.T) {\n    assert.Equal(t, Point{2, 3}, Midpoint(Point{0, 0}, Point{4, 6}))\n}\n\n"
        "func TestSortPoints(t *testing.T) {\n"
        "    assert.Equal(t, []Point{{0, 5}, {1, 1}, {1, 2}}, SortPoints([]Point{{1, 2}, {0, 5}, {1, 1}}))\n"
        "    assert.Equal(t, []Point{}, SortPoints([]Point{}))\n}\n\n"
        "func TestLongest(t *testing.T) {\n"
        '    a := Segment{from: Point{0, 0}, to: Point{1, 1}, name: "a"}\n'
        '    b := Segment{from: Point{0, 0}, to: Point{3, 4}, name: "b", tags: []string{"long"}}\n'
        "    assert.Equal(t, b, Longest([]Segment{a, b}))\n    assert.Equal(t, a, Longest([]Segment{a}))\n}\n\n"
        "func TestChain(t *testing.T) {\n"
        '    assert.Equal(t, Tree{"1", []Tree{{"0", nil}}}, Chain(1))\n}\n\n'
        "func TestDescribe(t *testing.T) {\n"
        '    assert.Equal(t, "origin", Describe(Point{}))\n'
        "    assert.Equal(t, Point{1, 2}, Describe(Point{1, 2}))\n}\n"),
    "kinds": Problem(  # []interface{} in, map[string][]interface{} out, structs inside interface{} both ways
        "type Point struct{ X, Y int }\n\n"
        "func Kinds(values []interface{}) map[string][]interface{} {\n    out := map[string][]interface{}{}\n"
        "    for _, v := range values {\n        k := \"other\"\n        switch v.(type) {\n"
        "        case int:\n            k = \"int\"\n        case string:\n            k = \"string\"\n"
        "        case Point:\n            k = \"point\"\n        }\n        out[k] = append(out[k], v)\n    }\n"
        "    return out\n}\n\n"
        "func Wrap(x interface{}) []interface{} {\n"
        '    return []interface{}{x, []interface{}{x}, map[string]interface{}{"x": x}}\n}\n',
        "type Point struct{ X, Y int }\n\n"
        "func Kinds(values []interface{}) map[string][]interface{} {\n    out := map[string][]interface{}{}\n"
        "    for _, v := range values {\n        k := \"other\"\n        switch v.(type) {\n"
        "        case int:\n            k = \"int\"\n        case string:\n            k = \"string\"\n"
        "        }\n        out[k] = append(out[k], v)\n    }\n    return out\n}\n\n"
        "func Wrap(x interface{}) []interface{} {\n    return []interface{}{x}\n}\n",
        "func TestKinds(t *testing.T) {\n"
        '    assert.Equal(t, map[string][]interface{}{"int": {1, 2}, "string": {"a"}, "point": {Point{1, 2}},'
        ' "other": {2.5, []int{1}}},\n        Kinds([]interface{}{1, "a", Point{1, 2}, 2, 2.5, []int{1}}))\n'
        "    assert.Equal(t, map[string][]interface{}{}, Kinds(nil))\n}\n\n"
        "func TestWrap(t *testing.T) {\n"
        "    assert.Equal(t, []interface{}{Point{3, 4}, []interface{}{Point{3, 4}},"
        ' map[string]interface{}{"x": Point{3, 4}}}, Wrap(Point{3, 4}))\n'
        '    assert.Equal(t, []interface{}{nil, []interface{}{nil}, map[string]interface{}{"x": nil}}, Wrap(nil))\n'
        "}\n"),
}


def judge_go(judge, code: str, tests: str, limits: Limits = LIMITS):
    return judge.judge(code, [Case.asserts(tests)], language="go", limits=limits)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_the_reference_passes_and_a_wrong_answer_fails(judge, name):
    problem = PROBLEMS[name]
    honest = judge_go(judge, problem.honest, problem.tests)
    assert honest.verdict is Verdict.AC, (honest.cases[0].message, honest.cases[0].stderr[-3000:])
    wrong = judge_go(judge, problem.wrong, problem.tests)
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
    for path in sorted(HACKS.glob("*.go")):
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
    result = judge_go(judge, hack.code, PROBLEMS[hack.problem].tests, Limits(cpu_time=2, memory_mb=256))
    case = result.cases[0]
    assert result.score == 0 and result.verdict is not Verdict.SE, (result.verdict, case.message, case.stderr[-2000:])
    assert result.verdict in hack.verdicts, (result.verdict, case.message, case.stderr[-2000:])


# -- what crosses, what cannot --------------------------------------------------------------------------------

@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_a_panic_the_tests_do_not_expect_fails_the_case(judge):
    """Raised again in the tests' process, the program's panic ends it as it ends a go test binary: RE."""
    code = "func F(x int) int {\n    if x == 2 {\n        panic(\"two\")\n    }\n    return x\n}\n"
    result = judge_go(judge, code, "func TestF(t *testing.T) {\n    assert.Equal(t, 1, F(1))\n"
                                   "    assert.Equal(t, 2, F(2))\n}\n")
    assert result.verdict is Verdict.RE
    assert "panic: two" in result.cases[0].stderr


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_a_panic_value_crosses_as_text_alone(judge):
    """A value that is neither a string nor an error crosses as its text, raised in the tests as a type of
    the harness's own: it equals no string (as the program's own type would not under go test), and its
    text is there to print."""
    code = ('type weird struct{ n int }\n\nfunc (w weird) String() string {\n    return "weird"\n}\n\n'
            "func F() int {\n    panic(weird{3})\n}\n")
    equal = 'func TestF(t *testing.T) {\n    assert.PanicsWithValue(t, "weird", func() { F() })\n}\n'
    assert judge_go(judge, code, equal).verdict is Verdict.WA
    printed = ('func TestF(t *testing.T) {\n    defer func() {\n'
               '        assert.Equal(t, "weird", fmt.Sprint(recover()))\n    }()\n    F()\n}\n')
    assert judge_go(judge, code, printed).verdict is Verdict.AC


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_every_test_function_runs(judge):
    code = "func F(x int) int {\n    return x\n}\n"
    tests = ("func TestOne(t *testing.T) {\n    assert.Equal(t, 1, F(1))\n}\n\n"
             "func TestTwo(t *testing.T) {\n    assert.Equal(t, 2, F(2))\n}\n")
    assert judge_go(judge, code, tests).verdict is Verdict.AC
    assert judge_go(judge, code, tests.replace("2, F(2)", "3, F(2)")).verdict is Verdict.WA


@pytest.mark.slow  # about 5 s in all on this busy 2-core machine
@pytest.mark.parametrize("signature, why", [
    ("type Node struct{ Next *Node }\n\nfunc F(n Node) int { return 1 }", "*main.Node"),
    ("func F(p *int) int { return *p }", "*int"),
    ("func F(x int) (int, error) { return x, nil }", "error"),
    ("type Failure struct{ Err error }\n\nfunc F(x Failure) int { return 1 }", "main.Failure"),
    ("type Handler struct{ On func() }\n\nfunc F(x Handler) int { return 1 }", "func()"),
    ("func F(p struct{ A int }) int { return p.A }", "unnamed struct"),
    ("type Pair[T any] struct{ A T }\n\nfunc F(p Pair[int]) int { return 1 }", "main.Pair"),
    ("type Embeds struct{ Point }\n\ntype Point struct{ X int }\n\nfunc F(e Embeds) int { return 1 }", "embedded"),
    ("type int float64\n\nfunc F(x int) int { return 1 }", "predeclared"),
    ("func F(xs ...int) int { return len(xs) }", "variadic"),
    ("func F[T any](x T) int { return 1 }", "generic"),
])
def test_a_function_the_harness_cannot_call_is_a_compile_error(judge, signature, why):
    result = judge_go(judge, signature + "\n", "func TestF(t *testing.T) {\n    assert.Equal(t, 1, F(1))\n}\n")
    assert result.verdict is Verdict.CE
    assert why in result.cases[0].message


def test_a_program_that_does_not_parse_is_a_compile_error(judge):
    result = judge_go(judge, "func F(x int) int {\n    return x +\n", "func TestF(t *testing.T) {}\n")
    assert result.verdict is Verdict.CE


def test_tests_without_a_test_function_are_the_callers_fault(judge):
    result = judge_go(judge, "func F() int {\n    return 1\n}\n", "func helper() {}\n")
    assert result.verdict is Verdict.SE


def test_builds_are_cached(judge):
    problem = PROBLEMS["has_close_elements"]
    assert judge_go(judge, problem.honest, problem.tests).verdict is Verdict.AC
    misses = judge._programs.cache.misses
    assert judge_go(judge, problem.honest, problem.tests).verdict is Verdict.AC
    assert judge._programs.cache.misses == misses
    other = problem.honest.replace("return false", "return 1 > 2")
    assert judge_go(judge, other, problem.tests).verdict is Verdict.AC
    assert judge._programs.cache.misses == misses + 2  # its reading and its side; the tests' side is shared


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_a_program_function_named_like_a_tests_import_stays_the_programs(judge):
    code = "func assert(x bool) bool {\n    return x\n}\n\nfunc F(x int) int {\n    return x * 2\n}\n"
    tests = "func TestF(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(4, F(2))\n}\n"
    assert judge_go(judge, code, tests).verdict is Verdict.AC  # no stub named assert: testify's stays
    assert judge_go(judge, code, tests.replace("4, F(2)", "5, F(2)")).verdict is Verdict.WA


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_a_data_type_named_like_a_tests_name_is_not_copied(judge):
    """The tests' own name wins: the program's type is not copied into the tests, and a function of it has
    no stub; a program type the tests never meet does not disturb them."""
    code = ("type assert struct{ X int }\n\ntype testing int\n\ntype Pair struct{ A int }\n\n"
            "func F(x int) int {\n    return x * 2\n}\n\nfunc G(p Pair) int {\n    return p.A\n}\n")
    tests = "func TestF(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(4, F(2))\n}\n"
    assert judge_go(judge, code, tests).verdict is Verdict.AC
    tests = "type Pair struct{ B int }\n\nfunc TestG(t *testing.T) {\n    assert.Equal(t, 1, G(Pair{1}))\n}\n"
    result = judge_go(judge, code, tests)
    assert result.verdict is Verdict.CE and "tests' names" in result.cases[0].message


def test_data_types_are_read_as_an_attackers_text():
    read = go_split.data_types({"types": [{"name": "Pair", "type": "struct{A int; b []Grid; c struct{X Pair}}"},
                                          {"name": "Grid", "type": "[][]int"}]})
    assert [(t.name, t.definition) for t in read] == [("Pair", "struct{A int; b []Grid; c struct{X Pair}}"),
                                                      ("Grid", "[][]int")]
    for lie in ([{"name": "int", "type": "string"}], [{"name": "X", "type": "struct{A int}; func init() {}"}],
                [{"name": "X", "type": "Y"}], [{"name": "X", "type": "struct{func int}"}],
                [{"name": "X", "type": "*int"}], [{"name": "X", "type": "int"}, {"name": "X", "type": "int"}],
                [{"name": "judgeboxTypes", "type": "int"}], [{"name": "X", "type": "struct{A int;B int}"}],
                [{"name": "X Y", "type": "int"}], [{"name": "X", "type": "int", "methods": "String"}]):
        with pytest.raises(go_split.Unsupported):
            go_split.data_types({"types": lie})
    with pytest.raises(go_split.Unsupported):  # a signature names only data types, and no unnamed struct
        go_split.program_functions({"functions": [{"name": "F", "params": ["struct{A int}"], "results": []}],
                                    "types": [], "refused": {}})
    functions, _ = go_split.program_functions({"functions": [{"name": "F", "params": ["[]Pair"], "results": []}],
                                               "types": [{"name": "Pair", "type": "struct{}"}], "refused": {}})
    assert functions[0].params == ("[]Pair",)
    copied, refused = go_split.tests_view(read, functions, {"Grid"})
    assert copied == [] and set(refused) == {"F"}  # Pair uses Grid, which the tests declare
