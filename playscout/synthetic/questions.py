"""T9-style questions: identify the game only through document facts, answer from video.

Game-identifying facts are parsed back from the recap/stat documents on disk (so they are
exactly what a retriever can find) and checked to match one game of the sport; answers are
clip-level attributes from play_by_play events that sit in a clip, checked absent from the
game's documents. What a sport's questions ask about (stats, event references, area and move
words) is its spec's Questions (playscout/synthetic/spec.py).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from playscout.corpus.models import season_year_to_code

from .spec import SportSpec
from .sports import SPECS, spec_names
from .vocab import article, ordinal_word

ANSWER_TYPES: tuple[str, ...] = (
    "spatial_position",
    "shot_type",
    "play_type",
    "player_name",
    "player_number",
    "game_score",
    "dribble_move",
    "numeric_count",
)

_STAT_LINE = re.compile(r"^([^:#][^:]*): (.+)$")
_NUM_LABEL = re.compile(r"^([+-]?\d+) (.+)$")
# Recap sentences with the team slot left open ({T}); a report names a team by its full name,
# nickname, short form or city (SportSpec.team_refs), so each game gets its own alternation.
# The sport's big-period and run sentences add their own patterns (Feat.parse).
_REPORT_PATTERNS: tuple[tuple[str, str], ...] = (
    ("streak", r"It was an? (\w+) straight win for {T}\."),
    ("record", r"{T} improved to (\d+-\d+(?:-\d+)?)"),
    ("without", r"{T} played without ([^.]+)\."),
)


def _patterns(spec: SportSpec) -> list[tuple[str, str]]:
    feats = (("big", spec.recap.big_period), ("run", spec.recap.run))
    return [*_REPORT_PATTERNS, *((kind, f.parse) for kind, f in feats if f.parse is not None)]


@dataclass
class GameDocs:
    game_id: str
    season: int
    files: dict[str, str]
    report: str = ""
    stat_player: str = ""
    stat_team: str = ""
    stats: dict[str, dict[str, int]] = field(default_factory=dict)
    facts: set[tuple[str, ...]] = field(default_factory=set)

    def text(self) -> str:
        return "\n".join((self.report, self.stat_player, self.stat_team))


@dataclass
class Fact:
    key: tuple[str, ...]  # matched against GameDocs.facts
    phrase: str
    source: str
    doc_ids: list[str]
    primitives: tuple[str, ...] = ()


def _parse_stats(text: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        m = _STAT_LINE.match(line)
        if not m:
            continue
        vals: dict[str, int] = {}
        for part in m.group(2).split(", "):
            n = _NUM_LABEL.match(part)
            if n and n.group(1).lstrip("+-").isdigit():
                vals[n.group(2)] = int(n.group(1))
        out[m.group(1)] = vals
    return out


def _team_forms(sport: str, names: Sequence[str]) -> dict[str, str]:
    """Every way the report may name one of the game's teams -> the full name."""
    forms: dict[str, str] = {}
    spec = SPECS[sport]
    for name in names:
        for ref in spec.team_refs(name):
            forms.setdefault(ref.text, name)
    return forms


def _report_facts(report: str, sport: str, names: Sequence[str]) -> set[tuple[str, ...]]:
    """Identifying facts of a recap, with every team reference mapped to its full name."""
    f: set[tuple[str, ...]] = set()
    forms = _team_forms(sport, [n for n in names if n])
    if not report or not forms:
        return f
    alt = "|".join(re.escape(t) for t in sorted(forms, key=len, reverse=True))
    team = rf"(?<![\w&])(?:[Tt]he )?(?P<team>{alt})(?![\w])"
    for kind, pattern in _patterns(SPECS[sport]):
        for m in re.finditer(pattern.replace("{T}", team), report):
            vals = [g.strip() for i, g in enumerate(m.groups(), 1) if i != m.re.groupindex["team"]]
            f.add((kind, forms[m.group("team")], *vals))
    return f


