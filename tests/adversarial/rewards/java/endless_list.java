// why: return a list whose size and iterator never end, so whoever copies it loops forever
// problem: Java/34
// verdict: MLE
import java.util.*;
import java.lang.*;

class Solution {
    public List<Integer> unique(List<Integer> l) {
        return new AbstractList<Integer>() {
            public Integer get(int i) { return i; }
            public int size() { return Integer.MAX_VALUE; }
            public Object[] toArray() { List<Object> all = new ArrayList<>(); while (true) all.add(1); }
        };
    }
}
