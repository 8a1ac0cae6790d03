#!/usr/bin/env bash
# The main job, end to end on this machine with no API key: set up, then
#   1. a FACET objective task (Hidden Emotion) on the embedded SmolLM2-135M model, its score printed beside
#      the chance and majority baselines of the same items;
#   2. a pairwise judging round: three contestants answer FACET interaction prompts, a judge compares them
#      pair by pair, and `eq-evals ratings` turns the verdicts into a leaderboard and its chart;
#   3. a profile across the five benchmarks (eq-evals profile): the embedded model beside two scripted baselines,
#      a plan first, the tasks run at once as Inspect eval sets, and the report card;
#   4. where to look in Inspect View.
# Extra arguments go to the first `inspect eval` (e.g. --limit 30 -T language=zh).
# EQ_EVALS_VENV=DIR runs it in an environment that is already set up (no scripts/setup.sh); DEMO_DIR=DIR
# moves the output (default logs/demo). EQ_EVALS_THREADS=N runs the embedded model on N threads (default: one
# per core; on a machine busy with other work 1 is much faster, as llama.cpp's threads wait on each other).
set -euo pipefail
cd "$(dirname "$0")/.."
START=$(date +%s)
VENV=${EQ_EVALS_VENV:-.venv}
if [ -z "${EQ_EVALS_VENV:-}" ]; then bash scripts/setup.sh; fi
SETUP_DONE=$(date +%s)
THREADS=()
if [ -n "${EQ_EVALS_THREADS:-}" ]; then THREADS=(-M "n_threads=$EQ_EVALS_THREADS"); fi
export HF_HUB_OFFLINE=1
OUT=${DEMO_DIR:-logs/demo}
rm -rf "$OUT"
mkdir -p "$OUT"

echo
echo "== 1. FACET Hidden Emotion on the embedded model (SmolLM2-135M: proves the pipeline, far too small to be an EI baseline)"
# The task declares its generation limits (128 tokens, stop at </answer>); --max-tokens etc. would override them.
"$VENV"/bin/inspect eval eq_evals/facet_hidden --model eq_evals/smollm2 --limit 10 --epochs 1 --temperature 0 \
  "${THREADS[@]}" --log-dir "$OUT/objective" --display plain "$@"
"$VENV"/bin/python - "$OUT/objective" <<'PY'
import sys
from collections import Counter
from pathlib import Path
from inspect_ai.log import read_eval_log
from eq_evals.facet.baselines import facet_baselines
from eq_evals.facet.data import facet_items
from eq_evals.resources import resource

log = read_eval_log(str(max(Path(sys.argv[1]).glob("*.eval"), key=lambda p: p.stat().st_mtime)))
scores = [s.scores["facet_objective"] for s in log.samples if "facet_objective" in (s.scores or {})]
scored = [s for s in scores if isinstance(s.value, (int, float))]
print(f"\n   {log.eval.task} on {log.eval.model}: {len(log.samples)} samples, status {log.status}")
print(f"   {'':34s} {'accuracy':>8s}")
if scored:
    print(f"   {log.eval.model:34s} {sum(s.value for s in scored) / len(scored):8.3f}   ({len(scored)} scored)")
if len(scored) < len(scores):
    print(f"   {'':34s} {'':8s}   {len(scores) - len(scored)} unscored")
# the majority answer comes from all the task's items, not just the few this run saw
items = facet_items(resource("datasets", "facet"), {s.metadata["dimension"] for s in log.samples}, "all")
for row in facet_baselines((s.metadata for s in log.samples), majority_from=(s.metadata for s in items)):
    label = f"chance ({row.dimension}, {row.language})"
    print(f"   {label:34s} {row.chance:8.3f}   (uniform pick from the labels the prompt offers)")
    answers = ", ".join(row.majority_answers.values())
    print(f"   {'majority':34s} {row.majority:8.3f}   (always the task's most frequent gold: {answers})")
parsed = Counter((s.metadata or {}).get("parse", "-") for s in scored)
print(f"   how the answers were read: {dict(parsed)} (tagged = inside <answer></answer>)")
PY

