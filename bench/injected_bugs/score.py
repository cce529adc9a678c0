"""How well a campaign grouped the findings of the injected bugs into bugs.

Reads the injection log (INDUCTOR_FUZZ_INJECT_LOG: which injected bug fired in which case),
the campaign's corpus and summary.json, and what says which findings are real torch bugs: a
replay of the corpus with injection off (`inductor-fuzz replay` output), and/or the corpus of
a campaign of the same seed and cases with injection off. Prints a table per injected bug and
per bug, then

  bucket_quality: found X/N, bugs per injected bug R, injected bugs per bug P

N is the number of injected bugs that were on (--bugs; all of inductor_fuzz_inject.BUGS by
default).

Bugs are summary.json's `bugs` array when it has one (top level or under `campaign`); until
then each signature of the campaign (`campaign.signatures`) is a bug of its own, with its hits
read from CORPUS/findings/<id>/hits/*.json.

Each hit (a signature's case) gets one cause (every hit of a bug a known issue names is "real":
known issues are verified torch bugs); firings in a probe's reruns (CASE/probe-K/) are left out:
  - "real" when its signature is a real torch bug: it still fails in the replay with injection
    off, or the injection-off campaign has the same signature in the same case;
  - else the injected bug(s) that fired in that case; when the replay says the finding fails
    differently with injection off, a real torch bug is there too (its signature says both), and
    the hit is marked "beside a real bug";
  - else "real" too (nothing injected there: a torch bug the replay did not reproduce).
An injected bug is found when some bug has a hit it caused and most of that bug's hits have it
as their cause. Bugs per injected bug: for each injected bug with any hit it caused, the
number of distinct bugs holding such hits (goal <= 1.1), leaving out a bug whose every hit is
beside a real bug (two causes in one case: its own signature is right; it is listed apart).
Injected bugs per bug: for each bug
with any injected cause, the number of distinct injected causes among its hits (must be 1.0).
A bug with no injected cause is a real torch bug.
"""

import argparse
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inductor_fuzz_inject  # noqa: E402  (the catalogue only; nothing from torch)

REAL = "real"
BESIDE_REAL = "beside a real bug"


def read_jsonl(path):
    records = []
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                line = line.strip()
                if line:
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        pass  # a line cut by a killed worker
    return records


def firings_by_case(log_records, seed):
    """(seed, index) -> {bug id: count of firings}; suppressed firings and those in a probe's
    reruns of the case (other settings: not what its finding came from) left out."""
    fired = collections.defaultdict(collections.Counter)
    for record in log_records:
        if record.get("suppressed") or record.get("probe") or record.get("index") is None:
            continue
        record_seed = record.get("seed")
        if record_seed is not None and seed is not None and int(record_seed) != int(seed):
            continue
        fired[(int(seed if record_seed is None else record_seed), int(record["index"]))][
            record["bug"]
        ] += 1
    return fired


def signature_hits(corpus, finding_id, seed):
    """The (seed, index) cases of a stored finding's hits."""
    folder = os.path.join(corpus, "findings", finding_id, "hits")
    cases = set()
    if not os.path.isdir(folder):
        return cases
    for name in os.listdir(folder):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as hit_file:
                hit = json.load(hit_file)
        except (OSError, ValueError):
            continue
        hit_seed = hit.get("seed", (hit.get("provenance") or {}).get("seed"))
        index = hit.get("index", (hit.get("provenance") or {}).get("index"))
        if index is None or (
            seed is not None and hit_seed is not None and int(hit_seed) != int(seed)
        ):
            continue
        cases.add((int(hit_seed if hit_seed is not None else seed), int(index)))
    return cases


