"""Follow-ups: a short question that re-asks the previous one with something changed, and references
into the previous answer ("the second one", "that run").

"and for last week?" after "what failed in ADF in the last 24h?" becomes "what failed in ADF for
last week?": the previous question with the new value in place of the old one (a time window, a
platform, a pipeline…), so the planner plans the whole question again. "the second one" resolves
to the second item of the previous answer (the ids it listed, in order: kept with the stored turn,
else read from its text). Nothing is guessed: a reference with nothing to point at stays as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from opsagent.contracts.analysis import EntityKind, EntityMention, FilterMention, FollowUp, ResolvedReference, TimeMention
from opsagent.contracts.requests import MessageData
from opsagent.intake.entities import WORD, find_entities
from opsagent.intake.filters import find_filters
from opsagent.intake.inventory import InventorySnapshot
from opsagent.intake.record_windows import WINDOW_NOUN
from opsagent.intake.times import find_times
from opsagent.tools.identifiers import NAME, RUN_ID, TYPED_TICKET, normalised_ticket

LEAD = re.compile(r"^\s*(?:(?:ok(?:ay)?|so|then)[,.]?\s+)?(?:and(?:\s+(?:for|what about|how about))?|what about|how about|"
                  r"same (?:for|with)|now (?:for|with)|also for|what if|only|just)\b[\s,]*", re.IGNORECASE)
SHORT = 6
"""A question this short (in words) that names a new value and no verb of its own is a follow-up."""
VERB = re.compile(r"\b(?:is|are|was|were|did|does|do|has|have|show|list|which|what|why|how|who|when|where|give|tell|"
                  r"find|check|failed|fail)\b", re.IGNORECASE)
SUGGESTION = re.compile(r"(?:^[ \t]*|(?<=[:?.!])[ \t]+)[-*•][ \t]+(.+?)(?=(?<=[?.!])[ \t]+[-*•][ \t]|\n|$)",
                        re.MULTILINE)
"""Offered questions: list items one a line, or run together ("For example: - Why …? - Why …?")."""
STOPWORDS = frozenset("the a an one and or for of to in on is are was it its that this what about same how "
                      "one ones please yes".split())
ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "fifth": 4,
            "5th": 4, "last": -1}
ORDINAL_REF = re.compile(r"\bthe\s+(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)"
                         r"(?:\s+(one|incident|change|run|pipeline|ticket))?\b", re.IGNORECASE)
THAT_REF = re.compile(r"\b(?:that|this)\s+(one|run|incident|change|pipeline|ticket)\b", re.IGNORECASE)
WINDOW_REF = re.compile(rf"\b(?:that|this|the same)\s+({WINDOW_NOUN})\b", re.IGNORECASE)
""""inside that window" after an answer about a change: that change's planned window."""
NOUN_KINDS: dict[str, tuple[EntityKind, ...]] = {
    "incident": ("incident",), "ticket": ("incident", "change"), "change": ("change",), "run": ("run_id",),
    "pipeline": ("pipeline",), "one": ("incident", "change", "run_id", "pipeline"),
}
SLOT_KINDS: tuple[EntityKind, ...] = ("platform", "pipeline", "factory", "region", "configuration_item",
                                      "assignment_group", "azure_service")


def _last(history: Sequence[MessageData], role: str) -> MessageData | None:
    return next((message for message in reversed(history) if message.role == role), None)


def ref_kind(ref: str) -> EntityKind:
    upper = ref.upper()
    if upper.startswith("INC"):
        return "incident"
    if upper.startswith("CHG"):
        return "change"
    return "run_id" if RUN_ID.fullmatch(ref) else "pipeline"


def refs_of(turn: MessageData) -> list[str]:
    """The ids an answer listed, in order: kept with the stored turn, else read from its text."""
    if turn.refs:
        return list(turn.refs)
    found = [(match.start(), normalised_ticket(match.group(1), match.group(2))) for match in TYPED_TICKET.finditer(turn.content)]
    found += [(match.start(), match.group().lower()) for match in RUN_ID.finditer(turn.content)]
    masked = RUN_ID.sub(" ", turn.content)
    found += [(match.start(), match.group()) for match in NAME.finditer(masked) if match.group().lower().startswith("pl_")]
    return list(dict.fromkeys(ref for _, ref in sorted(found)))


