"""The things a sentence names — datasets, benchmarks, models, methods, metrics (acronyms,
CamelCase and alphanumeric names, capitalised words inside a sentence, runs of capitalised words),
numbers and formulas — and which of them a text does not state. An answer sentence may name only
what its cited abstract (or the paper's metadata) states: "FIRE evaluates on MNIST" is checked as
a name, not as a meaning a similar sentence supports. `rag eval` counts the rest as "ungrounded
names"."""

import re

from rag.answer.citations import plain
from rag.answer.support import NOT_NAMES, unknown_names
from rag.figures import MATH, math_key, quantities
from rag.sentences import GENERIC, metadata_sentence

TOKEN = re.compile(r"(?<![\w$\\])[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*(?![\w$])")
# A sentence (or clause) starts here: its first word is capitalised for that reason alone.
OPENS = re.compile(r"(^|[.!?:;—–(\[\"“]\s*|\n\s*|\s-\s)$")
ACRONYM_PARTS = {"of", "and", "the", "for", "in", "on", "to", "a", "with", "via", "from"}
# "not only ... but also" denies nothing.
NEGATION = re.compile(r"\b(not(?! only\b)|no|never|nor|without|neither)\b|n't\b", re.IGNORECASE)


def is_name(token: str, opens: bool) -> bool:
    """Whether a word is a name: an acronym (MNIST, GNNs), CamelCase (ImageNet), letters with
    digits (ResNet-18, GPT-4, as typed: cifar-100), or a capitalised word inside a sentence
    (Atari)."""
    letters = re.sub(r"[^A-Za-z]", "", token)
    if len(letters) < 2 or token.lower() in GENERIC or token in NOT_NAMES:
        return False
    if sum(c.isupper() for c in letters) >= 2 or re.search(r"[a-z][A-Z]", token):
        return True
    if re.search(r"\d", token) and len(token) >= 4:
        return True
    return token[0].isupper() and not opens


def names_in(sentence: str) -> list[str]:
    """The single-word names of a sentence, in order."""
    return [
        m.group()
        for m in TOKEN.finditer(sentence)
        if is_name(m.group(), bool(OPENS.search(sentence[: m.start()])))
    ]


def compact(word: str) -> str:
    """A word as compared: lowercase letters and digits, a plural 's' dropped ("GNNs" is "gnn",
    "CIFAR-10" is "cifar10")."""
    key = re.sub(r"[^a-z0-9]", "", word.lower())
    return key[:-1] if len(key) > 3 and key.endswith("s") and not key.endswith("ss") else key


class Known:
    """What a text states, for looking names up: its words, joined neighbours ("CIFAR 10" states
    "CIFAR-10"), and the initials of its word runs ("large language models" states "LLMs")."""

    def __init__(self, text: str):
        words = re.findall(r"[A-Za-z0-9]+", text)
        keys = [compact(w) for w in words]
        self.words = set(keys)
        # the family a versioned name belongs to: "LLaMA3.2-8B" states "LLaMA", "ResNet50" "ResNet"
        self.families = {m.group(1) for k in keys if (m := re.match(r"([a-z]{2,})\d", k))}
        self.joined = {a + b for a, b in zip(keys, keys[1:])}
        self.joined |= {a + b + c for a, b, c in zip(keys, keys[1:], keys[2:])}
        content = [w.lower() for w in words if w.lower() not in ACRONYM_PARTS]
        self.initials = {
            "".join(w[0] for w in content[i : i + n])
            for n in range(2, 7)
            for i in range(len(content) - n + 1)
        }
        self.text, self.numbers = text, quantities(text)

    def states(self, name: str) -> bool:
        key = compact(name)
        parts = [compact(p) for p in re.split(r"[-.]", name) if p]
        return (
            key in self.words
            or key in self.joined
            or key in self.families
            or (bool(re.fullmatch(r"[A-Z]+s?", name)) and key in self.initials)
            or (len(parts) > 1 and all(p in self.words for p in parts))
        )


def ungrounded(sentence: str, sources, question: str = "", asserted: bool = True) -> list[str]:
    """The names, numbers and formulas of the sentence that neither the sources' abstracts and
    metadata nor the question state. With `asserted`, a name only the question gives counts
    unless the sentence denies it ("FIRE uses ImageNet" after "Does FIRE use ImageNet?" is no
    fact of FIRE's)."""
    text = " ".join(f"{metadata_sentence(s.paper)} {s.paper.abstract}" for s in sources)
    read_question = not asserted or NEGATION.search(sentence)
    known = Known(f"{text} {question}" if read_question else text)
    unknown = [name for name in names_in(sentence) if not known.states(name)]
    unknown += [name for name in unknown_names(sentence, sources) if not known.states(name)]
    unknown += sorted(quantities(sentence) - known.numbers)
    unknown += [f for f in MATH.findall(sentence) if math_key(f) not in math_key(known.text)]
    return list(dict.fromkeys(unknown))


def clauses(sentence) -> list[tuple[str, list[int]]]:
    """The sentence's clauses with the citations of each (`AnswerSentence.parts`) while they
    still make up its text and citations; else all of it with all its citations."""
    parts = sentence.parts
    numbers = {n for _, cited in parts for n in cited}
    whole = plain(" ".join(text for text, _ in parts))
    if parts and numbers == set(sentence.citations) and whole == sentence.text:
        return parts
    return [(sentence.text, sentence.citations)]


def unstated_by_cited(sentence, cited: dict, shown: list, question: str = "", asserted=True):
    """The names, numbers and formulas of an answer sentence that a paper it cites for them does
    not state (`ungrounded`), each clause read against each paper it cites: "HF-opt and RHF
    [1][2]" needs both papers to state both names, "A uses X [1], while B uses Y [2]" needs
    paper 1 to state X and paper 2 Y; the cited papers' titles name them all. `cited` maps
    citation numbers to sources; a sentence citing none is read against all `shown`."""
    unknown: list[str] = []
    for text, numbers in clauses(sentence):
        papers = [cited[n] for n in numbers if n in cited]
        titles = Known(" ".join(source.paper.title for source in papers))  # "A and B [1][2]"
        for group in [[paper] for paper in papers] or [shown]:
            unknown += [
                name
                for name in ungrounded(text, group, question, asserted)
                if not titles.states(name)
            ]
    return list(dict.fromkeys(unknown))


def names_something(sentence: str) -> bool:
    """Whether the sentence names a thing (what the ungrounded-names share is out of)."""
    return bool(names_in(sentence) or quantities(sentence) or MATH.search(sentence))