def load_bugs(summary, corpus, seed):
    """[{id, key, signatures, hits: {signature id: set of cases}, known_issue, new}]."""
    listed = (summary.get("campaign") or {}).get("bugs") or None  # this campaign's bugs
    if listed is None:
        listed = summary.get("bugs")  # the corpus's, each with its campaign_hits
    bugs = []
    if listed is not None:
        for entry in listed:
            # A signature is its stored finding's id, or an object holding it.
            signatures = [
                signature.get("id", "") if isinstance(signature, dict) else signature
                for signature in entry.get("signatures", [])
            ]
            hits = {}
            for signature in signatures:
                cases = signature_hits(corpus, signature, seed)
                if cases:
                    hits[signature] = cases
            listed_cases = {
                (int(hit.get("seed", seed)), int(hit["index"]))
                for hit in entry.get("hits", entry.get("campaign_hits", []))
                if hit.get("index") is not None
                and (seed is None or hit.get("seed") is None or int(hit["seed"]) == int(seed))
            }
            covered = set().union(*hits.values()) if hits else set()
            if listed_cases - covered:  # hits the per-signature folders do not name
                hits[entry.get("id", "?") + "#bug-hits"] = listed_cases - covered
            bugs.append(
                {
                    "id": entry.get("id", "?"),
                    "key": entry.get("key", ""),
                    "signatures": signatures,
                    "hits": hits,
                    "known_issue": entry.get("known_issue") or "",
                    "new": bool(entry.get("new")),
                    "detectors": entry.get("detectors", []),
                }
            )
        return bugs, "bugs"
    signatures = (summary.get("campaign") or {}).get("signatures")
    if signatures is None:  # an older summary: every finding of the corpus
        signatures = summary.get("findings", [])
    for entry in signatures:
        finding_id = entry["id"]
        bugs.append(
            {
                "id": finding_id,
                "key": entry.get("signature", ""),
                "signatures": [finding_id],
                "hits": {finding_id: signature_hits(corpus, finding_id, seed)},
                "known_issue": entry.get("known_issue") or "",
                "new": bool(entry.get("new")),
                "detectors": [entry.get("kind", "")],
            }
        )
    return bugs, "signatures"


# "still-failing  <finding id> ...", and (with bugs) "bug still-failing  <bug id>".
_REPLAY_LINE = re.compile(
    r"^(?:bug\s+)?(still-failing|failing-differently|fixed|not-replayed)\s+(\S+)"
)


def replay_outcomes(path, outcome="still-failing"):
    """Finding and bug ids `inductor-fuzz replay` printed with `outcome`. "still-failing" (the
    same signature): with injection off, those fail without any injected bug.
    "failing-differently": those fail without it too, otherwise: a real bug is in the case."""
    ids = set()
    if path and os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                match = _REPLAY_LINE.match(line.strip())
                if match and match.group(1) == outcome:
                    ids.add(match.group(2))
    return ids


def baseline_case_signatures(baseline_corpus, seed):
    """(seed, index) -> the finding ids an injection-off campaign found in that case."""
    by_case = collections.defaultdict(set)
    folder = os.path.join(baseline_corpus or "", "findings")
    if not baseline_corpus or not os.path.isdir(folder):
        return by_case
    for finding_id in os.listdir(folder):
        for case in signature_hits(baseline_corpus, finding_id, seed):
            by_case[case].add(finding_id)
    return by_case


