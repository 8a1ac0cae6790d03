#!/usr/bin/env bash
# The main job: set up, then run a FACET task on the embedded SmolLM2 model, print the scores and the
# log, and say how to browse it. Extra arguments go to `inspect eval` (e.g. --limit 30 -T language=zh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1
LOGS=logs/demo
echo "== running eq_evals/facet_hidden on the embedded model (SmolLM2-135M: proves the pipeline, not an EI baseline)"
.venv/bin/inspect eval eq_evals/facet_hidden --model eq_evals/smollm2 --limit 10 --epochs 1 \
  --max-tokens 64 --temperature 0 --log-dir "$LOGS" --display plain "$@"
LOG=$(ls -t "$LOGS"/*.eval | head -1)
echo
echo "== scores"
.venv/bin/python - "$LOG" <<'PY'
import sys
from inspect_ai.log import read_eval_log
log = read_eval_log(sys.argv[1], header_only=True)
print(f"task {log.eval.task}  model {log.eval.model}  status {log.status}")
for score in log.results.scores:
    for name, m in score.metrics.items():
        print(f"  {score.name}/{name}: {m.value:.3f}")
PY
echo "== log: $LOG"
echo "== browse it with: .venv/bin/inspect view --log-dir $LOGS"