def team_phrase(sport: str, name: str, rng: random.Random) -> str:
    """How a question names a team: full name, or its nickname / short form / city."""
    refs = SPECS[sport].team_refs(name)
    weights = (0.5, 0.3, 0.2)[: len(refs)]
    return rng.choices(refs, weights)[0].render()


def load_games(sport_dir: Path, sport: str | None = None) -> list[GameDocs]:
    sport = sport or sport_dir.name
    meta = orjson.loads((sport_dir / "metadata.json").read_bytes())
    games: list[GameDocs] = []
    for gid, files in meta.items():
        info = (
            orjson.loads((sport_dir / files["game_info"]).read_bytes())
            if files.get("game_info")
            else {}
        )
        g = GameDocs(gid, int(info.get("season", 0)), files)
        for key, attr in (
            ("espn_report", "report"),
            ("game_stat_player", "stat_player"),
            ("game_stat_team", "stat_team"),
        ):
            if files.get(key):
                setattr(g, attr, (sport_dir / files[key]).read_text())
        g.stats = _parse_stats(g.stat_player)
        names = (str(info.get("home_team", "")), str(info.get("away_team", "")))
        g.facts = _report_facts(g.report, sport, names)
        for name, vals in g.stats.items():
            for label, v in vals.items():
                g.facts.add(("stat", name, label, str(v)))
        games.append(g)
    return games


def _leaks(answer: str, text: str) -> bool:
    return (
        re.search(r"(?<![\w-])" + re.escape(answer) + r"(?![\w-])", text, re.IGNORECASE) is not None
    )


def answer_leaks(
    answer_type: str, answer: str, g: GameDocs, attr_phrase: str | None = None
) -> bool:
    """Is the answer (or, for counts, the attribute counted) readable from the game's docs?

    Player names are always in the box score (every player who played is listed), so for
    names only the recap is checked; numbers are checked as jersey references.
    """
    if answer_type == "player_name":
        return _leaks(answer, g.report)
    if answer_type == "player_number":
        return any(s in g.text() for s in (f"#{answer}", f"No. {answer}", f"number {answer}"))
    if answer_type == "game_score":
        a, b = answer.split("-")
        return _leaks(f"{a}-{b}", g.text()) or _leaks(f"{b}-{a}", g.text())
    if answer_type == "numeric_count":
        return attr_phrase is None or _leaks(attr_phrase, g.text())
    return _leaks(answer, g.text())


# ------------------------------------------------------------------ per-game candidate facts


def _candidate_facts(
    sport: str,
    g: GameDocs,
    pbp: dict[str, Any],
    sport_dir: Path,
    season_meta: dict[str, Any],
    rng: random.Random,
) -> list[Fact]:
    spec = SPECS[sport]
    out: list[Fact] = []
    rep = [f"{g.game_id}_espn_report"]
    for f in sorted(g.facts):
        if f[0] == "stat":
            continue
        who = team_phrase(sport, f[1], rng)
        if f[0] == "streak":
            out.append(
                Fact(
                    f,
                    f"{who} won their {f[2]} straight game",
                    "espn_report",
                    rep,
                    ("textual search",),
                )
            )
        elif f[0] == "big":
            what = spec.recap.big_period.phrase.format(value=f[2], a=article(f[2]), period=f[3])
            out.append(Fact(f, f"{who} {what}", "espn_report", rep, ("textual search",)))
        elif f[0] == "without":
            out.append(
                Fact(f, f"{who} played without {f[2]}", "espn_report", rep, ("textual search",))
            )
        elif f[0] == "run":
            what = spec.recap.run.phrase.format(value=f[2], a=article(f[2]), period=f[3])
            prims = ("textual search", "sequencing")
            out.append(Fact(f, f"{who} {what}", "espn_report", rep, prims))
        elif f[0] == "record":
            out.append(
                Fact(
                    f,
                    f"{who} improved to {f[2]}",
                    "espn_report",
                    rep,
                    ("textual search", "state tracking"),
                )
            )
    pids = {p["name"]: p["player_id"] for p in pbp["players"]}
    code = season_year_to_code(g.season) if g.season else ""
    for name, vals in sorted(g.stats.items()):
        for label, least in spec.questions.stats:
            v = vals.get(label, 0)
            if v < least:
                continue
            key = ("stat", name, label, str(v))
            doc = [f"{g.game_id}_game_stat_player"]
            pid = pids.get(name)
            season_doc = season_meta.get(pid or "", {}).get(code, {}).get("season_stat_player")
            if season_doc and rng.random() < 0.5:
                avg = _season_avg(sport_dir / season_doc, name, label)
                if avg is not None and avg > 0 and v >= 1.5 * avg:
                    ratio = "more than double" if v >= 2 * avg else "well above"
                    out.append(
                        Fact(
                            key,
                            f"{name} had {v} {label}, {ratio} his season average of {avg:.1f}",
                            "season_stat_player",
                            [*doc, f"player_{pid}_{code}_season_stat_player"],
                            ("textual search", "comparison", "math"),
                        )
                    )
                    continue
            out.append(
                Fact(
                    key,
                    f"{name} finished with {v} {label}",
                    "game_stat_player",
                    doc,
                    ("textual search",),
                )
            )
    return out