def resolve_references(question: str, history: Sequence[MessageData], now: datetime) -> tuple[str, list[ResolvedReference]]:
    """Replace "the second one" / "that run" with the id the previous answer listed there.

    Words inside a time expression are not references: "the last 7 days" is a window."""
    answer = _last(history, "assistant")
    if answer is None:
        return question, []
    refs = refs_of(answer)
    resolved: list[ResolvedReference] = []
    times = [(item.span.start, item.span.end) for item in find_times(question, now)]

    def pick(kinds: tuple[EntityKind, ...], index: int) -> str | None:
        of_kind = [ref for ref in refs if ref_kind(ref) in kinds]
        dominant = of_kind if len(kinds) == 1 else [ref for ref in refs if ref_kind(ref) == ref_kind(of_kind[0])] if of_kind else []
        return dominant[index] if -len(dominant) <= index < len(dominant) else None

    def replace(match: re.Match[str], *, index: int, noun: str, how: str) -> str:
        if any(start < match.end() and match.start() < end for start, end in times):
            return match.group()
        value = pick(NOUN_KINDS.get(noun.lower(), NOUN_KINDS["one"]), index)
        if value is None:
            return match.group()
        resolved.append(ResolvedReference(text=match.group(), kind=ref_kind(value), value=value, how=how))  # type: ignore[arg-type]
        return value

    text = ORDINAL_REF.sub(lambda m: replace(m, index=ORDINALS[m.group(1).lower()], noun=m.group(2) or "one",
                                             how="ordinal"), question)
    text = THAT_REF.sub(lambda m: replace(m, index=0, noun=m.group(1), how="previous_turn"), text)
    text = WINDOW_REF.sub(lambda m: f"the {m.group(1)} of {value}" if (value := replace(
        m, index=0, noun="change", how="previous_turn")) != m.group() else value, text)  # "in the window of CHG…"
    return text, resolved


def _asked_back(content: str) -> bool:
    """The answer was a question back (its lead asks something), so its bullets are options to pick,
    not facts of an answer ("- Databricks incident … in Azure West Europe" is no option)."""
    lead = content.strip().split("\n\n", 1)[0]
    return "?" in lead


def picked_suggestion(question: str, history: Sequence[MessageData]) -> str | None:
    """After a question back: the one offered question that a short reply ("databricks", "the
    sales one") points at, or ``None`` when it points at none or at several."""
    answer = _last(history, "assistant")
    if answer is None or len(question.split()) > SHORT or not _asked_back(answer.content):
        return None
    keys = [word.lower() for word in WORD.findall(question) if word.lower() not in STOPWORDS and len(word) > 2]
    offered = [item.strip() for item in SUGGESTION.findall(answer.content)]
    matching = [item for item in offered if keys and any(re.search(rf"(?<![a-z0-9]){re.escape(key)}", item.lower())
                                                           for key in keys)]
    return matching[0] if len(matching) == 1 else None


SHIFT = re.compile(
    r"\b(?:the\s+)?(?:(?P<count>\d+|one|two|three|four|five|six|seven)\s*)?(?P<unit>hours?|days?|weeks?)\s+"
    r"(?:before|prior to|preceding)(?:\s+(?:that|then|it|this)\b|\s*[?.!]*\s*$)"
    r"|\bthe\s+(?:previous|prior|preceding)\s+(?:(?P<count2>\d+)\s*)?(?P<unit2>hours?|days?|weeks?|day|week)\b",
    re.IGNORECASE)
