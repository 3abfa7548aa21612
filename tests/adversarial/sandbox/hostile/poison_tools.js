// language: javascript
// attack: poison the slot's worker (pid 1) and its siblings through util-linux run as child processes:
//   prlimit, renice (pid, process group, user), taskset, chrt -i, ionice, for every later run to inherit
// expect: AC
// variants: rlimits nofile nproc nice sched ionice
// untouched: host-processes no-leftovers
const { spawnSync } = require("child_process");

const SCRIPT = "exec 1>&2; " + {
  rlimits: "for p in 1 2 3; do prlimit --pid $p --as=67108864:67108864 --cpu=1:1 --fsize=4096:4096 --stack=65536:65536; done",
  nofile: "prlimit --pid 1 --nofile=32:32",
  nproc: "prlimit --pid 1 --nproc=1:1",
  nice: "renice -n 19 -p 1 2 3; renice -n 19 -g 1; renice -n 19 -u $(id -u)",
  sched: "taskset -p 1 1; taskset -p 1 2; chrt -i -p 0 1; chrt -b -p 0 2",
  ionice: "ionice -c 3 -p 1 2 3; ionice -c 3 -P 1; ionice -c 3 -u $(id -u)",
}["{VARIANT}"];
const run = spawnSync("/bin/sh", ["-c", SCRIPT], { stdio: ["ignore", 2, 2] });
if (run.error) console.error("no child process: " + run.error);
console.log("blocked");
