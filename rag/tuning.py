"""Every number a retrieval or answer decision compares against, with what it means and where it
was measured. Grouped under `Settings.retrieval` and `Settings.answer`
(`RAG_ANSWER__KEY_WORD_WEIGHT=0.1`); "the dev set" is eval/questions.jsonl, see eval/README.md."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


def tuned(default, description: str, **bounds):
    """A field whose description says what it decides and where it was chosen."""
    return Field(default, description=description, **bounds)


class RetrievalTuning(BaseModel):
    """How papers are found and ranked."""

    model_config = ConfigDict(extra="forbid")

    rrf_k: int = tuned(60, "Reciprocal-rank-fusion constant (higher = flatter).", ge=1)
    max_k: int = tuned(
        20,
        "Most papers retrieved per question (k above it is clamped with a notice): more only "
        "slows the answer down.",
        ge=1,
        le=50,
    )
    min_depth: int = tuned(50, "Fewest chunks each of dense and BM25 search returns.", ge=1)
    min_title_ratio: float = tuned(
        0.9,
        "A typed title names a paper when its key (lowercased words) matches the paper's with at "
        "least this difflib ratio; by hand, so that a typo or a dropped word still matches.",
        ge=0.0,
        le=1.0,
    )
    depth_per_k: int = tuned(10, "Chunks searched per paper wanted (depth = max(min, k x this)).")
    coverage_weight: float = tuned(
        0.2,
        "Answerability adds this times the share of the question's content words that the "
        "best-covering retrieved paper uses. Chosen with min_relevance on the dev set: at the same "
        "97.8% of answerable questions kept it declines 44% of unanswerable ones instead of 32%.",
    )
    described_margin: float = tuned(
        1.5,
        "'The model folding paper' names the paper whose best BM25 score for 'model folding' is "
        "at least this many times the next paper's; chosen on the dev set's 'the ... paper' "
        "phrases, where the right paper scores 1.6-16 times the next and wrong ones 1.0-1.1.",
        ge=1.0,
    )
    unknown_weight: float = tuned(
        0.2,
        "Answerability subtracts this times the share of the question's content words the corpus "
        "never uses ('Byzantine', 'MRI'); chosen with coverage_weight.",
    )


class AnswerTuning(BaseModel):
    """When an answer is given, what it may say, and when it declines."""

    model_config = ConfigDict(extra="forbid")

    decision: Literal["calibrated", "rules"] = tuned(
        "calibrated",
        "What decides whether the corpus answers and which papers a list holds. 'calibrated': "
        "the rules below (min_relevance, list_*) or the probability fitted on generated "
        "questions (rag/answer/decision.json), whichever accepts, except that a prose question "
        "the decision accepts no paper for is declined when the closest paper ignores its topic "
        "(ignored_share); lists consider list_depth papers. 'rules': the rules alone, on the top "
        "k.",
    )
    list_depth: int = tuned(
        50,
        "Papers a 'which papers' question considers (from dense and BM25 search), so that a "
        "list holds every paper the decision accepts, not the top k.",
        ge=1,
    )
    list_max_depth: int = tuned(
        800,
        "Deepest a list's search goes: while the deeper half of the candidates still holds "
        "papers the decision accepts, it searches four times as deep, up to this many papers.",
        ge=1,
    )
    premise_common_share: float = tuned(
        0.2,
        "'How does X use T ...?' ('train T', '... with T') is declined as a false premise "
        "(not_stated) when X's abstract uses less than half of T's informative words, weighed "
        "by rarity: those in at most this share of the corpus's chunks ('model', 'learning' "
        "say nothing). By reading, then checked on the dev set.",
        ge=0.0,
        le=1.0,
    )
    list_phrases: float = tuned(
        0.5,
        "A paper the calibrated decision adds to a list must have at least this share of the "
        "question's neighbouring topic words side by side ('continual learning', not "
        "'continuous ... learning'). 0.5 is the pair itself for a two-word topic; set by reading, "
        "then checked on d001-d120 and the dev set (it dropped 8 wrong papers from 'which papers "
        "study continual learning?' and no gold paper of either set).",
        ge=0.0,
        le=1.0,
    )
    list_sure: float = tuned(
        0.7,
        "A paper the decision gives at least this probability is listed without the question's "
        "words side by side when it uses each of them as written ('federated learning': "
        "'federated settings' ... 'learning'). Read off the dev set's list questions: at 0.8, 21 "
        "right papers and 6 wrong ones lacked the phrase, 5 of them 'continuous' for "
        "'continual', which the written words tell apart; on the 1651-question dev set, 0.7 "
        "lists 11 more right papers and 4 more wrong ones than 0.8 (list recall 0.846 -> 0.860, "
        "precision 0.957 -> 0.955), and 0.5-0.7 list the same.",
        ge=0.0,
        le=1.0,
    )
    list_rules_floor: float = tuned(
        0.02,
        "The rules add a top-k paper to a list only when the decision gives it at least this "
        "probability. Read off the dev set's list questions: below 0.02 the rules added 0 right "
        "papers and 13 wrong ones.",
        ge=0.0,
        le=1.0,
    )
    alternative_weight: float = tuned(
        0.3,
        "An alternative a question offers ('sharpness / flat minima', 'pricing or assortment') is "
        "a reading a paper may answer alone when its rarest topic word's idf is at least this "
        "share of the idf of a word no chunk uses: on the seeds, a word at most 24 of 126 chunks "
        "use ('sharpness', 'continual'), not 'train' (33), 'tasks' (29) or 'adapt' (36). Set by "
        "reading the dev set's list questions.",
        ge=0.0,
    )
    list_shown: int = tuned(30, "Most papers a list shows (it says how many there are).", ge=1)

    min_relevance: float = tuned(
        0.49,
        "Below this answerability score (the best cosine of question and chunk, + coverage_weight "
        "x the share of the question's words the best paper uses, - unknown_weight x the share the "
        "corpus never uses) the corpus is taken not to answer; chosen on the dev set.",
        ge=0.0,
        le=1.5,
    )
    support_threshold: float = tuned(
        0.45,
        "A sentence is supported by a cited abstract when its best sentence cosine reaches this; "
        "chosen on the dev set.",
        ge=0.0,
        le=1.0,
    )
    support_margin: float = tuned(
        0.1,
        "A sentence moves to (or gets) another paper's citation only when that paper's support "
        "beats the cited one's, and the threshold, by this cosine margin.",
    )
    min_claim_words: int = tuned(4, "Shorter sentences ('In summary:') need no citation.", ge=1)
    min_ungrounded_terms: int = tuned(
        2,
        "A sentence repeating this many of the question's terms that its paper never uses (and "
        "max_ungrounded_share of those it repeats) restates the question, unsupported.",
    )
    max_ungrounded_share: float = tuned(1 / 3, "See min_ungrounded_terms.")
    paraphrase_relevance: float = tuned(
        0.5,
        "A source this relevant (or the most relevant one) is what the question paraphrases: its "
        "wording need not appear in the abstract. On the dev set the grounding test withheld 7 "
        "right answers that restated a paraphrasing question about the best-matching paper.",
    )
    relevance_margin: float = tuned(
        0.1, "A source 'clearly leads' others when its relevance beats theirs by this."
    )
    overlooked_relevance: float = tuned(
        0.4,
        "A draft missed the paper the question describes when that paper's relevance is at least "
        "this and it clearly leads the others. Dev set: its answerable questions with a leader at "
        "0.40-0.50 all have the gold paper first (5), none of its unanswerable ones has such a "
        "leader. A comparison naming fewer than two papers compares the others this relevant "
        "(y001-y130: 5 of the 7 comparisons of described papers have both at 0.40 or more).",
    )
    key_word_weight: float = tuned(
        0.1,
        "A question word a paper never uses (stem absent from title and abstract) is the key word "
        "it ignores when it carries this share of the question's meaning (1 - cosine of the "
        "question with and without it). Dev set, the extractive answer's first cited paper: 0.1 "
        "flags 4 of 9 unanswerable questions it still answered and 1 of 181 answerable; 0.07 "
        "flags 6 and 6.",
    )
    ignored_share: float = tuned(
        0.15,
        "A prose question no paper is accepted for by the decision is declined when the closest "
        "retrieved paper never uses words carrying this share of its meaning (1 - cosine of the "
        "question with and without them) and the question without them is ignored_margin closer "
        "to the paper. Set by hand on the dev set (3851, t71-x), prose questions answered and naming "
        "no paper: it declines 3 of the 8 unanswerable ones still answered (off-corpus topics "
        "sharing words) and none of the answerable ones except a comparison, which it skips "
        "(0.10: 1 answerable; 0.20: 2 of the 8). A list only the rules would answer (the decision "
        "accepts none of its candidates) is declined the same way: on dev (4291, t82-x) 7 "
        "unanswerable lists declined, 2 answerable lost (each had found 1 of 5 gold papers).",
    )
    ignored_margin: float = tuned(
        0.05,
        "See ignored_share. Dev set: 0.03 also declines 1 answerable question (and 2 comparisons), "
        "0.0 two (and 2).",
    )
    list_coverage_weight: float = tuned(
        0.3,
        "A list candidate's score is its best sentence's cosine plus this times the share of the "
        "question's content words its title and abstract use. Dev set multi-paper questions, "
        "k=10: precision 0.89, recall 0.87 (0.85 / 0.46 when the local model chose).",
    )
    list_close_to_best: float = tuned(
        0.8, "Papers scoring at least this fraction of the best list candidate's score are listed."
    )
    list_min_similarity: float = tuned(
        0.3,
        "Never listed: a paper whose best sentence is further than this cosine from the question "
        "(on the dev set every gold paper shares a content word and passes it).",
    )
    condition_similarity: float = tuned(
        0.4,
        "A list condition ('... for autonomous driving') is met when the paper uses half its words "
        "or one of its sentences is this close. Dev set: every gold paper meets every condition "
        "(lowest 0.47); 3 of 5 unanswerable list questions' papers miss one (0.18-0.38).",
    )
    shown_relative_relevance: float = tuned(
        0.55,
        "The model is shown papers at least this fraction of the best one's relevance. Dev set "
        "(k=10): kept 114 of 115 gold papers while showing 3.1 papers instead of 5.",
    )
    max_shown: int = tuned(
        3,
        "Most papers shown to the model: a fourth held none of the dev set's 141 gold papers of "
        "answerable prose questions and made the longest prompts (~7 s to the first token).",
        ge=1,
    )
    suggestions: int = tuned(3, "Closest papers offered with a decline.", ge=0)
    suggestion_relevance: float = tuned(
        0.25,
        "The chat offers a declined question's closest papers only when at least this relevant "
        "(a source's relevance: the cosine of the question and its best chunk), so an off-topic "
        "question gets none. Dev set, top_k: 96% of the answerable questions' retrieved gold "
        "papers reach 0.25 (those that do not answer metadata questions such as 'Which "
        "abstracts include a GitHub link?'), and 91% of the unanswerable questions keep a "
        "suggestion; six off-topic questions written to check it reach 0.06-0.21 ('What is the "
        "best recipe for sourdough?' 0.12, 'Best hiking trails near Zurich?' 0.21).",
        ge=0.0,
        le=1.0,
    )
    extractive_papers: int = tuned(
        3, "Most papers the extractive answer cites (one for 'which paper ...').", ge=1
    )
    extractive_close_to_best: float = tuned(
        0.12, "Other papers join the extractive answer when their best sentence is this close."
    )
    extractive_min_similarity: float = tuned(
        0.3, "The extractive answer never cites a sentence further than this from the question."
    )
    fragment_words: int = tuned(
        6,
        "A question of at most this many words with no question word ('spectral bias', 'graph "
        "attacks defense?') is a search for the papers on it. By hand: a bare topic is 1-5 words; "
        "questions without a question word run longer.",
        ge=1,
    )
    follow_up_words: int = tuned(
        3,
        "A question of at most this many words continues the conversation even without a pronoun "
        "('What datasets?'). By hand, from the dev set's follow-ups.",
        ge=0,
    )
    non_latin_share: float = tuned(
        0.3,
        "A question whose letters are more than this share non-Latin (Chinese, Cyrillic, ...) is "
        "answered 'please ask in English': the embedder reads English only. By hand: English "
        "questions with a Greek formula stay well under it.",
        ge=0.0,
        le=1.0,
    )
    typo_min_length: int = tuned(
        4,
        "Only words of at least this many letters are corrected as typos: shorter ones match "
        "too many corpus words. Set by reading the as-typed question sets; 4 since 'lerning' "
        "(stem 'lern', 0.89 to 'learn') went uncorrected in the u set.",
        ge=1,
    )
    typo_similarity: float = tuned(
        0.8,
        "A word the corpus never uses is read as the corpus word it matches with at least this "
        "difflib ratio ('gradeint' -> 'gradient'); set with typo_min_length.",
        ge=0.0,
        le=1.0,
    )
    source_words: int = tuned(
        160,
        "Words of each passage shown to the model (the whole abstract for a named paper's "
        "summary): prompt length is latency on a CPU (~43-99 prompt tokens/s).",
        ge=20,
    )
    figure_first: float = tuned(
        1.0,
        "Added to the cosine of a sentence whose figure is next to a question word, so that a "
        "figure of what is asked comes first in the extractive answer.",
    )
