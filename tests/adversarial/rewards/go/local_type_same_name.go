// why: a function's own local type named like the program's data type, held by an interface{}: by name
// alone it would pass for the tests' Point (in one binary it is another type, never equal)
// problem: structs
// verdict: RE WA
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
	return Tree{Label: "1", Kids: []Tree{{"0", nil}}}
}

func Describe(p Point) interface{} {
	type Point struct {
		X, Y int
	}
	if p.X == 0 && p.Y == 0 {
		return "origin"
	}
	return Point{p.X, p.Y}
}
