"""Citation markers: parse every form the models write, keep only numbers that name a
retrieved source, renumber by first use, and render the text and references."""

import re
from collections.abc import Sequence

from rag.models import AnswerSentence, Citation, Source, normalize_text
from rag.sentences import split_sentences
from rag.text import MARKER, defang

MAX_RANGE = 20
MAX_DIGITS = 6  # longer numbers are never a source: not converted (a 5,000-digit int is slow)
BRACKETS = str.maketrans("[]【】", "()()")
HIDDEN = ("\ue000", "\ue001")  # private-use characters around a hidden title's number
HIDDEN_TITLE = re.compile(f"{HIDDEN[0]}(\\d+){HIDDEN[1]}")
TITLE_SYNTAX = re.compile(r"[\[\]【】]|[.!?]\s")  # what citation parsing would read in a title


def as_number(digits: str) -> int:
    return int(digits) if len(digits) <= MAX_DIGITS else 10**MAX_DIGITS


def marker_numbers(inner: str) -> list[int]:
    """The numbers inside one marker; ranges like 1-3 expand (bounded)."""
    numbers = []
    for part in re.split(r"\s*(?:,|;|and|&)\s*", inner, flags=re.IGNORECASE):
        part = re.sub(r"(?i)sources?|refs?", "", part).strip()
        if bounds := re.fullmatch(r"(\d+)\s*[–-]\s*(\d+)", part):
            low, high = as_number(bounds.group(1)), as_number(bounds.group(2))
            numbers += list(range(low, min(high, low + MAX_RANGE) + 1)) if low <= high else []
        elif part.isdigit():
            numbers.append(as_number(part))
    return numbers


def parse_sentence(sentence: str, n_sources: int) -> tuple[AnswerSentence, int]:
    """A sentence without its markers, its valid source numbers (1-based, prompt order),
    and how many cited numbers were not retrieved sources."""
    cited, dropped = [], 0
    for match in MARKER.finditer(sentence):
        for number in marker_numbers(match.group(1)):
            if 1 <= number <= n_sources:
                cited.append(number) if number not in cited else None
            else:
                dropped += 1
    text = MARKER.sub("", sentence)
    # Removing "[2]" from "[[2]3]" leaves a marker nobody checked, and a sentence ending in
    # "[" can form one with the next: so the only brackets left in an answer are ours.
    dropped += sum(len(marker_numbers(inner)) for inner in MARKER.findall(text))
    parsed = AnswerSentence(text=plain(text), citations=cited)
    parsed.parts = cited_parts(sentence, n_sources) if len(cited) > 1 else []
    return parsed, dropped


def plain(text: str) -> str:
    """Text without brackets, its spaces collapsed and none before punctuation."""
    text = " ".join(text.translate(BRACKETS).split())  # collapse first: `\s+[.]` is quadratic
    return re.sub(r" ([.,;:!?])", r"\1", text)


def cited_parts(sentence: str, n_sources: int) -> list[tuple[str, list[int]]]:
    """The sentence's clauses, each with the valid numbers of the markers that close it ("A uses
    X [1], while B uses Y [2]." is ("A uses X", [1]), (", while B uses Y.", [2]); text after the
    last marker joins the clause before it). Empty when one run of markers closes it all."""
    runs = list(re.finditer(rf"(?:{MARKER.pattern}\s*)+", sentence, flags=re.IGNORECASE))
    parts, start = [], 0
    for run in runs:
        numbers = [
            n
            for inner in MARKER.findall(run.group())
            for n in marker_numbers(inner)
            if 1 <= n <= n_sources
        ]
        if numbers:
            parts.append([sentence[start : run.start()], list(dict.fromkeys(numbers))])
            start = run.end()
    if len(parts) < 2:
        return []
    parts[-1][0] += sentence[start:]
    return [(plain(MARKER.sub("", text)), numbers) for text, numbers in parts]


def hide_titles(raw: str, titles: Sequence[str]) -> tuple[str, list[str]]:
    """The text with each title that holds brackets or a full stop (as written, or with its
    markers in parentheses as the prompt shows it) replaced by a placeholder holding neither,
    so a title's "[1]" is never taken for a citation nor its "." for a sentence's end; and the
    hidden text, by placeholder number."""
    raw = raw.replace(HIDDEN[0], "").replace(HIDDEN[1], "")
    marked = [title for title in titles if TITLE_SYNTAX.search(title)]
    prompt_forms = {defang(title).casefold(): title for title in marked}
    forms = {*marked, *(defang(title) for title in marked)}
    if not forms:
        return raw, []
    hidden: list[str] = []

    def hide(match: re.Match) -> str:
        written = match.group()  # as written, unless it is a title as the prompt showed it
        hidden.append(prompt_forms.get(written.casefold(), written))
        return f"{HIDDEN[0]}{len(hidden) - 1}{HIDDEN[1]}"

    longest_first = sorted(forms, key=len, reverse=True)  # a title inside another
    pattern = "|".join(re.escape(form) for form in longest_first)
    return re.sub(pattern, hide, raw, flags=re.IGNORECASE), hidden


