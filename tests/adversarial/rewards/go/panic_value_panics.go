// why: a panic value whose Error method panics again (and exits), to break the harness while it reads it
// problem: must_double
// verdict: WA RE
import "os"

type trap struct{}

func (trap) Error() string {
	os.Exit(0)
	panic("trap")
}

func MustDouble(x int) int {
	if x < 0 {
		panic(trap{})
	}
	return 2 * x
}
