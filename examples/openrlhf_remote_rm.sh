#!/usr/bin/env bash
# OpenRLHF PPO/GRPO rewarded by judgebox: judgebox serve answers OpenRLHF's --remote_rm_url requests
# (POST /openrlhf/reward; see judgebox.openrlhf for the request, the answer and what a failed judge means).
#
#   examples/openrlhf_remote_rm.sh check     # start a judgebox serve here and send it one request as OpenRLHF does
#   examples/openrlhf_remote_rm.sh train     # the OpenRLHF command line (needs OpenRLHF, Ray and GPUs)
#
# The dataset: a prompt column and a label column holding each problem's test cases in verl's form
# ({"inputs": [...], "outputs": [...]}, or "fn_name", or "assert_case"), as an object or its JSON text.
set -euo pipefail
cd "$(dirname "$0")/.."
JUDGE_HOST=${JUDGE_HOST:-127.0.0.1}
JUDGE_PORT=${JUDGE_PORT:-8080}
REWARD_URL="http://${JUDGE_HOST}:${JUDGE_PORT}/openrlhf/reward"   # add ?preset=prime or ?binary=true to choose

case "${1:-check}" in
check)
  .venv/bin/judgebox serve --host "$JUDGE_HOST" --port "$JUDGE_PORT" --log-level warning &
  server=$!
  trap 'kill "$server"' EXIT
  for _ in $(seq 100); do curl -sf "http://${JUDGE_HOST}:${JUDGE_PORT}/v1/ping" >/dev/null && break; sleep 0.2; done
  prompt=$'<|im_start|>user\nRead two integers and print their sum.<|im_end|>\n<|im_start|>assistant\n'
  response=$'```python\na, b = map(int, input().split())\nprint(a + b)\n```<|im_end|>'
  # What OpenRLHF posts per rollout: the decoded prompt + response, the prompt, the label.
  .venv/bin/python - "$REWARD_URL" "$prompt" "$response" <<'PY'
import json, sys, urllib.request
url, prompt, response = sys.argv[1:]
label = json.dumps({"inputs": ["1 2\n", "5 7\n"], "outputs": ["3\n", "12\n"]})
body = json.dumps({"query": [prompt + response], "prompts": [prompt], "labels": [label]}).encode()
request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
print(json.loads(urllib.request.urlopen(request, timeout=60).read()))   # rewards [1.0], scores, extra_logs
PY
  ;;
train)
  # On the judge machine: judgebox serve --host 0.0.0.0 --port 8080, on a private network and without
  # --token (OpenRLHF sends no Authorization header).
  # OpenRLHF 0.11's option names (older releases: --remote_rm_url, --label_key, --dynamic_filtering ...)
  python -m openrlhf.cli.train_ppo_ray \
    --actor.model_name_or_path Qwen/Qwen2.5-Coder-1.5B-Instruct \
    --data.prompt_dataset your/code-rl-dataset --data.input_key prompt --data.label_key test_cases \
    --data.apply_chat_template \
    --reward.remote_url "$REWARD_URL" \
    --algo.advantage.estimator group_norm --rollout.n_samples_per_prompt 8 \
    --algo.dynamic_filtering_enable --algo.dynamic_filtering_range 0 1 \
    "${@:2}"
  ;;
*)
  echo "usage: $0 check | train [more OpenRLHF options]" >&2
  exit 2
  ;;
esac
