"""The BM25 index over the same chunks as Chroma, plus a light paper catalog for filters.
Both are derived from the Chroma collection and rebuilt by `rag ingest`, never per query."""

import hashlib
import json
import re
import shutil
from pathlib import Path

from rag.errors import StoreError
from rag.models import Paper
from rag.sentences import coined_names, folded, letter_words, name_tokens, title_name

MANIFEST, CHUNK_IDS, CATALOG, NAMES, ABBREVIATIONS = (
    "manifest.json",
    "chunk_ids.json",
    "papers.jsonl",
    "names.json",
    "abbreviations.json",
)
FORMAT = 8  # 2: names.json, 3: coined names, 4: introduced acronyms ("(BIT)"), 5: the corpus's
# abbreviations ("PINNs"), 6: with an ampersand ("G&C"), 7: names with one, 8: words without
# accents ("Hölder" as "holder"); a new format rebuilds the index on the next ingest


def fingerprint(paper_hashes: dict[str, str]) -> str:
    """Identifies the exact set of indexed paper versions."""
    joined = "\n".join([f"format {FORMAT}", *(f"{p}:{h}" for p, h in sorted(paper_hashes.items()))])
    return hashlib.sha256(joined.encode()).hexdigest()[:16]


def lexical_text(document: str, metadata: dict) -> str:
    """What BM25 sees: the chunk plus the paper's authors, area, venue and keywords (so names
    and tags match)."""
    extra = [
        *(metadata.get("authors") or []),
        metadata.get("area"),
        metadata.get("subarea"),
        metadata.get("venue"),
        *(metadata.get("keywords") or []),
    ]
    return document + "\n" + " ".join(part for part in extra if part)


def tokenize(texts: list[str]) -> list[list[str]]:
    import bm25s
    import Stemmer

    return bm25s.tokenize(
        [folded(text) for text in texts],  # "Hölder" as "holder"
        stemmer=Stemmer.Stemmer("english"),
        return_ids=False,
        show_progress=False,
    )


def read_manifest(directory: Path) -> dict:
    try:
        return json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}


