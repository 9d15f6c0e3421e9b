"""Questions the embedder cannot read. The bundled MiniLM was trained on English: a French or a
Chinese question retrieves near-random papers, so it gets "please ask in English", not a refusal
dressed as "the corpus does not answer this"."""

import re

ENGLISH = set(
    """a an the of in on for to with and or is are was were be do does did what which who how why
when where there this that these those any papers paper about by from can could than study use
uses using propose proposes""".split()
)
# Common words of languages a user might try instead (French, Spanish, German, Italian,
# Portuguese, Dutch) that are not English words.
FOREIGN = set(
    """le la les des du une est sont quels quelles quel quelle qui quoi comment pourquoi dans
avec pour sur cette ces aux el los las qué que cuál cuáles cómo por para con una según der die
das und ist sind welche welcher wie warum mit für auf nicht ein eine il di che sono quali
delle degli per uma são quais como het een zijn welke hoe artikel articles artículos papiere
studien""".split()
)
LETTER = re.compile(r"[^\W\d_]")


def not_english(question: str, max_non_latin_share: float) -> bool:
    """True when the question is clearly not English: mostly non-Latin letters (Chinese,
    Cyrillic, ...), or Latin-script words with no English function word and a foreign one."""
    letters = LETTER.findall(question)
    if not letters:
        return False
    non_latin = sum(ord(c) > 0x24F for c in letters)
    if non_latin / len(letters) > max_non_latin_share:  # AnswerTuning.non_latin_share
        return True
    words = {w.strip("'’").lower() for w in re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", question)}
    words |= {part for w in words for part in re.split(r"['’]", w)}
    return len(words) >= 3 and not words & ENGLISH and bool(words & FOREIGN)


ENGLISH_ONLY = (
    "Please ask in English: the embedding model that finds papers only understands English, "
    "so a question in another language cannot be matched to the abstracts."
)