"""A window just before the previous one: "and the 24 hours before that?", "what about the previous week?"."""
UNIT_HOURS = {"hour": 1, "day": 24, "week": 168}
COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def _shifted(fragment: str, old: TimeMention) -> str | None:
    """The window right before ``old``, as an exact range, when the fragment asks for one."""
    match = SHIFT.search(fragment)
    if match is None:
        return None
    count, unit = match.group("count") or match.group("count2"), match.group("unit") or match.group("unit2")
    amount = int(count) if count and count.isdigit() else COUNT_WORDS.get((count or "").lower(), 0)
    length = timedelta(hours=amount * UNIT_HOURS[unit.lower().rstrip("s")]) if amount else old.end - old.start
    start = old.start - length
    return f"from {start:%Y-%m-%dT%H:%MZ} to {old.start:%Y-%m-%dT%H:%MZ}"


def _is_follow_up(question: str, now: datetime, inventory: InventorySnapshot) -> bool:
    if LEAD.match(question) or SHIFT.search(question):
        return True
    words = question.split()
    return len(words) <= SHORT and not VERB.search(question) and bool(
        list(find_times(question, now)) or find_filters(question)
        or any(item.kind in SLOT_KINDS for item in find_entities(question, inventory)))


def rewrite_follow_up(question: str, history: Sequence[MessageData], now: datetime,
                      inventory: InventorySnapshot) -> tuple[str, FollowUp] | None:
    """The previous question with the new values of this short follow-up in place of the old ones."""
    previous = _last(history, "user")
    if previous is None:
        return None
    suggestion = None if SHIFT.search(question) else picked_suggestion(question, history)
    if suggestion is not None:
        return suggestion, FollowUp(previous_question=previous.content, changed=[f"picked: {suggestion}"])
    if not _is_follow_up(question, now, inventory):
        return None
    fragment = LEAD.sub("", question, count=1).strip(" ?.!")
    text, changed = previous.content.rstrip(" ?.!"), []
    new_times, old_times = list(find_times(fragment, now)), list(find_times(text, now))
    shifted = _shifted(fragment, old_times[0]) if old_times else None
    if shifted:
        text = text.replace(old_times[0].text, shifted, 1)
        changed.append(f"time window: {shifted} (just before {old_times[0].text})")
    elif new_times:
        phrase = new_times[0].text
        text = text.replace(old_times[0].text, phrase, 1) if old_times else f"{text} {phrase}"
        changed.append(f"time window: {phrase}")
    old_entities, new_entities, new_filters = find_entities(text, inventory), find_entities(fragment, inventory), \
        find_filters(fragment)
    for item in new_entities:
        if item.kind not in SLOT_KINDS:
            continue
        same = next((old for old in old_entities if old.kind == item.kind), None)
        text = text.replace(same.text, item.value, 1) if same else f"{text} ({item.value})"
        changed.append(f"{item.kind.replace('_', ' ')}: {item.value}")
    old_filters = find_filters(text)
    for item in new_filters:
        same = next((old for old in old_filters if old.field == item.field), None)
        if same is not None:  # "and P2?" after "open P1 incidents": the P2s instead
            text = text[:same.span.start] + item.text + text[same.span.end:]
            old_filters = find_filters(text)
            changed.append(f"{item.field.replace('_', ' ')}: {item.text}")
        else:
            text = f"{text}, only {item.text}"
            changed.append(f"only {item.text}")
    if not changed or not shifted and _unsubstituted(fragment, [*new_times, *new_entities, *new_filters]):
        return None  # "and which of those has been open the longest?" says more than a new value: not a substitution
    return f"{text}?", FollowUp(previous_question=previous.content, changed=changed)


CONTENT_WORD = re.compile(r"[a-z0-9][a-z0-9_'-]+", re.IGNORECASE)
META_WORDS = frozenset("question thing things but instead again too also then ask same pls plz please thanks thx ok "
                       "okay".split())
"""Words that say "the same again" ("same question but for yesterday pls"), not what to ask."""


def _unsubstituted(fragment: str, found: Sequence[TimeMention | EntityMention | FilterMention]) -> list[str]:
    """The fragment's words that are not a window, a name or a filter ``found`` in it (nor a small word): a
    follow-up is rewritten only when it is nothing but the new values."""
    return [match.group() for match in CONTENT_WORD.finditer(fragment)
            if match.group().lower() not in STOPWORDS | META_WORDS
            and not any(item.span.start <= match.start() < item.span.end for item in found)]