def show_titles(text: str, hidden: list[str]) -> str:
    return HIDDEN_TITLE.sub(lambda match: hidden[int(match.group(1))], text) if hidden else text


def parse_answer(
    raw: str, n_sources: int, titles: Sequence[str] = ()
) -> tuple[list[AnswerSentence], int]:
    """The answer's sentences with their valid citations, and how many cited numbers were not
    retrieved sources. The sources' `titles` are text: markers inside them are not citations."""
    sentences, dropped = [], 0
    raw, hidden = hide_titles(raw, titles)
    for piece in split_sentences(raw):
        sentence, lost = parse_sentence(piece, n_sources)
        sentence.text = show_titles(sentence.text, hidden)
        sentence.parts = [(show_titles(text, hidden), cited) for text, cited in sentence.parts]
        dropped += lost
        if sentence.text or sentence.citations:
            if not sentence.text and sentences:  # a bare marker line belongs to the sentence before
                sentences[-1].citations += [
                    c for c in sentence.citations if c not in sentences[-1].citations
                ]
            elif sentence.text:
                sentences.append(sentence)
    return drop_repeats(sentences, titles), dropped


CLAUSE = re.compile(r"(?<=[,;])\s+")


def drop_repeats(
    sentences: list[AnswerSentence], titles: Sequence[str] = ()
) -> list[AnswerSentence]:
    """Without repeated sentences and repeated clauses (small models loop), and without a bare
    sentence S that a source's title also leads ("Title: S"; two titles leading the same S are
    two papers' lines): a repeat's citations join the first occurrence."""
    kept: list[AnswerSentence] = []
    first: dict[tuple[str, str], AnswerSentence] = {}  # (S, its title lead or "") -> sentence
    leads = [normalize_text(title) + ":" for title in titles]
    for sentence in sentences:
        clauses, seen = [], set()
        for clause in CLAUSE.split(sentence.text):
            key = normalize_text(clause).strip(" ,;.")
            if key not in seen:
                seen.add(key)
                clauses.append(clause)
        text = " ".join(clauses)
        if text != sentence.text:
            text = text.rstrip(",;") + (
                "." if not text.rstrip(",;").endswith((".", "!", "?")) else ""
            )
        key = normalize_text(text)
        lead = next((lead for lead in leads if key.startswith(lead)), "")
        key = key[len(lead) :].strip(" .!?")
        if lead:  # the same title's line again, or a bare S said before
            earlier = first.get((key, lead)) or first.get((key, ""))
        else:  # S said before, bare or led by a title
            earlier = next((s for (said, _), s in first.items() if said == key), None)
        if earlier:
            earlier.citations += [c for c in sentence.citations if c not in earlier.citations]
            continue
        sentence.text = text
        first[(key, lead)] = sentence
        kept.append(sentence)
    return kept


def cite_named_titles(sentences: list[AnswerSentence], sources: list[Source]) -> None:
    """A sentence that names a source's title gets that source's marker."""
    titles = [(number, normalize_text(s.paper.title)) for number, s in enumerate(sources, 1)]
    for sentence in sentences:
        lowered = normalize_text(sentence.text)
        for number, title in titles:
            if len(title) >= 12 and title in lowered and number not in sentence.citations:
                sentence.citations.append(number)


def renumber(sentences: list[AnswerSentence], sources: list[Source]) -> list[Citation]:
    """Renumber citations 1..n in order of first use (in place) and return them."""
    order: dict[int, int] = {}
    for sentence in sentences:
        for number in sentence.citations:
            order.setdefault(number, len(order) + 1)
        sentence.citations = [order[n] for n in sentence.citations]
        sentence.parts = [
            (t, [order[n] for n in cited if n in order]) for t, cited in sentence.parts
        ]
    citations = []
    for prompt_number, number in order.items():
        paper = sources[prompt_number - 1].paper
        citations.append(
            Citation(
                number=number,
                paper_id=paper.paper_id,
                title=paper.title,
                authors=paper.authors,
                venue=paper.venue,
                url=paper.url,
            )
        )
    return citations


def render(sentences: list[AnswerSentence], separator: str = " ") -> str:
    """The answer text with canonical markers placed before each sentence's final stop."""
    rendered = []
    for sentence in sentences:
        markers = "".join(f"[{n}]" for n in sentence.citations)
        text = sentence.text
        if markers:
            stop = text[-1] if text[-1:] in ".!?:" else ""
            text = f"{text[: len(text) - len(stop)].rstrip()} {markers}{stop}"
        rendered.append(text)
    return separator.join(rendered)
