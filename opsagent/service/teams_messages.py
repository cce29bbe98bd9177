"""What OpsAgent sends into a Teams conversation: answers cut to fit Teams' message size."""

from __future__ import annotations

from microsoft_agents.hosting.core import TurnContext


TEAMS_MESSAGE_LIMIT = 20_000
"""Characters per message we send: Teams refuses activities over about 28 KB, and answers with
several tool tables can be longer."""


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


async def send_answer(context: TurnContext, text: str) -> None:
    for part in split_message(text, TEAMS_MESSAGE_LIMIT):
        await context.send_activity(part)
