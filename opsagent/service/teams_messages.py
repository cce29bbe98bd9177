"""What OpsAgent sends into a Teams conversation: answers as cards, plain texts cut to fit a message."""

from __future__ import annotations

from microsoft_agents.activity import Activity, ActivityTypes, Attachment
from microsoft_agents.hosting.core import TurnContext

from opsagent.contracts.results import Answer
from opsagent.service.teams_cards import CARD_CONTENT_TYPE, CardMessage, card_message, has_card

TEAMS_MESSAGE_LIMIT = 20_000
"""Characters per text message we send: Teams refuses messages over roughly 100 KB counted as UTF-16
(80 KB recommended), and answers with several tool tables can be longer."""


def split_message(text: str, limit: int, separators: tuple[str, ...] = ("\n\n", "\n")) -> list[str]:
    """Chunks of at most ``limit`` characters, cut between paragraphs, else between lines, else anywhere."""
    if len(text) <= limit:
        return [text]
    if not separators:
        return [text[start:start + limit] for start in range(0, len(text), limit)]
    separator, finer = separators[0], separators[1:]
    chunks: list[str] = []
    current = ""
    for piece in text.split(separator):
        candidate = f"{current}{separator}{piece}" if current else piece
        if len(candidate) <= limit:
            current = candidate
            continue
        if current:
            chunks.append(current)
        pieces = split_message(piece, limit, finer)
        chunks.extend(pieces[:-1])
        current = pieces[-1]
    chunks.append(current)
    return chunks


def card_attachment(message: CardMessage) -> Attachment:
    return Attachment(content_type=CARD_CONTENT_TYPE, content=message.card)


def card_activity(message: CardMessage) -> Activity:
    """A message with the card and its plain-text fallback (``text``: shown with the card, or alone),
    labelled AI-generated as a streamed answer is."""
    activity = Activity(type=ActivityTypes.message, text=message.text, attachments=[card_attachment(message)])
    activity.add_ai_metadata()
    return activity


async def send_text(context: TurnContext, text: str) -> None:
    for part in split_message(text, TEAMS_MESSAGE_LIMIT):
        await context.send_activity(part)


async def send_answer(context: TurnContext, answer: Answer) -> None:
    """The answer as one card message, or (no facts or evidence to lay out) as plain text messages."""
    if has_card(answer):
        await context.send_activity(card_activity(card_message(answer)))
    else:
        await send_text(context, answer.text)
