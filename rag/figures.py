"""Figures in text: the numbers and formulas a sentence states, list numbering aside, and the
words next to them that say what they measure."""

import re

from rag.sentences import stem_list, stems

# A number on its own: the digits of a name ("CIFAR-10", "GPT-4", "L2") are the name's.
NUMBER = re.compile(r"(?<![A-Za-z\d])(?<![A-Za-z]-)\d+(?:[,'’]\d{3})*(?:\.\d+)?")
NUMBER_WORDS = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
# Figures in words other than counts, which answer "how much" ("half the population", "halves
# the memory", "twice as fast"; not "twice-differentiable", a name). Only where a figure is asked
# for: a model's "halves the memory" of an abstract's "50%" is no unknown number.
WORDED_FIGURES = {"half": "0.5", "halves": "0.5", "halved": "0.5", "twice": "2"}
MATH = re.compile(r"\$[^$]+\$|\\\(.+?\\\)")


# "(1) ... (2) ..." and "1) ... 2) ..." number the items of a list; "O(1)" is a figure.
ENUMERATION = re.compile(r"(?<![\w(])\(\d{1,2}\)|(?<![\w.(])\d{1,2}\)(?=\s)")


def in_digits(text: str, worded: bool = False) -> str:
    """The text with number words as digits ("three" is "3"; "half" is "0.5" when `worded`)
    and list numbering removed."""
    text = ENUMERATION.sub(" ", text)
    if worded:
        text = re.sub(
            r"\b(" + "|".join(WORDED_FIGURES) + r")\b(?!-)",
            lambda m: WORDED_FIGURES[m.group(1).lower()],
            text,
            flags=re.IGNORECASE,
        )
    return re.sub(
        r"\b(" + "|".join(NUMBER_WORDS) + r")\b",
        lambda m: str(NUMBER_WORDS.index(m.group(1).lower()) + 2),
        text,
        flags=re.IGNORECASE,
    )


def quantities(text: str, worded: bool = False) -> set[str]:
    """The numbers a text states, digits or words ("three" is "3", "1,000" is "1000"; "one" is
    too often not a number to count; "(1)" numbering a list item is not a number)."""
    return {number_key(number) for number in NUMBER.findall(in_digits(text, worded))}


def number_key(number: str) -> str:
    """A number as compared: without thousands separators ("1,000" is "1000")."""
    return re.sub(r"[,'’]", "", number)


# What a figure measures: the CONTEXT_WORDS content words on each side of it, within
# CONTEXT_CHARS, other than its paper's title words. How the text is read, not a decision:
# "a learning rate of 0.1", "an iteration complexity of $O(n^2)$".
CONTEXT_CHARS, CONTEXT_WORDS = 40, 2


def figure_context(sentence: str, unknown: list[str], title: str, worded: bool = False) -> set[str]:
    """The content words next to the sentence's unknown figures: what they measure ("learning
    rate" in "a learning rate of 0.1", "iteration complexity" in "an iteration complexity of
    $O(n^2)$"), not the paper's name ("SAFA-SNN is 0.1")."""
    text, named = in_digits(sentence, worded), stems(title)
    spans = [m.span() for m in NUMBER.finditer(text) if number_key(m.group()) in unknown]
    spans += [m.span() for m in MATH.finditer(text) if m.group() in unknown]
    context: set[str] = set()
    for start, end in spans:
        before = stem_list(text[max(0, start - CONTEXT_CHARS) : start])
        after = stem_list(text[end : end + CONTEXT_CHARS])
        context |= set([w for w in before if w not in named][-CONTEXT_WORDS:])
        context |= set([w for w in after if w not in named][:CONTEXT_WORDS])
    return context


def math_key(formula: str) -> str:
    """A formula without its LaTeX commands, braces and spaces: "$\\mathcal{O}(\\sqrt{n})$" is
    "O(n)"."""
    return re.sub(r"\\[a-zA-Z]+|[{}\s$]|\\[()]", "", formula)


def states_figures(text: str, worded: bool = False) -> bool:
    """Whether the text gives a number or a formula (not just a symbol such as "$\\sigma$")."""
    return bool(quantities(text, worded)) or any(len(math_key(f)) > 3 for f in MATH.findall(text))