def _season_avg(path: Path, name: str, label: str) -> float | None:
    m = re.search(
        rf"^{re.escape(name)}: .*?(\d+\.\d) {re.escape(label)}[,\s]", path.read_text(), re.M
    )
    return float(m.group(1)) if m else None


# ------------------------------------------------------------------ answers from events


def _clip_of_events(clips: dict[str, Any]) -> dict[int, str]:
    out: dict[int, str] = {}
    for cid, w in clips.get("windows", {}).items():
        for eid in w.get("event_ids", []):
            out[int(eid)] = cid
    return out


def _ref_class(
    spec: SportSpec, ev: dict[str, Any]
) -> tuple[str, Callable[[dict[str, Any]], bool]] | None:
    """The noun a question names the event by ('made field goal') and which events count
    towards its ordinal; None when questions do not refer to this kind of event."""
    t = ev["type"]
    for noun, types in spec.questions.references:
        if t in types:
            return noun, lambda e, types=types: e["type"] in types
    return None


def _reference(spec: SportSpec, events: list[dict[str, Any]], ev: dict[str, Any]) -> str | None:
    rc = _ref_class(spec, ev)
    if rc is None:
        return None
    noun, pred = rc
    same = [
        e
        for e in events
        if e["period"] == ev["period"] and e["player_id"] == ev["player_id"] and pred(e)
    ]
    k = next(i for i, e in enumerate(same) if e is ev) + 1
    return f"{ev['player']}'s {ordinal_word(k)} {noun} of the {spec.period_label(ev['period'])}"