def score(bugs, fired, real_signatures, baseline_by_case, injected_ids, beside_real=()):
    """The numbers, and the per-injected-bug and per-bug rows."""
    rows = []
    for bug in bugs:
        causes_by_case = collections.defaultdict(set)
        # A bug a known issue names is a real torch bug, verified outside the tool; an injected
        # bug that fired in its case (before the real one killed the worker) did not cause it.
        real_bug = bug["id"] in real_signatures or bool(bug.get("known_issue"))
        for signature, cases in bug["hits"].items():
            for case in cases:
                if (
                    real_bug
                    or signature in real_signatures
                    or signature in baseline_by_case.get(case, ())
                ):
                    causes_by_case[case].add(REAL)
                elif fired.get(case):
                    causes_by_case[case].update(fired[case])
                    if signature in beside_real:
                        causes_by_case[case].add(BESIDE_REAL)
                else:
                    causes_by_case[case].add(REAL)
        counts = collections.Counter(c for causes in causes_by_case.values() for c in causes)
        injected = sorted(c for c in counts if c not in (REAL, BESIDE_REAL))
        only_beside_real = bool(causes_by_case) and all(
            BESIDE_REAL in causes for causes in causes_by_case.values()
        )
        rows.append(
            dict(
                bug,
                cases=causes_by_case,
                cause_counts=counts,
                injected=injected,
                beside_real=only_beside_real,
            )
        )

    per_injected = {}
    for bug_id in injected_ids:
        fired_cases = sorted(case for case, bugs_there in fired.items() if bug_id in bugs_there)
        holding = [row for row in rows if bug_id in row["injected"] and not row["beside_real"]]
        apart = [row["id"] for row in rows if bug_id in row["injected"] and row["beside_real"]]
        found_in = [
            row
            for row in holding
            if row["cause_counts"][bug_id] * 2 > len(row["cases"])  # most of its hits
        ]
        caused_cases = {
            case for row in holding for case, causes in row["cases"].items() if bug_id in causes
        }
        per_injected[bug_id] = {
            "fired_cases": fired_cases,
            "cases_with_finding": sorted(caused_cases),
            "bugs": [row["id"] for row in holding],
            "beside_real_bugs": apart,
            "found": bool(found_in),
        }

    with_bugs = [info for info in per_injected.values() if info["bugs"]]
    bugs_per_injected = (
        sum(len(info["bugs"]) for info in with_bugs) / len(with_bugs) if with_bugs else 0.0
    )
    injected_rows = [row for row in rows if row["injected"]]
    injected_per_bug = (
        sum(len(row["injected"]) for row in injected_rows) / len(injected_rows)
        if injected_rows
        else 0.0
    )
    real_rows = [row for row in rows if not row["injected"]]
    return {
        "per_injected": per_injected,
        "rows": rows,
        "found": sum(1 for info in per_injected.values() if info["found"]),
        "bugs_per_injected_bug": bugs_per_injected,
        "injected_bugs_per_bug": injected_per_bug,
        "real": real_rows,
        "mixed_with_real": [row for row in injected_rows if row["cause_counts"][REAL]],
    }


def short(text, width):
    text = str(text)
    return text if len(text) <= width else text[: width - 1] + "~"


def cases_text(cases, limit=8):
    indices = [str(index) for _, index in sorted(cases)]
    more = f" +{len(indices) - limit}" if len(indices) > limit else ""
    return ",".join(indices[:limit]) + more