# "How many runs ...?", "On average, by how much ...?", "What speedup ...?", "X, and how many
# Y?": the answer is a figure (a question that only mentions one, "Which work shows how long
# ...", is not asking).
ASKS_FOR_FIGURE = re.compile(
    r"(?:\band|,)\s+how (?:many|much)\b"
    r"|^(?:[^,?]{0,40},\s*)?(?:(?:on|in|for|across|at|to|from|with|by) )?"
    r"(?:how (?:many|much|large|big|small|fast|long|often)|by how much|up to what|"
    r"what(?:'?s | (?:is |are |was )?)(?:the )?(?:[\w'’-]+ ){0,3}?(?P<measure>speedup|accuracy|"
    r"error rate|"
    r"percentage|gain|improvement|reduction|perplexity|learning rate|number of|proportion))\b",
    re.IGNORECASE,
)
# Measures a sentence stating them names ("a learning rate of 0.1", "95% accuracy"), each with
# the stem of its last word ("rate", not "learn"); a gain or a speedup is often stated otherwise
# ("2x faster", "outperforms by 5%").
NAMED_MEASURES = {
    measure: stems(measure.split()[-1])
    for measure in ("accuracy", "error rate", "perplexity", "learning rate")
}
MEASURES = set().union(*NAMED_MEASURES.values())
# "How much faster ...?" and "How much does ...?" count nothing a figure must be next to; "How
# much memory ...?" does.
UNCOUNTED = (
    "more|less|fewer|faster|slower|higher|lower|better|worse|larger|smaller|bigger|greater|"
    "longer|shorter|cheaper|stronger|weaker|quicker|tighter|sharper|does|do|did|is|are|was|were|"
    "can|has|have"
)
# "What accuracy gains ...": a gain in a measure, stated as a gain ("gains of 2.1% on ...").
GAIN_IN = re.compile(r"^\s*(?:gains?|improvements?|boosts?|increases?|drops?)\b", re.IGNORECASE)
COUNTED = re.compile(
    r"\bhow (?:many|much) (?!(?:" + UNCOUNTED + r")\b)((?:[\w-]+ ){0,3}?[\w-]+?)"
    r"(?:\s+(?:are|were|is|was|do|does|did|can|could|has|have|had|in|on|of|for|per|across|from|"
    r"at|to|with|by)\b|\s*\?|\s*$)",
    re.IGNORECASE,
)


def asked_figure(question: str) -> set[str] | None:
    """None when the question does not ask for a figure; otherwise what it counts, as stems
    ("How many participants were recorded?" counts {"particip"}, "What learning rate ...?"
    {"rate"}), empty when any figure can answer it ("How much faster ...?")."""
    asked = ASKS_FOR_FIGURE.search(question)
    if not asked:
        return None
    if counted := COUNTED.search(question):
        return stems(counted.group(1))
    if asked.group("measure") and GAIN_IN.match(question[asked.end() :]):
        return set()  # any figure: "gains of 2.1% on ImageNet-100"
    return set(NAMED_MEASURES.get((asked.group("measure") or "").lower(), set()))


# "BIT's word error rate on imagined speech", "what gain on ImageNet-100 does ...": what the
# figure is asked of, right after what it counts (not "how many runs did the study on optimizers
# do", which says which paper); words any figure sentence of an abstract is about aside.
SCOPED = re.compile(
    r"\s+(?:on|for|under|during)\s+(?P<scope>(?:[\w'’-]+\s*?){1,4}?)(?=\s+(?:does|do|did|is|are|"
    r"was|were|has|have|had|in|of|compared|than|specifically|exactly)\b|\s*[,?;.]|\s*$)",
    re.IGNORECASE,
)
ANY_SCOPE = stems(
    "experiment evaluation average benchmark dataset data task paper abstract work study method "
    "model setting test result specifically exactly approximately roughly overall total"
)


def figure_scope(question: str) -> set[str]:
    """The stems of what a figure question asks the figure of ("on imagined speech" ->
    {"imagin", "speech"}); empty when it asks for no figure or says no more than what it
    counts."""
    asked = ASKS_FOR_FIGURE.search(question)
    scoped = asked and SCOPED.match(question, asked.end())
    return stems(scoped.group("scope")) - ANY_SCOPE if scoped else set()


def of_scope(sentence: str, scope: set[str], title: str = "") -> bool:
    """Whether the sentence speaks of all of the scope, the paper's title words aside (a figure
    of BIT's attempted speech does not say how it does on imagined speech)."""
    return scope - stems(title) <= stems(sentence)


def figure_words(text: str, title: str = "") -> set[str]:
    """What the text's figures (worded ones too: "half the population") measure: the content
    words next to each of them."""
    figures = sorted(quantities(text, worded=True)) + MATH.findall(text)
    return figure_context(text, figures, title, worded=True)


def answers_figure(text: str, counted: set[str], title: str = "") -> bool:
    """Whether the text states a figure, next to a word of what is `counted` when that is
    given ("three EEG datasets" does not say how many participants), or, for a named measure,
    in a sentence that names it."""
    if not states_figures(text, worded=True):
        return False
    if not counted:  # any figure answers "How much faster ...?"
        return True
    if counted <= MEASURES:  # "reduces the word error rate (WER) ... from 24.69% to 10.22%"
        return counted <= stems(text)
    return bool(counted & figure_words(text, title))
