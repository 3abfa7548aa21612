// why: the program's own float64 and bool (an int kind, a string) with its Celsius built on them: copied
// into the tests as they are, they would turn the tests' float64 and bool into the program's (only
// Celsius crosses, as what it is: an int kind)
// problem: named_types
// verdict: WA CE
type float64 int

type bool string

type Celsius float64

type Fahrenheit float64

type Grid [][]int

type Counts map[string]int

func ToFahrenheit(c Celsius) Fahrenheit {
	return Fahrenheit(c*9/5 + 32)
}

func Transpose(g Grid) Grid {
	return g
}

func WordCounts(s string) Counts {
	return Counts{}
}
