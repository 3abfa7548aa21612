// why: runtime.Goexit() from the function: deferred recovers do not see it, and in go test the test's
// goroutine just ends
// problem: intersperse
// verdict: RE WA
import "runtime"

func Intersperse(numbers []int, delimeter int) []int {
	runtime.Goexit()
	return nil
}
