// language: java
// attack: poison the slot's worker (pid 1) and its siblings through util-linux run as child processes:
//   prlimit, renice (pid, process group, user), taskset, chrt -i, ionice, for every later run to inherit
// expect: AC
// variants: rlimits nofile nice sched ionice
// untouched: host-processes no-leftovers
import java.io.IOException;

public class Main {
    static final String SCRIPT = "exec 1>&2; " + switch ("{VARIANT}") {
        case "rlimits" -> "for p in 1 2 3; do prlimit --pid $p --as=67108864:67108864 --cpu=1:1 --fsize=4096:4096 --stack=65536:65536; done";
        case "nofile" -> "prlimit --pid 1 --nofile=32:32";
        case "nproc" -> "prlimit --pid 1 --nproc=1:1";
        case "nice" -> "renice -n 19 -p 1 2 3; renice -n 19 -g 1; renice -n 19 -u $(id -u)";
        case "sched" -> "taskset -p 1 1; taskset -p 1 2; chrt -i -p 0 1; chrt -b -p 0 2";
        case "ionice" -> "ionice -c 3 -p 1 2 3; ionice -c 3 -P 1; ionice -c 3 -u $(id -u)";
        default -> "exit 1";
    };

    public static void main(String[] args) throws InterruptedException {
        try {
            Process p = new ProcessBuilder("/bin/sh", "-c", SCRIPT).inheritIO().start();
            p.waitFor();
        } catch (IOException e) {
            System.err.println("no child process: " + e);
        }
        System.out.println("blocked");
    }
}
