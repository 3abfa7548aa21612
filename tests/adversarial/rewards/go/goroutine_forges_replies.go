// why: a goroutine that outlives the call and writes forged replies (true, and malformed ones) onto the
// channel, racing the real replies
// problem: has_close_elements
// verdict: RE WA
import (
	"os"
	"time"
)

func HasCloseElements(numbers []float64, threshold float64) bool {
	channel := os.NewFile(7, "channel")
	go func() {
		for {
			channel.Write([]byte{3, 0, 0, 0, 0, 1, 1}) // status 0, a bool, true
			channel.Write([]byte{2, 0, 0, 0, 0, 9})
			time.Sleep(time.Millisecond)
		}
	}()
	time.Sleep(20 * time.Millisecond)
	return false
}