def print_report(result, catalogue, source, out=sys.stdout):
    kinds = {bug["id"]: bug for bug in catalogue}
    print(f"bugs read from summary.json's {source}", file=out)
    print("", file=out)
    header = (
        f"{'injected bug':26} {'kind':4} {'fired':>5} {'found':>5} {'bugs':>4}"
        "  cases fired / with a finding"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    for bug_id, info in result["per_injected"].items():
        print(
            f"{bug_id:26} {kinds[bug_id]['kind']:4} {len(info['fired_cases']):5} "
            f"{'yes' if info['found'] else 'no':>5} {len(info['bugs']):4}  "
            f"{cases_text(info['fired_cases'])} / {cases_text(info['cases_with_finding'])}",
            file=out,
        )
    print("", file=out)
    header = f"{'bug':24} {'hits':>4}  {'causes':34} key"
    print(header, file=out)
    print("-" * 100, file=out)
    for row in sorted(result["rows"], key=lambda r: (not r["injected"], r["injected"], r["id"])):
        causes = ", ".join(
            f"{cause}:{count}" for cause, count in sorted(row["cause_counts"].items())
        )
        print(
            f"{short(row['id'], 24):24} {len(row['cases']):4}  {short(causes, 34):34} "
            f"{short(row['key'], 90)}",
            file=out,
        )
    print("", file=out)
    real = result["real"]
    print(
        f"real torch bugs beside them: {len(real)} bug(s)"
        + (
            ": " + ", ".join(f"{r['id']} ({r['known_issue'] or 'new'})" for r in real)
            if real
            else ""
        ),
        file=out,
    )
    apart = [
        (bug_id, row)
        for bug_id, info in result["per_injected"].items()
        for row in info["beside_real_bugs"]
    ]
    if apart:
        print(
            "bugs of an injected cause beside a real one in every case (not counted as splits): "
            + ", ".join(f"{row} ({bug_id})" for bug_id, row in apart),
            file=out,
        )
    if result["mixed_with_real"]:
        print(
            "bugs mixing an injected cause with real hits: "
            + ", ".join(row["id"] for row in result["mixed_with_real"]),
            file=out,
        )
    for name, numbers in set_numbers(result, catalogue).items():
        print(
            f"set {name}: found {numbers['found']}/{numbers['injected']}, "
            f"bugs per injected bug {numbers['bugs_per_injected_bug']:.2f}, "
            f"merges {numbers['merges']}",
            file=out,
        )
    total = len(result["per_injected"])
    print(
        f"bucket_quality: found {result['found']}/{total}, "
        f"bugs per injected bug {result['bugs_per_injected_bug']:.2f}, "
        f"injected bugs per bug {result['injected_bugs_per_bug']:.2f}",
        file=out,
    )


def set_numbers(result, catalogue):
    """Per injected set (inductor_fuzz_inject.SETS) that had a bug on: found, bugs per injected
    bug, and merges (bugs holding a cause of the set and any other injected cause)."""
    set_of = {bug["id"]: bug.get("set", "first") for bug in catalogue}
    numbers = {}
    for name in inductor_fuzz_inject.SETS:
        ids = [bug_id for bug_id in result["per_injected"] if set_of.get(bug_id) == name]
        if not ids:
            continue
        with_bugs = [result["per_injected"][i] for i in ids if result["per_injected"][i]["bugs"]]
        merged = [
            row["id"]
            for row in result["rows"]
            if len(row["injected"]) > 1 and any(set_of.get(c) == name for c in row["injected"])
        ]
        numbers[name] = {
            "injected": len(ids),
            "found": sum(1 for i in ids if result["per_injected"][i]["found"]),
            "bugs_per_injected_bug": (
                sum(len(info["bugs"]) for info in with_bugs) / len(with_bugs) if with_bugs else 0.0
            ),
            "merges": len(merged),
            "merged_bugs": merged,
        }
    return numbers


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True, help="the injected campaign's corpus")
    parser.add_argument("--summary", help="its summary.json (default CORPUS/report/summary.json)")
    parser.add_argument(
        "--inject-log", required=True, help="INDUCTOR_FUZZ_INJECT_LOG of the campaign"
    )
    parser.add_argument("--seed", type=int, help="the campaign's seed (default: summary's)")
    parser.add_argument("--replay", help="`inductor-fuzz replay` output of CORPUS, injection off")
    parser.add_argument("--baseline-corpus", help="corpus of the same campaign, injection off")
    parser.add_argument("--bugs", help="the injected bugs that were on (default: all)")
    parser.add_argument("--json", help="also write the numbers here")
    args = parser.parse_args(argv)

    summary_path = args.summary or os.path.join(args.corpus, "report", "summary.json")
    with open(summary_path, encoding="utf-8") as summary_file:
        summary = json.load(summary_file)
    seed = args.seed
    if seed is None:
        seed = (summary.get("provenance") or {}).get("seed")
    catalogue = inductor_fuzz_inject.catalogue()
    enabled = [bug.id for bug in inductor_fuzz_inject.selected(args.bugs or "all")]
    fired = firings_by_case(read_jsonl(args.inject_log), seed)
    bugs, source = load_bugs(summary, args.corpus, seed)
    result = score(
        bugs,
        fired,
        replay_outcomes(args.replay),
        baseline_case_signatures(args.baseline_corpus, seed),
        enabled,
        replay_outcomes(args.replay, "failing-differently"),
    )
    print_report(result, catalogue, source)
    if args.json:
        numbers = {
            "found": result["found"],
            "injected": len(enabled),
            "bugs_per_injected_bug": result["bugs_per_injected_bug"],
            "injected_bugs_per_bug": result["injected_bugs_per_bug"],
            "per_injected": result["per_injected"],
            "bugs": [
                {
                    "id": row["id"],
                    "key": row["key"],
                    "hits": len(row["cases"]),
                    "causes": dict(row["cause_counts"]),
                }
                for row in result["rows"]
            ],
            "real_bugs": [row["id"] for row in result["real"]],
            "sets": set_numbers(result, catalogue),
        }
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(numbers, out, indent=1, default=list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
