// why: panics on every call, hoping the tests that expect a panic carry the rest
// problem: must_double
// verdict: RE
func MustDouble(x int) int {
	panic("negative")
}
