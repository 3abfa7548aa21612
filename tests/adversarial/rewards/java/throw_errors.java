// why: throw Error subclasses (an AssertionError subclass, ThreadDeath, StackOverflowError) that a harness
//   catching only Exception would let through or misread
// problem: Java/53
import java.util.*;
import java.lang.*;
class Solution {
    static class Mine extends AssertionError { Mine() { super("asserts"); } }
    int calls = 0;
    public int add(int x, int y) {
        calls++;
        if (calls == 1) throw new Mine();
        if (calls == 2) throw new ThreadDeath();
        throw new StackOverflowError();
    }
}
