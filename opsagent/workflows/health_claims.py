"""What an answer says of a platform's components: "Key Vault is degraded", "Query Processing is degraded in
West Europe and North Europe", "Data Factory and Storage are fine".

A status said of components the health checks returned must be the status their rows show — in each region
the sentence names, or in some region when it names none. Each part of a sentence (split at ";", ":", a dash,
", but", ", while", and " and " between two statements with a region each) is read on its own, and only when it
says one status (not negated): "X is degraded; Y is fine" is two claims, "X is degraded but not Y" is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.vocabulary import PLATFORMS, REGION_CODES, REGIONS
from opsagent.tools.catalog import tool_spec
from opsagent.tools.identifiers import TICKET
from opsagent.tools.vocabularies import HEALTH_STATUS
from opsagent.workflows.claims import NEGATED_VALUE, not_looked_at, says
from opsagent.workflows.evidence_index import EvidenceIndex, digits

EXCEPT = re.compile(r"\b(?:except|besides|apart from|other than|but|not|n't|isn't|aren't)\b|"
                    r"^\W*(?:everything|all|anything)\s+else\b", re.IGNORECASE)
CONDITIONAL = re.compile(r"\b(?:until|till|once|unless|if|as soon as)\b[^.;,]*\b(?:is|are|gets?|comes?|goes|shows?|"
                         r"says?|reads?|turns?|returns?|flips?|reports?|ends?|finish(?:es)?|completes?|clears?|"
                         r"recovers?|resolves?|have|has)\b|"
                         r"^\W*(?:if|unless)\b[^,]*$", re.IGNORECASE)
"""A status as a condition ("hold the rerun until Jobs is back to operational", "once the page shows Jobs operational",
"if analysts see slow notebooks…"), not what the report says now."""
_SAID_STATUS = sorted({label for label in HEALTH_STATUS.labels() if "_" not in label and label not in ("maintenance", "unknown")}
                      | {"fine", "ok", "okay", "healthy", "green"})
FOR_SOME = re.compile(rf"\b(?:{'|'.join(_SAID_STATUS)})"
                      r"\s+(?:for|on|with)\s+(?!(?:now|the moment|today|all|every|everything|each|any|the whole)\b)\w",
                      re.IGNORECASE)
"""A platform's status said for some of its services ("Azure looks fine for ADF and Storage"): about those."""
PARTS = re.compile(r"[;:]\s+|,\s+(?:but|while|whereas|so)\s+|\.\s+|\s+[—–]\s+", re.IGNORECASE)
OVERALL = re.compile(r"^\s*[\w ]+:\s*([a-z_]+)\.", re.IGNORECASE)
"""A health report's first words: "Snowflake: degraded." """
REGION_CORE = re.compile(r"\b(?:west|north|east|south|central|southeast|northeast|southwest|northwest)\s+[a-z]+",
                         re.IGNORECASE)


def _components(index: EvidenceIndex) -> list[dict[str, Any]]:
    return [row for item in index.items for row in item.rows
            if row.get("kind") == "component" and isinstance(row.get("name"), str) and row.get("status")]


def _region(row: dict[str, Any]) -> str:
    found = REGION_CORE.search(str(row.get("region") or ""))
    return found.group().lower() if found else ""


PHRASAL = re.compile(r"\s+(?:to|from)\b", re.IGNORECASE)
"""After "down", a phrasal verb ("puts it down to capacity", "down from 12"), not a status."""


def _status_said(part: str) -> str | None:
    """The one status a part says (not negated), as a row shows it; ``None`` for none or several."""
    said = {HEALTH_STATUS.choice(value).label.lower() for match, value in HEALTH_STATUS.find(part)
            if HEALTH_STATUS.choice(value) is not None and not NEGATED_VALUE.search(part[:match.start()])
            and not (match.group().lower().endswith("down") and PHRASAL.match(part[match.end():]))}
    return said.pop() if len(said) == 1 else None


def _overall(index: EvidenceIndex) -> list[tuple[str, str, str]]:
    """Each platform check: (the platform, its overall status as its report states it, the region it was asked for)."""
    found = []
    for item in index.items:
        spec = tool_spec(item.tool)
        stated = OVERALL.match(item.message) if spec is not None and spec.platform and item.answered else None
        if stated:
            found.append((spec.platform, stated.group(1).lower(),
                          " ".join(str(item.arguments.get("region") or "").lower().split())))
    return found


