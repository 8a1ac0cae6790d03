"""``eq-evals hub export|push|push-results``: publish datasets and results on the Hugging Face Hub (docs/hub.md;
the work is done by ``eq_evals.hub``)."""

from __future__ import annotations

import argparse

from eq_evals.commands import add_gate_options, add_group, add_parser

ORDER = 5  # place in `eq-evals --help`


def _add_upload_options(p: argparse.ArgumentParser, tag: str) -> None:
    """Where an upload goes: the repository, its visibility and the commit's tag (``tag``: an example)."""
    p.add_argument("--repo", required=True, help="Hub dataset repository OWNER/NAME")
    p.add_argument("--private", action="store_true", help="create the repository as private")
    p.add_argument("--tag", help=f"tag the commit (e.g. {tag})")


def register(sub: argparse._SubParsersAction) -> None:
    from eq_evals import hub

    hub_sub = add_group(
        sub,
        "hub",
        help="publish datasets and results on the Hugging Face Hub (docs/hub.md)",
        examples=[
            "eq-evals hub export facet --out build/facet",
            "eq-evals hub push build/facet --repo me/eq-evals-facet --tag v1",
            "eq-evals hub push-results logs/ --repo me/eq-evals-results --out build/results",
        ],
    )
    names = ", ".join(sorted(hub.dataset_folders()))
    p_exp = add_parser(
        hub_sub,
        "export",
        help="write a Hub-ready dataset folder (card + data files)",
        examples=[
            "eq-evals hub export facet --out build/facet",
            "eq-evals hub export pace --out pace-hub/ --repo me/eq-evals-pace",
        ],
    )
    p_exp.add_argument("name", help=f"bundled dataset ({names})")
    p_exp.add_argument("--out", required=True, help="output folder (new or empty)")
    p_exp.add_argument("--repo", help="OWNER/NAME to show in the card's loading examples")
    p_exp.set_defaults(func=hub.cmd_export)
    p_push = add_parser(
        hub_sub,
        "push",
        help="upload an exported folder (or a bundled dataset by name) in one commit",
        examples=[
            "eq-evals hub push build/facet --repo me/eq-evals-facet --tag v1",
            "eq-evals hub push facet --repo me/eq-evals-facet --private",
        ],
    )
    p_push.add_argument("target", help="a folder written by `hub export`, or a bundled dataset name")
    _add_upload_options(p_push, tag="v1")
    p_push.set_defaults(func=hub.cmd_push)
    p_res = add_parser(
        hub_sub,
        "push-results",
        help="publish leaderboards and per-sample scores of eval logs",
        examples=[
            "eq-evals hub push-results logs/ --repo me/eq-evals-results --tag run-1",
            "eq-evals hub push-results logs/ --repo me/eq-evals-results --out build/results",
        ],
    )
    p_res.add_argument("logs", nargs="+", metavar="LOGS", help="log files or folders")
    _add_upload_options(p_res, tag="run-1")
    p_res.add_argument(
        "--method",
        default="bt",
        choices=["bt", "trueskill", "eqbench3", "elo"],
        help="rating method of the published leaderboards (default bt)",
    )
    add_gate_options(p_res, mixed="rate logs made on different dataset versions together")
    p_res.add_argument("--out", help="only write the results folder here (no upload)")
    p_res.set_defaults(func=hub.cmd_push_results)
