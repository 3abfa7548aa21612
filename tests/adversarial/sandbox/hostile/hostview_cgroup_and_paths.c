// language: c
// attack: look at the host through /sys/fs/cgroup (other judges' live memory, CPU and process counts) and
//   stat host paths a run has no business with (the judge's checkout and venv, homes, /run, /opt)
// expect: AC
// untouched: host-processes
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROOT "/sys/fs/cgroup"
static char own[16][512];
static int owns, folders_seen, findings[4];
static char example[4][512];
static const char *KINDS[4] = {"cgroup folder", "cgroup file", "stat", "MISSING (runs need it)"};

static void found(int kind, const char *what) {
    if (findings[kind]++ == 0) snprintf(example[kind], sizeof example[kind], "%s", what);
}

// 0: another group; 1: on the way down to the run's group; 2: the run's group or below it. cgroup v1
// mounts each hierarchy at ROOT/<controller>, v2 at ROOT: both readings of the path are tried.
static char own_folders[16][512];
static int own_folder_count;

static int lists_me(const char *folder) {
    char path[600], buffer[4096];
    snprintf(path, sizeof path, "%s/cgroup.procs", folder);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0) return 0;
    buffer[n] = 0;
    char me[32];
    snprintf(me, sizeof me, "%d", (int)getpid());
    for (char *line = strtok(buffer, "\n"); line; line = strtok(NULL, "\n"))
        if (strcmp(line, me) == 0) return 1;
    return 0;
}

static int where(const char *folder) {
    for (int i = 0; i < own_folder_count; i++) {
        size_t n = strlen(own_folders[i]);
        if (strncmp(folder, own_folders[i], n) == 0 && (folder[n] == 0 || folder[n] == '/')) return 2;
    }
    if (lists_me(folder)) {
        if (own_folder_count < 16) snprintf(own_folders[own_folder_count++], 512, "%s", folder);
        return 2;
    }
    const char *rel = folder + strlen(ROOT), *rest = strchr(rel + (*rel == '/'), '/');
    const char *readings[2] = {rel, rest ? rest : ""};
    int best = *rel == 0;
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < owns; i++) {
            size_t n = strlen(own[i]), m = strlen(readings[r]);
            if (m >= n && strncmp(readings[r], own[i], n) == 0 && (readings[r][n] == 0 || readings[r][n] == '/')) best = 2;
            else if (m == 0 || (m < n && strncmp(own[i], readings[r], m) == 0 && own[i][m] == '/')) best = best ? best : 1;
        }
    return best;
}

static void walk(const char *folder) {
    DIR *dir = opendir(folder);
    if (!dir || ++folders_seen > 5000) { if (dir) closedir(dir); return; }
    int place = where(folder);
    if (place == 0) found(0, folder);
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (entry->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) { walk(path); continue; }
        if (place == 2) continue;
        int fd = open(path, O_RDONLY);
        char buf[64];
        if (fd >= 0 && read(fd, buf, sizeof buf) >= 0) found(1, path);
        if (fd >= 0) close(fd);
    }
    closedir(dir);
}

int main(void) {
    FILE *groups = fopen("/proc/self/cgroup", "r");
    char line[1024];
    while (groups && owns < 16 && fgets(line, sizeof line, groups)) {
        char *path = strchr(strchr(line, ':') + 1, ':') + 1;
        path[strcspn(path, "\n")] = 0;
        size_t n = strlen(path);
        while (n > 0 && path[n - 1] == '/') path[--n] = 0;
        if (n > 0) snprintf(own[owns++], sizeof own[0], "%s", path);  // "/" is the host's root, not the run's
    }
    walk(ROOT);
    char judge_dirs[4096] = "{JUDGE_DIRS}";
    const char *hidden[32] = {"/root", "/home", "/work", "/work/main", "/var/cache/apt", "/var/log", "/var/lib", "/opt", "/run"};
    int hiddens = 7;
    for (char *dir = strtok(judge_dirs, ","); dir && hiddens < 32; dir = strtok(NULL, ",")) hidden[hiddens++] = dir;
    struct stat st;
    for (int i = 0; i < hiddens; i++)
        if (stat(hidden[i], &st) == 0) found(2, hidden[i]);
    const char *needed[] = {"/usr", "/etc", "/lib", "/lib64", "/bin", "/tmp", "/dev/null", "/proc/self"};
    for (unsigned i = 0; i < sizeof needed / sizeof *needed; i++)
        if (stat(needed[i], &st) != 0) found(3, needed[i]);
    int any = 0;
    for (int k = 0; k < 4; k++)
        if (findings[k]) { printf("LEAKED %s: %d, e.g. %s\n", KINDS[k], findings[k], example[k]); any = 1; }
    if (!any) puts("blocked");
    return 0;
}
