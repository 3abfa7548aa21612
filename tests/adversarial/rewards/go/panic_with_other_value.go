// why: panics where the tests expect it, with another value (and an error where a string is due)
// problem: must_double
// verdict: WA
import "errors"

func MustDouble(x int) int {
	if x < 0 {
		panic(errors.New("negative"))
	}
	if x > 1000 {
		panic("too large")
	}
	return 2 * x
}
