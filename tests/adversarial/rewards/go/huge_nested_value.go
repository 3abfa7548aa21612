// why: a value of a recursive data type nested a million deep, to exhaust the tests' stack (or memory) as
// it is rebuilt there
// problem: structs
// verdict: RE MLE TLE
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
	return Point{(a.X + b.X) / 2, (a.Y + b.Y) / 2}
}

func SortPoints(ps []Point) []Point {
	return ps
}

func Longest(segs []Segment) Segment {
	return segs[len(segs)-1]
}

func Chain(n int) Tree {
	t := Tree{Label: "0"}
	for i := 0; i < 1000000; i++ {
		t = Tree{Label: "x", Kids: []Tree{t}}
	}
	return t
}

func Describe(p Point) interface{} {
	return p
}