def _candidates(
    sport: str, atype: str, events: list[dict[str, Any]], e2c: dict[int, str]
) -> list[tuple[str, str, list[dict[str, Any]], tuple[str, ...], str | None]]:
    """(question tail, answer, evidence events, extra primitives, counted attribute phrase)."""
    out: list[tuple[str, str, list[dict[str, Any]], tuple[str, ...], str | None]] = []
    spec = SPECS[sport]
    q = spec.questions
    zk, mk, area, move_word = q.zone_key, q.move_key, q.area_word, q.move_word
    seq = ("temporal filtering", "sequencing")
    for ev in events:
        if ev["event_id"] not in e2c or ev["player_id"] is None:
            continue
        a = ev["attributes"]
        ref = _reference(spec, events, ev) if atype != "numeric_count" else None
        if atype == "numeric_count" or ref is None:
            continue
        his = ref.replace(f"{ev['player']}'s", "his", 1)
        if atype == "spatial_position" and zk in a:
            out.append((f"from what {area} did {ev['player']} take {his}?", a[zk], [ev], seq, None))
        elif atype == "shot_type" and "shot_type" in a:
            out.append(
                (
                    f"what type of shot was {ref}?",
                    a["shot_type"],
                    [ev],
                    (*seq, "pattern categorization", "visual analysis"),
                    None,
                )
            )
        elif atype == "play_type" and "play_type" in a:
            out.append(
                (
                    f"what kind of play led to {ref}?",
                    a["play_type"],
                    [ev],
                    (*seq, "pattern categorization"),
                    None,
                )
            )
        elif atype == "dribble_move" and a.get(mk):
            out.append(
                (
                    f"what {move_word} did {ev['player']} use before {ref}?",
                    a[mk],
                    [ev],
                    (*seq, "visual analysis"),
                    None,
                )
            )
        elif atype == "player_name":
            helper = a.get("assist") or (a.get("assists") or [None])[0]
            if helper:
                out.append(
                    (f"who assisted on {ref}?", helper["name"], [ev], (*seq, "backtracking"), None)
                )
        elif atype == "player_number":
            out.append(
                (
                    f"what jersey number was {ev['player']} wearing on {his}?",
                    str(ev["number"]),
                    [ev],
                    seq,
                    None,
                )
            )
        elif atype == "game_score":
            out.append(
                (
                    f"what was the score (home-away) right after {ref}?",
                    f"{ev['home_score']}-{ev['away_score']}",
                    [ev],
                    (*seq, "state tracking"),
                    None,
                )
            )
    if atype == "numeric_count":
        groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for ev in events:
            rc = _ref_class(spec, ev)
            if rc is None or zk not in ev["attributes"]:
                continue
            groups.setdefault(
                (ev["player_id"], ev["period"], rc[0], ev["attributes"][zk]), []
            ).append(ev)
        for (_pid, period, noun, zone), evs in groups.items():
            if all(e["event_id"] in e2c for e in evs):
                tail = (
                    f"how many {noun}s did {evs[0]['player']} have from the {zone} in the "
                    f"{spec.period_label(period)}?"
                )
                out.append(
                    (tail, str(len(evs)), evs, ("temporal filtering", "aggregation", "loop"), zone)
                )
    return out


# ------------------------------------------------------------------ generator


def _unique(games: list[GameDocs], keys: list[tuple[str, ...]]) -> bool:
    return sum(1 for g in games if all(k in g.facts for k in keys)) == 1


def _sport_questions(root: Path, sport: str, per_sport: int, seed: int) -> list[dict[str, Any]]:
    sport_dir = root / "data" / sport
    rng = random.Random(f"playscout-synth-q:{seed}:{sport}")
    games = load_games(sport_dir, sport)
    sm_path = sport_dir / "metadata_season_player.json"
    season_meta = orjson.loads(sm_path.read_bytes()) if sm_path.exists() else {}
    order = [g for g in games if g.files.get("clips_metadata") and g.files.get("play_by_play")]
    rng.shuffle(order)
    per_type = Counter[str]()
    value_use: Counter[tuple[str, str]] = Counter()
    questions: list[dict[str, Any]] = []
    for _round in range(4 * len(ANSWER_TYPES)):
        for g in order:
            if len(questions) >= per_sport:
                return questions
            pbp = orjson.loads((sport_dir / g.files["play_by_play"]).read_bytes())
            clips = orjson.loads((sport_dir / g.files["clips_metadata"]).read_bytes())
            e2c = _clip_of_events(clips)
            facts = _candidate_facts(sport, g, pbp, sport_dir, season_meta, rng)
            ident = _pick_facts(games, facts, rng)
            if ident is None:
                continue
            for atype in sorted(ANSWER_TYPES, key=lambda t: (per_type[t], rng.random())):
                cands = _candidates(sport, atype, pbp["events"], e2c)
                cands = [c for c in cands if not answer_leaks(atype, c[1], g, c[4])]
                if not cands:
                    continue
                rng.shuffle(cands)
                cands.sort(key=lambda c: value_use[(atype, c[1])])
                tail, answer, evs, prims, _ = cands[0]
                value_use[(atype, answer)] += 1
                per_type[atype] += 1
                questions.append(
                    _question(sport, len(questions), g, ident, tail, answer, atype, evs, e2c, prims)
                )
                break
    return questions


