// why: answer a value of the program's own named type inside interface{} (printed like the expected
// int, and equal to it under a harness that compares printed forms)
// problem: prod_signs
// verdict: RE WA
type signed int

func ProdSigns(arr []int) interface{} {
	if len(arr) == 0 {
		return nil
	}
	sign, sum := 1, 0
	for _, x := range arr {
		if x == 0 {
			sign = 0
		} else if x < 0 {
			sign = -sign
		}
		if x < 0 {
			sum -= x
		} else {
			sum += x
		}
	}
	return signed(sign * sum)
}
