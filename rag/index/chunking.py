"""Split abstracts into chunks that fit the embedder's window, each prefixed by the title."""

from rag.index.embedder_base import Embedder
from rag.models import Chunk, Paper, chunk_id_for

MAX_TITLE_PIECES = 48  # a runaway title must not crowd out the abstract
FORMAT_VERSION = 3  # bump when the chunk text format changes, so ingest re-embeds everything


class Chunker:
    """Sentence-aware splitting (llama-index) measured in the embedder's own word pieces."""

    def __init__(self, embedder: Embedder, chunk_size: int, chunk_overlap: int):
        from llama_index.core.node_parser import SentenceSplitter

        self.embedder = embedder
        self.size = min(chunk_size, embedder.window - embedder.special_tokens)
        self.splitter = SentenceSplitter(
            chunk_size=self.size,
            chunk_overlap=min(chunk_overlap, self.size // 4),
            tokenizer=embedder.tokenize,
        )
        self.signature = (
            f"v{FORMAT_VERSION}/{embedder.name}/{self.size}/{self.splitter.chunk_overlap}"
        )

    def title_prefix(self, title: str) -> str:
        words = title.split()
        while len(self.embedder.tokenize(" ".join(words))) > MAX_TITLE_PIECES:
            words = words[:-1]
        clipped = " ".join(words)
        return (clipped if clipped == title.strip() else clipped + " …") + "\n"

    def chunks(self, paper: Paper) -> list[Chunk]:
        """The paper's chunks (ids from `chunk_id_for`), each text starting with the title (and the
        area line, when known)."""
        prefix = self.title_prefix(paper.title)
        if paper.area:
            prefix += " · ".join(filter(None, [paper.area, paper.subarea])) + "\n"
        bodies = self.splitter.split_text_metadata_aware(paper.abstract, metadata_str=prefix)
        return [
            Chunk(
                chunk_id=chunk_id_for(paper.paper_id, n),
                paper_id=paper.paper_id,
                index=n,
                text=prefix + body,
                body_start=len(prefix),
            )
            for n, body in enumerate(bodies)
        ]
