// why: a data type far too large to build (a field of 10^14 ints): every value of it the tests rebuild
// would take all their memory
// problem: kinds
// verdict: CE RE MLE
type Point struct {
	X, Y int
	pad  [9999999][9999999]int
}

func Kinds(values []interface{}) map[string][]interface{} {
	return map[string][]interface{}{"point": {Point{X: 1, Y: 2}}}
}

func Wrap(x interface{}) []interface{} {
	return []interface{}{Point{X: 3, Y: 4}}
}
