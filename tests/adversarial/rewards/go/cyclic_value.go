// why: a value that contains itself (a slice of Tree whose element holds the same slice, a map holding
// itself in an interface{}): written out naively it never ends
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
	kids := make([]Tree, 1)
	kids[0] = Tree{Label: "0", Kids: kids}
	return Tree{Label: "1", Kids: kids}
}

func Describe(p Point) interface{} {
	m := map[string]interface{}{}
	m["m"] = m
	return m
}