echo
echo "== 2. a pairwise judging round: FACET interaction prompts, three contestants, one judge"
echo "   contestants: the embedded model and two scripted stand-ins (echo: repeats the prompt; malformed: evades)"
# Two runs into one folder: -M options go to every model of a run, and n_threads is the embedded model's alone
# (the scripted ones refuse options they do not have).
"$VENV"/bin/inspect eval eq_evals/facet_naturalness -T language=en --limit 3 --max-tokens 160 --temperature 0 \
  --model eq_evals/smollm2 "${THREADS[@]}" --log-dir "$OUT/gen" --display plain
"$VENV"/bin/inspect eval eq_evals/facet_naturalness -T language=en --limit 3 --max-tokens 160 --temperature 0 \
  --model eq_evals/scripted-echo,eq_evals/scripted-malformed --log-dir "$OUT/gen" --display plain
# The judge here is scripted (it prefers the shorter reply), so the round needs no API key and finishes in
# seconds; with a key, use a real judge: --model-role grader=openai/gpt-4o (see docs/pairwise.md).
"$VENV"/bin/inspect eval eq_evals/facet_pairwise -T logs="$OUT/gen" --model none \
  --model-role grader=eq_evals/scripted-judge --log-dir "$OUT/judged" --display plain
"$VENV"/bin/eq-evals ratings "$OUT/judged" --out "$OUT/ratings" --bootstrap 200 --quiet

echo
echo "== 3. a profile across the five benchmarks: the embedded model beside two scripted baselines (docs/profile.md)"
# The baselines first (scripted, seconds): all-good answers the objective items correctly and replies warmly,
# all-weak answers wrongly and tersely. The judge and SAGE's simulated user are scripted too; with a key, use
# real ones: --judge openai/gpt-4o-mini --simulated-user openai/gpt-4o-mini. LongEmotion runs on the project's
# small fixtures (its release is not bundled: --longemotion-data DIR for the real data).
ROLES=(--judge eq_evals/scripted-jc-honest --simulated-user eq_evals/scripted-sage-user --longemotion-data fixtures)
"$VENV"/bin/eq-evals profile --model eq_evals/scripted-all-good --model eq_evals/scripted-all-weak "${ROLES[@]}" \
  --log-dir "$OUT/baselines" > "$OUT/baselines.txt"
# Then the embedded model, compared with the baselines' logs (--opponents): only its own pairs are judged. Its
# replies are capped at 160 tokens (--max-tokens) so the quick preset finishes in minutes on one thread.
"$VENV"/bin/eq-evals profile --model eq_evals/smollm2 -M n_threads="${EQ_EVALS_THREADS:-1}" --max-tokens 160 \
  "${ROLES[@]}" --opponents "$OUT/baselines" --log-dir "$OUT/profile" | tee "$OUT/profile.txt" | grep -v '^|'

echo
echo "== 4. where to look"
echo "   leaderboard: $OUT/ratings/leaderboard.md (also .csv, .json); charts: $(ls "$OUT"/ratings/*.png "$OUT"/ratings/charts/*.png 2>/dev/null | tr '\n' ' ')"
echo "   report card: $OUT/profile/card/report.html (open it in a browser; also report.md, report.json), the plan"
echo "                beside the real counts: $OUT/profile/plan.json"
echo "   transcripts: $VENV/bin/inspect view --log-dir $OUT"
echo "     objective/  each sample's prompt, the model's reply and the score's explanation (parsed answer, gold, rule)"
echo "     judged/     each matchup's judge calls (Transcript, under scoring: an INFO block after each call names the judge, the order and the verdict) and the length diagnostics"
echo "     profile/    the embedded model on every benchmark: generate/ (replies, dialogues, the board), judge/ (pairs)"
echo "     baselines/  the scripted baselines: generate/, dialogue/ (SAGE's dialogues, run in a second process), judge/"
echo "== demo finished in $(( $(date +%s) - SETUP_DONE )) s after set-up ($(( SETUP_DONE - START )) s of set-up)"
