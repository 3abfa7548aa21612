// language: java
// attack: look at the host through /sys/fs/cgroup (other judges' live memory, CPU and process counts) and
//   stat host paths a run has no business with (the judge's checkout and venv, homes, /run, /opt)
// expect: AC
// untouched: host-processes
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class Main {
    static final String ROOT = "/sys/fs/cgroup";
    static final List<String> own = new ArrayList<>();
    static final Map<String, List<String>> leaks = new LinkedHashMap<>();
    static int seen = 0;

    static void found(String kind, String what) {
        leaks.computeIfAbsent(kind, k -> new ArrayList<>()).add(what);
    }

    // cgroup v1 mounts each hierarchy at ROOT/<controller>, v2 at ROOT: both readings of the path are tried
    static final List<String> ownFolders = new ArrayList<>();

    static boolean listsMe(String folder) {
        try {
            String procs = new String(Files.readAllBytes(java.nio.file.Paths.get(folder, "cgroup.procs")));
            return java.util.Arrays.asList(procs.split("\\s+")).contains(Long.toString(ProcessHandle.current().pid()));
        } catch (Exception e) {
            return false;
        }
    }

    static String where(String folder) {
        for (String f : ownFolders) if (folder.equals(f) || folder.startsWith(f + "/")) return "own";
        if (listsMe(folder)) {
            ownFolders.add(folder);
            return "own";
        }
        String rel = folder.substring(ROOT.length());
        int cut = rel.indexOf('/', 1);
        String[] readings = {rel, cut < 0 ? "" : rel.substring(cut)};
        for (String r : readings) for (String p : own) if (r.equals(p) || r.startsWith(p + "/")) return "own";
        if (rel.isEmpty()) return "above";
        for (String r : readings) for (String p : own) if (p.startsWith(r + "/")) return "above";
        return "other";
    }

    static void walk(File folder) {
        if (++seen > 5000) return;
        File[] entries = folder.listFiles();
        if (entries == null) return;
        String place = where(folder.getPath());
        if (place.equals("other")) found("cgroup folder", folder.getPath());
        for (File entry : entries) {
            if (Files.isDirectory(entry.toPath(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) walk(entry);
            else if (!place.equals("own")) {
                try {
                    Files.readAllBytes(entry.toPath());
                    found("cgroup file", entry.getPath());
                } catch (Exception e) {
                    // not readable: as it should be
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        for (String line : Files.readAllLines(Paths.get("/proc/self/cgroup"))) {
            String path = line.split(":", 3)[2].replaceAll("/+$", "");
            if (!path.isEmpty()) own.add(path);  // "/" is the host's root, not the run's own
        }
        walk(new File(ROOT));
        List<String> hidden = new ArrayList<>(List.of("/root", "/home", "/work", "/work/main", "/var/cache/apt", "/var/log", "/var/lib", "/opt", "/run"));
        hidden.addAll(List.of("{JUDGE_DIRS}".split(",")));
        for (String p : hidden) {
            try {
                Files.readAttributes(Paths.get(p), "basic:size");
                found("stat", p);
            } catch (Exception e) {
                // ENOENT or EACCES: as it should be
            }
        }
        for (String p : List.of("/usr", "/etc", "/lib", "/lib64", "/bin", "/tmp", "/dev/null", "/proc/self")) {
            try {
                Files.readAttributes(Paths.get(p), "basic:size");
            } catch (Exception e) {
                found("MISSING (runs need it)", p + ": " + e);
            }
        }
        for (Map.Entry<String, List<String>> leak : leaks.entrySet()) {
            List<String> what = leak.getValue();
            System.out.println("LEAKED " + leak.getKey() + ": " + what.size() + ", e.g. "
                + String.join(" ", what.subList(0, Math.min(4, what.size()))));
        }
        if (leaks.isEmpty()) System.out.println("blocked");
    }
}
