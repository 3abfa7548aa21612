// why: a package-level assert whose methods agree with everything, and a helper named like testify's
// constructor; in one package the tests' assert.New(t) would be the program's
// problem: by_length
// verdict: WA CE
type agreeable struct{}

func (agreeable) Equal(expected, actual interface{}, msgs ...interface{}) bool { return true }
func (agreeable) New(t interface{}) agreeable                                { return agreeable{} }

var assert = agreeable{}

func ByLength(arr []int) []string {
	return nil
}
