#!/usr/bin/env bash
# Set up judgebox on a fresh Debian machine: the system packages the sandbox needs, then a virtual
# environment with judgebox and its core dependencies (what judging, serving, scoring and the demo need).
# `--test` adds what the test suite needs: its system packages, the test and ray extras, a CPU build of torch
# and the wheels of verl and OpenRLHF. Idempotent, and `--test` after a plain run upgrades .venv to the full
# set; run as root, or it prints the exact command a root user has to run first.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/setup.sh [--test]"
case "$#:${1-}" in
  0:) FOR_TESTS=0 ;;
  1:--test) FOR_TESTS=1 ;;
  *) echo "$usage" >&2; exit 2 ;;
esac

# libseccomp2: the seccomp filter; python3: the interpreter that runs submissions inside the sandbox
# (it must live under /usr, readable by the sandbox uid).
# The toolchains of the languages judgebox runs (all from Debian, readable by the sandbox); a language
# whose toolchain is missing is reported unavailable, never faked.
# The libraries submissions import: the Python packages LeetCode-style and SandboxFusion-style datasets
# use, and what SandboxFusion's images ship for its other languages' tests (org.javatuples for Java,
# lodash for JavaScript/TypeScript, luaunit for Lua, Test::Deep and Data::Compare for Perl; testify for Go's
# assert cases, the HumanEval-X form; the sources of the crates rand, regex and md5 that HumanEval-X's Rust
# programs and tests use, and Debian's cargo, which builds them offline once into the toolchain cache). All
# install under /usr, which the sandbox reads; `judgebox languages` shows each one's version as the sandbox
# sees it.
SYSTEM_PACKAGES=(libseccomp2 python3 util-linux
                 g++ gcc openjdk-17-jdk-headless nodejs golang-go rustc php-cli ruby lua5.4 perl pypy3
                 node-typescript mono-mcs mono-runtime r-base-core
                 python3-numpy python3-scipy python3-pandas python3-sympy python3-networkx python3-sortedcontainers
                 python3-matplotlib
                 python3-ipykernel python3-jupyter-client  # /run_jupyter's kernel, run by the sandbox's python3
                 libjavatuples-java node-lodash lua-unit libtest-deep-perl libdata-compare-perl
                 golang-github-stretchr-testify-dev
                 cargo librust-rand-dev librust-regex-dev librust-regex+default-dev librust-md5-dev)
if [ "$FOR_TESTS" -eq 1 ]; then
  SYSTEM_PACKAGES+=(iproute2  # ip netns: tests/backends/test_ray.py keeps its Ray clusters in a network namespace of its own
                    chromium)  # headless Chromium: tests/cli/test_report.py opens the HTML report in it
fi
missing=()
for pkg in "${SYSTEM_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "judgebox setup: installing system packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "judgebox setup: missing system packages: ${missing[*]}" >&2
    echo "  install them with:  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
if [ "$FOR_TESTS" -eq 0 ]; then
  .venv/bin/python -m pip install -q -e .
  echo "judgebox setup: ready (.venv, the core; scripts/setup.sh --test adds what the tests need)"
  exit 0
fi

# torch for the trainers' tests, from PyTorch's CPU index: PyPI's Linux torch is a multi-GB CUDA build. The exact
# build the tests were checked with is pinned here, not in the test extra, which asks only for a range: so a torch
# already in the environment (a GPU machine's CUDA one) is kept, here and wherever judgebox[test] is installed.
# --no-deps: torch's own dependencies come from the ordinary index with the extras below.
TORCH_CPU_BUILD="torch==2.13.0"
if ! .venv/bin/python -m pip show -q torch >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q --no-deps --index-url https://download.pytorch.org/whl/cpu "$TORCH_CPU_BUILD"
fi
.venv/bin/python -m pip install -q -e ".[test,ray]"

# verl 0.9.1's wheel, for the tests and the benchmark that run verl's own scorers beside judgebox's
# (they load its sandbox_fusion and prime_code files by path; verl itself is not installed), and for
# tests/trainers/test_verl_managers.py, which extracts it to drive verl's reward managers and trainer code with the
# .[test] packages above.
VERL_WHEEL_DIR=.cache/verl
if ! ls "$VERL_WHEEL_DIR"/verl-0.9.1-*.whl >/dev/null 2>&1; then
  .venv/bin/python -m pip download -q --no-deps --dest "$VERL_WHEEL_DIR" verl==0.9.1
fi
# verl 0.6.1's wheel: the config layout of verl 0.4 to 0.7, which tests/trainers/test_verl_config.py proves
# `judgebox verl-config --verl 0.6`'s lines on with that verl's own config and loader.
if ! ls "$VERL_WHEEL_DIR"/verl-0.6.1-*.whl >/dev/null 2>&1; then
  .venv/bin/python -m pip download -q --no-deps --dest "$VERL_WHEEL_DIR" verl==0.6.1
fi
# OpenRLHF 0.11.2's wheel: tests/trainers/test_openrlhf.py runs its rollout executor's reward requests (loaded by
# path; its package needs vLLM, DeepSpeed and a GPU, so it is not installed).
OPENRLHF_WHEEL_DIR=.cache/openrlhf
if ! ls "$OPENRLHF_WHEEL_DIR"/openrlhf-0.11.2-*.whl >/dev/null 2>&1; then
  .venv/bin/python -m pip download -q --no-deps --dest "$OPENRLHF_WHEEL_DIR" openrlhf==0.11.2
fi
# lighteval 0.13.0's wheel: it carries LiveCodeBench's own grading code (lighteval/tasks/tasks/lcb/
# codegen_metrics.py), which tests/judging/test_parity.py runs beside the livecodebench preset (loaded by path).
LIGHTEVAL_WHEEL_DIR=.cache/lighteval
if ! ls "$LIGHTEVAL_WHEEL_DIR"/lighteval-0.13.0-*.whl >/dev/null 2>&1; then
  .venv/bin/python -m pip download -q --no-deps --dest "$LIGHTEVAL_WHEEL_DIR" lighteval==0.13.0
fi
echo "judgebox setup: ready (.venv, with the test extras)"
