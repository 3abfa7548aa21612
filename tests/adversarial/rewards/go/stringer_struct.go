// why: a struct whose String, GoString, Error and Format methods print the expected values whatever its
// fields hold, to fool testify's comparison of printed forms or its failure output
// problem: structs
// verdict: WA
import (
	"fmt"
	"os"
)

type Point struct {
	X, Y int
}

func (p Point) String() string           { return "{2 3}" }
func (p Point) GoString() string         { return "main.Point{X:2, Y:3}" }
func (p Point) Error() string            { os.Exit(0); return "" }
func (p Point) Format(f fmt.State, c rune) { fmt.Fprint(f, "{2 3}") }

type Segment struct {
	from, to Point
	name     string
	tags     []string
}

func (s Segment) String() string { os.Exit(0); return "" }

type Tree struct {
	Label string
	Kids  []Tree
}

func (t Tree) Equal(other interface{}) bool { return true }

func Midpoint(a, b Point) Point {
	return Point{-1, -1}
}

func SortPoints(ps []Point) []Point {
	return ps
}

func Longest(segs []Segment) Segment {
	return Segment{}
}

func Chain(n int) Tree {
	return Tree{}
}

func Describe(p Point) interface{} {
	return Point{}
}
