// language: javascript
// attack: look at the host through /sys/fs/cgroup (other judges' live memory, CPU and process counts) and
//   stat host paths a run has no business with (the judge's checkout and venv, homes, /run, /opt)
// expect: AC
// untouched: host-processes
const fs = require("fs");
const path = require("path");

const ROOT = "/sys/fs/cgroup";
const HIDDEN = ["/root", "/home", "/work", "/work/main", "/var/cache/apt", "/var/log", "/var/lib", "/opt", "/run", ..."{JUDGE_DIRS}".split(",")];
const NEEDED = ["/usr", "/etc", "/lib", "/lib64", "/bin", "/tmp", "/dev/null", "/proc/self"];
// the run's group in each hierarchy; "/" is the host's root, not the run's own
const own = fs.readFileSync("/proc/self/cgroup", "utf8").trim().split("\n")
  .map((line) => line.split(":").slice(2).join(":").replace(/\/+$/, "")).filter((p) => p);
const leaks = {};
const found = (kind, what) => (leaks[kind] = leaks[kind] || []).push(what);

// cgroup v1 mounts each hierarchy at ROOT/<controller>, v2 at ROOT: both readings of the path are tried
const ownFolders = [];
function listsMe(folder) {
  try {
    return fs.readFileSync(folder + "/cgroup.procs", "utf8").split(/\s+/).includes(String(process.pid));
  } catch (e) {
    return false;
  }
}
function where(folder) {
  if (ownFolders.some((f) => folder === f || folder.startsWith(f + "/")) || listsMe(folder)) {
    ownFolders.push(folder);
    return "own";
  }
  const rel = folder.slice(ROOT.length);
  const readings = [rel, rel.split("/").slice(2).map((c) => "/" + c).join("")];
  if (readings.some((r) => own.some((p) => r === p || r.startsWith(p + "/")))) return "own";
  if (rel === "" || readings.some((r) => own.some((p) => p.startsWith(r + "/")))) return "above";
  return "other";
}

let seen = 0;
function walk(folder) {
  if (++seen > 5000) return;
  let entries;
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch (e) {
    return;
  }
  const place = where(folder);
  if (place === "other") found("cgroup folder", folder);
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (place !== "own") {
      try {
        fs.readFileSync(full);
        found("cgroup file", full);
      } catch (e) {
        // not readable: as it should be
      }
    }
  }
}

walk(ROOT);
for (const p of HIDDEN) {
  try {
    fs.statSync(p);
    found("stat", p);
  } catch (e) {
    // ENOENT or EACCES: as it should be
  }
}
for (const p of NEEDED) {
  try {
    fs.statSync(p);
  } catch (e) {
    found("MISSING (runs need it)", `${p}: ${e.code}`);
  }
}
for (const [kind, what] of Object.entries(leaks)) console.log(`LEAKED ${kind}: ${what.length}, e.g. ${what.slice(0, 4).join(" ")}`);
if (Object.keys(leaks).length === 0) console.log("blocked");
