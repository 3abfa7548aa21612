// why: named types whose methods panic or exit with a passing status when called (String, Error,
// MarshalJSON): any of them run in the tests' process would end it on the program's terms
// problem: named_types
// verdict: WA
import "os"

type Celsius float64

type Fahrenheit float64

type Grid [][]int

type Counts map[string]int

func (f Fahrenheit) String() string          { os.Exit(0); return "" }
func (f Fahrenheit) Error() string           { panic("PASS") }
func (g Grid) String() string                { os.Exit(0); return "" }
func (c Counts) MarshalJSON() ([]byte, error) { os.Exit(0); return nil, nil }
func (c Counts) Len() int                    { panic("len") }

func ToFahrenheit(c Celsius) Fahrenheit {
	return Fahrenheit(c) + 0.5
}

func Transpose(g Grid) Grid {
	return Grid{{0}}
}

func WordCounts(s string) Counts {
	return Counts{"PASS": 1}
}
