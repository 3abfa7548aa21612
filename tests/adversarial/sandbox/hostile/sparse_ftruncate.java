// language: java
// attack: make stdout, stderr and fd 3 huge and sparse (RandomAccessFile.setLength on /proc/self/fd/N, no
//   byte written), over the output limit or just under it, for every case: the judge reads all of it
// expect: OLE WA
// limits: output_bytes=8388608
// cases: 6
// variants: over-cap under-cap
// untouched: returned-output no-leftovers
import java.io.RandomAccessFile;

public class Main {
    public static void main(String[] args) {
        long[] sizes = "{VARIANT}".equals("over-cap") ? new long[] {4L << 30, 1L << 30, 60L << 20} : new long[] {6L << 20};
        for (int fd = 1; fd <= 3; fd++) {
            for (long size : sizes) {
                try (RandomAccessFile file = new RandomAccessFile("/proc/self/fd/" + fd, "rw")) {
                    file.setLength(size);
                    break;
                } catch (Exception e) {
                    // over the file-size limit, or not open
                }
            }
        }
    }
}
