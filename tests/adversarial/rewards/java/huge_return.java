// why: return a list that contains itself, a list nested thousands deep and a list of tens of millions
//   of items, to crash or exhaust the harness that reads them (WA when the tests refuse the value, MLE when
//   the program runs out of memory first)
// problem: Java/34
// verdict: MLE WA
import java.util.*;
import java.lang.*;

class Solution {
    int calls = 0;
    public List<Integer> unique(List<Integer> l) {
        calls++;
        List raw = new ArrayList();
        raw.add(raw);
        Object deep = new ArrayList<>();
        for (int i = 0; i < 100000; i++) { List next = new ArrayList(); next.add(deep); deep = next; }
        List<Integer> big = new ArrayList<>(Collections.nCopies(30_000_000, 1));
        return (List<Integer>) (calls % 3 == 1 ? raw : calls % 3 == 2 ? (List) deep : big);
    }
}