def build(
    directory: Path,
    rows: list[tuple[str, str, dict]],
    papers: list[Paper],
    paper_hashes: dict[str, str],
) -> None:
    """Write the BM25 index and catalog for (chunk_id, document, metadata) rows, atomically:
    built beside the old one, then swapped in."""
    import bm25s

    staging = directory.with_name(directory.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    if rows:
        model = bm25s.BM25()
        model.index(
            tokenize([lexical_text(doc, meta) for _, doc, meta in rows]), show_progress=False
        )
        model.save(str(staging), show_progress=False)
    (staging / CHUNK_IDS).write_text(json.dumps([chunk_id for chunk_id, _, _ in rows]))
    with (staging / CATALOG).open("w") as catalog:
        for paper in papers:
            catalog.write(paper.model_dump_json(exclude={"abstract"}) + "\n")
    (staging / NAMES).write_text(json.dumps(method_names(papers)))
    (staging / ABBREVIATIONS).write_text(json.dumps(abbreviations(papers)))
    (staging / MANIFEST).write_text(
        json.dumps(
            {"fingerprint": fingerprint(paper_hashes), "chunks": len(rows), "papers": len(papers)}
        )
    )
    retired = directory.with_name(directory.name + ".old")
    shutil.rmtree(retired, ignore_errors=True)
    if directory.exists():
        directory.rename(retired)
    staging.rename(directory)
    shutil.rmtree(retired, ignore_errors=True)


# A short acronym the abstract introduces as its own: "we introduce an end-to-end BraIn-to-Text
# (BIT) framework" (not a field it abbreviates: "class-incremental learning (CIL)"). Within 60
# characters of the verb, read on the seeds: BIT and HTI are 35-50 away, while "we propose a
# QNN model ... the universal approximation property (UAP)" (a property, not a name) is 95.
INTRODUCED = re.compile(
    r"\b(?:propos|introduc|present|develop|call|dub|coin|term)\w*\b[^.()]{0,60}\(([A-Z]{3,}s?)\)"
)


# A name joined by "&" an abstract defines: "Guess & Check (G&C)".
JOINED = re.compile(r"\(([A-Z]+(?:&[A-Z]+)+)\)")


# An abbreviation an abstract defines: "physics-informed neural networks (PINNs)".
DEFINED = re.compile(r"\(([A-Z][A-Za-z&]*[A-Z])(s?)\)")  # "(PINNs)", "(G&C)"


def long_form(before: str, letters: str) -> str | None:
    """The words just before an abbreviation whose initials spell it, lower case
    ("... and physics-informed neural networks", "pinn" -> "physics informed neural
    networks"); None when they do not."""
    words = re.findall(r"[A-Za-z]+", before.split("(")[-1])[-2 * len(letters) :]
    for start in range(len(words) - 1, -1, -1):
        if "".join(w[0] for w in words[start:]).lower() == letters:
            return " ".join(words[start:]).lower()
    return None


def abbreviations(papers: list[Paper]) -> dict[str, str]:
    """The abbreviations the corpus's abstracts define, each with its words: {"pinn":
    "physics informed neural networks", "fl": "federated learning"}; one defined two ways is
    left out."""
    found: dict[str, set[str]] = {}
    for paper in papers:
        for match in DEFINED.finditer(paper.abstract):
            letters = match.group(1).lower()
            if words := long_form(paper.abstract[: match.start()], letters.replace("&", "")):
                found.setdefault(letters, set()).add(words)
    return {short: words.pop() for short, words in sorted(found.items()) if len(words) == 1}


def spelled_in(text: str, words: str) -> bool:
    """Whether the text uses the words, hyphens or not ("physics-informed neural network")."""
    return words in " ".join(letter_words(text))


def method_names(papers: list[Paper]) -> dict[str, list[str]]:
    """Names a question may call a paper by: the name its title starts with ('AnaCP: ...'),
    and name-like words of its title and abstract ('DeltaZero') or names its abstract coins
    ('Warm-Stagger', '(G&C)') that no other paper uses."""
    names: dict[str, set[str]] = {}
    for paper in papers:
        own = name_tokens(f"{paper.title} {paper.abstract}") | coined_names(paper.abstract)
        for name in own | set(JOINED.findall(paper.abstract)):
            names.setdefault(name, set()).add(paper.paper_id)
    short = {name for paper in papers for name in INTRODUCED.findall(paper.abstract)} - set(names)
    for name in short:  # "(BIT)": short, so the paper's own only if no other paper uses it
        used = re.compile(rf"\b{name}\b")
        names[name] = {p.paper_id for p in papers if used.search(f"{p.title} {p.abstract}")}
    for short, words in abbreviations(papers).items():  # "PINNs": theirs too who spell it out
        for name in [n for n in names if n.lower().removesuffix("s") == short]:
            names[name] |= {p.paper_id for p in papers if spelled_in(p.abstract, words)}
    distinctive = {name: pids for name, pids in names.items() if len(pids) == 1}
    for paper in papers:
        if name := title_name(paper.title):
            distinctive[name] = names.get(name, set()) | {paper.paper_id}
    return {name: sorted(pids) for name, pids in sorted(distinctive.items())}


class BM25Index:
    """A loaded BM25 index: chunk-level search with an optional per-chunk mask."""

    def __init__(self, directory: Path):
        if not (directory / MANIFEST).is_file():
            raise StoreError(f"No BM25 index in {directory}; run `rag ingest` first.")
        self.directory = directory
        self.fingerprint = read_manifest(directory).get("fingerprint")
        try:
            self._load(directory)
        except Exception as error:  # noqa: BLE001 - any unreadable file: one clear message
            raise StoreError(
                f"The BM25 index in {directory} is damaged ({type(error).__name__}: "
                f"{str(error)[:120]}); run `rag doctor --repair` (or `rag ingest`)."
            ) from None

    def _load(self, directory: Path) -> None:
        self.chunk_ids: list[str] = json.loads((directory / CHUNK_IDS).read_text())
        self.papers = [
            Paper(abstract="", **json.loads(line))
            for line in (directory / CATALOG).read_text().splitlines()
        ]
        names = directory / NAMES
        self.names: dict[str, list[str]] = json.loads(names.read_text()) if names.is_file() else {}
        defined = directory / ABBREVIATIONS
        self.abbreviations: dict[str, str] = (
            json.loads(defined.read_text()) if defined.is_file() else {}
        )
        self.model = None
        if self.chunk_ids:
            import bm25s

            self.model = bm25s.BM25.load(str(directory))
            if self.model.scores["num_docs"] != len(self.chunk_ids):
                raise ValueError(
                    f"{self.model.scores['num_docs']} documents, not {len(self.chunk_ids)}"
                )
        self.vocabulary = set(self.model.vocab_dict) if self.model else set()  # stemmed words

    def document_frequencies(self, words: set[str]) -> dict[str, int]:
        """How many chunks use each stemmed word (0 for a word the corpus never uses)."""
        if self.model is None:
            return dict.fromkeys(words, 0)
        vocabulary, indptr = self.model.vocab_dict, self.model.scores["indptr"]
        last = len(self.model.scores["data"])  # where the last column ends

        def count(column: int) -> int:
            end = indptr[column + 1] if column + 1 < len(indptr) else last
            return int(end - indptr[column])

        return {w: count(vocabulary[w]) if w in vocabulary else 0 for w in words}

    def outdated(self) -> bool:
        """Whether an ingest has rebuilt the index on disk since this one was loaded."""
        return read_manifest(self.directory).get("fingerprint") != self.fingerprint

    def search(self, query: str, n: int, mask=None) -> list[tuple[str, float]]:
        """Up to n (chunk_id, score) pairs with a positive score, best first."""
        if self.model is None:
            return []
        tokens = tokenize([query])
        results, scores = self.model.retrieve(
            tokens, k=min(n, len(self.chunk_ids)), weight_mask=mask, show_progress=False
        )
        return [(self.chunk_ids[i], float(s)) for i, s in zip(results[0], scores[0]) if s > 0]