def check_platform_claims(parts: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """"Databricks, Snowflake and every Azure service in North Europe are operational": a status said of a whole
    platform is its report's overall status (for the region the report was asked for, when the part names one).
    A part that names a region but no platform and no component speaks of the report asked for that region."""
    checks = []
    reports = _overall(index)
    components = {str(row["name"]).lower() for row in _components(index)}
    for part in parts:
        status = None if EXCEPT.search(part) or CONDITIONAL.search(part) or FOR_SOME.search(part) else _status_said(part)
        if status is None or "'" in part:
            continue
        bare, subject = not any(name in part.lower() for name in components), part
        for name in sorted(components, key=len, reverse=True):  # "Azure Databricks" is a component, not Azure
            subject = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", subject, flags=re.IGNORECASE)
        regions = {" ".join(found.lower().split()) for found in REGION_CORE.findall(subject)}
        named = {platform for platform, _, _ in reports if says(subject, platform)}
        bare = bare and not named
        for platform, shown, asked_region in reports:
            # the platform as the subject of a status ("Azure is …", "every other Azure service is …"), not a title
            said = re.search(rf"\b{re.escape(platform)}\b.*?\b(?:is|are|looks?|seems?|remains?|stays?)\b|"
                             rf"\b(?:every|all|each)(?:\s+other)?\s+{re.escape(platform)}\b", subject, re.IGNORECASE)
            in_region = any(region in asked_region for region in regions)
            if not (said or bare and in_region) or regions and not in_region:
                continue
            if shown != status:
                checks.append(GroundingCheck(kind="value", claim=part, passed=False,
                                             detail=f"{platform}'s report{f' for {asked_region}' if asked_region else ''}"
                                                    f" says {shown}, not {status}",
                                             public="a platform status the data contradicts"))
    return checks


def _by_region(part: str) -> list[str]:
    """"the Databricks issue in West Europe and planned SQL MI maintenance in North Europe": two statements, each
    with its own region; "degraded in West Europe and North Europe" is one."""
    pieces = re.split(rf"\s+and\s+(?!(?:in\s+)?(?:the\s+)?(?:azure\s+|aws\s+|gcp\s+)?{REGION_CORE.pattern})", part,
                      flags=re.IGNORECASE)
    return pieces if len(pieces) > 1 and all(REGION_CORE.search(piece) for piece in pieces) else [part]


def _region_names(name: str, words: tuple[str, ...]) -> tuple[str, ...]:
    """A region's own names and code, without the cities people also write for it ("the London team")."""
    code = REGION_CODES.get(name)
    return words[:words.index(code) + 1] if code in words else words


_REGION_WORDS = sorted({word: name for name, words in REGIONS.items()
                        for word in (name.lower(), *_region_names(name, words))}.items(), key=lambda pair: -len(pair[0]))
REGION_SAID = re.compile(r"(?<![\w-])(" + "|".join(re.escape(word) for word, _ in _REGION_WORDS) + r")(?![\w-])",
                         re.IGNORECASE)
_REGION_OF = dict(_REGION_WORDS)


def regions_in(text: str) -> set[str]:
    """The regions a text names, by any of their words ("Ireland" is North Europe), longest first ("East US 2")."""
    return {_REGION_OF[match.group(1).lower()] for match in REGION_SAID.finditer(text)}


def check_regions(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """A region said beside a health report is one the report, its query or the question shows. A report over every
    region that lists only what is not operational leaves every other region fine: then any region may be named."""
    said = [(sentence, regions) for sentence in sentences if (regions := regions_in(sentence))]
    health = [item for item in index.items if (spec := tool_spec(item.tool)) and spec.platform and item.answered]
    if not said or not health or any(not item.arguments.get("region") and item.rows and all(
            str(row.get("status")).lower() != "operational" for row in item.rows if row.get("kind") == "component")
            for item in health):
        return []
    shown = regions_in(index.text) | {region for item in index.items for region in regions_in(str(item.query))}
    return [GroundingCheck.of("identifier", sentence, False, f"{region} appears in no tool output",
                              "a region no data showed")
            for sentence, regions in said for region in sorted(regions - shown)
            if not not_looked_at(region.lower(), sentence.lower())]  # "I only checked North Europe, not West Europe"


STAGES = ("investigating", "identified", "monitoring", "resolved")
"""A status page incident's stages (Atlassian Statuspage, which Databricks and Snowflake use)."""
_STAGE = "|".join(STAGES)
STAGE_SAID = re.compile(rf"\b(?:in|at)\s+(?:the\s+)?(?P<a>{_STAGE})\b|\b(?P<b>{_STAGE})\s+(?:status|stage|phase|state)\b"
                        rf"|\bstatus\s*(?:is|:)?\s*(?P<c>{_STAGE})\b"
                        rf"|\b(?:incident|issue|outage|problem)\s+(?:is|was|has\s+been|'s)\s+(?:now\s+|already\s+|fully\s+)?"
                        rf"(?:been\s+)?(?:marked\s+(?:as\s+)?)?(?P<d>resolved)\b", re.IGNORECASE)
"""A stage said as the incident's state ("it's still in identified status", "status: monitoring", "the incident
is now resolved"), not a verb ("Snowflake identified the cause")."""


def check_incident_stages(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """The stage said of a platform's status incident is one its rows show (of the platform the sentence names)."""
    incidents = [(tool_spec(item.tool), row) for item in index.items for row in item.rows if row.get("kind") == "incident"
                 and isinstance(row.get("status"), str)]
    checks = []
    for sentence in sentences if incidents else ():
        said_stages = [] if TICKET.search(sentence) else list(STAGE_SAID.finditer(sentence))
        if not said_stages:
            continue
        match = said_stages[-1]  # "no longer in investigating; it's now in monitoring": the stage it is in
        said = next(stage for stage in match.group("a", "b", "c", "d") if stage).lower()
        titled = [row for _, row in incidents if len(str(row.get("title") or "")) > 12  # the incident quoted by its title
                  and str(row["title"]).lower() in sentence.lower()]
        named = titled or [row for spec, row in incidents if spec and spec.platform and says(sentence, spec.platform)]
        shown = {str(row["status"]).lower() for row in named or [row for _, row in incidents]}
        checks.append(GroundingCheck.of("value", sentence, said in shown,
                                        f"the status incident is {', '.join(sorted(shown))}, not {said}",
                                        "an incident stage the data contradicts"))
    return checks


UNHEALTHY_COUNT = re.compile(r"(?<!of )(?<!'s )(?<![\w.:])(\d+)\s+(?:of\s+(?:the\s+|its\s+|our\s+|[\w-]+'s\s+)?(\d+)\s+)?(?:[\w-]+\s+){0,3}?"
                             r"components?\b[^.;:]{0,40}?(?:\b(?:is|are)\s+not|\b(?:isn't|aren't)|\bnot)\s+"
                             r"(?:fully\s+)?(?:operational|healthy)\b", re.IGNORECASE)
"""A count of components not operational ("one of the 14 Azure components we track isn't operational")."""
REPORTED = re.compile(r"\b(\d+) of (\d+) components not operational\b")


def check_unhealthy_counts(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """How many components are not operational, of how many, as the reports of the platforms said (or all) show."""
    reports = [(spec.platform, item) for item in index.items if (spec := tool_spec(item.tool)) and spec.platform
               and item.answered and (any(row.get("kind") == "component" for row in item.rows)
                                      or REPORTED.search(item.message))]
    checks = []
    for sentence in sentences if reports else ():
        for match in UNHEALTHY_COUNT.finditer(digits(sentence)):
            named = [item for platform, item in reports if says(sentence, platform)] or [item for _, item in reports]
            shown = [(int(found.group(1)), int(found.group(2))) for item in named if (found := REPORTED.search(item.message))]
            down = sum(row.get("kind") == "component" and str(row.get("status")).lower() != "operational"
                       for item in named for row in item.rows)
            said, of = int(match.group(1)), int(match.group(2)) if match.group(2) else None
            totals = {sum(total for _, total in shown)} if len(shown) == len(named) else set()
            ok = said == down and (of is None or not totals or of in totals)
            checks.append(GroundingCheck.of("number", sentence, ok,
                                            f"{down} components not operational" + (f" of {totals.pop()}" if totals else "")
                                            + f", not {said}" + (f" of {of}" if of else ""),
                                            "a count of components the health data contradicts"))
    return checks


def _unlisted(names: Iterable[str], rows: list[dict[str, Any]], index: EvidenceIndex) -> list[str]:
    """Component names the inventory knows (words, no ids) that no row lists, when every health report searched
    covers its whole platform and lists only what is not operational: each of them is operational."""
    reports = [item for item in index.items if (spec := tool_spec(item.tool)) and spec.platform and item.answered]
    if not reports or not all("not operational" in item.message and not item.arguments.get("region") for item in reports):
        return []
    listed = {str(row.get("name")).lower() for row in rows}
    return [name for name in names if re.fullmatch(r"[A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+)?", name)
            and name.lower() not in listed and name.lower() not in index.row_text and name not in PLATFORMS]


TICKET_TITLE = re.compile(rf"(?P<key>{TICKET.pattern})(?:\s*\([^()]*\))?\s+[-–—]\s+(?P<title>[^:;.()]+)", re.IGNORECASE)
"""A ticket and, after a dash, words that may be its title ("INC… (P4, New) — notebooks slow to attach: …")."""


def _titles(sentence: str, index: EvidenceIndex) -> list[str]:
    """Ticket titles quoted after a dash: a ticket's own words ("notebooks slow to attach") say what was reported,
    not what a status page shows (the words must be a row's own, three or more in a row)."""
    found = []
    for match in TICKET_TITLE.finditer(sentence):
        words = re.findall(r"[\w-]+", match.group("title").lower())
        if len(words) >= 3 and f" {' '.join(words)} " in f" {index.row_words} ":
            found.append(match.group("title").strip().lower())
    return found


def check_health_claims(sentences: Iterable[str], index: EvidenceIndex,
                        known_names: Iterable[str] = ()) -> list[GroundingCheck]:
    sentences = list(sentences)
    stage_checks = [*check_incident_stages(sentences, index), *check_unhealthy_counts(sentences, index),
                    *check_regions(sentences, index)]
    parts = [piece for sentence in sentences for part in PARTS.split(sentence) if part.strip()
             and not any(part.strip().lower() in title for title in _titles(sentence, index))
             for piece in _by_region(part)]
    platform_checks = [*stage_checks, *check_platform_claims(parts, index)]
    rows = _components(index)
    unlisted = _unlisted(known_names, rows, index)
    checks = [GroundingCheck(kind="value", claim=part, passed=False,
                             detail=f"{name} is not among the components the report lists as not operational",
                             public="a platform status the data contradicts")
              for part in parts for name in unlisted if says(part, name)
              and (status := None if EXCEPT.search(part) or CONDITIONAL.search(part) else _status_said(part))
              and status != "operational"]
    if not rows:
        return [*platform_checks, *checks]
    # a report over every region lists only what is not operational: a component missing there is fine
    problems_only = any("not operational" in item.message for item in index.items if any(
        row.get("kind") == "component" for row in item.rows))
    names = sorted({str(row["name"]) for row in rows}, key=len, reverse=True)
    for part in parts:
        if TICKET.search(part):  # "logged as INC… (notebooks slow to attach)": a ticket's title is its own words
            part = re.sub(r"\([^()]*\)|\"[^\"]*\"", " ", part)  # (emphasis is already gone: evaluate strips it)
        status = None if EXCEPT.search(part) or CONDITIONAL.search(part) else _status_said(part)  # "all but X",
        # "X is not": not one claim; "until Jobs is back to operational": a condition, not a status
        regions = {" ".join(found.lower().split()) for found in REGION_CORE.findall(part)}
        # "North Europe is degraded as well" beside one component's report: that component, in that region
        named = [name for name in names if says(part, name)] or (names if len(names) == 1 and regions else [])
        if status is None or not named:
            continue
        for name in named:
            own = [row for row in rows if row["name"] == name]
            listed = {_region(row): str(row["status"]).lower() for row in own}
            wrong = [region for region in sorted(regions) if (region in listed or problems_only)
                     and listed.get(region, "operational") != status]
            holds = not wrong if regions else any(str(row["status"]).lower() == status for row in own)
            if not holds:
                shown = ", ".join(f"{row['status']} in {row.get('region')}" for row in own)
                checks.append(GroundingCheck(kind="value", claim=part, passed=False,
                                             detail=f"{name} is {shown}, not {status}"
                                                    + (f" in {', '.join(wrong)}" if wrong else ""),
                                             public="a platform status the data contradicts"))
    return [*platform_checks, *checks]
