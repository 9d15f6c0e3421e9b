"""How far a long step (an ingest) is: done of total, the rate and the time left, as a bar on a
terminal, as text lines in a log, or as JSON lines for programs (`rag ingest --json`)."""

import json
import sys
import time
from abc import ABC, abstractmethod
from typing import Self, TextIO

LINE_EVERY_S = {"text": 10.0, "json": 2.0}  # how often a line is written while a step runs


class Progress(ABC):
    """Counts units done out of `total`; `show` reports them. Use as a context manager."""

    def __init__(self, what: str, total: int, unit: str, stream: TextIO | None = None):
        self.what, self.total, self.unit = what, total, unit
        self.stream = stream or sys.stderr
        self.done, self.started, self.shown_at = 0, time.monotonic(), 0.0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def advance(self, units: int) -> None:
        self.done += units
        if self.done < self.total:  # the last units are reported by close()
            self.show(final=False)

    def close(self) -> None:
        self.show(final=True)

    @abstractmethod
    def show(self, final: bool) -> None:
        """Report the current count (every call, or only when due; always when final)."""

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    def rate(self) -> float:
        """Units per second so far."""
        return self.done / max(self.elapsed_s(), 1e-9)

    def eta_s(self) -> float | None:
        """Seconds left at the rate so far (None before the first unit)."""
        return (self.total - self.done) / self.rate() if self.done else None

    def due(self, every_s: float, final: bool) -> bool:
        """Whether a line is due now (and note that one is written)."""
        now = time.monotonic()
        if not final and now - self.shown_at < every_s:
            return False
        self.shown_at = now
        return True


class NoProgress(Progress):
    def show(self, final: bool) -> None:
        pass


class BarProgress(Progress):
    """tqdm's bar: done/total, percent, elapsed, time left and rate on one redrawn line."""

    def __init__(self, what: str, total: int, unit: str, stream: TextIO | None = None):
        from tqdm import tqdm

        super().__init__(what, total, unit, stream)
        self.bar = tqdm(total=total, desc=what, unit=unit, file=self.stream, smoothing=0.1)

    def advance(self, units: int) -> None:
        self.done += units
        self.bar.update(units)

    def show(self, final: bool) -> None:
        if final:
            self.bar.close()


class TextProgress(Progress):
    """A line every LINE_EVERY_S["text"] seconds, for logs (a redrawn bar would be garbage)."""

    def show(self, final: bool) -> None:
        if not self.due(LINE_EVERY_S["text"], final):
            return
        eta = self.eta_s()
        left = "" if final or eta is None else f", ~{eta:.0f} s left"
        print(
            f"{self.what}: {self.done}/{self.total} {self.unit}s in {self.elapsed_s():.0f} s "
            f"({self.rate():.1f} {self.unit}s/s{left})",
            file=self.stream,
            flush=True,
        )


class JsonProgress(Progress):
    """One JSON object a line: {"progress", "done", "total", "unit", "elapsed_s", "rate",
    "eta_s", "final"}."""

    def show(self, final: bool) -> None:
        if not self.due(LINE_EVERY_S["json"], final):
            return
        eta = self.eta_s()
        line = {
            "progress": self.what,
            "done": self.done,
            "total": self.total,
            "unit": self.unit,
            "elapsed_s": round(self.elapsed_s(), 2),
            "rate": round(self.rate(), 2),
            "eta_s": None if eta is None else round(eta, 1),
            "final": final,
        }
        print(json.dumps(line), file=self.stream, flush=True)


PROGRESS_STYLES: dict[str, type[Progress]] = {
    "bar": BarProgress,
    "text": TextProgress,
    "json": JsonProgress,
    "none": NoProgress,
}


def progress_class(style: str, stream: TextIO | None = None) -> type[Progress]:
    """The reporter for a style; 'auto' is a bar on a terminal and text lines otherwise."""
    if style == "auto":
        style = "bar" if (stream or sys.stderr).isatty() else "text"
    if style not in PROGRESS_STYLES:
        raise ValueError(f"Unknown progress style '{style}'; choose {', '.join(PROGRESS_STYLES)}")
    return PROGRESS_STYLES[style]
