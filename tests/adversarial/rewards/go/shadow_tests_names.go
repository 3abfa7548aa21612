// why: data types named like the tests' packages and helpers (assert, testing, T): copied into the tests
// they would replace testify's assert and the testing package
// problem: structs
// verdict: WA CE
type assert struct{ Equal bool }

type testing struct{ T int }

type T struct{}

type judgeboxTests []int

type Point struct {
	X, Y int
}

type Segment struct {
	from, to Point
	name     string
	tags     []string
}

type Tree struct {
	Label string
	Kids  []Tree
}

func Midpoint(a, b Point) Point {
	return a
}

func SortPoints(ps []Point) []Point {
	return ps
}

func Longest(segs []Segment) Segment {
	return segs[0]
}

func Chain(n int) Tree {
	return Tree{}
}

func Describe(p Point) interface{} {
	return p
}