def _pick_facts(games: list[GameDocs], facts: list[Fact], rng: random.Random) -> list[Fact] | None:
    """Two (or three) facts from different sources that together match exactly one game."""
    if len(facts) < 2:
        return None
    for _ in range(12):
        pair = rng.sample(facts, 2)
        if pair[0].source == pair[1].source and rng.random() < 0.7:
            continue
        if pair[0].key == pair[1].key:
            continue
        if _unique(games, [f.key for f in pair]):
            return pair
        third = rng.choice(facts)
        trio = [*pair, third]
        if third.key not in (pair[0].key, pair[1].key) and _unique(games, [f.key for f in trio]):
            return trio
    return None


def _question(
    sport: str,
    n: int,
    g: GameDocs,
    ident: list[Fact],
    tail: str,
    answer: str,
    atype: str,
    evs: list[dict[str, Any]],
    e2c: dict[int, str],
    prims: tuple[str, ...],
) -> dict[str, Any]:
    lead = " and ".join(f.phrase for f in ident)
    text = f"In the game where {lead}, {tail}"
    sources = sorted(
        {f.source for f in ident}
        | {"game_stat_player" for f in ident if f.source == "season_stat_player"}
    )
    doc_ids = sorted({d for f in ident for d in f.doc_ids})
    primitives = ["textual search", "visual search", "logic"]
    for p in [*(q for f in ident for q in f.primitives), *prims]:
        if p not in primitives:
            primitives.append(p)
    clip_ids = sorted({e2c[e["event_id"]] for e in evs}, key=lambda c: int(c.rsplit("_", 1)[1]))
    return {
        "id": f"{sport[:2]}_{n:06d}",
        "question": text,
        "answer": answer,
        "sport": sport,
        "answer_type": atype,
        "primitives": primitives,
        "sources": [*sources, "video"],
        "gold": {"game_id": g.game_id, "doc_ids": doc_ids, "clip_ids": clip_ids},
    }


def why_no_questions(root: Path, sport: str) -> str:
    """Why `sport` got no question, in words a user can act on. A question asks about a play
    in a clip, so a sport whose games have no clips (a small corpus: soccer gives clips to
    about a third of its games, as the release does) can have none."""
    sport_dir = Path(root) / "data" / sport
    games = load_games(sport_dir, sport)
    usable = [g for g in games if g.files.get("clips_metadata") and g.files.get("play_by_play")]
    if not usable:
        which = "its one game has no" if len(games) == 1 else f"none of its {len(games)} games has"
        return (
            f"{which} clips with a play-by-play, and a question asks about a play in a clip: "
            "generate more games with `corpus synth --games N`"
        )
    return (
        f"no pair of facts picks out one of its {len(usable)} games with clips: generate more "
        "games or try another --seed"
    )


def generate_questions(
    root: Path, per_sport: int, seed: int = 0, sports: Sequence[str] | None = None
) -> dict[str, int]:
    """Write questions/{sport}.json for each sport present under root; returns counts."""
    root = Path(root)
    out: dict[str, int] = {}
    for sport in sports or spec_names():
        if not (root / "data" / sport / "metadata.json").exists():
            continue
        qs = _sport_questions(root, sport, per_sport, seed)
        (root / "questions").mkdir(parents=True, exist_ok=True)
        (root / "questions" / f"{sport}.json").write_bytes(
            orjson.dumps(qs, option=orjson.OPT_INDENT_2)
        )
        out[sport] = len(qs)
    return out
