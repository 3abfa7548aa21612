#!/usr/bin/env bash
# Set up judgebox on a fresh Debian machine: the system packages the sandbox needs, then a virtual
# environment with judgebox and its Python dependencies. Idempotent; run as root, or it prints the
# exact command a root user has to run first.
set -euo pipefail
cd "$(dirname "$0")/.."

# libseccomp2: the seccomp filter; python3: the interpreter that runs submissions inside the sandbox
# (it must live under /usr, readable by the sandbox uid).
# The toolchains of the languages judgebox runs (all from Debian, readable by the sandbox); a language
# whose toolchain is missing is reported unavailable, never faked.
# The libraries submissions import: the Python packages LeetCode-style and SandboxFusion-style datasets
# use, and what SandboxFusion's images ship for its other languages' tests (org.javatuples for Java,
# lodash for JavaScript/TypeScript, luaunit for Lua, Test::Deep and Data::Compare for Perl; testify for Go's
# assert cases, the HumanEval-X form). All install
# under /usr, which the sandbox reads; `judgebox languages` shows each one's version as the sandbox sees it.
SYSTEM_PACKAGES=(libseccomp2 python3 util-linux
                 g++ gcc openjdk-17-jdk-headless nodejs golang-go rustc php-cli ruby lua5.4 perl pypy3
                 node-typescript mono-mcs mono-runtime r-base-core
                 python3-numpy python3-scipy python3-pandas python3-sympy python3-networkx python3-sortedcontainers
                 libjavatuples-java node-lodash lua-unit libtest-deep-perl libdata-compare-perl
                 golang-github-stretchr-testify-dev
                 iproute2  # ip netns: tests/test_ray.py keeps its Ray clusters in a network namespace of its own
                 chromium)  # headless Chromium: tests/test_report.py opens the HTML report in it
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
.venv/bin/python -m pip install -q -e ".[test,ray]"

# verl 0.9.1's wheel, for the tests and the benchmark that run verl's own scorers beside judgebox's
# (they load its sandbox_fusion and prime_code files by path; verl itself is not installed), and for
# tests/test_verl_managers.py, which extracts it to drive verl's reward managers and trainer code with the
# .[test] packages above.
VERL_WHEEL_DIR=.cache/verl
if ! ls "$VERL_WHEEL_DIR"/verl-0.9.1-*.whl >/dev/null 2>&1; then
  .venv/bin/python -m pip download -q --no-deps --dest "$VERL_WHEEL_DIR" verl==0.9.1
fi
# OpenRLHF 0.11.2's wheel: tests/test_openrlhf.py runs its rollout executor's reward requests (loaded by
# path; its package needs vLLM, DeepSpeed and a GPU, so it is not installed).
OPENRLHF_WHEEL_DIR=.cache/openrlhf
if ! ls "$OPENRLHF_WHEEL_DIR"/openrlhf-0.11.2-*.whl >/dev/null 2>&1; then
  .venv/bin/python -m pip download -q --no-deps --dest "$OPENRLHF_WHEEL_DIR" openrlhf==0.11.2
fi
echo "judgebox setup: ready (.venv)"
